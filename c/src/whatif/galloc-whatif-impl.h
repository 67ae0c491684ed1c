// galloc-whatif-impl.h: what the what-if sources share (not part of the public API).
//
// The index of a problem (time sections and the conflict graph), helpers for plans
// (allocating, finishing chunk sizes, the chunk rules) and the planners' entry points,
// each in its own source: problem + checker, greedy planners, exact search, driver.

#pragma once

#include "galloc-clock.h"
#include "galloc-whatif.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Time is cut into sections at every item's first step and after every item's last step;
// an item is live over a contiguous run of sections, and two items conflict exactly
// when they share a section.
struct galloc_whatif_index {
    int32_t    n_items;
    int32_t    n_sections;
    int32_t  * sec_first;  // per item: first section it is live in
    int32_t  * sec_last;   // per item: last section (inclusive)
    uint64_t * sec_live;   // per section: bytes of the items live in it
    int32_t  * adj_start;  // conflicts in CSR form: item i conflicts with adj[adj_start[i] .. adj_start[i+1])
    int32_t  * adj;
    uint64_t   n_pairs;    // conflicting pairs (adj holds each twice)
    uint64_t   lower_bound; // max of sec_live
    uint64_t   total_size;  // sum of the item sizes
};

// false with a message when out of memory or past GALLOC_WHATIF_MAX_PAIRS
bool galloc_whatif_index_build(const struct galloc_whatif_problem * problem, struct galloc_whatif_index * index, struct galloc_error * err);
void galloc_whatif_index_free (struct galloc_whatif_index * index);

// per-item arrays for n items (zeroed), name and note set; false when out of memory
// the best of the plans (GALLOC_WHATIF_N_PLANNERS): the smallest checked one; ggml's on ties with a
// checked ggml plan, the first checked one tying with a ggml plan that fails the checker; ggml's when
// no checked plan is smaller
int32_t galloc_whatif_pick_best(const struct galloc_whatif_plan * plans);
bool galloc_whatif_plan_init   (struct galloc_whatif_plan * plan, int32_t n_items, const char * name);
void galloc_whatif_plan_release(struct galloc_whatif_plan * plan);
// the chunk sizes (highest end per chunk), n_chunks and total, from chunks[] and offsets[]
void galloc_whatif_plan_finish (const struct galloc_whatif_problem * problem, struct galloc_whatif_plan * plan);
// dst gets src's placement, chunk sizes and total (dst initialised for the same problem)
void galloc_whatif_plan_copy_placement(struct galloc_whatif_plan * dst, const struct galloc_whatif_plan * src, int32_t n_items);

// the chunk rule (galloc-whatif.h, step 4): may an item of size bytes sit at offset in chunk, when
// the largest item at the chunk's start has zero_max bytes (0: none)?
bool galloc_whatif_fits(const struct galloc_whatif_problem * problem, int32_t chunk, uint64_t offset, uint64_t size, uint64_t zero_max);
// true when the max size never binds: one chunk is always enough
bool galloc_whatif_unlimited(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index);

// the what-if planners' name for the project's clock (galloc-clock.h)
static inline double galloc_whatif_now_ms(void) {
    return galloc_now_ms();
}

// planners: fill plan (initialised with galloc_whatif_plan_init); false only when out of memory
bool galloc_whatif_ggml_replay      (const struct galloc_whatif_problem * problem, struct galloc_whatif_plan * plan);
bool galloc_whatif_greedy_by_size   (const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index, struct galloc_whatif_plan * plan);
bool galloc_whatif_greedy_by_breadth(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index, struct galloc_whatif_plan * plan);
// starts from incumbent (a checked plan); plan gets the best found, proved_optimal, bound and nodes
bool galloc_whatif_exact(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index,
                  const struct galloc_whatif_plan * incumbent, uint32_t budget_ms, struct galloc_whatif_plan * plan);
// the same with one of the search's orders only (0 .. galloc_whatif_exact_orders() - 1; tests: each
// order alone must find and prove the optimum)
int  galloc_whatif_exact_orders(void);
bool galloc_whatif_exact_in_order(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index,
                                  const struct galloc_whatif_plan * incumbent, uint32_t budget_ms, int order, struct galloc_whatif_plan * plan);

// problems (items malloc'd into prob->items)
// allocator a of a plan, through the plan's tensor index: tensor_item (NULL: not wanted; else
// plan->n_tensors entries, -1 filled by the caller) gets the item of each of a's tensors, ggml_plan
// (initialised here) ggml's placement of every item, n_shrinking the chains whose members shrink
bool galloc_whatif_problem_from_plan(const struct galloc_graph * graph, const struct galloc_plan * plan, struct galloc_whatif_tensors * tensors, int32_t a,
                              struct galloc_whatif_problem * prob, int32_t * tensor_item, int32_t * n_shrinking,
                              struct galloc_whatif_plan * ggml_plan, struct galloc_error * err);
// MiniMalloc CSV text: alignment 1, no max size, capacity 0 (the caller sets it)
bool galloc_whatif_problem_from_csv(const char * csv, size_t len, struct galloc_whatif_problem * prob, struct galloc_error * err);

// galloc-whatif-grain.c: the gcd of the item sizes (the alignment when no item has bytes); some
// optimal plan has every offset and its total a multiple of it, so bounds round up to it
uint64_t galloc_whatif_grain(const struct galloc_whatif_problem * problem);
// bytes rounded up to a multiple of grain (bytes itself when that would overflow)
uint64_t galloc_whatif_grain_up(uint64_t bytes, uint64_t grain);

// galloc-whatif-bound.c: a lower bound from windows of time solved exactly (one chunk only)
struct galloc_whatif_bound {
    uint64_t bound;     // bytes: no plan is smaller (>= index->lower_bound)
    int32_t  lo, hi;    // the window of sections that gave it (0, 0: the max load)
    int32_t  n_windows; // windows searched
    uint64_t nodes;     // exact search nodes over all windows
    double   time_ms;
};
// windows of 2, 4, 8, ... sections until the bound reaches target (the best plan known) or
// budget_ms is spent; false only when out of memory
bool galloc_whatif_window_bound(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index, uint64_t target,
                                uint32_t budget_ms, struct galloc_whatif_bound * out);
// after the exact search: when plan (its result) is not proved optimal, windows searched for
// budget_ms may raise plan->bound, up to proving it (proved_optimal, bound = total); false: out of memory
bool galloc_whatif_bound_plan(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index, uint32_t budget_ms,
                              struct galloc_whatif_plan * plan);

// galloc-whatif-after.c: after the exact search, when plan (its result) is not proved optimal:
// half of budget_ms to the repair search (a lower plan), the rest to the window bound (a proof);
// plan stays checked-or-better and its bound sound; false: out of memory
bool galloc_whatif_after_search(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index, uint32_t budget_ms,
                                struct galloc_whatif_plan * plan);
