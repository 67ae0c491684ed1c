// galloc-dynalloc.c: the dynamic allocator of one buffer type (ggml's ggml_dyn_tallocr).
//
// Upstream keeps each chunk's free blocks in an array of at most 256 and scans
// it on every allocation. Here a chunk holds them in one of two forms
// (galloc-dynalloc-chunk.h): upstream's array, scanned as upstream scans it,
// while it holds few blocks (a scan of a few dozen entries costs less than any
// search) or while its state is one only a literal scan follows (after a
// zero-byte release that touched no block); and two ordered key sets once it
// holds many blocks in a regular state, so that the block upstream's scan
// would pick is found by one search with any number of blocks. A chunk changes
// form when it crosses KEYED_ABOVE / LIST_BELOW blocks (apart enough that each
// conversion is paid for by the operations before it) and when a zero-byte
// release needs the list form.

#include "galloc-dynalloc.h"
#include "galloc-dynalloc-chunk.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

// a list chunk with more blocks than this, in a regular state, moves to the key sets;
// a keyed chunk with fewer than LIST_BELOW goes back to the list
#define KEYED_ABOVE 64
#define LIST_BELOW  16

struct chunk {
    bool                     keyed;      // the blocks are in keys, else in list
    struct galloc_block_list list;
    struct galloc_block_keys keys;
    int32_t                  next_check; // list size at which to try the key sets again
    uint64_t                 max_size;   // highest end offset ever handed out
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

// ---- a chunk's form -----------------------------------------------------

static void chunk_clear(struct chunk * c) {
    c->keyed      = false;
    c->list.n     = 0;
    c->next_check = KEYED_ABOVE + 1;
    c->max_size   = 0;
    galloc_block_keys_clear(&c->keys);
}

static int64_t chunk_n_blocks(const struct chunk * c) {
    return c->keyed ? galloc_block_keys_count(&c->keys) : c->list.n;
}

// list -> key sets, when the list is regular; out of memory keeps the list
static void chunk_to_keys(struct chunk * c) {
    // not now: checked again once the list has doubled, so the checks cost O(1) per insert
    c->next_check = c->list.n < INT32_MAX / 2 ? c->list.n * 2 : INT32_MAX;
    if (!galloc_block_list_is_regular(&c->list)) {
        return;
    }
    galloc_block_keys_clear(&c->keys);
    for (int32_t i = 0; i < c->list.n; i++) {
        if (!galloc_block_keys_append(&c->keys, c->list.blocks[i].offset, c->list.blocks[i].size)) {
            galloc_block_keys_clear(&c->keys);
            return;
        }
    }
    c->keyed  = true;
    c->list.n = 0;
}

// key sets -> list; false when out of memory (still keyed)
static bool chunk_to_list(struct chunk * c) {
    int64_t n = galloc_block_keys_count(&c->keys);
    c->list.n = 0;
    for (int64_t i = 0; i < n; i++) {
        struct galloc_free_block b = galloc_block_keys_at(&c->keys, i);
        if (!galloc_block_list_push(&c->list, b.offset, b.size)) {
            c->list.n = 0;
            return false;
        }
    }
    galloc_block_keys_clear(&c->keys);
    c->keyed      = false;
    c->next_check = KEYED_ABOVE + 1;
    return true;
}

// after an operation: the form its block count calls for
static inline void chunk_settle(struct chunk * c) {
    if (c->keyed) {
        if (galloc_block_keys_count(&c->keys) < LIST_BELOW) {
            chunk_to_list(c); // out of memory: stays keyed, which is as exact
        }
    } else if (c->list.n >= c->next_check) {
        chunk_to_keys(c);
    }
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
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        galloc_block_keys_init(&alloc->chunks[i].keys);
        chunk_clear(&alloc->chunks[i]);
    }
    return alloc;
}

void galloc_dynalloc_reset(struct galloc_dynalloc * alloc) {
    for (int32_t i = 0; i < alloc->n_chunks; i++) {
        chunk_clear(&alloc->chunks[i]);
    }
    alloc->n_chunks = 0;
}

void galloc_dynalloc_free(struct galloc_dynalloc * alloc) {
    if (!alloc) {
        return;
    }
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        galloc_block_list_free(&alloc->chunks[i].list);
        galloc_block_keys_free(&alloc->chunks[i].keys);
    }
    free(alloc);
}

