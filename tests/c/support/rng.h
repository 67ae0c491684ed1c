// rng.h: the seeded pseudo-random numbers of the C tests (a 64-bit LCG), one sequence per test binary.

#pragma once

#include <stdint.h>

// start the sequence over from seed
void     rng_seed(uint64_t seed);
// the next 32 random bits
uint32_t rng_next(void);
// a number in [0, n), n > 0
int      rng_below(int n);
