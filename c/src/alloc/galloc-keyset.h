// galloc-keyset.h: an ordered set of 128-bit keys, kept as a list of small sorted arrays.
//
// The dynamic allocator keeps each chunk's free blocks in two of these (by
// offset, and by size). Keys live in buckets of at most KEYSET_BUCKET entries,
// in order; a top-level array holds the buckets in order with each one's
// smallest key. Finding a key searches the smallest keys (halving, when there
// are more than a bucket's worth) and then counts inside one bucket; inserting
// or erasing moves at most one bucket's entries (a split or merge also moves
// the top level, once per half a bucket of changes): fast on a few hundred
// keys (the common case) and still near-logarithmic on hundreds of thousands.
// Private to the library.

#pragma once

#include <stdbool.h>
#include <stdint.h>

#define KEYSET_BUCKET 32

// ordered by hi, then lo
struct galloc_keyset_key {
    uint64_t hi;
    uint64_t lo;
};

// where a key is: the bucket's place in key order and the entry inside it
struct galloc_keyset_pos {
    int32_t bucket;
    int32_t index;
};

struct galloc_keyset_bucket {
    int32_t           n;
    struct galloc_keyset_key keys[KEYSET_BUCKET];
};

struct keyset {
    struct galloc_keyset_bucket * pool;       // buckets, in any order
    int32_t                pool_size;  // entries of pool in use or on the free list
    int32_t                pool_capacity;
    int32_t              * free_ids;   // released bucket ids (a stack)
    int32_t                n_free_ids;
    int32_t              * order;      // bucket ids in key order
    struct galloc_keyset_key    * mins;       // the smallest key of each bucket in order
    int32_t                n_buckets;
    int32_t                order_capacity;
    int64_t                count;      // keys held
};

static inline bool galloc_keyset_key_less(struct galloc_keyset_key a, struct galloc_keyset_key b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

void galloc_keyset_init (struct keyset * set);
void galloc_keyset_clear(struct keyset * set);   // drop every key, keep the memory
void galloc_keyset_free (struct keyset * set);   // release the memory

// add a key (duplicates are kept); false when out of memory (the set is unchanged)
bool galloc_keyset_insert(struct keyset * set, struct galloc_keyset_key key);
// make sure the next insert cannot run out of memory; false when out of memory
bool galloc_keyset_reserve(struct keyset * set);
// the first key >= key; false when there is none
bool galloc_keyset_lower_bound(const struct keyset * set, struct galloc_keyset_key key, struct galloc_keyset_pos * pos);
// the first or last key; false when the set is empty
bool galloc_keyset_first(const struct keyset * set, struct galloc_keyset_pos * pos);
bool galloc_keyset_last (const struct keyset * set, struct galloc_keyset_pos * pos);
// step to the next or previous key; false at the end (pos is then unchanged)
bool galloc_keyset_next(const struct keyset * set, struct galloc_keyset_pos * pos);
bool galloc_keyset_prev(const struct keyset * set, struct galloc_keyset_pos * pos);

static inline struct galloc_keyset_key galloc_keyset_at(const struct keyset * set, struct galloc_keyset_pos pos) {
    return set->pool[set->order[pos.bucket]].keys[pos.index];
}

// replace the key at pos by one that keeps the order (between its neighbours)
void galloc_keyset_replace(struct keyset * set, struct galloc_keyset_pos pos, struct galloc_keyset_key key);
// remove the key at pos; every position taken before is invalid afterwards
void galloc_keyset_erase(struct keyset * set, struct galloc_keyset_pos pos);
// remove one key equal to key; false when there is none
bool galloc_keyset_erase_key(struct keyset * set, struct galloc_keyset_key key);