// ---- allocation ---------------------------------------------------------

static int32_t dynalloc_new_chunk(struct galloc_dynalloc * alloc, uint64_t min_size) {
    if (alloc->n_chunks >= GALLOC_MAX_CHUNKS) {
        return -1;
    }
    struct chunk * c = &alloc->chunks[alloc->n_chunks];
    chunk_clear(c);
    // a chunk holds max_chunk_size bytes, more for a single larger tensor;
    // the last chunk holds everything that is left
    uint64_t size = min_size > alloc->max_chunk_size ? min_size : alloc->max_chunk_size;
    if (alloc->n_chunks == GALLOC_MAX_CHUNKS - 1) {
        size = GALLOC_HUGE_SIZE;
    }
    if (!galloc_block_list_push(&c->list, 0, size)) {
        return -1;
    }
    return alloc->n_chunks++;
}

// the last block of a chunk (highest in upstream's array); false when it has none
static bool chunk_last(const struct chunk * c, uint64_t * offset, uint64_t * size) {
    if (c->keyed) {
        return galloc_block_keys_last(&c->keys, offset, size);
    }
    if (c->list.n == 0) {
        return false;
    }
    *offset = c->list.blocks[c->list.n - 1].offset;
    *size   = c->list.blocks[c->list.n - 1].size;
    return true;
}

static void handed_out(struct galloc_dynalloc * alloc, int32_t ci, uint64_t offset, uint64_t size, enum galloc_fit fit,
                       struct galloc_address * addr, enum galloc_fit * how) {
    struct chunk * c = &alloc->chunks[ci];
    if (offset + size > c->max_size) {
        c->max_size = offset + size;
    }
    chunk_settle(c);
    addr->chunk  = ci;
    addr->offset = offset;
    if (how) {
        *how = fit;
    }
}

// the rules below for one chunk in the list form, the usual state while planning: 1. its best inner
// block, 2. its last block if it fits (the only one scored: any reuse but INT64_MIN is taken);
// false when neither fits (a new chunk is then the general path's)
static inline bool alloc_in_one_list(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    struct chunk * c = &alloc->chunks[0];
    int32_t        i = galloc_block_list_best_inner(&c->list, size);
    enum galloc_fit fit = GALLOC_FIT_BEST;
    if (i < 0) {
        i = c->list.n - 1;
        if (i < 0 || c->list.blocks[i].size < size) {
            return false;
        }
        int64_t reuse = (int64_t) (c->max_size - c->list.blocks[i].offset - size);
        if (reuse == INT64_MIN) {
            return false;
        }
        fit = reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;
    }
    uint64_t offset = c->list.blocks[i].offset;
    galloc_block_list_take(&c->list, i, size);
    handed_out(alloc, 0, offset, size, fit, addr, how);
    return true;
}

// the three rules over every chunk, in any form; size is aligned
static bool alloc_in_any(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how);

bool galloc_dynalloc_alloc(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = align_up(size, alloc->alignment);
    if (alloc->n_chunks == 1 && !alloc->chunks[0].keyed && alloc_in_one_list(alloc, size, addr, how)) {
        return true;
    }
    return alloc_in_any(alloc, size, addr, how);
}

