// dynalloc-reference.c: upstream's ggml_dyn_tallocr transcribed loop for loop (see dynalloc-reference.h).
//
// Arrays grow instead of aborting at 256 blocks; an out-of-memory exits the test.

#include "dynalloc-reference.h"

#include <stdio.h>
#include <stdlib.h>

struct ref_block {
    uint64_t offset, size;
};

struct ref_chunk {
    struct ref_block * free_blocks;
    int                n_free_blocks;
    int                capacity;
    uint64_t           max_size;
};

struct dynalloc_reference {
    uint64_t         alignment;
    uint64_t         max_chunk_size;
    struct ref_chunk chunks[GALLOC_MAX_CHUNKS];
    int              n_chunks;
};

static void * must(void * p) {
    if (!p) {
        fprintf(stderr, "dynalloc-reference: out of memory\n");
        exit(1);
    }
    return p;
}

struct dynalloc_reference * dynalloc_reference_new(uint64_t alignment, uint64_t max_size) {
    struct dynalloc_reference * r = must(calloc(1, sizeof(*r)));
    r->alignment      = alignment;
    r->max_chunk_size = max_size < GALLOC_HUGE_SIZE ? max_size : GALLOC_HUGE_SIZE;
    return r;
}

void dynalloc_reference_free(struct dynalloc_reference * r) {
    for (int c = 0; c < GALLOC_MAX_CHUNKS; c++) {
        free(r->chunks[c].free_blocks);
    }
    free(r);
}

// upstream's ggml_dyn_tallocr_insert_block: before the first block whose offset is not lower
static void insert_block(struct ref_chunk * chunk, uint64_t offset, uint64_t size) {
    if (chunk->n_free_blocks == chunk->capacity) {
        chunk->capacity    = chunk->capacity ? chunk->capacity * 2 : 8;
        chunk->free_blocks = must(realloc(chunk->free_blocks, sizeof(struct ref_block) * (size_t) chunk->capacity));
    }
    int insert_pos = 0;
    while (insert_pos < chunk->n_free_blocks && chunk->free_blocks[insert_pos].offset < offset) {
        insert_pos++;
    }
    for (int i = chunk->n_free_blocks; i > insert_pos; i--) {
        chunk->free_blocks[i] = chunk->free_blocks[i - 1];
    }
    chunk->free_blocks[insert_pos].offset = offset;
    chunk->free_blocks[insert_pos].size   = size;
    chunk->n_free_blocks++;
}

static void remove_block(struct ref_chunk * chunk, int idx) {
    for (int i = idx; i < chunk->n_free_blocks - 1; i++) {
        chunk->free_blocks[i] = chunk->free_blocks[i + 1];
    }
    chunk->n_free_blocks--;
}

static int new_chunk(struct dynalloc_reference * r, uint64_t min_size) {
    if (r->n_chunks >= GALLOC_MAX_CHUNKS) {
        return -1;
    }
    struct ref_chunk * chunk = &r->chunks[r->n_chunks];
    chunk->n_free_blocks = 0;
    chunk->max_size      = 0;
    uint64_t size = min_size > r->max_chunk_size ? min_size : r->max_chunk_size;
    if (r->n_chunks == GALLOC_MAX_CHUNKS - 1) {
        size = GALLOC_HUGE_SIZE;
    }
    insert_block(chunk, 0, size);
    return r->n_chunks++;
}

