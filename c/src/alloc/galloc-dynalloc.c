// galloc-dynalloc.c: the dynamic allocator of one buffer type (ggml's ggml_dyn_tallocr).
//
// Upstream keeps each chunk's free blocks in an array of at most 256 and scans
// it on every allocation. Here each chunk keeps them in two ordered key sets
// (galloc-keyset.h): every block by offset, and every block but the last by
// size (then offset, downwards), so that the block upstream's scan would pick
// is found by one search with any number of blocks: the smallest fitting
// size, the highest offset among equal sizes.
// A zero-byte allocation can leave upstream's blocks overlapping, which only
// a literal scan reproduces: from then on (until reset) the allocator hands
// over to the linear one in galloc-dynalloc-linear.c.

#include "galloc-dynalloc.h"
#include "galloc-dynalloc-linear.h"
#include "galloc-keyset.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
    struct keyset by_offset; // (offset, size) of every free block
    struct keyset by_size;   // (size, ~offset) of every free block but the last
    uint64_t      max_size;  // highest end offset ever handed out
};

struct galloc_dynalloc {
    uint64_t     alignment;
    uint64_t     max_chunk_size; // min(max_size, GALLOC_HUGE_SIZE)
    struct chunk chunks[GALLOC_MAX_CHUNKS];
    int32_t      n_chunks;

    bool                   linear;        // the linear allocator below holds the state
    bool                   always_linear; // created with galloc_dynalloc_new_linear
    struct linear_dynalloc lin;
};

static uint64_t align_up(uint64_t size, uint64_t alignment) {
    return (size + alignment - 1) & ~(alignment - 1);
}

// ---- keys ---------------------------------------------------------------

static struct galloc_keyset_key offset_key(uint64_t offset, uint64_t size) {
    return (struct galloc_keyset_key) { offset, size };
}

// equal sizes in decreasing offset, so the first block of a size is its highest
static struct galloc_keyset_key size_key(uint64_t offset, uint64_t size) {
    return (struct galloc_keyset_key) { size, ~offset };
}

// ---- chunk's free blocks ------------------------------------------------

static bool chunk_is_last(const struct chunk * c, struct galloc_keyset_pos pos) {
    struct galloc_keyset_pos last;
    return galloc_keyset_last(&c->by_offset, &last) && last.bucket == pos.bucket && last.index == pos.index;
}

// add a block that touches no other block; false when out of memory
static bool chunk_add_block(struct chunk * c, uint64_t offset, uint64_t size) {
    struct galloc_keyset_pos last;
    if (!galloc_keyset_last(&c->by_offset, &last)) {
        return galloc_keyset_insert(&c->by_offset, offset_key(offset, size)); // the only block is the last
    }
    struct galloc_keyset_key old_last = galloc_keyset_at(&c->by_offset, last);
    // the block that ends up not last enters the size set
    struct galloc_keyset_key inner = offset > old_last.hi ? size_key(old_last.hi, old_last.lo) : size_key(offset, size);
    if (!galloc_keyset_insert(&c->by_size, inner)) {
        return false;
    }
    if (!galloc_keyset_insert(&c->by_offset, offset_key(offset, size))) {
        galloc_keyset_erase_key(&c->by_size, inner);
        return false;
    }
    return true;
}

// remove the last block; the one before it (if any) becomes the last and leaves the size set
static void chunk_remove_last(struct chunk * c) {
    struct galloc_keyset_pos last;
    galloc_keyset_last(&c->by_offset, &last);
    galloc_keyset_erase(&c->by_offset, last);
    if (galloc_keyset_last(&c->by_offset, &last)) {
        struct galloc_keyset_key k = galloc_keyset_at(&c->by_offset, last);
        bool erased = galloc_keyset_erase_key(&c->by_size, size_key(k.hi, k.lo));
        assert(erased && "new last block not in the size set");
        (void) erased;
    }
}

// an inner block grew: move its size key from old_key to the larger new_key, in place when
// no other key lies between them; false when out of memory (nothing changed)
static bool size_key_grow(struct chunk * c, struct galloc_keyset_key old_key, struct galloc_keyset_key new_key) {
    struct galloc_keyset_pos pos;
    bool found = galloc_keyset_lower_bound(&c->by_size, old_key, &pos);
    assert(found && "inner block not in the size set");
    (void) found;
    struct galloc_keyset_pos next = pos;
    if (!galloc_keyset_next(&c->by_size, &next) || galloc_keyset_key_less(new_key, galloc_keyset_at(&c->by_size, next))) {
        galloc_keyset_replace(&c->by_size, pos, new_key);
        return true;
    }
    if (!galloc_keyset_reserve(&c->by_size)) {
        return false;
    }
    galloc_keyset_erase(&c->by_size, pos);
    galloc_keyset_insert(&c->by_size, new_key); // reserved: cannot fail
    return true;
}

