// galloc-whatif-repair.h: the repair search over a plan in one chunk (private).
//
// A large-neighbourhood search: take the best plan, free a set of items around its peak,
// place them again exactly with every other item fixed where it is (an obstacle), and keep
// the result when it lowers the plan; repeat over varied neighbourhoods until the plan meets
// the lower bound (then it is optimal) or the time ends. galloc-whatif-repair-fill.c solves
// one neighbourhood, galloc-whatif-repair.c chooses them.

#pragma once

#include "galloc-whatif-impl.h"

#include <stdbool.h>
#include <stdint.h>

// ---- galloc-whatif-repair-fill.c: one neighbourhood placed exactly ----------------------
//
// Places the free items within [0, T) among the fixed ones (every item not free keeps its
// offset and is an obstacle to the free items it conflicts with). The search is over canonical
// placements in order of increasing offset, as the exact search's (galloc-whatif-exact.h, steps
// 1-5): push a free item down while it can move and it rests at 0, on the end of a fixed item or
// on the end of a free one; so each free item goes at the lowest offset, at or above the ends
// of the free items it conflicts with that are placed already, where it misses its obstacles.
// Dominance as in step 4, and in each section the free items still to place must fit, above
// the floor, in the bytes the fixed items leave free there.

enum galloc_fill_end { GALLOC_FILL_FOUND, GALLOC_FILL_NONE, GALLOC_FILL_LIMIT };

struct galloc_fill_interval {
    uint64_t lo, hi;
    uint64_t sum; // in a section: the bytes of its intervals before this one
};

struct galloc_fill_undo {
    int32_t  idx; // >= 0: low[idx]; < 0: the floor of section -1 - idx
    uint64_t val;
};

struct galloc_fill_section {
    uint64_t rem;      // bytes of the unplaced free items live in it
    uint64_t floor;    // highest end of the placed free items live in it
    uint64_t base;     // scratch
    int32_t  iv_start; // its fixed intervals: iv[iv_start .. next section's iv_start)
};

struct galloc_fill {
    const struct galloc_whatif_problem * p;
    const struct galloc_whatif_index   * x;
    int32_t    n;
    int32_t  * local;       // per item: its index among the free items, -1: fixed
    // per free item (local index), room for most of them
    int32_t    k, most;
    int32_t  * id;
    uint64_t * size;
    int32_t  * rank;
    uint64_t * low;         // highest end of its placed free conflicting items
    uint64_t * off;
    bool     * placed;
    uint64_t * pos;         // scratch: where it would go now
    int32_t  * ob_start;    // its obstacles (merged intervals) in ob[ob_start[j] .. ob_start[j + 1])
    int32_t  * nb_start;    // its free conflicting items in nb[nb_start[j] .. nb_start[j + 1])
    int32_t  * nb;
    struct galloc_fill_interval * ob;
    int32_t    ob_cap, nb_cap;
    // per section of the window [s0, s1] (index s - s0)
    int32_t    s0, s1;
    struct galloc_fill_section * sec;
    int32_t    sec_cap;
    struct galloc_fill_interval * iv; // the sections' fixed intervals, merged, below T
    int32_t    iv_cap;
    // the search
    struct galloc_fill_undo * trail;
    int32_t    trail_cap;
    struct galloc_fill_level * levels;
    uint64_t   nodes;
};

// scratch for problem p, for at most `most` free items at a time; false: out of memory (nothing
// to free then)
bool galloc_fill_init(struct galloc_fill * f, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, int32_t most);
void galloc_fill_free(struct galloc_fill * f);
// off: every item's offset (one chunk); items[0 .. k): the free items (distinct, with bytes, k at
// most the scratch's most),
// rank[q]: the order of items[q] among them (a permutation of 0 .. k - 1; ties in offset go
// in rank order). FOUND: off[] holds the free items' new offsets, each end <= T and no two
// conflicting items overlapping. NONE: no such placement exists; LIMIT: more than node_limit
// nodes or past the deadline. Both leave off[] as it was. false only when out of memory.
bool galloc_fill_solve(struct galloc_fill * f, uint64_t * off, const int32_t * items, const int32_t * rank, int32_t k, uint64_t T,
                       uint64_t node_limit, double deadline, enum galloc_fill_end * end);

// ---- galloc-whatif-repair.c: the neighbourhoods ------------------------------------------

struct galloc_repair_stats {
    uint64_t moves;    // neighbourhoods solved
    uint64_t improved; // of them, those that lowered the plan (fewer items above the target)
    uint64_t nodes;    // fill search nodes
};

// off: a plan's offsets in one chunk (no two conflicting items overlapping); lowered in place
// towards lower (the lower bound) until it meets it, the deadline passes (clock ms) or max_moves
// neighbourhoods were tried (0: no limit); the result's total is never above the plan's. seed:
// the neighbourhoods' random choices (with a move limit and no deadline, the run is repeatable).
// false only when out of memory (off then holds a plan no worse than before).
bool galloc_whatif_repair(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t * off, uint64_t lower,
                          double deadline, uint64_t max_moves, uint64_t seed, struct galloc_repair_stats * stats);

// plan (a checked plan of p in one chunk, p without a binding max size; others are left alone)
// lowered by the repair search
// until the deadline; its chunk sizes, total, found_ms and fit_ms follow. false: out of memory
bool galloc_whatif_repair_plan(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t lower, double deadline,
                               struct galloc_whatif_plan * plan);
