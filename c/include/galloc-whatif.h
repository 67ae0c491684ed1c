// galloc-whatif.h: how far is ggml's plan from the best possible, and what would do better.
//
// ggml's allocator decides online, tensor by tensor. Knowing the whole graph, an
// offline planner can pack the same tensors tighter. This module turns one
// allocator of a planned graph (or a MiniMalloc CSV problem) into a packing
// problem, computes a lower bound, runs offline planners and checks their plans.
//
// Example usage:
//
//   struct galloc_whatif_result r;
//   struct galloc_error err;
//   if (galloc_whatif_from_plan(&graph, &plan, 0, 1000, &r, &err)) {
//       printf("ggml %llu, best %llu (%s), bound %llu\n", r.plans[GALLOC_WHATIF_GGML].total,
//              r.plans[r.best].total, r.plans[r.best].name, r.lower_bound);
//       galloc_whatif_free(&r);
//   }
//
// The problem, per allocator (buffer types that share one are one problem):
//   1. Items. Every tensor that got memory of its own is an item; a tensor placed in
//      place over its parent (GALLOC_HOW_INPLACE) shares the parent's item, so an
//      in-place chain is one item: size = the largest member's alloc size, lifetime =
//      the union of the members'. Views and external tensors take no memory here.
//      Sizes are rounded up to the buffer type's alignment.
//   2. Lifetimes are inclusive step ranges [first, last] (first = -1: before the first
//      node). Two items conflict when their ranges intersect: a node is computed while
//      its sources are still live. A CSV row `id,lower,upper,size` is live over the
//      half-open [lower, upper), so it becomes [lower, upper - 1].
//   3. A plan gives every item a chunk and an offset (a multiple of the alignment);
//      conflicting items in one chunk must not share a byte. A chunk's size is the
//      highest end of its items; the total is the sum of the chunk sizes.
//   4. Chunks, as ggml: at most GALLOC_MAX_CHUNKS (16). A chunk holds max_size bytes, or
//      more when an item larger than that sits at its start (offset 0): then it holds that
//      item's size, for every item in it. The 16th chunk has no limit. Without a max size
//      there is one chunk.
//
// Lower bound: the largest sum of the sizes of the items live at one step. No plan is
// smaller. It equals the planner's peak_live, except that ggml gives back the tail of
// a parent whose in-place child needs fewer bytes; a merged item keeps its largest
// size, so with such "shrinking" chains the bound may exceed peak_live (n_shrinking
// counts them) and ggml's plan may even reuse that tail while the chain lives (its
// plan then fails the checker here, though it is valid for ggml).
//
// The planners (plans[], in this order):
//   ggml               ggml's own plan (from a graph), or ggml's dynamic allocator replayed
//                      over the items in time order (CSV: at each time, allocate the rows
//                      that start, in row order, then free the rows that end).
//   greedy-by-size     TFLite Micro's greedy: items largest first (ties: longer lifetime,
//                      then lower id); each goes into the smallest gap between the already
//                      placed conflicting items of a chunk that holds it (ties: the lowest),
//                      else on top of them, in the first chunk where that respects the rules
//                      of step 4, else a new chunk.
//   greedy-by-breadth  The same placement, in another order: steps by the live bytes they
//                      hold, largest first; at each, its unplaced items largest first.
//   exact              Branch and bound over canonical plans (see galloc-whatif-exact.c):
//                      items are placed in order of increasing offset, each at the end of a
//                      placed conflicting item or at a chunk's start; prunes by the incumbent
//                      and per-step bounds; starts from the best heuristic plan. Stops at the
//                      time budget; proved_optimal when it finished or met the lower bound.
//                      Without a binding max size, when it proved nothing, an eighth of the
//                      budget goes to a stronger bound: windows of time solved exactly (any
//                      plan, cut to a window, is a plan of the window's items), which may
//                      raise bound up to the plan's total and so prove it.
//                      With items larger than max_size it lets no other item use their
//                      chunk's extra room (stricter than step 4), so it then proves
//                      optimality only by meeting the lower bound.
// best = the smallest plan among them that passes the checker, and ggml's (ggml's on ties, unless
// ggml's fails the checker: then the first checked plan as small), so it is never worse than ggml.
//
// Limits, frankly: the exact search is exponential in the worst case and within a budget
// only proves what it finishes; plans of more than 16 chunks are not explored (the 16th
// absorbs the rest, as in ggml); a merged in-place chain may be more than ggml needs (above);
// problems with more than GALLOC_WHATIF_MAX_PAIRS conflicting pairs are refused.

