// galloc-dynalloc.c: the dynamic allocator of one buffer type (ggml's ggml_dyn_tallocr).
//
// Upstream keeps each chunk's free blocks in an array of at most 256 and scans
// it on every allocation. Here each chunk keeps them in two treaps, one by
// offset and one by size (then offset, downwards) for all blocks but the last, so that the
// block upstream's scan would pick is found in O(log n) with any number of
// blocks: the smallest fitting size, the highest offset among equal sizes.
// A zero-byte allocation can leave upstream's blocks overlapping, which only
// a literal scan reproduces: from then on (until reset) the allocator hands
// over to the linear one in galloc-dynalloc-linear.c.

#include "galloc-dynalloc.h"
#include "galloc-dynalloc-linear.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NIL (-1)

enum tree { BY_OFFSET = 0, BY_SIZE = 1 };

struct block {
    uint64_t offset;      // bytes from the chunk's start
    uint64_t size;        // bytes
    int32_t  child[2][2]; // [tree][0 = left, 1 = right]
    uint32_t priority;    // treap heap order (max at the root)
    int32_t  next_free;   // pool free list
};

struct chunk {
    int32_t  root[2];  // BY_OFFSET: every free block; BY_SIZE: every free block but the last
    int32_t  last;     // the free block with the highest offset, NIL when none
    int32_t  n_blocks;
    uint64_t max_size; // highest end offset ever handed out
};

struct galloc_dynalloc {
    uint64_t       alignment;
    uint64_t       max_chunk_size; // min(max_size, GALLOC_HUGE_SIZE)
    struct chunk   chunks[GALLOC_MAX_CHUNKS];
    int32_t        n_chunks;
    struct block * blocks;      // node pool shared by the chunks
    int32_t        capacity;
    int32_t        next_unused; // pool entries [next_unused, capacity) never used since the last reset
    int32_t        free_list;
    uint32_t       rng;

    bool                   linear;        // the linear allocator below holds the state
    bool                   always_linear; // created with galloc_dynalloc_new_linear
    struct linear_dynalloc lin;
};

// (hi, lo) keys: BY_OFFSET (offset, 0), BY_SIZE (size, ~offset)
struct key {
    uint64_t hi;
    uint64_t lo;
};

