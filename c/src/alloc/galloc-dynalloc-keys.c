// galloc-dynalloc-keys.c: a chunk's free blocks in two ordered key sets, for regular states.
//
// Every block by offset, and every block but the last by size (then offset,
// downwards), so that the block upstream's scan would pick is found by one
// search with any number of blocks: the smallest fitting size, the highest
// offset among equal sizes. Holds only regular states (galloc-dynalloc-chunk.h):
// there upstream's scans reduce to these searches; a zero-byte allocation
// changes nothing but its address, and a zero-byte release is a no-op when it
// touches a block, or else (the one operation leaving a regular state) is
// answered GALLOC_KEYS_IRREGULAR for the list form to do.

#include "galloc-dynalloc-chunk.h"

#include <assert.h>

// ---- keys ---------------------------------------------------------------

static struct galloc_keyset_key offset_key(uint64_t offset, uint64_t size) {
    return (struct galloc_keyset_key) { offset, size };
}

// equal sizes in decreasing offset, so the first block of a size is its highest
static struct galloc_keyset_key size_key(uint64_t offset, uint64_t size) {
    return (struct galloc_keyset_key) { size, ~offset };
}

// ---- lifetime -----------------------------------------------------------

void galloc_block_keys_init(struct galloc_block_keys * k) {
    galloc_keyset_init(&k->by_offset);
    galloc_keyset_init(&k->by_size);
}

void galloc_block_keys_clear(struct galloc_block_keys * k) {
    galloc_keyset_clear(&k->by_offset);
    galloc_keyset_clear(&k->by_size);
}

void galloc_block_keys_free(struct galloc_block_keys * k) {
    galloc_keyset_free(&k->by_offset);
    galloc_keyset_free(&k->by_size);
}

// ---- blocks -------------------------------------------------------------

static bool is_last(const struct galloc_block_keys * k, struct galloc_keyset_pos pos) {
    struct galloc_keyset_pos last;
    return galloc_keyset_last(&k->by_offset, &last) && last.bucket == pos.bucket && last.index == pos.index;
}

// add a block that touches no other block; false when out of memory
static bool add_block(struct galloc_block_keys * k, uint64_t offset, uint64_t size) {
    struct galloc_keyset_pos last;
    if (!galloc_keyset_last(&k->by_offset, &last)) {
        return galloc_keyset_insert(&k->by_offset, offset_key(offset, size)); // the only block is the last
    }
    struct galloc_keyset_key old_last = galloc_keyset_at(&k->by_offset, last);
    // the block that ends up not last enters the size set
    struct galloc_keyset_key inner = offset > old_last.hi ? size_key(old_last.hi, old_last.lo) : size_key(offset, size);
    if (!galloc_keyset_insert(&k->by_size, inner)) {
        return false;
    }
    if (!galloc_keyset_insert(&k->by_offset, offset_key(offset, size))) {
        galloc_keyset_erase_key(&k->by_size, inner);
        return false;
    }
    return true;
}

bool galloc_block_keys_append(struct galloc_block_keys * k, uint64_t offset, uint64_t size) {
    return add_block(k, offset, size);
}

// remove the last block; the one before it (if any) becomes the last and leaves the size set
static void remove_last(struct galloc_block_keys * k) {
    struct galloc_keyset_pos last;
    galloc_keyset_last(&k->by_offset, &last);
    galloc_keyset_erase(&k->by_offset, last);
    if (galloc_keyset_last(&k->by_offset, &last)) {
        struct galloc_keyset_key key = galloc_keyset_at(&k->by_offset, last);
        bool erased = galloc_keyset_erase_key(&k->by_size, size_key(key.hi, key.lo));
        assert(erased && "new last block not in the size set");
        (void) erased;
    }
}

// an inner block grew: move its size key from old_key to the larger new_key, in place when
// no other key lies between them; false when out of memory (nothing changed)
static bool size_key_grow(struct galloc_block_keys * k, struct galloc_keyset_key old_key, struct galloc_keyset_key new_key) {
    struct galloc_keyset_pos pos;
    bool found = galloc_keyset_lower_bound(&k->by_size, old_key, &pos);
    assert(found && "inner block not in the size set");
    (void) found;
    struct galloc_keyset_pos next = pos;
    if (!galloc_keyset_next(&k->by_size, &next) || galloc_keyset_key_less(new_key, galloc_keyset_at(&k->by_size, next))) {
        galloc_keyset_replace(&k->by_size, pos, new_key);
        return true;
    }
    if (!galloc_keyset_reserve(&k->by_size)) {
        return false;
    }
    galloc_keyset_erase(&k->by_size, pos);
    galloc_keyset_insert(&k->by_size, new_key); // reserved: cannot fail
    return true;
}

// ---- allocation ---------------------------------------------------------

