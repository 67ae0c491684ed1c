// ggml-hash.c: the pointer hash set declared in ggml-impl.h.
//
// Open addressing with linear probing over a prime number of slots; a bitset
// marks the occupied slots, so a reset only clears the bits. Graphs keep one
// in their context's pool (visited tensors); the allocator mallocs its own
// with ggml_hash_set_new.

#include "ggml-impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//
// sizes
//

static bool hash_size_is_prime(size_t n) {
    if (n < 2) {
        return false;
    }
    if (n % 2 == 0) {
        return n == 2;
    }
    for (size_t d = 3; d <= n / d; d += 2) {
        if (n % d == 0) {
            return false;
        }
    }
    return true;
}

size_t ggml_hash_size(size_t min_sz) {
    size_t n = min_sz < 2 ? 2 : min_sz;
    while (!hash_size_is_prime(n)) {
        GGML_ASSERT(n < SIZE_MAX);
        n++;
    }
    return n;
}

//
// occupancy bitset (32 slots per word)
//

static size_t hash_bitset_words(size_t n_slots) {
    return (n_slots + 31) / 32;
}

static bool hash_slot_used(const struct ggml_hash_set * hash_set, size_t i) {
    return (hash_set->used[i / 32] >> (i % 32)) & 1u;
}

static void hash_slot_mark(struct ggml_hash_set * hash_set, size_t i) {
    hash_set->used[i / 32] |= 1u << (i % 32);
}

// where probing for key starts: tensors are at least 16-byte aligned, so the
// low bits of the address carry no information
static size_t hash_slot_first(const struct ggml_hash_set * hash_set, const struct ggml_tensor * key) {
    return (size_t) ((uintptr_t) key >> 4) % hash_set->size;
}

//
// lifetime
//

struct ggml_hash_set ggml_hash_set_new(size_t size) {
    struct ggml_hash_set result;
    result.size = ggml_hash_size(size);
    result.keys = (struct ggml_tensor **) malloc(result.size * sizeof(struct ggml_tensor *));
    result.used = (uint32_t *) calloc(hash_bitset_words(result.size), sizeof(uint32_t));
    if (result.keys == NULL || result.used == NULL) {
        // out of memory: an empty set (keys NULL) the caller checks, where upstream aborts
        free(result.keys);
        free(result.used);
        result = (struct ggml_hash_set) { 0, NULL, NULL };
    }
    return result;
}

void ggml_hash_set_free(struct ggml_hash_set * hash_set) {
    if (hash_set == NULL) {
        return;
    }
    free(hash_set->used);
    free(hash_set->keys);
    hash_set->used = NULL;
    hash_set->keys = NULL;
    hash_set->size = 0;
}

void ggml_hash_set_reset(struct ggml_hash_set * hash_set) {
    memset(hash_set->used, 0, hash_bitset_words(hash_set->size) * sizeof(uint32_t));
}

//
// lookups
//

size_t ggml_hash_find(const struct ggml_hash_set * hash_set, const struct ggml_tensor * key) {
    const size_t start = hash_slot_first(hash_set, key);
    size_t i = start;
    while (hash_slot_used(hash_set, i) && hash_set->keys[i] != key) {
        i = (i + 1) % hash_set->size;
        if (i == start) {
            return GGML_HASHSET_FULL;
        }
    }
    return i;
}

bool ggml_hash_contains(const struct ggml_hash_set * hash_set, const struct ggml_tensor * key) {
    const size_t i = ggml_hash_find(hash_set, key);
    return i != GGML_HASHSET_FULL && hash_slot_used(hash_set, i);
}

size_t ggml_hash_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    const size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        GGML_ABORT("hash set of %zu slots is full", hash_set->size);
    }
    if (hash_slot_used(hash_set, i)) {
        return GGML_HASHSET_ALREADY_EXISTS;
    }
    hash_slot_mark(hash_set, i);
    hash_set->keys[i] = key;
    return i;
}

size_t ggml_hash_find_or_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    const size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        GGML_ABORT("hash set of %zu slots is full", hash_set->size);
    }
    if (!hash_slot_used(hash_set, i)) {
        hash_slot_mark(hash_set, i);
        hash_set->keys[i] = key;
    }
    return i;
}
