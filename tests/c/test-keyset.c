// test-keyset.c: the ordered key set under the dynamic allocator, against a plain sorted array.
//
// Random inserts (with duplicates and ties on hi), erases by position and by
// key, in-place replacements and searches, at sizes from empty to tens of
// thousands of keys (many buckets, so the top-level search halves), checking
// after every step that both hold the same keys in the same order.

#include "check.h"
#include "galloc-keyset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct reference {
    struct galloc_keyset_key * keys;
    int32_t             n;
};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

// the place of the first key >= key in the reference
static int32_t ref_lower_bound(const struct reference * r, struct galloc_keyset_key key) {
    int32_t i = 0;
    while (i < r->n && galloc_keyset_key_less(r->keys[i], key)) {
        i++;
    }
    return i;
}

static void ref_insert(struct reference * r, struct galloc_keyset_key key) {
    int32_t i = ref_lower_bound(r, key);
    memmove(&r->keys[i + 1], &r->keys[i], (size_t) (r->n - i) * sizeof(*r->keys));
    r->keys[i] = key;
    r->n++;
}

static void ref_erase(struct reference * r, int32_t i) {
    memmove(&r->keys[i], &r->keys[i + 1], (size_t) (r->n - i - 1) * sizeof(*r->keys));
    r->n--;
}

// the position of the i-th key of the set, found by stepping from the first
static struct galloc_keyset_pos nth(const struct keyset * set, int32_t i) {
    struct galloc_keyset_pos pos;
    galloc_keyset_first(set, &pos);
    for (int32_t k = 0; k < i; k++) {
        galloc_keyset_next(set, &pos);
    }
    return pos;
}

static bool same_key(struct galloc_keyset_key a, struct galloc_keyset_key b) {
    return a.hi == b.hi && a.lo == b.lo;
}

// both hold the same keys in order, walked forwards and backwards
static bool same_contents(const struct keyset * set, const struct reference * r) {
    if (set->count != r->n) {
        return false;
    }
    struct galloc_keyset_pos pos;
    bool more = galloc_keyset_first(set, &pos);
    for (int32_t i = 0; i < r->n; i++) {
        if (!more || !same_key(galloc_keyset_at(set, pos), r->keys[i])) {
            return false;
        }
        more = galloc_keyset_next(set, &pos);
    }
    if (more) {
        return false;
    }
    more = galloc_keyset_last(set, &pos);
    for (int32_t i = r->n - 1; i >= 0; i--) {
        if (!more || !same_key(galloc_keyset_at(set, pos), r->keys[i])) {
            return false;
        }
        more = galloc_keyset_prev(set, &pos);
    }
    return !more;
}

// keys from a small range so that equal hi (and whole duplicates) are common
static struct galloc_keyset_key random_key(uint64_t range) {
    return (struct galloc_keyset_key) { rng() % range, rng() % 4 == 0 ? 0 : rng() % range };
}

