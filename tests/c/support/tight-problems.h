// tight-problems.h: random tight what-if problems of MiniMalloc's "challenging" kind, with a known packing.
//
// A square of side x side cells (time steps x units of bytes) is cut, one straight cut at a time,
// into n rectangles; each is an item live over its steps, its size its units times unit bytes.
// The pieces tile the square, so every step holds side x unit bytes: that is the lower bound, and
// the cut itself (offsets) is a plan that meets it, known without any planner.

#pragma once

#include "galloc-whatif.h"

#include <stdint.h>

enum tight_style {
    TIGHT_EVEN,   // always cut the largest piece: sizes and lifetimes alike (as MiniMalloc's F, G, H)
    TIGHT_SKEWED, // cut a piece chosen at random: a few large items among many small ones (as A, I, K)
};

// n items (at most side x side) into items[] and the cut's offsets into offsets[], shuffled, ids
// 0 .. n - 1; returns the number of items made (n unless the square ran out of cells). With
// holes_percent > 0, the square is cut into n / (1 - holes_percent / 100) pieces and only n are
// kept: the rest are holes (MiniMalloc's problems fill 57-98 % of their square), the lower bound
// may fall below side x unit, and the cut's plan still fits it. items[] and offsets[] need room
// for all the pieces.
int32_t tight_problem(uint64_t seed, int32_t n, int32_t side, uint64_t unit, enum tight_style style, int32_t holes_percent,
                      struct galloc_whatif_item * items, uint64_t * offsets);

// every item on the ones before it (item i at the sum of the sizes of items 0 .. i - 1, chunk 0):
// a valid plan of any one-chunk problem, however poor, for a search to start from; chunks may be NULL
void tight_stacked(const struct galloc_whatif_problem * p, int32_t * chunks, uint64_t * offsets);