static bool key_less(struct key a, struct key b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static uint64_t align_up(uint64_t size, uint64_t alignment) {
    return (size + alignment - 1) & ~(alignment - 1);
}

// ---- node pool ----------------------------------------------------------

static int32_t block_new(struct galloc_dynalloc * a, uint64_t offset, uint64_t size) {
    int32_t n;
    if (a->free_list != NIL) {
        n            = a->free_list;
        a->free_list = a->blocks[n].next_free;
    } else {
        if (a->next_unused == a->capacity) {
            if (a->capacity > INT32_MAX / 2) {
                return NIL;
            }
            int32_t        capacity = a->capacity ? a->capacity * 2 : 64;
            struct block * blocks   = realloc(a->blocks, (size_t) capacity * sizeof(*blocks));
            if (!blocks) {
                return NIL;
            }
            a->blocks   = blocks;
            a->capacity = capacity;
        }
        n = a->next_unused++;
    }
    a->rng ^= a->rng << 13;
    a->rng ^= a->rng >> 17;
    a->rng ^= a->rng << 5;
    a->blocks[n] = (struct block) {
        .offset   = offset,
        .size     = size,
        .child    = { { NIL, NIL }, { NIL, NIL } },
        .priority = a->rng,
    };
    return n;
}

static void block_release(struct galloc_dynalloc * a, int32_t n) {
    a->blocks[n].next_free = a->free_list;
    a->free_list           = n;
}

// ---- treaps -------------------------------------------------------------

static struct key key_of(const struct galloc_dynalloc * a, int32_t n, enum tree t) {
    const struct block * b = &a->blocks[n];
    // by size: equal sizes in decreasing offset, so the first block of a size is its highest
    return t == BY_OFFSET ? (struct key) { b->offset, 0 } : (struct key) { b->size, ~b->offset };
}

// every key of l is below every key of r
static int32_t treap_merge(struct galloc_dynalloc * a, int32_t l, int32_t r, enum tree t) {
    int32_t   root = NIL;
    int32_t * link = &root;
    while (l != NIL && r != NIL) {
        if (a->blocks[l].priority > a->blocks[r].priority) {
            *link = l;
            link  = &a->blocks[l].child[t][1];
            l     = *link;
        } else {
            *link = r;
            link  = &a->blocks[r].child[t][0];
            r     = *link;
        }
    }
    *link = l != NIL ? l : r;
    return root;
}

// descend to where n's priority puts it, then split the subtree found there around n's key:
// the expected work is the depth of n, not two full spines as a root split and merge would be
static void treap_insert(struct galloc_dynalloc * a, int32_t * root, int32_t n, enum tree t) {
    struct key k    = key_of(a, n, t);
    int32_t *  link = root;
    while (*link != NIL && a->blocks[*link].priority >= a->blocks[n].priority) {
        link = &a->blocks[*link].child[t][key_less(k, key_of(a, *link, t)) ? 0 : 1];
    }
    int32_t * left  = &a->blocks[n].child[t][0];
    int32_t * right = &a->blocks[n].child[t][1];
    int32_t   cur   = *link;
    while (cur != NIL) {
        if (key_less(key_of(a, cur, t), k)) {
            *left = cur;
            left  = &a->blocks[cur].child[t][1];
            cur   = *left;
        } else {
            *right = cur;
            right  = &a->blocks[cur].child[t][0];
            cur    = *right;
        }
    }
    *left  = NIL;
    *right = NIL;
    *link  = n;
}

// remove node n, found by its current key; returns the new root
static int32_t treap_erase(struct galloc_dynalloc * a, int32_t root, int32_t n, enum tree t) {
    struct key k    = key_of(a, n, t);
    int32_t *  link = &root;
    while (*link != n) {
        assert(*link != NIL && "block not in its tree");
        if (*link == NIL) {
            return root;
        }
        link = &a->blocks[*link].child[t][key_less(k, key_of(a, *link, t)) ? 0 : 1];
    }
    *link = treap_merge(a, a->blocks[n].child[t][0], a->blocks[n].child[t][1], t);
    return root;
}

// the node with the smallest key >= k, or NIL
static int32_t treap_ceil(const struct galloc_dynalloc * a, int32_t root, struct key k, enum tree t) {
    int32_t found = NIL;
    while (root != NIL) {
        if (key_less(key_of(a, root, t), k)) {
            root = a->blocks[root].child[t][1];
        } else {
            found = root;
            root  = a->blocks[root].child[t][0];
        }
    }
    return found;
}

// in one descent: the node with the largest key <= k and the node with the smallest key > k
static void treap_neighbors(const struct galloc_dynalloc * a, int32_t root, struct key k, enum tree t, int32_t * below, int32_t * above) {
    *below = *above = NIL;
    while (root != NIL) {
        if (key_less(k, key_of(a, root, t))) {
            *above = root;
            root   = a->blocks[root].child[t][0];
        } else {
            *below = root;
            root   = a->blocks[root].child[t][1];
        }
    }
}

static int32_t treap_max(const struct galloc_dynalloc * a, int32_t root, enum tree t) {
    while (root != NIL && a->blocks[root].child[t][1] != NIL) {
        root = a->blocks[root].child[t][1];
    }
    return root;
}

// ---- chunk's free blocks ------------------------------------------------

static void chunk_size_insert(struct galloc_dynalloc * a, struct chunk * c, int32_t n) {
    treap_insert(a, &c->root[BY_SIZE], n, BY_SIZE);
}

static void chunk_size_erase(struct galloc_dynalloc * a, struct chunk * c, int32_t n) {
    c->root[BY_SIZE] = treap_erase(a, c->root[BY_SIZE], n, BY_SIZE);
}

// add a block that touches no other block
static bool chunk_add_block(struct galloc_dynalloc * a, struct chunk * c, uint64_t offset, uint64_t size) {
    int32_t n = block_new(a, offset, size);
    if (n == NIL) {
        return false;
    }
    treap_insert(a, &c->root[BY_OFFSET], n, BY_OFFSET);
    if (c->last == NIL) {
        c->last = n;
    } else if (offset > a->blocks[c->last].offset) {
        chunk_size_insert(a, c, c->last); // the old last block becomes an inner one
        c->last = n;
    } else {
        chunk_size_insert(a, c, n);
    }
    c->n_blocks++;
    return true;
}

// remove block n from both trees (n must not be in the size tree unless it is inner)
static void chunk_remove_block(struct galloc_dynalloc * a, struct chunk * c, int32_t n) {
    c->root[BY_OFFSET] = treap_erase(a, c->root[BY_OFFSET], n, BY_OFFSET);
    if (n == c->last) {
        c->last = treap_max(a, c->root[BY_OFFSET], BY_OFFSET);
        if (c->last != NIL) {
            chunk_size_erase(a, c, c->last); // the new last block leaves the size tree
        }
    } else {
        chunk_size_erase(a, c, n);
    }
    block_release(a, n);
    c->n_blocks--;
}

// ---- lifetime -----------------------------------------------------------

static void chunk_clear(struct chunk * c) {
    *c = (struct chunk) { .root = { NIL, NIL }, .last = NIL, .n_blocks = 0, .max_size = 0 };
}

struct galloc_dynalloc * galloc_dynalloc_new(uint64_t alignment, uint64_t max_size) {
    assert(alignment && !(alignment & (alignment - 1)));
    struct galloc_dynalloc * alloc = calloc(1, sizeof(*alloc));
    if (!alloc) {
        return NULL;
    }
    alloc->alignment      = alignment;
    alloc->max_chunk_size = max_size < GALLOC_HUGE_SIZE ? max_size : GALLOC_HUGE_SIZE;
    alloc->free_list      = NIL;
    alloc->rng            = 0x9e3779b9u;
    linear_dynalloc_init(&alloc->lin, alignment, alloc->max_chunk_size);
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
    for (int32_t i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        chunk_clear(&alloc->chunks[i]);
    }
    alloc->n_chunks    = 0;
    alloc->next_unused = 0;
    alloc->free_list   = NIL;
    linear_dynalloc_reset(&alloc->lin);
    alloc->linear = alloc->always_linear;
}

void galloc_dynalloc_free(struct galloc_dynalloc * alloc) {
    if (!alloc) {
        return;
    }
    free(alloc->blocks);
    linear_dynalloc_free_memory(&alloc->lin);
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
    if (!chunk_add_block(alloc, c, 0, size)) {
        return -1;
    }
    return alloc->n_chunks++;
}

// upstream's inner best fit: the smallest inner block >= size, the highest offset among equal sizes
static int32_t chunk_best_fit(const struct galloc_dynalloc * a, const struct chunk * c, uint64_t size) {
    // keys order sizes up and, within a size, offsets down: one descent finds it
    return treap_ceil(a, c->root[BY_SIZE], (struct key) { size, 0 }, BY_SIZE);
}

// copy the chunks' blocks, in offset order, into the linear allocator
static bool append_in_order(struct galloc_dynalloc * a, int32_t ci, int32_t n) {
    if (n == NIL) {
        return true;
    }
    return append_in_order(a, ci, a->blocks[n].child[BY_OFFSET][0]) &&
           linear_dynalloc_append(&a->lin, ci, a->blocks[n].offset, a->blocks[n].size) &&
           append_in_order(a, ci, a->blocks[n].child[BY_OFFSET][1]);
}

static bool switch_to_linear(struct galloc_dynalloc * a) {
    linear_dynalloc_reset(&a->lin);
    for (int32_t ci = 0; ci < a->n_chunks; ci++) {
        a->lin.chunks[ci].max_size = a->chunks[ci].max_size;
        if (!append_in_order(a, ci, a->chunks[ci].root[BY_OFFSET])) {
            return false;
        }
    }
    a->lin.n_chunks = a->n_chunks;
    a->linear       = true;
    return true;
}

bool galloc_dynalloc_alloc(struct galloc_dynalloc * alloc, uint64_t size, struct galloc_address * addr, enum galloc_fit * how) {
    size = align_up(size, alloc->alignment);
    if (!alloc->linear && size == 0 && !switch_to_linear(alloc)) {
        return false;
    }
    if (alloc->linear) {
        return linear_dynalloc_alloc(&alloc->lin, size, addr, how);
    }

    int32_t         best_chunk = -1;
    int32_t         best_block = NIL;
    enum galloc_fit fit        = GALLOC_FIT_BEST;

    // 1. best fit among the inner blocks; upstream's running best restarts in every chunk,
    //    so the last chunk with a fitting inner block wins
    for (int32_t ci = alloc->n_chunks - 1; ci >= 0 && best_block == NIL; ci--) {
        best_block = chunk_best_fit(alloc, &alloc->chunks[ci], size);
        best_chunk = ci;
    }

    // 2. the last block of a chunk, preferring memory the chunk already needs
    if (best_block == NIL) {
        int64_t best_reuse = INT64_MIN;
        for (int32_t ci = 0; ci < alloc->n_chunks; ci++) {
            const struct chunk * c = &alloc->chunks[ci];
            if (c->last == NIL) {
                continue;
            }
            const struct block * last = &alloc->blocks[c->last];
            int64_t reuse        = (int64_t) (c->max_size - last->offset - size);
            bool    better_grow  = best_reuse < 0 && reuse > best_reuse;
            bool    better_reuse = reuse >= 0 && reuse < best_reuse;
            if (last->size >= size && (better_grow || better_reuse)) {
                best_chunk = ci;
                best_block = c->last;
                best_reuse = reuse;
            }
        }
        if (best_block != NIL) {
            fit = best_reuse >= 0 ? GALLOC_FIT_LAST_BLOCK : GALLOC_FIT_GROW;
        }
    }

    // 3. a new chunk
    if (best_block == NIL) {
        best_chunk = dynalloc_new_chunk(alloc, size);
        if (best_chunk == -1) {
            return false; // out of memory: the 16th chunk takes anything up to GALLOC_HUGE_SIZE
        }
        best_block = alloc->chunks[best_chunk].last;
        fit        = GALLOC_FIT_NEW_CHUNK;
    }

    // cut size bytes from the block's start; its place among the offsets does not change
    struct chunk * c      = &alloc->chunks[best_chunk];
    struct block * block  = &alloc->blocks[best_block];
    uint64_t       offset = block->offset;
    if (block->size == size) {
        chunk_remove_block(alloc, c, best_block);
    } else if (best_block == c->last) {
        block->offset += size;
        block->size   -= size;
    } else {
        chunk_size_erase(alloc, c, best_block);
        block->offset += size;
        block->size   -= size;
        chunk_size_insert(alloc, c, best_block);
    }
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
        return linear_dynalloc_release(&alloc->lin, addr, size);
    }
    assert(addr.chunk >= 0 && addr.chunk < alloc->n_chunks);
    struct chunk * c = &alloc->chunks[addr.chunk];

    // upstream walks the blocks in offset order and takes the first that ends at addr or
    // starts at addr + size; free blocks never touch and none starts inside [addr, addr + size),
    // so that is the block below addr if it ends there, else the block above if it starts at the end
    int32_t before, after;
    treap_neighbors(alloc, c->root[BY_OFFSET], (struct key) { addr.offset, 0 }, BY_OFFSET, &before, &after);
    if (before != NIL && alloc->blocks[before].offset + alloc->blocks[before].size == addr.offset) {
        bool inner = before != c->last;
        if (inner) {
            chunk_size_erase(alloc, c, before);
        }
        alloc->blocks[before].size += size;
        uint64_t end = alloc->blocks[before].offset + alloc->blocks[before].size;
        if (after != NIL && alloc->blocks[after].offset == end) {
            uint64_t after_size = alloc->blocks[after].size;
            if (after == c->last) {
                // before takes after's place as the last block: it stays out of the size tree
                c->root[BY_OFFSET] = treap_erase(alloc, c->root[BY_OFFSET], after, BY_OFFSET);
                block_release(alloc, after);
                c->n_blocks--;
                c->last = before;
                inner   = false;
            } else {
                chunk_remove_block(alloc, c, after);
            }
            alloc->blocks[before].size += after_size;
        }
        if (inner) {
            chunk_size_insert(alloc, c, before);
        }
        return true;
    }

    if (after != NIL && alloc->blocks[after].offset == addr.offset + size) {
        bool inner = after != c->last;
        if (inner) {
            chunk_size_erase(alloc, c, after);
        }
        alloc->blocks[after].offset = addr.offset; // still between the same neighbours
        alloc->blocks[after].size  += size;
        // upstream then merges with the previous block if it touches; it cannot: that block would
        // have ended at addr and been taken above (free blocks never touch)
        if (inner) {
            chunk_size_insert(alloc, c, after);
        }
        return true;
    }

    // no neighbour: a new block
    return chunk_add_block(alloc, c, addr.offset, size);
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
    return alloc->linear ? alloc->lin.chunks[chunk].n_blocks : alloc->chunks[chunk].n_blocks;
}

