// galloc-dynalloc-linear.h: the linear-scan dynamic allocator (private to galloc-dynalloc.c).
//
// Same rules as galloc-dynalloc.h; the state is plain arrays so that the tree
// allocator can convert itself into it.

#pragma once

#include "galloc-dynalloc.h"

struct linear_block {
    uint64_t offset; // bytes from the chunk's start
    uint64_t size;   // bytes
};

struct linear_chunk {
    struct linear_block * blocks;   // sorted by offset
    int32_t               n_blocks;
    int32_t               capacity; // entries allocated in blocks
    uint64_t              max_size; // highest end offset ever handed out
};

struct linear_dynalloc {
    uint64_t            alignment;
    uint64_t            max_chunk_size; // min(max_size, GALLOC_HUGE_SIZE)
    struct linear_chunk chunks[GALLOC_MAX_CHUNKS];
    int32_t             n_chunks;
};

void galloc_linear_dynalloc_init       (struct linear_dynalloc * alloc, uint64_t alignment, uint64_t max_chunk_size);
void galloc_linear_dynalloc_reset      (struct linear_dynalloc * alloc);
void galloc_linear_dynalloc_free_memory(struct linear_dynalloc * alloc);
// append a block at the end of a chunk's list (offsets must ascend); false when out of memory
bool galloc_linear_dynalloc_append     (struct linear_dynalloc * alloc, int32_t chunk, uint64_t offset, uint64_t size);
bool galloc_linear_dynalloc_alloc      (struct linear_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how);
bool galloc_linear_dynalloc_release    (struct linear_dynalloc * alloc, struct galloc_address addr, uint64_t size);