// ---- lifetime -----------------------------------------------------------

static void chunk_clear(struct chunk * c) {
    galloc_keyset_clear(&c->by_offset);
    galloc_keyset_clear(&c->by_size);
    c->max_size = 0;
}

struct galloc_dynalloc * galloc_dynalloc_new(uint64_t alignment, uint64_t max_size) {
    assert(alignment && !(alignment & (alignment - 1)));
    struct galloc_dynalloc * alloc = calloc(1, sizeof(*alloc));
    if (!alloc) {
        return NULL;
    }
    alloc->alignment      = alignment;
    alloc->max_chunk_size = max_size < GALLOC_HUGE_SIZE ? max_size : GALLOC_HUGE_SIZE;
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        galloc_keyset_init(&alloc->chunks[i].by_offset);
        galloc_keyset_init(&alloc->chunks[i].by_size);
    }
    galloc_linear_dynalloc_init(&alloc->lin, alignment, alloc->max_chunk_size);
    galloc_dynalloc_reset(alloc);
    return alloc;
}

struct galloc_dynalloc * galloc_dynalloc_new_linear(uint64_t alignment, uint64_t max_size) {
    struct galloc_dynalloc * alloc = galloc_dynalloc_new(alignment, max_size);
    if (alloc) {
        alloc->linear = alloc->always_linear = true;
    }
    return alloc;
}

void galloc_dynalloc_reset(struct galloc_dynalloc * alloc) {
    for (int32_t i = 0; i < alloc->n_chunks; i++) {
        chunk_clear(&alloc->chunks[i]);
    }
    alloc->n_chunks = 0;
    galloc_linear_dynalloc_reset(&alloc->lin);
    alloc->linear = alloc->always_linear;
}

void galloc_dynalloc_free(struct galloc_dynalloc * alloc) {
    if (!alloc) {
        return;
    }
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        galloc_keyset_free(&alloc->chunks[i].by_offset);
        galloc_keyset_free(&alloc->chunks[i].by_size);
    }
    galloc_linear_dynalloc_free_memory(&alloc->lin);
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
    if (!chunk_add_block(c, 0, size)) {
        return -1;
    }
    return alloc->n_chunks++;
}

// copy the chunks' blocks, in offset order, into the linear allocator
static bool switch_to_linear(struct galloc_dynalloc * a) {
    galloc_linear_dynalloc_reset(&a->lin);
    for (int32_t ci = 0; ci < a->n_chunks; ci++) {
        const struct chunk * c = &a->chunks[ci];
        a->lin.chunks[ci].max_size = c->max_size;
        struct galloc_keyset_pos pos;
        for (bool more = galloc_keyset_first(&c->by_offset, &pos); more; more = galloc_keyset_next(&c->by_offset, &pos)) {
            struct galloc_keyset_key k = galloc_keyset_at(&c->by_offset, pos);
            if (!galloc_linear_dynalloc_append(&a->lin, ci, k.hi, k.lo)) {
                return false;
            }
        }
    }
    a->lin.n_chunks = a->n_chunks;
    a->linear       = true;
    return true;
}

// cut size bytes from the start of the inner block at pos in the size set; false when out of memory
static bool cut_inner_block(struct chunk * c, struct galloc_keyset_pos size_pos, uint64_t size) {
    struct galloc_keyset_key k          = galloc_keyset_at(&c->by_size, size_pos);
    uint64_t          block_size = k.hi;
    uint64_t          offset     = ~k.lo;
    if (block_size > size && !galloc_keyset_reserve(&c->by_size)) {
        return false;
    }
    galloc_keyset_erase(&c->by_size, size_pos);
    if (block_size > size) {
        galloc_keyset_insert(&c->by_size, size_key(offset + size, block_size - size)); // reserved: cannot fail
    }
    struct galloc_keyset_pos pos;
    bool found = galloc_keyset_lower_bound(&c->by_offset, offset_key(offset, 0), &pos);
    assert(found && galloc_keyset_at(&c->by_offset, pos).hi == offset);
    (void) found;
    if (block_size == size) {
        galloc_keyset_erase(&c->by_offset, pos);
    } else {
        galloc_keyset_replace(&c->by_offset, pos, offset_key(offset + size, block_size - size)); // same place among the offsets
    }
    return true;
}

