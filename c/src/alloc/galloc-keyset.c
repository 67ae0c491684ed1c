// galloc-keyset.c: an ordered set of 128-bit keys in small sorted buckets (see galloc-keyset.h).

#include "galloc-keyset.h"

#include <stdlib.h>
#include <string.h>

#define HALF (KEYSET_BUCKET / 2)

void galloc_keyset_init(struct keyset * set) {
    memset(set, 0, sizeof(*set));
}

void galloc_keyset_clear(struct keyset * set) {
    set->pool_size  = 0;
    set->n_free_ids = 0;
    set->n_buckets  = 0;
    set->count      = 0;
}

void galloc_keyset_free(struct keyset * set) {
    free(set->pool);
    free(set->free_ids);
    free(set->order);
    free(set->mins);
    galloc_keyset_init(set);
}

// ---- memory -------------------------------------------------------------

// room for one more bucket, in the pool and in the order; false when out of memory
static bool reserve_bucket(struct keyset * set) {
    if (set->n_free_ids == 0 && set->pool_size == set->pool_capacity) {
        if (set->pool_capacity > INT32_MAX / 2) {
            return false;
        }
        int32_t capacity = set->pool_capacity ? set->pool_capacity * 2 : 4;
        struct galloc_keyset_bucket * pool = realloc(set->pool, (size_t) capacity * sizeof(*pool));
        if (!pool) {
            return false;
        }
        set->pool = pool;
        int32_t * free_ids = realloc(set->free_ids, (size_t) capacity * sizeof(*free_ids));
        if (!free_ids) {
            return false;
        }
        set->free_ids      = free_ids;
        set->pool_capacity = capacity;
    }
    if (set->n_buckets == set->order_capacity) {
        if (set->order_capacity > INT32_MAX / 2) {
            return false;
        }
        int32_t capacity = set->order_capacity ? set->order_capacity * 2 : 4;
        int32_t * order = realloc(set->order, (size_t) capacity * sizeof(*order));
        if (!order) {
            return false;
        }
        set->order = order;
        struct galloc_keyset_key * mins = realloc(set->mins, (size_t) capacity * sizeof(*mins));
        if (!mins) {
            return false;
        }
        set->mins           = mins;
        set->order_capacity = capacity;
    }
    return true;
}

bool galloc_keyset_reserve(struct keyset * set) {
    return reserve_bucket(set);
}

// a bucket id from the free list or the pool (reserve_bucket first)
static int32_t take_bucket(struct keyset * set) {
    int32_t id = set->n_free_ids > 0 ? set->free_ids[--set->n_free_ids] : set->pool_size++;
    set->pool[id].n = 0;
    return id;
}

// put bucket id at place `at` of the order (reserve_bucket first)
static void order_insert(struct keyset * set, int32_t at, int32_t id) {
    size_t moved = (size_t) (set->n_buckets - at);
    memmove(&set->order[at + 1], &set->order[at], moved * sizeof(*set->order));
    memmove(&set->mins[at + 1], &set->mins[at], moved * sizeof(*set->mins));
    set->order[at] = id;
    set->mins[at]  = set->pool[id].keys[0];
    set->n_buckets++;
}

// take the bucket at place `at` out of the order and give its id back
static void order_remove(struct keyset * set, int32_t at) {
    set->free_ids[set->n_free_ids++] = set->order[at];
    size_t moved = (size_t) (set->n_buckets - at - 1);
    memmove(&set->order[at], &set->order[at + 1], moved * sizeof(*set->order));
    memmove(&set->mins[at], &set->mins[at + 1], moved * sizeof(*set->mins));
    set->n_buckets--;
}

// ---- searching ----------------------------------------------------------

// key < other, computed without branches (searches below would mispredict half their steps)
static inline int32_t less_flag(struct galloc_keyset_key key, struct galloc_keyset_key other) {
    return (int32_t) ((key.hi < other.hi) | ((key.hi == other.hi) & (key.lo < other.lo)));
}

// how many of keys[0..n) are < key (keys sorted). Halving (without branches) down to a
// bucket's size, then counting the keys with a smaller hi, one cheap compare each, then
// stepping over the few keys with an equal hi and a smaller lo.
static int32_t count_below(const struct galloc_keyset_key * keys, int32_t n, struct galloc_keyset_key key) {
    int32_t base = 0;
    while (n > KEYSET_BUCKET) {
        int32_t half = n / 2;
        base += less_flag(keys[base + half - 1], key) * half;
        n    -= half;
    }
    int32_t end   = base + n;
    int32_t count = 0;
    for (int32_t i = base; i < end; i++) {
        count += keys[i].hi < key.hi;
    }
    int32_t i = base + count;
    while (i < end && keys[i].hi == key.hi && keys[i].lo < key.lo) {
        i++;
    }
    return i;
}

// the bucket (place in order) where key belongs: the last one whose smallest key is < key, else the first
static int32_t bucket_for(const struct keyset * set, struct galloc_keyset_key key) {
    int32_t below = count_below(set->mins, set->n_buckets, key);
    return below > 0 ? below - 1 : 0;
}

bool galloc_keyset_lower_bound(const struct keyset * set, struct galloc_keyset_key key, struct galloc_keyset_pos * pos) {
    if (set->n_buckets == 0) {
        return false;
    }
    int32_t                      b      = bucket_for(set, key);
    const struct galloc_keyset_bucket * bucket = &set->pool[set->order[b]];
    int32_t                      i      = count_below(bucket->keys, bucket->n, key);
    if (i == bucket->n) {
        // every key of this bucket is smaller: the next bucket starts at a key >= key
        if (b + 1 == set->n_buckets) {
            return false;
        }
        b++;
        i = 0;
    }
    *pos = (struct galloc_keyset_pos) { b, i };
    return true;
}