enum galloc_keys_result galloc_block_keys_take_inner(struct galloc_block_keys * k, uint64_t size, uint64_t * offset) {
    // keys order sizes up and, within a size, offsets down: the first key >= (size, 0) is the block
    struct galloc_keyset_pos size_pos;
    if (!galloc_keyset_lower_bound(&k->by_size, (struct galloc_keyset_key) { size, 0 }, &size_pos)) {
        return GALLOC_KEYS_NONE;
    }
    struct galloc_keyset_key key        = galloc_keyset_at(&k->by_size, size_pos);
    uint64_t                 block_size = key.hi;
    *offset                             = ~key.lo;
    if (size == 0) {
        return GALLOC_KEYS_DONE; // upstream cuts nothing from a block that is not empty
    }
    if (block_size > size && !galloc_keyset_reserve(&k->by_size)) {
        return GALLOC_KEYS_OOM;
    }
    galloc_keyset_erase(&k->by_size, size_pos);
    if (block_size > size) {
        galloc_keyset_insert(&k->by_size, size_key(*offset + size, block_size - size)); // reserved: cannot fail
    }
    struct galloc_keyset_pos pos;
    bool found = galloc_keyset_lower_bound(&k->by_offset, offset_key(*offset, 0), &pos);
    assert(found && galloc_keyset_at(&k->by_offset, pos).hi == *offset);
    (void) found;
    if (block_size == size) {
        galloc_keyset_erase(&k->by_offset, pos);
    } else {
        galloc_keyset_replace(&k->by_offset, pos, offset_key(*offset + size, block_size - size)); // same place among the offsets
    }
    return GALLOC_KEYS_DONE;
}

bool galloc_block_keys_last(const struct galloc_block_keys * k, uint64_t * offset, uint64_t * size) {
    struct galloc_keyset_pos last;
    if (!galloc_keyset_last(&k->by_offset, &last)) {
        return false;
    }
    struct galloc_keyset_key key = galloc_keyset_at(&k->by_offset, last);
    *offset = key.hi;
    *size   = key.lo;
    return true;
}

void galloc_block_keys_take_last(struct galloc_block_keys * k, uint64_t size) {
    struct galloc_keyset_pos last;
    galloc_keyset_last(&k->by_offset, &last);
    struct galloc_keyset_key key = galloc_keyset_at(&k->by_offset, last);
    if (key.lo == size) {
        remove_last(k);
    } else if (size > 0) {
        galloc_keyset_replace(&k->by_offset, last, offset_key(key.hi + size, key.lo - size));
    }
}

// ---- release ------------------------------------------------------------

enum galloc_keys_result galloc_block_keys_release(struct galloc_block_keys * k, uint64_t offset, uint64_t size) {
    // upstream walks the blocks in offset order and takes the first that ends at offset or
    // starts at offset + size; free blocks never touch and none starts inside [offset, offset + size),
    // so that is the block below if it ends there, else the block above if it starts at the end
    struct galloc_keyset_pos above, below;
    bool has_above = galloc_keyset_lower_bound(&k->by_offset, offset_key(offset, 0), &above);
    bool has_below = false;
    if (has_above) {
        below     = above;
        has_below = galloc_keyset_prev(&k->by_offset, &below);
    } else {
        has_below = galloc_keyset_last(&k->by_offset, &below);
    }
    struct galloc_keyset_key b = has_below ? galloc_keyset_at(&k->by_offset, below) : offset_key(0, 0);
    struct galloc_keyset_key a = has_above ? galloc_keyset_at(&k->by_offset, above) : offset_key(0, 0);

    if (size == 0) {
        // upstream grows the touching block by nothing, and its neighbours never touch it;
        // with no touching block it inserts an empty one, which only the list form holds
        bool touches = (has_below && b.hi + b.lo == offset) || (has_above && a.hi == offset);
        return touches ? GALLOC_KEYS_DONE : GALLOC_KEYS_IRREGULAR;
    }

    if (has_below && b.hi + b.lo == offset) {
        bool     below_inner = !is_last(k, below);
        uint64_t grown       = b.lo + size;
        bool     take_above  = has_above && a.hi == b.hi + grown;
        bool     above_last  = take_above && is_last(k, above);
        if (take_above) {
            grown += a.lo;
        }
        bool stays_inner = below_inner && !above_last;
        if (stays_inner && !galloc_keyset_reserve(&k->by_size)) {
            return GALLOC_KEYS_OOM; // nothing changed yet
        }
        if (take_above && !above_last) {
            galloc_keyset_erase_key(&k->by_size, size_key(a.hi, a.lo));
        }
        if (stays_inner) {
            size_key_grow(k, size_key(b.hi, b.lo), size_key(b.hi, grown)); // reserved: cannot fail
        } else if (below_inner) {
            galloc_keyset_erase_key(&k->by_size, size_key(b.hi, b.lo)); // below takes the last block's place
        }
        galloc_keyset_replace(&k->by_offset, below, offset_key(b.hi, grown));
        if (take_above) {
            galloc_keyset_erase(&k->by_offset, above);
        }
        return GALLOC_KEYS_DONE;
    }

    if (has_above && a.hi == offset + size) {
        // upstream then merges with the previous block if it touches; it cannot: that block would
        // have ended at offset and been taken above (free blocks never touch)
        if (!is_last(k, above) && !size_key_grow(k, size_key(a.hi, a.lo), size_key(offset, a.lo + size))) {
            return GALLOC_KEYS_OOM;
        }
        galloc_keyset_replace(&k->by_offset, above, offset_key(offset, a.lo + size)); // still between the same neighbours
        return GALLOC_KEYS_DONE;
    }

    // no neighbour: a new block
    return add_block(k, offset, size) ? GALLOC_KEYS_DONE : GALLOC_KEYS_OOM;
}

// ---- inspection ---------------------------------------------------------

struct galloc_free_block galloc_block_keys_at(const struct galloc_block_keys * k, int64_t i) {
    // skip whole buckets, then step inside one
    const struct keyset * set = &k->by_offset;
    int32_t               b   = 0;
    while (i >= set->pool[set->order[b]].n) {
        i -= set->pool[set->order[b]].n;
        b++;
    }
    struct galloc_keyset_key key = galloc_keyset_at(set, (struct galloc_keyset_pos) { b, (int32_t) i });
    return (struct galloc_free_block) { key.hi, key.lo };
}
