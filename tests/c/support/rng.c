// rng.c: the seeded pseudo-random numbers of the C tests (see rng.h).

#include "rng.h"

static uint64_t rng_state;

void rng_seed(uint64_t seed) {
    rng_state = seed;
}

uint32_t rng_next(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t) (rng_state >> 33);
}

int rng_below(int n) {
    return (int) (rng_next() % (uint32_t) n);
}
