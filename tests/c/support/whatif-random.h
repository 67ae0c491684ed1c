// whatif-random.h: small random what-if problems for the C tests, and their max load counted by
// the tests' own loop (no planner code).

#pragma once

#include "galloc-whatif.h"

#include <stdint.h>

// n random items (ids 0 .. n - 1, buffer 1) over steps [0, steps), 1 .. max_size bytes each, from rng.h's sequence
void whatif_random_items(struct galloc_whatif_item * items, int32_t n, int steps, int max_size);

// the most bytes live at one step (the peak is at some item's first step)
uint64_t whatif_own_max_load(const struct galloc_whatif_item * items, int32_t n);
