// fuzz-csv.c: libFuzzer target over the what-if path for CSV problems.
//
// Any byte string is read as a MiniMalloc-style CSV problem (id,lower,upper,size);
// when it reads, the lower bound and every offline planner run and the result is written
// as JSON. Nothing may crash, leak, trip a sanitizer or allocate in proportion to a number
// in the input, and every plan must be right: each planner's plan passes the library's
// checker, and (for up to 256 items) this file's own pairwise check, independent of it:
// items live at a common step in one chunk share no byte, every item lies inside its
// chunk, no plan is below the lower bound, and the best is no worse than ggml's.
// The exact search runs on one input in 16, with a 1 ms budget, so the target stays fast
// (thousands of inputs a second) yet reaches it.

#include "galloc-whatif.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define REQUIRE(c)                                                                   \
    do {                                                                             \
        if (!(c)) {                                                                  \
            fprintf(stderr, "fuzz-csv: %s:%d: %s\n", __FILE__, __LINE__, #c);        \
            abort();                                                                 \
        }                                                                            \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

// the plan checked without the library's checker
static void check_plan(const struct galloc_whatif_problem * p, const struct galloc_whatif_plan * plan, uint64_t lower_bound) {
    REQUIRE(plan->total >= lower_bound);
    uint64_t sum = 0;
    for (int32_t c = 0; c < plan->n_chunks; c++) {
        sum += plan->chunk_sizes[c];
    }
    REQUIRE(sum == plan->total);
    if (p->n_items > 256) {
        return;
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        const struct galloc_whatif_item * a = &p->items[i];
        REQUIRE(plan->chunks[i] >= 0 && plan->chunks[i] < plan->n_chunks);
        REQUIRE(plan->offsets[i] % p->alignment == 0);
        REQUIRE(plan->offsets[i] + a->size <= plan->chunk_sizes[plan->chunks[i]]);
        for (int32_t j = i + 1; j < p->n_items; j++) {
            const struct galloc_whatif_item * b = &p->items[j];
            bool together = a->first <= b->last && b->first <= a->last;
            bool same     = plan->chunks[i] == plan->chunks[j];
            bool apart    = plan->offsets[i] + a->size <= plan->offsets[j] || plan->offsets[j] + b->size <= plan->offsets[i];
            REQUIRE(!(together && same && a->size > 0 && b->size > 0) || apart);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    struct galloc_whatif_result r;
    struct galloc_error         err;
    uint64_t                    capacity = size > 0 ? data[0] * 64u : 0;
    uint32_t                    budget   = size > 1 && data[1] % 16 == 0 ? 1 : 0;
    if (!galloc_whatif_from_csv((const char *) data, size, capacity, budget, &r, &err)) {
        REQUIRE(err.status != GALLOC_STATUS_OK && err.message[0] != '\0');
        return 0;
    }
    for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        const struct galloc_whatif_plan * plan = &r.plans[k];
        if (plan->valid) {
            REQUIRE(plan->checked); // a CSV problem has no shrinking chains: every plan must pass
            check_plan(&r.problem, plan, r.lower_bound);
        }
    }
    REQUIRE(r.plans[GALLOC_WHATIF_GGML].valid);
    REQUIRE(r.plans[r.best].total <= r.plans[GALLOC_WHATIF_GGML].total);
    const struct galloc_whatif_plan * exact = &r.plans[GALLOC_WHATIF_EXACT];
    if (exact->valid && exact->proved_optimal) {
        for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
            REQUIRE(!r.plans[k].valid || r.plans[k].total >= exact->total);
        }
    }
    size_t len = 0;
    free(galloc_whatif_write_json(&r, &len));
    galloc_whatif_free(&r);
    return 0;
}
