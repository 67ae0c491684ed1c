// galloc-dynalloc-linear.c: the dynamic allocator as upstream scans it, for exactness and tests.
//
// Free blocks in an array sorted by offset, found by linear scans in exactly
// upstream's order. The key-set allocator (galloc-dynalloc.c) hands over to this
// one when a zero-byte allocation makes free blocks overlap (a state only a
// literal scan reproduces), and tests use it as the reference.

#include "galloc-dynalloc-linear.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t size, uint64_t alignment) {
    return (size + alignment - 1) & ~(alignment - 1);
}

// ---- free block list ----------------------------------------------------

static bool chunk_reserve(struct linear_chunk * c, int32_t n) {
    if (n <= c->capacity) {
        return true;
    }
    int32_t capacity = c->capacity ? c->capacity * 2 : 8;
    while (capacity < n) {
        capacity *= 2;
    }
    struct linear_block * blocks = realloc(c->blocks, (size_t) capacity * sizeof(*blocks));
    if (!blocks) {
        return false;
    }
    c->blocks   = blocks;
    c->capacity = capacity;
    return true;
}

static bool chunk_insert_block(struct linear_chunk * c, int32_t pos, uint64_t offset, uint64_t size) {
    if (!chunk_reserve(c, c->n_blocks + 1)) {
        return false;
    }
    memmove(&c->blocks[pos + 1], &c->blocks[pos], (size_t) (c->n_blocks - pos) * sizeof(*c->blocks));
    c->blocks[pos] = (struct linear_block) { offset, size };
    c->n_blocks++;
    return true;
}

static void chunk_remove_block(struct linear_chunk * c, int32_t pos) {
    memmove(&c->blocks[pos], &c->blocks[pos + 1], (size_t) (c->n_blocks - pos - 1) * sizeof(*c->blocks));
    c->n_blocks--;
}

// ---- lifetime -----------------------------------------------------------

void galloc_linear_dynalloc_init(struct linear_dynalloc * alloc, uint64_t alignment, uint64_t max_chunk_size) {
    memset(alloc, 0, sizeof(*alloc));
    alloc->alignment      = alignment;
    alloc->max_chunk_size = max_chunk_size;
}

void galloc_linear_dynalloc_reset(struct linear_dynalloc * alloc) {
    for (int32_t i = 0; i < alloc->n_chunks; i++) {
        alloc->chunks[i].n_blocks = 0;
        alloc->chunks[i].max_size = 0;
    }
    alloc->n_chunks = 0;
}

void galloc_linear_dynalloc_free_memory(struct linear_dynalloc * alloc) {
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        free(alloc->chunks[i].blocks);
        alloc->chunks[i].blocks   = NULL;
        alloc->chunks[i].capacity = 0;
    }
    alloc->n_chunks = 0;
}

bool galloc_linear_dynalloc_append(struct linear_dynalloc * alloc, int32_t chunk, uint64_t offset, uint64_t size) {
    struct linear_chunk * c = &alloc->chunks[chunk];
    return chunk_insert_block(c, c->n_blocks, offset, size);
}

// ---- allocation ---------------------------------------------------------

static int32_t linear_new_chunk(struct linear_dynalloc * alloc, uint64_t min_size) {
    if (alloc->n_chunks >= GALLOC_MAX_CHUNKS) {
        return -1;
    }
    struct linear_chunk * c = &alloc->chunks[alloc->n_chunks];
    if (!chunk_reserve(c, 1)) {
        return -1;
    }
    // a chunk holds max_chunk_size bytes, more for a single larger tensor;
    // the last chunk holds everything that is left
    uint64_t size = min_size > alloc->max_chunk_size ? min_size : alloc->max_chunk_size;
    if (alloc->n_chunks == GALLOC_MAX_CHUNKS - 1) {
        size = GALLOC_HUGE_SIZE;
    }
    c->blocks[0] = (struct linear_block) { 0, size };
    c->n_blocks  = 1;
    c->max_size  = 0;
    return alloc->n_chunks++;
}