static bool alloc_in_any(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {

    // 1. best fit among the inner blocks; upstream's running best restarts in every chunk,
    //    so the last chunk with a fitting inner block wins
    for (int32_t ci = alloc->n_chunks - 1; ci >= 0; ci--) {
        struct chunk * c = &alloc->chunks[ci];
        uint64_t       offset;
        if (c->keyed) {
            enum galloc_keys_result r = galloc_block_keys_take_inner(&c->keys, size, &offset);
            if (r == GALLOC_KEYS_NONE) {
                continue;
            }
            if (r == GALLOC_KEYS_OOM) {
                return false;
            }
        } else {
            int32_t i = galloc_block_list_best_inner(&c->list, size);
            if (i < 0) {
                continue;
            }
            offset = c->list.blocks[i].offset;
            galloc_block_list_take(&c->list, i, size);
        }
        handed_out(alloc, ci, offset, size, GALLOC_FIT_BEST, addr, how);
        return true;
    }

    // 2. the last block of a chunk, preferring memory the chunk already needs
    int32_t  best_chunk  = -1;
    int64_t  best_reuse  = INT64_MIN;
    uint64_t best_offset = 0;
    for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
        const struct chunk * c = &alloc->chunks[ci];
        uint64_t             offset, block_size;
        if (!chunk_last(c, &offset, &block_size)) {
            continue;
        }
        int64_t reuse        = (int64_t) (c->max_size - offset - size);
        bool    better_grow  = best_reuse < 0 && reuse > best_reuse;
        bool    better_reuse = reuse >= 0 && reuse < best_reuse;
        if (block_size >= size && (better_grow || better_reuse)) {
            best_chunk  = ci;
            best_reuse  = reuse;
            best_offset = offset;
        }
    }
    enum galloc_fit fit = best_reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;

    // 3. a new chunk
    if (best_chunk == -1) {
        best_chunk = dynalloc_new_chunk(alloc, size);
        if (best_chunk == -1) {
            return false; // out of memory: the 16th chunk takes anything up to GALLOC_HUGE_SIZE
        }
        best_offset = 0;
        fit         = GALLOC_FIT_NEW_CHUNK;
    }

    struct chunk * c = &alloc->chunks[best_chunk];
    if (c->keyed) {
        galloc_block_keys_take_last(&c->keys, size);
    } else {
        galloc_block_list_take(&c->list, c->list.n - 1, size);
    }
    handed_out(alloc, best_chunk, best_offset, size, fit, addr, how);
    return true;
}

// release in the list form (a keyed chunk whose release would leave an irregular state moves there first)
static bool release_in_list(struct chunk * c, uint64_t offset, uint64_t size) {
    if (!galloc_block_list_release(&c->list, offset, size)) {
        return false;
    }
    chunk_settle(c);
    return true;
}

static bool release_keyed(struct chunk * c, uint64_t offset, uint64_t size) {
    enum galloc_keys_result r = galloc_block_keys_release(&c->keys, offset, size);
    if (r == GALLOC_KEYS_OOM || (r == GALLOC_KEYS_IRREGULAR && !chunk_to_list(c))) {
        return false;
    }
    if (r == GALLOC_KEYS_DONE) {
        chunk_settle(c);
        return true;
    }
    return release_in_list(c, offset, size);
}

bool galloc_dynalloc_release(struct galloc_dynalloc * alloc, struct galloc_address addr, uint64_t size) {
    size = align_up(size, alloc->alignment);
    assert(addr.chunk >= 0 && addr.chunk < alloc->n_chunks);
    struct chunk * c = &alloc->chunks[addr.chunk];
    return c->keyed ? release_keyed(c, addr.offset, size) : release_in_list(c, addr.offset, size);
}

// ---- inspection ---------------------------------------------------------

int32_t galloc_dynalloc_n_chunks(const struct galloc_dynalloc * alloc) {
    return alloc->n_chunks;
}

uint64_t galloc_dynalloc_chunk_size(const struct galloc_dynalloc * alloc, int32_t chunk) {
    if (chunk < 0 || chunk >= alloc->n_chunks) {
        return 0;
    }
    return alloc->chunks[chunk].max_size;
}

int32_t galloc_dynalloc_n_free_blocks(const struct galloc_dynalloc * alloc, int32_t chunk) {
    if (chunk < 0 || chunk >= alloc->n_chunks) {
        return 0;
    }
    return (int32_t) chunk_n_blocks(&alloc->chunks[chunk]);
}

void galloc_dynalloc_free_block(const struct galloc_dynalloc * alloc, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size) {
    assert(i >= 0 && i < galloc_dynalloc_n_free_blocks(alloc, chunk));
    const struct chunk *     c = &alloc->chunks[chunk];
    struct galloc_free_block b = c->keyed ? galloc_block_keys_at(&c->keys, i) : c->list.blocks[i];
    *offset                    = b.offset;
    *size                      = b.size;
}

bool galloc_dynalloc_chunk_is_keyed(const struct galloc_dynalloc * alloc, int32_t chunk) {
    return chunk >= 0 && chunk < alloc->n_chunks && alloc->chunks[chunk].keyed;
}

uint64_t galloc_dynalloc_alignment(const struct galloc_dynalloc * alloc) {
    return alloc->alignment;
}

uint64_t galloc_dynalloc_max_chunk_size(const struct galloc_dynalloc * alloc) {
    return alloc->max_chunk_size;
}
