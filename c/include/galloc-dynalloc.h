// galloc-dynalloc.h: the dynamic allocator of one buffer type (ggml's ggml_dyn_tallocr).
//
// Hands out byte ranges from up to GALLOC_MAX_CHUNKS chunks and takes them
// back, choosing blocks exactly as upstream ggml does (see alloc below), so
// that plans match byte for byte. Unlike upstream, a chunk may hold any
// number of free blocks. Sizes and offsets are 64-bit on every target, so a
// 32-bit WebAssembly build plans buffers past 4 GiB exactly.
//
// Example usage:
//
//   struct galloc_dynalloc * a = galloc_dynalloc_new(32, GALLOC_NO_MAX_SIZE);
//   struct galloc_address addr;
//   galloc_dynalloc_alloc(a, 100, &addr, NULL);    // chunk 0, offset 0, 128 bytes
//   galloc_dynalloc_release(a, addr, 100);
//   galloc_dynalloc_free(a);

#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_MAX_CHUNKS  16         // as ggml's GGML_VBUFFER_MAX_CHUNKS
#define GALLOC_NO_MAX_SIZE UINT64_MAX // a buffer type without a size limit (SIZE_MAX upstream)
#define GALLOC_HUGE_SIZE   (UINT64_MAX / 2) // size of the free block of the last (16th) chunk

struct galloc_dynalloc;

struct galloc_address {
    int32_t  chunk;  // index of the chunk (one backend buffer each)
    uint64_t offset; // bytes from the chunk's start
};

// which rule picked the block of an allocation
enum galloc_fit {
    GALLOC_FIT_BEST,       // best-fitting inner block (of the last chunk that has one)
    GALLOC_FIT_LAST_BLOCK, // a chunk's last block, inside memory the chunk already needs
    GALLOC_FIT_GROW,       // a chunk's last block, growing the chunk
    GALLOC_FIT_NEW_CHUNK,  // a new chunk
};

// alignment: a power of two; max_size: largest chunk (GALLOC_NO_MAX_SIZE for none). NULL when out of memory.
struct galloc_dynalloc * galloc_dynalloc_new  (uint64_t alignment, uint64_t max_size);
void                     galloc_dynalloc_free (struct galloc_dynalloc * alloc);
// drop every chunk
void                     galloc_dynalloc_reset(struct galloc_dynalloc * alloc);

// size is rounded up to the alignment. Picks, in order:
//   1. the smallest inner (not last) free block that fits, later block on equal sizes; the running
//      best restarts at every chunk, so the last chunk with a fitting inner block wins;
//   2. else a chunk's last block that fits, scored reuse = chunk size - block offset - size:
//      the smallest reuse >= 0, else (while none >= 0 was seen) the largest negative; ties keep the earlier chunk;
//   3. else a new chunk of max(size, max_size) bytes (the 16th chunk: GALLOC_HUGE_SIZE).
// false only when out of memory (*addr is then unchanged). how may be NULL.
bool galloc_dynalloc_alloc  (struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how);
// give back size bytes (rounded up) at addr, merging with adjacent free blocks. false only when out of memory.
bool galloc_dynalloc_release(struct galloc_dynalloc * alloc, struct galloc_address addr, uint64_t size);

// inspection
int32_t  galloc_dynalloc_n_chunks     (const struct galloc_dynalloc * alloc);
uint64_t galloc_dynalloc_chunk_size   (const struct galloc_dynalloc * alloc, int32_t chunk); // highest end offset handed out
int32_t  galloc_dynalloc_n_free_blocks(const struct galloc_dynalloc * alloc, int32_t chunk);
// the i-th free block of a chunk in offset order
void     galloc_dynalloc_free_block   (const struct galloc_dynalloc * alloc, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size);
// whether a chunk's free blocks are in the key sets (else in upstream's list; for tests)
bool     galloc_dynalloc_chunk_is_keyed(const struct galloc_dynalloc * alloc, int32_t chunk);
uint64_t galloc_dynalloc_alignment    (const struct galloc_dynalloc * alloc);
uint64_t galloc_dynalloc_max_chunk_size(const struct galloc_dynalloc * alloc);

#ifdef __cplusplus
}
#endif