bool galloc_linear_dynalloc_alloc(struct linear_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = align_up(size, alloc->alignment);

    int32_t         best_chunk = -1;
    int32_t         best_block = -1;
    enum galloc_fit fit        = GALLOC_FIT_BEST;

    // 1. best fit among the inner blocks; the running best restarts in every chunk
    for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
        const struct linear_chunk * c = &alloc->chunks[ci];
        uint64_t best_size = UINT64_MAX;
        for (int32_t i = 0; i < c->n_blocks - 1; i++) {
            if (c->blocks[i].size >= size && c->blocks[i].size <= best_size) {
                best_chunk = ci;
                best_block = i;
                best_size  = c->blocks[i].size;
            }
        }
    }

    // 2. the last block of a chunk, preferring memory the chunk already needs
    if (best_block == -1) {
        int64_t best_reuse = INT64_MIN;
        for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
            const struct linear_chunk * c = &alloc->chunks[ci];
            if (c->n_blocks == 0) {
                continue;
            }
            const struct linear_block * last = &c->blocks[c->n_blocks - 1];
            int64_t reuse        = (int64_t) (c->max_size - last->offset - size);
            bool    better_grow  = best_reuse < 0 && reuse > best_reuse;
            bool    better_reuse = reuse >= 0 && reuse < best_reuse;
            if (last->size >= size && (better_grow || better_reuse)) {
                best_chunk = ci;
                best_block = c->n_blocks - 1;
                best_reuse = reuse;
            }
        }
        if (best_block != -1) {
            fit = best_reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;
        }
    }

    // 3. a new chunk
    if (best_block == -1) {
        best_chunk = linear_new_chunk(alloc, size);
        if (best_chunk == -1) {
            // only when out of memory: the 16th chunk takes anything up to GALLOC_HUGE_SIZE
            return false;
        }
        best_block = 0;
        fit        = GALLOC_FIT_NEW_CHUNK;
    }

    struct linear_chunk      * c     = &alloc->chunks[best_chunk];
    struct linear_block * block = &c->blocks[best_block];
    addr->chunk  = best_chunk;
    addr->offset = block->offset;
    block->offset += size;
    block->size   -= size;
    if (block->size == 0) {
        chunk_remove_block(c, best_block);
    }
    if (addr->offset + size > c->max_size) {
        c->max_size = addr->offset + size;
    }
    if (how) {
        *how = fit;
    }
    return true;
}

bool galloc_linear_dynalloc_release(struct linear_dynalloc * alloc, struct galloc_address addr, uint64_t size) {
    assert(addr.chunk >= 0 && addr.chunk < alloc->n_chunks);
    size = align_up(size, alloc->alignment);
    struct linear_chunk * c = &alloc->chunks[addr.chunk];

    // the walk of upstream: the first block that ends at addr or starts right after it
    for (int32_t i = 0; i < c->n_blocks; i++) {
        struct linear_block * block = &c->blocks[i];
        if (block->offset + block->size == addr.offset) {
            block->size += size;
            if (i < c->n_blocks - 1 && block->offset + block->size == c->blocks[i + 1].offset) {
                block->size += c->blocks[i + 1].size;
                chunk_remove_block(c, i + 1);
            }
            return true;
        }
        if (addr.offset + size == block->offset) {
            block->offset = addr.offset;
            block->size  += size;
            if (i > 0 && c->blocks[i - 1].offset + c->blocks[i - 1].size == block->offset) {
                c->blocks[i - 1].size += block->size;
                chunk_remove_block(c, i);
            }
            return true;
        }
    }

    // no neighbour: a new block, in offset order
    int32_t pos = 0;
    while (pos < c->n_blocks && c->blocks[pos].offset < addr.offset) {
        pos++;
    }
    return chunk_insert_block(c, pos, addr.offset, size);
}