// cut size bytes from the start of the chunk's last block
static void cut_last_block(struct chunk * c, uint64_t size) {
    struct galloc_keyset_pos last;
    galloc_keyset_last(&c->by_offset, &last);
    struct galloc_keyset_key k = galloc_keyset_at(&c->by_offset, last);
    if (k.lo == size) {
        chunk_remove_last(c);
    } else {
        galloc_keyset_replace(&c->by_offset, last, offset_key(k.hi + size, k.lo - size));
    }
}

bool galloc_dynalloc_alloc(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = align_up(size, alloc->alignment);
    if (!alloc->linear && size == 0 && !switch_to_linear(alloc)) {
        return false;
    }
    if (alloc->linear) {
        return galloc_linear_dynalloc_alloc(&alloc->lin, size, addr, how);
    }

    // 1. best fit among the inner blocks; upstream's running best restarts in every chunk,
    //    so the last chunk with a fitting inner block wins. Keys order sizes up and, within
    //    a size, offsets down: the first key >= (size, 0) is the block.
    for (int32_t ci = alloc->n_chunks - 1; ci >= 0; ci--) {
        struct chunk *    c = &alloc->chunks[ci];
        struct galloc_keyset_pos pos;
        if (!galloc_keyset_lower_bound(&c->by_size, (struct galloc_keyset_key) { size, 0 }, &pos)) {
            continue;
        }
        uint64_t offset = ~galloc_keyset_at(&c->by_size, pos).lo;
        if (!cut_inner_block(c, pos, size)) {
            return false;
        }
        addr->chunk  = ci;
        addr->offset = offset;
        if (offset + size > c->max_size) {
            c->max_size = offset + size;
        }
        if (how) {
            *how = GALLOC_FIT_BEST;
        }
        return true;
    }

    // 2. the last block of a chunk, preferring memory the chunk already needs
    int32_t best_chunk = -1;
    int64_t best_reuse = INT64_MIN;
    for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
        const struct chunk * c = &alloc->chunks[ci];
        struct galloc_keyset_pos    last;
        if (!galloc_keyset_last(&c->by_offset, &last)) {
            continue;
        }
        struct galloc_keyset_key k            = galloc_keyset_at(&c->by_offset, last);
        int64_t           reuse        = (int64_t) (c->max_size - k.hi - size);
        bool              better_grow  = best_reuse < 0 && reuse > best_reuse;
        bool              better_reuse = reuse >= 0 && reuse < best_reuse;
        if (k.lo >= size && (better_grow || better_reuse)) {
            best_chunk = ci;
            best_reuse = reuse;
        }
    }
    enum galloc_fit fit = best_reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;

    // 3. a new chunk
    if (best_chunk == -1) {
        best_chunk = dynalloc_new_chunk(alloc, size);
        if (best_chunk == -1) {
            return false; // out of memory: the 16th chunk takes anything up to GALLOC_HUGE_SIZE
        }
        fit = GALLOC_FIT_NEW_CHUNK;
    }

    struct chunk *    c = &alloc->chunks[best_chunk];
    struct galloc_keyset_pos last;
    galloc_keyset_last(&c->by_offset, &last);
    uint64_t offset = galloc_keyset_at(&c->by_offset, last).hi;
    cut_last_block(c, size);
    addr->chunk  = best_chunk;
    addr->offset = offset;
    if (offset + size > c->max_size) {
        c->max_size = offset + size;
    }
    if (how) {
        *how = fit;
    }
    return true;
}