void dynalloc_reference_alloc(struct dynalloc_reference * r, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = (size + r->alignment - 1) / r->alignment * r->alignment;
    int             best_fit_chunk = -1;
    int             best_fit_block = -1;
    enum galloc_fit fit            = GALLOC_FIT_BEST;

    for (int c = 0; c < r->n_chunks; ++c) {
        struct ref_chunk * chunk         = &r->chunks[c];
        uint64_t           best_fit_size = UINT64_MAX;
        for (int i = 0; i < chunk->n_free_blocks - 1; i++) {
            struct ref_block * block = &chunk->free_blocks[i];
            if (block->size >= size && block->size <= best_fit_size) {
                best_fit_chunk = c;
                best_fit_block = i;
                best_fit_size  = block->size;
            }
        }
    }

    if (best_fit_block == -1) {
        int64_t best_reuse = INT64_MIN;
        for (int c = 0; c < r->n_chunks; ++c) {
            struct ref_chunk * chunk = &r->chunks[c];
            if (chunk->n_free_blocks > 0) {
                struct ref_block * block        = &chunk->free_blocks[chunk->n_free_blocks - 1];
                int64_t            reuse_factor = (int64_t) (chunk->max_size - block->offset - size);
                bool               better_reuse = best_reuse < 0 && reuse_factor > best_reuse;
                bool               better_fit   = reuse_factor >= 0 && reuse_factor < best_reuse;
                if (block->size >= size && (better_reuse || better_fit)) {
                    best_fit_chunk = c;
                    best_fit_block = chunk->n_free_blocks - 1;
                    best_reuse     = reuse_factor;
                }
            }
        }
        fit = best_reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;
    }

    if (best_fit_block == -1) {
        best_fit_chunk = new_chunk(r, size);
        best_fit_block = 0;
        fit            = GALLOC_FIT_NEW_CHUNK;
    }
    if (best_fit_chunk == -1) {
        fprintf(stderr, "dynalloc-reference: no chunk left\n");
        exit(1);
    }

    struct ref_chunk * chunk = &r->chunks[best_fit_chunk];
    struct ref_block * block = &chunk->free_blocks[best_fit_block];
    addr->chunk  = best_fit_chunk;
    addr->offset = block->offset;
    block->offset += size;
    block->size -= size;
    if (block->size == 0) {
        remove_block(chunk, best_fit_block);
    }
    if (addr->offset + size > chunk->max_size) {
        chunk->max_size = addr->offset + size;
    }
    *how = fit;
}

void dynalloc_reference_release(struct dynalloc_reference * r, struct galloc_address addr, uint64_t size) {
    size = (size + r->alignment - 1) / r->alignment * r->alignment;
    struct ref_chunk * chunk = &r->chunks[addr.chunk];
    for (int i = 0; i < chunk->n_free_blocks; i++) {
        struct ref_block * block = &chunk->free_blocks[i];
        if (block->offset + block->size == addr.offset) {
            block->size += size;
            if (i < chunk->n_free_blocks - 1) {
                struct ref_block * next = &chunk->free_blocks[i + 1];
                if (block->offset + block->size == next->offset) {
                    block->size += next->size;
                    remove_block(chunk, i + 1);
                }
            }
            return;
        }
        if (addr.offset + size == block->offset) {
            block->offset = addr.offset;
            block->size += size;
            if (i > 0) {
                struct ref_block * prev = &chunk->free_blocks[i - 1];
                if (prev->offset + prev->size == block->offset) {
                    prev->size += block->size;
                    remove_block(chunk, i);
                }
            }
            return;
        }
    }
    insert_block(chunk, addr.offset, size);
}

int32_t dynalloc_reference_n_chunks(const struct dynalloc_reference * r) {
    return r->n_chunks;
}

uint64_t dynalloc_reference_chunk_size(const struct dynalloc_reference * r, int32_t chunk) {
    return chunk < r->n_chunks ? r->chunks[chunk].max_size : 0;
}

int32_t dynalloc_reference_n_free_blocks(const struct dynalloc_reference * r, int32_t chunk) {
    return chunk < r->n_chunks ? r->chunks[chunk].n_free_blocks : 0;
}

void dynalloc_reference_free_block(const struct dynalloc_reference * r, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size) {
    *offset = r->chunks[chunk].free_blocks[i].offset;
    *size   = r->chunks[chunk].free_blocks[i].size;
}
