// dynalloc-reference.h: upstream's dynamic allocator, transcribed loop for loop, as the tests' reference.
//
// ggml 0.21.0's ggml_dyn_tallocr (ggml-alloc.c) with its 256-block limit lifted: each chunk's
// free blocks in one array, every decision a linear scan in upstream's order. Test code only,
// never linked into the library, so the differential tests compare galloc_dynalloc (key sets and
// its own list form) with code it cannot share.

#pragma once

#include "galloc-dynalloc.h"

struct dynalloc_reference;

struct dynalloc_reference * dynalloc_reference_new (uint64_t alignment, uint64_t max_size);
void                        dynalloc_reference_free(struct dynalloc_reference * r);
// as galloc_dynalloc_alloc; how: which of upstream's three searches placed it
void dynalloc_reference_alloc  (struct dynalloc_reference * r, uint64_t size, struct galloc_address * addr, enum galloc_fit * how);
void dynalloc_reference_release(struct dynalloc_reference * r, struct galloc_address addr, uint64_t size);

int32_t  dynalloc_reference_n_chunks     (const struct dynalloc_reference * r);
uint64_t dynalloc_reference_chunk_size   (const struct dynalloc_reference * r, int32_t chunk);
int32_t  dynalloc_reference_n_free_blocks(const struct dynalloc_reference * r, int32_t chunk);
void     dynalloc_reference_free_block   (const struct dynalloc_reference * r, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size);