#pragma once

#include "galloc-dynalloc.h"
#include "galloc-planner.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//
// limits (inputs past them are refused with a message, never an abort)
//

#define GALLOC_WHATIF_CSV_MAX_ROWS   1000000                 // data rows of a CSV problem
#define GALLOC_WHATIF_CSV_MAX_LINE   4096                    // bytes of one CSV line, without its line break
#define GALLOC_WHATIF_MAX_ITEM_BYTES ((uint64_t) 1 << 40)    // largest size of one item
#define GALLOC_WHATIF_MAX_TIME       ((int64_t) 1 << 62)     // CSV lower/upper are in [0, this]
#define GALLOC_WHATIF_MAX_PAIRS      ((uint64_t) 20000000)   // conflicting item pairs of one problem

enum galloc_whatif_planner {
    GALLOC_WHATIF_GGML = 0,
    GALLOC_WHATIF_GREEDY_SIZE,
    GALLOC_WHATIF_GREEDY_BREADTH,
    GALLOC_WHATIF_EXACT,
    GALLOC_WHATIF_N_PLANNERS,
};

// one block of memory with a lifetime
struct galloc_whatif_item {
    int32_t  id;        // graph: tensor index of the chain's first tensor; CSV: data row (0-based)
    int32_t  n_tensors; // graph: tensors sharing the item (1 + in-place successors); CSV: 1
    uint64_t size;      // bytes, rounded up to the alignment
    int64_t  first;     // first step it is live (inclusive); -1: before the first node
    int64_t  last;      // last step it is live (inclusive), >= first
};

struct galloc_whatif_problem {
    int32_t                     n_items;
    struct galloc_whatif_item * items;
    uint64_t                    alignment; // bytes (power of two); offsets are multiples of it
    uint64_t                    max_size;  // bytes a chunk may hold (step 4); GALLOC_NO_MAX_SIZE: no limit
    uint64_t                    capacity;  // CSV: the total the plan should fit in, bytes; 0: none
};

// one planner's plan of a problem
struct galloc_whatif_plan {
    const char * name;           // "ggml", "greedy-by-size", "greedy-by-breadth", "exact"
    bool         valid;          // has a plan (false only when the planner was skipped: see note)
    bool         checked;        // the plan passes galloc_whatif_check
    uint64_t     total;          // bytes: sum of chunk_sizes
    int32_t      n_chunks;
    uint64_t     chunk_sizes[GALLOC_MAX_CHUNKS]; // bytes, highest end of the chunk's items
    int32_t    * chunks;         // per item: its chunk
    uint64_t   * offsets;        // per item: bytes from its chunk's start
    double       time_ms;        // wall time the planner took, milliseconds
    double       found_ms;       // exact: when its plan was found, milliseconds from its start (0: a heuristic's)
    double       fit_ms;         // exact: when a plan within the capacity was first there (0: a heuristic's), < 0: never
    bool         proved_optimal; // exact: no valid plan has a smaller total
    uint64_t     bound;          // exact: no valid plan is smaller than this (bytes, >= lower_bound)
    uint64_t     nodes;          // exact: search nodes visited
    bool         repaired;       // exact: the repair search has run over this plan already (a problem too
                                 // large for the exact search): galloc_whatif_after_search does not run it again
    const char * note;           // why a planner was skipped or stopped early, "" otherwise (static)
};

