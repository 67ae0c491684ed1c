// galloc-arena.c: one block of memory reused by every round of a repeated job (galloc-arena.h).

#include "galloc-arena.h"

#include <stdint.h>
#include <stdlib.h>

// a block taken past the end of the arena's block, freed when the next round begins
struct galloc_arena_spill {
    struct galloc_arena_spill * next;
    // the bytes follow, GALLOC_ARENA_ALIGN after the start of the spill
};

size_t galloc_arena_size(size_t bytes) {
    if (bytes == 0) {
        return GALLOC_ARENA_ALIGN; // every take is a distinct array
    }
    if (bytes > SIZE_MAX - GALLOC_ARENA_ALIGN) {
        return SIZE_MAX;
    }
    return (bytes + GALLOC_ARENA_ALIGN - 1) & ~(size_t) (GALLOC_ARENA_ALIGN - 1);
}

size_t galloc_arena_array_size(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size) {
        return SIZE_MAX;
    }
    return galloc_arena_size(n * size);
}

size_t galloc_arena_sum(size_t a, size_t b) {
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static void free_spills(struct galloc_arena * arena) {
    while (arena->spills) {
        struct galloc_arena_spill * next = arena->spills->next;
        free(arena->spills);
        arena->spills = next;
    }
}

bool galloc_arena_begin(struct galloc_arena * arena, size_t expected) {
    size_t needed = expected > arena->taken ? expected : arena->taken; // the last round spilled: hold all of it
    free_spills(arena);
    arena->used  = 0;
    arena->taken = 0;
    if (needed <= arena->capacity) {
        return true;
    }
    // grow geometrically: rounds that grow a little at a time do not reallocate each time
    size_t grown = arena->capacity + arena->capacity / 2;
    size_t size  = needed > grown ? needed : grown;
    size_t bytes = galloc_arena_size(size);
    free(arena->block);
    arena->block    = NULL;
    arena->capacity = 0;
    if (bytes > PTRDIFF_MAX || (arena->block = malloc(bytes)) == NULL) {
        return false;
    }
    arena->capacity = bytes;
    arena->n_allocations++;
    return true;
}

void * galloc_arena_take(struct galloc_arena * arena, size_t bytes) {
    size_t size = galloc_arena_size(bytes);
    if (size == SIZE_MAX) {
        return NULL;
    }
    if (size <= arena->capacity - arena->used) {
        void * p = arena->block + arena->used;
        arena->used += size;
        arena->taken = galloc_arena_sum(arena->taken, size);
        return p;
    }
    if (size > PTRDIFF_MAX - GALLOC_ARENA_ALIGN) {
        return NULL;
    }
    struct galloc_arena_spill * spill = malloc(GALLOC_ARENA_ALIGN + size);
    if (spill == NULL) {
        return NULL;
    }
    spill->next   = arena->spills;
    arena->spills = spill;
    arena->taken  = galloc_arena_sum(arena->taken, size); // the next round's block holds it
    arena->n_allocations++;
    return (unsigned char *) spill + GALLOC_ARENA_ALIGN;
}

void * galloc_arena_take_array(struct galloc_arena * arena, size_t n, size_t size) {
    size_t bytes = galloc_arena_array_size(n, size);
    return bytes == SIZE_MAX ? NULL : galloc_arena_take(arena, bytes);
}

void galloc_arena_free(struct galloc_arena * arena) {
    free_spills(arena);
    free(arena->block);
    *arena = (struct galloc_arena) { .n_allocations = arena->n_allocations };
}
