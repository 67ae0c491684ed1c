// galloc-dynalloc-chunk.h: one chunk's free blocks, in one of two forms (private to the dynamic allocator).
//
// The list form is upstream's array, in upstream's order, changed by upstream's
// scans (galloc-dynalloc-list.c): cheapest with few blocks, and the only form
// that follows upstream exactly in every state, including those a zero-byte
// release leaves (an empty block inside other memory, blocks that overlap,
// touch or leave offset order). The keyed form (galloc-dynalloc-keys.c) holds
// the same blocks in two ordered key sets, so that each operation costs
// O(log n) with any number of blocks; it holds only regular states: sizes > 0,
// offsets ascending, no two blocks touching, which is what every allocation,
// zero-byte ones included, and every release of a non-empty range keeps.
// galloc-dynalloc.c picks the form per chunk.

#pragma once

#include "galloc-keyset.h"

#include <stdbool.h>
#include <stdint.h>

struct galloc_free_block {
    uint64_t offset; // bytes from the chunk's start
    uint64_t size;   // bytes (0 only after a zero-byte release)
};

// upstream's free_blocks array, without its limit of 256
struct galloc_block_list {
    struct galloc_free_block * blocks;
    int32_t                    n;
    int32_t                    capacity;
};

// regular states only: every block by offset, and every block but the last by size
struct galloc_block_keys {
    struct keyset by_offset; // (offset, size) of every free block
    struct keyset by_size;   // (size, ~offset) of every free block but the last
};

// ---- list form (galloc-dynalloc-list.c) -----------------------------------------

void galloc_block_list_free(struct galloc_block_list * l);
// add a block at the end (for a new chunk and for a conversion in offset order); false when out of memory
bool galloc_block_list_push(struct galloc_block_list * l, uint64_t offset, uint64_t size);
// upstream's best fit among the inner blocks (all but the last): the smallest size >= size, the
// later block on equal sizes; -1 when none fits
int32_t galloc_block_list_best_inner(const struct galloc_block_list * l, uint64_t size);
// cut size bytes from the start of block i; an emptied block leaves the list
void galloc_block_list_take(struct galloc_block_list * l, int32_t i, uint64_t size);
// upstream's release: merge into the first block (in list order) that ends at offset or starts at
// offset + size, else insert a block before the first one not below offset; false when out of memory
bool galloc_block_list_release(struct galloc_block_list * l, uint64_t offset, uint64_t size);
// sizes > 0, offsets ascending, no two blocks touching: the states the keyed form holds
bool galloc_block_list_is_regular(const struct galloc_block_list * l);

// ---- keyed form (galloc-dynalloc-keys.c) ----------------------------------------

void galloc_block_keys_init (struct galloc_block_keys * k);
void galloc_block_keys_clear(struct galloc_block_keys * k);
void galloc_block_keys_free (struct galloc_block_keys * k);
static inline int64_t galloc_block_keys_count(const struct galloc_block_keys * k) {
    return k->by_offset.count;
}
// append a block above every block held, not touching the last; false when out of memory
bool galloc_block_keys_append(struct galloc_block_keys * k, uint64_t offset, uint64_t size);

enum galloc_keys_result {
    GALLOC_KEYS_DONE,
    GALLOC_KEYS_NONE,      // take_inner: no inner block fits
    GALLOC_KEYS_OOM,       // out of memory, nothing changed
    GALLOC_KEYS_IRREGULAR, // release: the result would not be regular (nothing changed): use the list form
};

// upstream's best fit among the inner blocks, cut by size bytes; *offset: where it started
enum galloc_keys_result galloc_block_keys_take_inner(struct galloc_block_keys * k, uint64_t size, uint64_t * offset);
// the last block (highest offset); false when there is none
bool galloc_block_keys_last(const struct galloc_block_keys * k, uint64_t * offset, uint64_t * size);
// cut size bytes (at most the block's) from the start of the last block
void galloc_block_keys_take_last(struct galloc_block_keys * k, uint64_t size);
// upstream's release, as it goes in a regular state
enum galloc_keys_result galloc_block_keys_release(struct galloc_block_keys * k, uint64_t offset, uint64_t size);
// the i-th block in offset order
struct galloc_free_block galloc_block_keys_at(const struct galloc_block_keys * k, int64_t i);