struct galloc_whatif_result {
    struct galloc_whatif_problem problem;        // owned copy
    uint64_t                     lower_bound;    // bytes: the most the items hold live at one step
    uint64_t                     peak_live;      // graph: the plan's peak_live for the allocator; CSV: lower_bound
    int32_t                      n_shrinking;    // in-place chains whose members need fewer bytes than the largest
    int32_t                      buffer_type;    // graph: the allocator's (first) buffer type; CSV: -1
    struct galloc_whatif_plan    plans[GALLOC_WHATIF_N_PLANNERS];
    int32_t                      best;           // index into plans: the smallest checked plan, or ggml's
    int32_t                      n_tensors;      // graph: entries of tensor_item; CSV: 0
    int32_t                    * tensor_item;    // graph: per tensor the item holding its memory here, -1: none
};

//
// building and solving a problem
//

// one allocator of a planned graph: buffer_type may be any buffer type sharing the allocator.
// Runs every planner (the exact search for at most exact_budget_ms; 0: no search beyond
// the heuristics). false with a one-line message in err on inconsistent input or out of memory.
bool galloc_whatif_from_plan(const struct galloc_graph * graph, const struct galloc_plan * plan, int32_t buffer_type,
                             uint32_t exact_budget_ms, struct galloc_whatif_result * out, struct galloc_error * err);

// the same problem, unsolved: problem, tensor_item, n_shrinking, peak_live and ggml's plan
// (plans[GALLOC_WHATIF_GGML], not checked); no other planner runs, lower_bound stays 0. For
// applying a placement found before (galloc_whatif_apply) without searching again.
bool galloc_whatif_items_from_plan(const struct galloc_graph * graph, const struct galloc_plan * plan, int32_t buffer_type,
                                   struct galloc_whatif_result * out, struct galloc_error * err);

// The tensors of one plan grouped by allocator, for an analysis of every allocator of it:
// built once (linear in the tensors), so that each allocator's problem then costs its own
// tensors and not the whole graph (1,000 buffer types would otherwise walk every tensor
// 1,000 times). In-place chains are resolved to their first tensor here, once.
struct galloc_whatif_tensors {
    int32_t   n_tensors;
    int32_t   n_buffer_types;
    int32_t * start;   // per allocator a: its tensors are list[start[a] .. start[a + 1]), increasing
    int32_t * list;
    int32_t * root;    // per tensor placed in place: the first tensor of its chain, -1: none (a loop, a parent outside)
    int32_t * scratch; // per tensor: its item while one problem is built, -1 otherwise
};
// false with a message in err when the plan is not of the graph or out of memory
bool galloc_whatif_tensors_build(const struct galloc_graph * graph, const struct galloc_plan * plan, struct galloc_whatif_tensors * tensors,
                                 struct galloc_error * err);
// release everything; safe on a zeroed or failed index, and twice
void galloc_whatif_tensors_free(struct galloc_whatif_tensors * tensors);
// galloc_whatif_from_plan through the index (built for this graph and plan), without
// tensor_item (NULL, n_tensors 0): one allocator costs its own tensors only
bool galloc_whatif_from_plan_tensors(const struct galloc_graph * graph, const struct galloc_plan * plan, struct galloc_whatif_tensors * tensors,
                                     int32_t buffer_type, uint32_t exact_budget_ms, struct galloc_whatif_result * out, struct galloc_error * err);

// a MiniMalloc CSV problem ("id,lower,upper,size", header optional): alignment 1, no max size,
// the given capacity (0: none). Errors name the line: "line 12: upper 5 <= lower 7".
bool galloc_whatif_from_csv(const char * csv, size_t len, uint64_t capacity, uint32_t exact_budget_ms,
                            struct galloc_whatif_result * out, struct galloc_error * err);

// any problem (the items are copied); ggml's plan is its dynamic allocator replayed in time order
bool galloc_whatif_from_problem(const struct galloc_whatif_problem * problem, uint32_t exact_budget_ms,
                                struct galloc_whatif_result * out, struct galloc_error * err);