static void run_random(int32_t steps, int32_t grow_until, uint64_t range) {
    struct keyset set;
    galloc_keyset_init(&set);
    struct reference r = { malloc((size_t) (steps + 1) * sizeof(struct galloc_keyset_key)), 0 };
    int mismatches = 0;
    for (int32_t step = 0; step < steps && mismatches == 0; step++) {
        uint64_t dice    = rng() % 100;
        bool     growing = step < grow_until;
        if (r.n == 0 || dice < (growing ? 60u : 35u)) {
            struct galloc_keyset_key key = random_key(range);
            CHECK(galloc_keyset_insert(&set, key));
            ref_insert(&r, key);
        } else if (dice < 70) {
            int32_t i = (int32_t) (rng() % (uint64_t) r.n);
            galloc_keyset_erase(&set, nth(&set, i));
            ref_erase(&r, i);
        } else if (dice < 80) {
            struct galloc_keyset_key key   = random_key(range);
            int32_t           i     = ref_lower_bound(&r, key);
            bool              found = i < r.n && same_key(r.keys[i], key);
            CHECK(galloc_keyset_erase_key(&set, key) == found);
            if (found) {
                ref_erase(&r, i);
            }
        } else if (dice < 90) {
            // replace a key by one between its neighbours
            int32_t           i    = (int32_t) (rng() % (uint64_t) r.n);
            struct galloc_keyset_key low  = i > 0 ? r.keys[i - 1] : (struct galloc_keyset_key) { 0, 0 };
            struct galloc_keyset_key key  = r.keys[i];
            uint64_t          hi   = low.hi + (key.hi - low.hi) / 2;
            if (hi == key.hi && key.hi == low.hi) {
                key.lo = low.lo + (key.lo - low.lo) / 2;
            } else if (hi == low.hi) {
                key = (struct galloc_keyset_key) { hi, low.lo };
            } else if (hi != key.hi) {
                key = (struct galloc_keyset_key) { hi, rng() };
            }
            galloc_keyset_replace(&set, nth(&set, i), key);
            r.keys[i] = key;
        } else {
            struct galloc_keyset_key key = random_key(range + 2);
            struct galloc_keyset_pos pos;
            int32_t           i = ref_lower_bound(&r, key);
            bool              found = galloc_keyset_lower_bound(&set, key, &pos);
            CHECK(found == (i < r.n));
            if (found && i < r.n) {
                CHECK(same_key(galloc_keyset_at(&set, pos), r.keys[i]));
            }
        }
        if (r.n < 200 || step % 97 == 0) {
            if (!same_contents(&set, &r)) {
                mismatches++;
                fprintf(stderr, "  keyset differs from the reference after step %d (%d keys)\n", step, r.n);
            }
        }
    }
    CHECK(mismatches == 0);
    CHECK(same_contents(&set, &r));
    galloc_keyset_clear(&set);
    CHECK(set.count == 0);
    struct galloc_keyset_pos pos;
    CHECK(!galloc_keyset_first(&set, &pos) && !galloc_keyset_last(&set, &pos));
    CHECK(!galloc_keyset_lower_bound(&set, (struct galloc_keyset_key) { 0, 0 }, &pos));
    galloc_keyset_free(&set);
    free(r.keys);
}

// a few keys, many ties: inserts and erases land on bucket edges
static void test_small_with_ties(void) {
    run_random(20000, 10000, 8);
}

// thousands of keys: splits, merges and a top level of many buckets
static void test_large(void) {
    run_random(60000, 45000, 1u << 20);
}

// ascending and descending runs split the same bucket over and over
static void test_sorted_runs(void) {
    struct keyset set;
    galloc_keyset_init(&set);
    for (uint64_t i = 0; i < 5000; i++) {
        CHECK(galloc_keyset_insert(&set, (struct galloc_keyset_key) { i, 0 }));
        CHECK(galloc_keyset_insert(&set, (struct galloc_keyset_key) { 100000 - i, 1 }));
    }
    struct galloc_keyset_pos pos;
    CHECK(galloc_keyset_lower_bound(&set, (struct galloc_keyset_key) { 4999, 1 }, &pos));
    CHECK(galloc_keyset_at(&set, pos).hi == 95001 && galloc_keyset_at(&set, pos).lo == 1);
    for (uint64_t i = 0; i < 5000; i++) {
        CHECK(galloc_keyset_erase_key(&set, (struct galloc_keyset_key) { i, 0 }));
    }
    CHECK(set.count == 5000);
    CHECK(galloc_keyset_first(&set, &pos) && galloc_keyset_at(&set, pos).hi == 95001);
    CHECK(galloc_keyset_last(&set, &pos) && galloc_keyset_at(&set, pos).hi == 100000);
    galloc_keyset_free(&set);
}

int main(void) {
    RUN(test_small_with_ties);
    RUN(test_large);
    RUN(test_sorted_runs);
    return check_report("test-keyset");
}