bool galloc_keyset_first(const struct keyset * set, struct galloc_keyset_pos * pos) {
    if (set->n_buckets == 0) {
        return false;
    }
    *pos = (struct galloc_keyset_pos) { 0, 0 };
    return true;
}

bool galloc_keyset_last(const struct keyset * set, struct galloc_keyset_pos * pos) {
    if (set->n_buckets == 0) {
        return false;
    }
    int32_t b = set->n_buckets - 1;
    *pos      = (struct galloc_keyset_pos) { b, set->pool[set->order[b]].n - 1 };
    return true;
}

bool galloc_keyset_next(const struct keyset * set, struct galloc_keyset_pos * pos) {
    if (pos->index + 1 < set->pool[set->order[pos->bucket]].n) {
        pos->index++;
        return true;
    }
    if (pos->bucket + 1 < set->n_buckets) {
        *pos = (struct galloc_keyset_pos) { pos->bucket + 1, 0 };
        return true;
    }
    return false;
}

bool galloc_keyset_prev(const struct keyset * set, struct galloc_keyset_pos * pos) {
    if (pos->index > 0) {
        pos->index--;
        return true;
    }
    if (pos->bucket > 0) {
        int32_t b = pos->bucket - 1;
        *pos      = (struct galloc_keyset_pos) { b, set->pool[set->order[b]].n - 1 };
        return true;
    }
    return false;
}

// ---- changing -----------------------------------------------------------

bool galloc_keyset_insert(struct keyset * set, struct galloc_keyset_key key) {
    if (set->n_buckets == 0) {
        if (!reserve_bucket(set)) {
            return false;
        }
        int32_t id            = take_bucket(set);
        set->pool[id].n       = 1;
        set->pool[id].keys[0] = key;
        order_insert(set, 0, id);
        set->count = 1;
        return true;
    }
    int32_t b = bucket_for(set, key);
    if (set->pool[set->order[b]].n == KEYSET_BUCKET && !reserve_bucket(set)) {
        return false;
    }
    struct galloc_keyset_bucket * bucket = &set->pool[set->order[b]];
    int32_t                i      = count_below(bucket->keys, bucket->n, key);
    if (bucket->n == KEYSET_BUCKET) {
        // split: the upper half moves to a new bucket right after this one
        int32_t                id    = take_bucket(set);
        struct galloc_keyset_bucket * upper = &set->pool[id];
        memcpy(upper->keys, &bucket->keys[HALF], (size_t) (KEYSET_BUCKET - HALF) * sizeof(*upper->keys));
        upper->n  = KEYSET_BUCKET - HALF;
        bucket->n = HALF;
        order_insert(set, b + 1, id);
        if (i > HALF) {
            b++;
            bucket = upper;
            i     -= HALF;
        }
    }
    memmove(&bucket->keys[i + 1], &bucket->keys[i], (size_t) (bucket->n - i) * sizeof(*bucket->keys));
    bucket->keys[i] = key;
    bucket->n++;
    if (i == 0) {
        set->mins[b] = key;
    }
    set->count++;
    return true;
}

void galloc_keyset_replace(struct keyset * set, struct galloc_keyset_pos pos, struct galloc_keyset_key key) {
    set->pool[set->order[pos.bucket]].keys[pos.index] = key;
    if (pos.index == 0) {
        set->mins[pos.bucket] = key;
    }
}

// append the bucket at place b + 1 to the one at b and drop it
static void merge_with_next(struct keyset * set, int32_t b) {
    struct galloc_keyset_bucket *       into = &set->pool[set->order[b]];
    const struct galloc_keyset_bucket * from = &set->pool[set->order[b + 1]];
    memcpy(&into->keys[into->n], from->keys, (size_t) from->n * sizeof(*from->keys));
    into->n += from->n;
    order_remove(set, b + 1);
}

void galloc_keyset_erase(struct keyset * set, struct galloc_keyset_pos pos) {
    int32_t                b      = pos.bucket;
    struct galloc_keyset_bucket * bucket = &set->pool[set->order[b]];
    memmove(&bucket->keys[pos.index], &bucket->keys[pos.index + 1], (size_t) (bucket->n - pos.index - 1) * sizeof(*bucket->keys));
    bucket->n--;
    set->count--;
    if (bucket->n == 0) {
        order_remove(set, b);
        return;
    }
    if (pos.index == 0) {
        set->mins[b] = bucket->keys[0];
    }
    // keep neighbours from both running nearly empty: any two of them hold more than half a bucket
    if (b + 1 < set->n_buckets && bucket->n + set->pool[set->order[b + 1]].n <= HALF) {
        merge_with_next(set, b);
    } else if (b > 0 && set->pool[set->order[b - 1]].n + bucket->n <= HALF) {
        merge_with_next(set, b - 1);
    }
}

bool galloc_keyset_erase_key(struct keyset * set, struct galloc_keyset_key key) {
    struct galloc_keyset_pos pos;
    if (!galloc_keyset_lower_bound(set, key, &pos)) {
        return false;
    }
    struct galloc_keyset_key found = galloc_keyset_at(set, pos);
    if (found.hi != key.hi || found.lo != key.lo) {
        return false;
    }
    galloc_keyset_erase(set, pos);
    return true;
}