// release everything; safe on a zeroed or failed result, and twice
void galloc_whatif_free(struct galloc_whatif_result * result);

// one time budget for an analysis of several problems (every allocator of a plan): each
// problem gets an equal share of what is left, so time an easy one does not use passes on
// and the whole analysis searches for at most total_ms (plus the heuristics' own time).
struct galloc_whatif_budget {
    double  deadline_ms; // on whatif's monotonic clock
    int32_t n_left;      // problems still to come
};
void     galloc_whatif_budget_start(struct galloc_whatif_budget * budget, uint32_t total_ms, int32_t n_problems);
// the exact-search budget of the next problem, milliseconds (0 once the time is up)
uint32_t galloc_whatif_budget_next (struct galloc_whatif_budget * budget);

// the plan of the graph with one allocator packed as an offline planner packed it: out is a copy
// of plan (made for graph) in which every tensor of the problem r (from galloc_whatif_items_from_plan
// or _from_plan of that plan) sits at its item's chunk and offset (chunks[i], offsets[i] per
// item, n_items = r->problem.n_items), views at their source's place plus view_offs, and that
// allocator's chunk sizes and size are the placement's; lifetimes, how, parents and the other
// allocators stay as plan has them. The placement is checked first (galloc_whatif_check): a bad
// one (overlap, misaligned, past a chunk's limit) fails with GALLOC_STATUS_INVALID and the first
// violation, a wrong count with GALLOC_STATUS_ARGUMENT. Release out with galloc_plan_free.
bool galloc_whatif_apply(const struct galloc_graph * graph, const struct galloc_plan * plan, const struct galloc_whatif_result * r,
                         const int32_t * chunks, const uint64_t * offsets, int32_t n_items, struct galloc_plan * out,
                         struct galloc_error * err);

// Every allocator of a plan packed in turn, linear in the tensors: copy the plan once
// (galloc_whatif_plan_copy), then for each allocator's problem (solved from the original plan,
// through a tensor index built for it) place its tensors into the copy with
// galloc_whatif_apply_indexed, which costs that allocator's tensors only: the same checks and
// places as galloc_whatif_apply (views are placed in their source's buffer, as the planner puts
// them). A failed call leaves *plan as it was. Release the copy with galloc_plan_free.
bool galloc_whatif_plan_copy    (const struct galloc_plan * plan, struct galloc_plan * out, struct galloc_error * err);
bool galloc_whatif_apply_indexed(const struct galloc_graph * graph, struct galloc_whatif_tensors * tensors, const struct galloc_whatif_result * r,
                                 const int32_t * chunks, const uint64_t * offsets, int32_t n_items, struct galloc_plan * plan,
                                 struct galloc_error * err);

//
// checking and bounding
//

// the most the items hold live at one step (bytes)
uint64_t galloc_whatif_lower_bound(const struct galloc_whatif_problem * problem);

// how far a plan of r is above r's lower bound: the bytes, and (percent, unless NULL) that as a
// percentage of the bound (0 when the bound is 0); the one place the CLI and the UI get it from
uint64_t galloc_whatif_above_bound(const struct galloc_whatif_result * r, const struct galloc_whatif_plan * plan, double * percent);

// every item placed in a chunk < n_chunks <= 16 at an aligned offset, no two conflicting items
// in one chunk share a byte, every item ends within its chunk's limit (step 4), every chunk size is
// the highest end of its items, and total is their sum. false with the first violation in err.
bool galloc_whatif_check(const struct galloc_whatif_problem * problem, const struct galloc_whatif_plan * plan,
                         struct galloc_error * err);

//
// output
//

// the result as JSON for the web UI: the problem (alignment, max_size, capacity, items with
// id, size, first, last), lower_bound, best, and per planner its total, chunk sizes, time,
// proof and per item chunk and offset. malloc'd, NUL-terminated; NULL when out of memory.
char * galloc_whatif_write_json(const struct galloc_whatif_result * result, size_t * len);

#ifdef __cplusplus
}
#endif