void galloc_dynalloc_free_block(const struct galloc_dynalloc * alloc, int32_t chunk, int32_t i, uint64_t * offset, uint64_t * size) {
    assert(i >= 0 && i < galloc_dynalloc_n_free_blocks(alloc, chunk));
    if (alloc->linear) {
        *offset = alloc->lin.chunks[chunk].blocks[i].offset;
        *size   = alloc->lin.chunks[chunk].blocks[i].size;
        return;
    }
    // the i-th block in offset order: step from the first block through successors
    const struct chunk * c = &alloc->chunks[chunk];
    int32_t n = treap_ceil(alloc, c->root[BY_OFFSET], (struct key) { 0, 0 }, BY_OFFSET);
    for (int32_t k = 0; k < i; k++) {
        n = treap_ceil(alloc, c->root[BY_OFFSET], (struct key) { alloc->blocks[n].offset + 1, 0 }, BY_OFFSET);
    }
    *offset = alloc->blocks[n].offset;
    *size   = alloc->blocks[n].size;
}

uint64_t galloc_dynalloc_alignment(const struct galloc_dynalloc * alloc) {
    return alloc->alignment;
}

uint64_t galloc_dynalloc_max_chunk_size(const struct galloc_dynalloc * alloc) {
    return alloc->max_chunk_size;
}