bool galloc_dynalloc_release(struct galloc_dynalloc * alloc, struct galloc_address addr, uint64_t size) {
    size = align_up(size, alloc->alignment);
    if (!alloc->linear && size == 0 && !switch_to_linear(alloc)) {
        return false;
    }
    if (alloc->linear) {
        return galloc_linear_dynalloc_release(&alloc->lin, addr, size);
    }
    assert(addr.chunk >= 0 && addr.chunk < alloc->n_chunks);
    struct chunk * c = &alloc->chunks[addr.chunk];

    // upstream walks the blocks in offset order and takes the first that ends at addr or
    // starts at addr + size; free blocks never touch and none starts inside [addr, addr + size),
    // so that is the block below addr if it ends there, else the block above if it starts at the end
    struct galloc_keyset_pos above, below;
    bool has_above = galloc_keyset_lower_bound(&c->by_offset, offset_key(addr.offset, 0), &above);
    bool has_below = false;
    if (has_above) {
        below     = above;
        has_below = galloc_keyset_prev(&c->by_offset, &below);
    } else {
        has_below = galloc_keyset_last(&c->by_offset, &below);
    }
    struct galloc_keyset_key b = has_below ? galloc_keyset_at(&c->by_offset, below) : offset_key(0, 0);
    struct galloc_keyset_key a = has_above ? galloc_keyset_at(&c->by_offset, above) : offset_key(0, 0);

    if (has_below && b.hi + b.lo == addr.offset) {
        bool     below_inner = !chunk_is_last(c, below);
        uint64_t grown       = b.lo + size;
        bool     take_above  = has_above && a.hi == b.hi + grown;
        bool     above_last  = take_above && chunk_is_last(c, above);
        if (take_above) {
            grown += a.lo;
        }
        bool stays_inner = below_inner && !above_last;
        if (stays_inner && !galloc_keyset_reserve(&c->by_size)) {
            return false; // nothing changed yet
        }
        if (take_above && !above_last) {
            galloc_keyset_erase_key(&c->by_size, size_key(a.hi, a.lo));
        }
        if (stays_inner) {
            size_key_grow(c, size_key(b.hi, b.lo), size_key(b.hi, grown)); // reserved: cannot fail
        } else if (below_inner) {
            galloc_keyset_erase_key(&c->by_size, size_key(b.hi, b.lo)); // below takes the last block's place
        }
        galloc_keyset_replace(&c->by_offset, below, offset_key(b.hi, grown));
        if (take_above) {
            galloc_keyset_erase(&c->by_offset, above);
        }
        return true;
    }

    if (has_above && a.hi == addr.offset + size) {
        // upstream then merges with the previous block if it touches; it cannot: that block would
        // have ended at addr and been taken above (free blocks never touch)
        if (!chunk_is_last(c, above) && !size_key_grow(c, size_key(a.hi, a.lo), size_key(addr.offset, a.lo + size))) {
            return false;
        }
        galloc_keyset_replace(&c->by_offset, above, offset_key(addr.offset, a.lo + size)); // still between the same neighbours
        return true;
    }

    // no neighbour: a new block
    return chunk_add_block(c, addr.offset, size);
}

// ---- inspection ---------------------------------------------------------

int32_t galloc_dynalloc_n_chunks(const struct galloc_dynalloc * alloc) {
    return alloc->linear ? alloc->lin.n_chunks : alloc->n_chunks;
}

uint64_t galloc_dynalloc_chunk_size(const struct galloc_dynalloc * alloc, int32_t chunk) {
    if (chunk < 0 || chunk >= galloc_dynalloc_n_chunks(alloc)) {
        return 0;
    }
    return alloc->linear ? alloc->lin.chunks[chunk].max_size : alloc->chunks[chunk].max_size;
}

int32_t galloc_dynalloc_n_free_blocks(const struct galloc_dynalloc * alloc, int32_t chunk) {
    if (chunk < 0 || chunk >= galloc_dynalloc_n_chunks(alloc)) {
        return 0;
    }
    return alloc->linear ? alloc->lin.chunks[chunk].n_blocks : (int32_t) alloc->chunks[chunk].by_offset.count;
}

void galloc_dynalloc_free_block(const struct galloc_dynalloc * alloc, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size) {
    assert(i >= 0 && i < galloc_dynalloc_n_free_blocks(alloc, chunk));
    if (alloc->linear) {
        *offset = alloc->lin.chunks[chunk].blocks[i].offset;
        *size   = alloc->lin.chunks[chunk].blocks[i].size;
        return;
    }
    // the i-th block in offset order: skip whole buckets, then step inside one
    const struct keyset * set = &alloc->chunks[chunk].by_offset;
    int32_t               b   = 0;
    while (i >= set->pool[set->order[b]].n) {
        i -= set->pool[set->order[b]].n;
        b++;
    }
    struct galloc_keyset_key k = galloc_keyset_at(set, (struct galloc_keyset_pos) { b, i });
    *offset = k.hi;
    *size   = k.lo;
}

uint64_t galloc_dynalloc_alignment(const struct galloc_dynalloc * alloc) {
    return alloc->alignment;
}

uint64_t galloc_dynalloc_max_chunk_size(const struct galloc_dynalloc * alloc) {
    return alloc->max_chunk_size;
}
