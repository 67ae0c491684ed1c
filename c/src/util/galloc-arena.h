// galloc-arena.h: one block of memory reused by every round of a repeated job.
//
// A round (one reserve of a graph allocator, one planning pass) takes its arrays
// from the block with galloc_arena_take; galloc_arena_begin starts the next round
// and forgets the arrays of the last one. The block is sized once, grows
// geometrically when a round needs more, and never shrinks, so a round that
// fits allocates nothing, and the memory is neither handed back to the system
// nor faulted in again between rounds. A round that asks for more than the
// block holds still gets its arrays (from malloc, "spills"); the next round
// begins with one block large enough for it.
//
//   struct galloc_arena arena = { 0 };
//   galloc_arena_begin(&arena, bytes_a + bytes_b);
//   int32_t * a = galloc_arena_take(&arena, bytes_a); // NULL: out of memory
//   ...
//   galloc_arena_free(&arena);

#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct galloc_arena_spill; // private: a block taken past the end of the arena's block

struct galloc_arena {
    unsigned char             * block;
    size_t                      capacity; // bytes of block
    size_t                      used;     // bytes of block taken this round
    size_t                      taken;    // bytes taken this round, spills included
    struct galloc_arena_spill * spills;   // taken this round when block was full
    uint64_t                    n_allocations; // blocks and spills allocated so far (reuse is observable)
};

// every array taken from the arena is aligned to this (as malloc aligns)
#define GALLOC_ARENA_ALIGN 16

// bytes that galloc_arena_take(bytes) uses up: callers sum these to size a round
size_t galloc_arena_size(size_t bytes);

// galloc_arena_size(n * size), SIZE_MAX when that overflows; a + b, SIZE_MAX when that overflows
size_t galloc_arena_array_size(size_t n, size_t size);
size_t galloc_arena_sum(size_t a, size_t b);

// start a round that will take about `expected` bytes (sums of galloc_arena_size): the arrays of
// the last round are forgotten, its spills freed; the block grows when it holds less than
// `expected` or than the last round took. False when that block cannot be allocated (takes may
// then still succeed one by one)
bool galloc_arena_begin(struct galloc_arena * arena, size_t expected);

// bytes for this round, aligned to GALLOC_ARENA_ALIGN, contents undefined; NULL when out of memory.
// Valid until the next galloc_arena_begin or galloc_arena_free
void * galloc_arena_take(struct galloc_arena * arena, size_t bytes);

// n entries of size bytes (galloc_arena_take); NULL when out of memory or when n * size overflows
void * galloc_arena_take_array(struct galloc_arena * arena, size_t n, size_t size);

// release the block and the spills; the arena is empty and may be used again
void galloc_arena_free(struct galloc_arena * arena);
