// galloc-whatif-grain.c: the step between the totals an optimal plan can have (the grain).
//
// Why totals come in steps of the grain g = the greatest common divisor of the item sizes:
// push every item of an optimal plan down within its chunk until it rests on a conflicting
// item or on the chunk's start (galloc-whatif-exact.h, step 1). No item moves up, so no two
// conflicting items come to share a byte, no chunk grows and the chunk rule still holds (an
// item at a chunk's start stays there, every other ends no higher than before); the plan is
// still optimal. In it every offset is a sum of sizes of items below it, a multiple of g, so
// every chunk's size (the highest end of its items) and the total (the sum of the chunk
// sizes) are multiples of g. Hence some optimal total is a multiple of g, and the optimum,
// being the least total, is too: a lower bound B rounds up to the next multiple of g, and a
// search that finds no plan of total <= T proves the optimum >= the first multiple above T.
// (Sizes are rounded up to the alignment, so g is a multiple of it and such offsets are aligned.)

#include "galloc-whatif-impl.h"

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
    while (b != 0) {
        uint64_t r = a % b;
        a          = b;
        b          = r;
    }
    return a;
}

uint64_t galloc_whatif_grain(const struct galloc_whatif_problem * p) {
    uint64_t g = 0;
    for (int32_t i = 0; i < p->n_items && g != 1; i++) {
        g = gcd_u64(p->items[i].size, g);
    }
    // no sized item: every plan is empty; keep the alignment as the step
    return g == 0 ? p->alignment : g;
}

uint64_t galloc_whatif_grain_up(uint64_t bytes, uint64_t grain) {
    uint64_t r = bytes % grain;
    return r == 0 || bytes > UINT64_MAX - grain ? bytes : bytes + (grain - r);
}
