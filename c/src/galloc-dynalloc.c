// galloc-dynalloc.c: the dynamic allocator of one buffer type (ggml's ggml_dyn_tallocr).
//
// Each chunk keeps its free blocks sorted by offset in a growable array (no
// 256-block limit). The block choice follows upstream exactly, including its
// quirks: the best-fit search restarts in every chunk, and last blocks are
// scored by how much of the chunk's current size they reuse.

#include "galloc-dynalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct free_block {
    uint64_t offset; // bytes from the chunk's start
    uint64_t size;   // bytes
};

struct chunk {
    struct free_block * blocks;   // sorted by offset
    int32_t             n_blocks;
    int32_t             capacity; // entries allocated in blocks
    uint64_t            max_size; // highest end offset ever handed out
};

struct galloc_dynalloc {
    uint64_t     alignment;
    uint64_t     max_chunk_size; // min(max_size, GALLOC_HUGE_SIZE)
    struct chunk chunks[GALLOC_MAX_CHUNKS];
    int32_t      n_chunks;
};

static uint64_t align_up(uint64_t size, uint64_t alignment) {
    return (size + alignment - 1) & ~(alignment - 1);
}

// ---- free block list ----------------------------------------------------

static bool chunk_reserve(struct chunk * c, int32_t n) {
    if (n <= c->capacity) {
        return true;
    }
    int32_t capacity = c->capacity ? c->capacity * 2 : 8;
    while (capacity < n) {
        capacity *= 2;
    }
    struct free_block * blocks = realloc(c->blocks, (size_t) capacity * sizeof(*blocks));
    if (!blocks) {
        return false;
    }
    c->blocks   = blocks;
    c->capacity = capacity;
    return true;
}

static bool chunk_insert_block(struct chunk * c, int32_t pos, uint64_t offset, uint64_t size) {
    if (!chunk_reserve(c, c->n_blocks + 1)) {
        return false;
    }
    memmove(&c->blocks[pos + 1], &c->blocks[pos], (size_t) (c->n_blocks - pos) * sizeof(*c->blocks));
    c->blocks[pos] = (struct free_block) { offset, size };
    c->n_blocks++;
    return true;
}

static void chunk_remove_block(struct chunk * c, int32_t pos) {
    memmove(&c->blocks[pos], &c->blocks[pos + 1], (size_t) (c->n_blocks - pos - 1) * sizeof(*c->blocks));
    c->n_blocks--;
}

// ---- lifetime -----------------------------------------------------------

struct galloc_dynalloc * galloc_dynalloc_new(uint64_t alignment, uint64_t max_size) {
    assert(alignment && !(alignment & (alignment - 1)));
    struct galloc_dynalloc * alloc = calloc(1, sizeof(*alloc));
    if (!alloc) {
        return NULL;
    }
    alloc->alignment      = alignment;
    alloc->max_chunk_size = max_size < GALLOC_HUGE_SIZE ? max_size : GALLOC_HUGE_SIZE;
    return alloc;
}

void galloc_dynalloc_reset(struct galloc_dynalloc * alloc) {
    for (int32_t i = 0; i < alloc->n_chunks; i++) {
        alloc->chunks[i].n_blocks = 0;
        alloc->chunks[i].max_size = 0;
    }
    alloc->n_chunks = 0;
}

void galloc_dynalloc_free(struct galloc_dynalloc * alloc) {
    if (!alloc) {
        return;
    }
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        free(alloc->chunks[i].blocks);
    }
    free(alloc);
}

// ---- allocation ---------------------------------------------------------

static int32_t dynalloc_new_chunk(struct galloc_dynalloc * alloc, uint64_t min_size) {
    if (alloc->n_chunks >= GALLOC_MAX_CHUNKS) {
        return -1;
    }
    struct chunk * c = &alloc->chunks[alloc->n_chunks];
    if (!chunk_reserve(c, 1)) {
        return -1;
    }
    // a chunk holds max_chunk_size bytes, more for a single larger tensor;
    // the last chunk holds everything that is left
    uint64_t size = min_size > alloc->max_chunk_size ? min_size : alloc->max_chunk_size;
    if (alloc->n_chunks == GALLOC_MAX_CHUNKS - 1) {
        size = GALLOC_HUGE_SIZE;
    }
    c->blocks[0] = (struct free_block) { 0, size };
    c->n_blocks  = 1;
    c->max_size  = 0;
    return alloc->n_chunks++;
}

bool galloc_dynalloc_alloc(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = align_up(size, alloc->alignment);

    int32_t         best_chunk = -1;
    int32_t         best_block = -1;
    enum galloc_fit fit        = GALLOC_FIT_BEST;

    // 1. best fit among the inner blocks; the running best restarts in every chunk
    for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
        const struct chunk * c = &alloc->chunks[ci];
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
            const struct chunk * c = &alloc->chunks[ci];
            if (c->n_blocks == 0) {
                continue;
            }
            const struct free_block * last = &c->blocks[c->n_blocks - 1];
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
        best_chunk = dynalloc_new_chunk(alloc, size);
        if (best_chunk == -1) {
            // only when out of memory: the 16th chunk takes anything up to GALLOC_HUGE_SIZE
            return false;
        }
        best_block = 0;
        fit        = GALLOC_FIT_NEW_CHUNK;
    }

    struct chunk      * c     = &alloc->chunks[best_chunk];
    struct free_block * block = &c->blocks[best_block];
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

bool galloc_dynalloc_release(struct galloc_dynalloc * alloc, struct galloc_address addr, uint64_t size) {
    assert(addr.chunk >= 0 && addr.chunk < alloc->n_chunks);
    size = align_up(size, alloc->alignment);
    struct chunk * c = &alloc->chunks[addr.chunk];

    // the walk of upstream: the first block that ends at addr or starts right after it
    for (int32_t i = 0; i < c->n_blocks; i++) {
        struct free_block * block = &c->blocks[i];
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

// ---- inspection ---------------------------------------------------------

int32_t galloc_dynalloc_n_chunks(const struct galloc_dynalloc * alloc) {
    return alloc->n_chunks;
}

uint64_t galloc_dynalloc_chunk_size(const struct galloc_dynalloc * alloc, int32_t chunk) {
    return chunk >= 0 && chunk < alloc->n_chunks ? alloc->chunks[chunk].max_size : 0;
}

int32_t galloc_dynalloc_n_free_blocks(const struct galloc_dynalloc * alloc, int32_t chunk) {
    return chunk >= 0 && chunk < alloc->n_chunks ? alloc->chunks[chunk].n_blocks : 0;
}

void galloc_dynalloc_free_block(const struct galloc_dynalloc * alloc, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size) {
    assert(chunk >= 0 && chunk < alloc->n_chunks);
    assert(i >= 0 && i < alloc->chunks[chunk].n_blocks);
    *offset = alloc->chunks[chunk].blocks[i].offset;
    *size   = alloc->chunks[chunk].blocks[i].size;
}

uint64_t galloc_dynalloc_alignment(const struct galloc_dynalloc * alloc) {
    return alloc->alignment;
}

uint64_t galloc_dynalloc_max_chunk_size(const struct galloc_dynalloc * alloc) {
    return alloc->max_chunk_size;
}
