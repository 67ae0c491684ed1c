// whatif-random.c: small random what-if problems for the C tests, and their max load by the
// tests' own count (see whatif-random.h).

#include "whatif-random.h"

#include "rng.h"

void whatif_random_items(struct galloc_whatif_item * items, int32_t n, int steps, int max_size) {
    for (int32_t i = 0; i < n; i++) {
        int a = rng_below(steps), b = rng_below(steps);
        items[i] = (struct galloc_whatif_item) { i, 1, (uint64_t) (1 + rng_below(max_size)), a < b ? a : b, a < b ? b : a };
    }
}

uint64_t whatif_own_max_load(const struct galloc_whatif_item * items, int32_t n) {
    uint64_t peak = 0;
    for (int32_t i = 0; i < n; i++) {
        uint64_t live = 0;
        for (int32_t k = 0; k < n; k++) {
            live += items[k].first <= items[i].first && items[i].first <= items[k].last ? items[k].size : 0;
        }
        peak = live > peak ? live : peak;
    }
    return peak;
}
