// galloc-whatif-exact.h: the exact search's state and the steps its sources share (private).
//
// The exact what-if planner is a branch and bound over canonical plans, in five sources:
// galloc-whatif-exact.c (restarts, the driver), -exact-order.c (the orders of step 7),
// -exact-state.c (decisions, their undo, failed states), -exact-infer.c (inference: what a
// partial plan still allows), -exact-search.c (the depth-first search and its
// decomposition). Ideas from MiniMalloc (Moffitt, ASPLOS 2023), written anew.
//
// The search, step by step:
//  1. Canonical plans. Push every item of a plan down, within its chunk, until it rests
//     on a conflicting item or on the chunk's start: no chunk grows, so some optimal plan
//     is canonical, every item at the end of a conflicting item or at offset 0.
//  2. Chunks lie end to end in one virtual address space, chunk c from c * stride
//     (stride >= max_size and >= the largest item); an item that would pass its chunk's
//     max size is bumped to the next chunk's start. Without a binding max size there is
//     one chunk.
//  3. Order. A canonical plan is built in order of increasing offset (ties by a static
//     rank), so the next item j goes at pos(j) = the highest end of its placed conflicting
//     items (or the current chunk's start), and only if pos(j) >= L, the last placed
//     offset (the monotonic floor), and at pos(j) = L only when j ranks after the item
//     placed last. Any other unplaced item ("stuck") cannot come next and must rest on an
//     item placed later. In chunked problems a branch may also close the current chunk.
//  4. Branching: the eligible items, lowest pos first, then by rank. Dominance: j is not
//     tried when another unplaced item k ends below it (pos(k) + size(k) <= pos(j)): k
//     could move down there, and that plan, with a smaller sum of offsets, is on another
//     branch. For the same reason a chunk is not closed while an item still fits below
//     its top.
//  5. Inference after each decision (T = the total to reach): in each section s the
//     unplaced items are stacked above base(s) = max(floor(s), L, the lowest pos of an
//     unplaced item in s), floor(s) the highest end of the placed items live in s; so
//     closed chunks + base(s) - chunk start + unplaced bytes(s) <= T. In one chunk this is
//     done for every threshold, not only the lowest (sections_fit: a section is a machine
//     scheduling its items with release times), and the layer at L: a section whose
//     unplaced bytes exactly fill [L, T) needs an item at L, and the items at L lie in
//     disjoint times, so the sections must split into those that need nothing at L and the
//     lifetimes of items that can go there. A stuck item without an unplaced
//     conflicting item is a dead end. Before a placement at pos, the plain L + unplaced
//     bytes test is done ahead (fits_after), so that most refuted branches cost no node.
//  6. Decomposition (one chunk only): pieces of the time range that no item crosses are
//     independent, so a decision (is there a plan of total <= T?) decides each piece on
//     its own and keeps its plan while searching the next. Inside a search, when no
//     unplaced item spans a boundary any more, the two sides are solved one after the
//     other, and when one has no solution the search jumps back to the decision that
//     split them, skipping the other side's alternatives.
//  7. Orders and restarts: each piece is searched with several orders in turn under a node
//     limit that doubles every round; a run that ends within its limit decides. An order
//     ranks the items by keys (the most bytes live in any of its sections, lifetime, area,
//     size); a static one keeps its ranks, a dynamic one ranks the unplaced items of a
//     component again whenever step 6 cuts it, the bytes live taken among the unplaced
//     items only (MiniMalloc orders each sub-problem afresh in the same way). Re-ranking
//     starts the component's canonical order afresh (any rank may follow at the floor L:
//     the items left all lie at L or above), and its ranks are undone with the decision.
//     Until its first cut a dynamic order's run is its static twin's (the same first ranks,
//     the same tree), so a round skips the twin when the static run met no cut (always in
//     chunked problems, which are not decomposed). After each round, a quarter of its nodes
//     go to perturbed orders: a static order's ranks each moved by a random amount, runs of
//     Luby's lengths (1, 1, 2, 1, 1, 2, 4, ... times the piece's items). A search that misses
//     one plan early can spend its whole limit below that mistake (on tight problems the nodes
//     to a plan have a heavy tail), and short runs over varied orders step around it; any ranks
//     make a complete search, so a perturbed run that ends within its limit decides too. They
//     neither read nor keep failed states (step 8): a state failed under the static order's
//     ranks may have a plan under the perturbed ones, and their own are never met again.
//  8. Failed states: a state from which every alternative failed (the unplaced items with
//     their lowest offsets, the floor, the components, the order and the states its ranks
//     were set in, "epochs"; two 64-bit hashes) is
//     remembered for the rest of the piece's decision, across the rounds of step 7, and
//     not searched again.
//  9. Driver: decide at the capacity (CSV), then at the lower bound (a quarter of the
//     remaining time), then halve the gap between the bound and the best plan found (each
//     decision with half the remaining time), down to a proof or the end of the budget.
// Limits: exponential in the worst case; at most 16 chunks as ggml; chunks are not
// deduplicated by symmetry and not decomposed, so chunked problems search more.

#pragma once

#include "galloc-whatif-impl.h"

#include <stdbool.h>
#include <stdint.h>

#define LAST_SLAB (GALLOC_MAX_CHUNKS - 1)
#define MAX_TRAIL ((uint64_t) 40000000) // trail entries the search may need; larger problems are not searched
#define N_ORDERS  8 // 4 keys x static, dynamic (galloc-whatif-exact-order.c)

struct comp {
    int32_t  lo, hi;  // sections [lo, hi]
    uint64_t L0;      // floor when it starts
    int32_t  rank0;
    int32_t  origin;  // depth of the decision that split it off, -1: from the start
    int32_t  start;   // depth of its first decision
    uint64_t epoch;   // hash of the states its ranks were set in (step 8), 0: the run's first ranks
};

struct comp_node {
    struct comp c;
    int32_t     next; // arena index, -1: none
};

struct level {
    int32_t     item;       // decision taken here: an item, -1 closing the chunk, -2 none
    size_t      trail_mark;
    size_t      rank_trail_mark;
    uint64_t    L, closed, cur;
    int32_t     last_rank, slab;
    struct comp comp;
    int32_t     pending, arena_len;
    uint64_t    min_height; // dominance limit of this level for items in the current chunk (step 4)
    bool        fits_under; // an unplaced item fits below the current chunk's top (step 4)
    uint64_t    h1, h2;     // hash of the unplaced items and their lowest offsets, before the decision
    uint64_t    key1, key2; // the state this level searches from
    bool        dead;       // a state already known to fail
    uint64_t    key_off;    // last item tried here: (pos, rank)
    int32_t     key_rank;
    bool        started;
    bool        closed_tried;
};

// an item's keys for the orders (step 7)
struct rank_key {
    uint64_t total;  // the most bytes live (unplaced, in a dynamic order) in any section of the item
    double   length; // lifetime in steps
    double   area;   // size x length
    uint64_t size;
    int32_t  i;
    int32_t  kind;   // which keys (the same in every key; qsort has no context argument)
};

struct pos_key {
    uint64_t pos;
    int32_t  j;
};

struct exact {
    const struct galloc_whatif_problem * p;
    const struct galloc_whatif_index          * x;
    int32_t    n, n_search, n_sec;
    int32_t  * rank;        // order of the current run (step 7)
    int        kind;        // which order (step 7)
    bool       perturbed;   // a perturbed order's run: its ranks are not those of the static order
                            // kind names, so it neither reads nor writes the failed-state table
    int        only_order;  // >= 0: the restarts use this order only (tests: each is complete alone;
                            // N_ORDERS: perturbed orders only)
    int32_t  * rank_trail_item; // ranks changed by re-ranking, with their old values, to undo
    int32_t  * rank_trail_old;
    size_t     rank_trail_len, rank_trail_cap;
    struct rank_key * rank_keys; // scratch per item for sorting
    bool       unlimited, decompose;
    bool       strict;      // items past max_size exist: others keep within max_size (no proofs then)
    uint64_t   stride, max_size, align;
    int32_t  * by_first;    // searched items by first section
    int32_t  * first_pos;   // per section s: first index of by_first with sec_first >= s (n_sec + 1 entries)
    // state
    bool     * placed;
    uint64_t * off;         // virtual offsets
    uint64_t * minoff;      // highest end of the placed conflicting items
    int32_t  * free_nb;     // unplaced conflicting items
    uint64_t * floor;       // per section: highest end of the placed items live in it
    uint64_t * rem;         // per section: bytes of the unplaced items live in it
    int32_t  * cut;         // per section boundary s|s+1: unplaced items spanning it
    uint64_t * acc;         // scratch per section: the lowest offset of its unplaced items
    struct pos_key * keys;  // scratch per item
    struct pos_key * sorted; // scratch per item: keys in decreasing order of offsets
    int32_t  * ord;         // the searched items, in the last order sections_fit found
    int32_t  * ord_next;    // scratch per item: the next ord
    int32_t  * in_keys;     // scratch per item, 0 outside sections_fit
    int32_t  * layer_head;  // scratch per section: the first item at L ending there (layer_fits), -1: none
    int32_t  * layer_next;  // scratch per item: the next one
    uint64_t * rem_before;  // scratch per section (rem_extremes)
    uint64_t * rem_after;
    uint64_t   rem_most;
    int32_t    n_placed;
    uint64_t   L, closed, cur;
    int32_t    last_rank, slab;
    struct comp comp;
    int32_t    pending;     // stack of components to solve, in the arena
    struct comp_node * arena;
    int32_t    arena_len, arena_cap;
    int32_t  * trail_idx;   // >= 0: minoff[i]; < 0: floor[-1 - s]
    uint64_t * trail_val;
    size_t     trail_len, trail_cap;
    struct level * levels;
    int32_t    depth;
    // failed states (step 8): open addressing on two 64-bit hashes
    uint64_t   h1, h2;
    uint64_t * memo;        // 2 words per slot, 0/0 = empty
    uint32_t * memo_slots;  // the slots in use, to clear them
    uint32_t   memo_mask;
    uint32_t   memo_used;
    uint32_t   memo_most;   // the most slots it may grow to
    // control
    uint64_t   T;
    uint64_t   nodes, run_nodes, node_limit;
    uint64_t   rerank_chances; // in this run: the new cuts, where a dynamic order ranks again (step 7)
    uint64_t   clock_mask;  // the clock is read every clock_mask + 1 nodes (a node costs O(items))
    double     deadline, t0;
    // best plan found
    uint64_t * best_off;
    uint64_t   best_cost;
    bool       found;
    double     found_ms;
    double     fit_ms;      // when a plan within the capacity was first found, < 0: not yet
};

enum search_end { SEARCH_FOUND, SEARCH_EXHAUSTED, SEARCH_TIMEOUT, SEARCH_LIMIT };

static inline uint64_t slab_start(const struct exact * e, int32_t slab) {
    return e->unlimited ? 0 : (uint64_t) slab * e->stride;
}

static inline int32_t slab_of(const struct exact * e, uint64_t v) {
    if (e->unlimited) {
        return 0;
    }
    uint64_t k = v / e->stride;
    return k >= LAST_SLAB ? LAST_SLAB : (int32_t) k;
}

// steps 2 and 3: where item j would go now
static inline uint64_t position(const struct exact * e, int32_t j) {
    if (e->unlimited) {
        return e->minoff[j];
    }
    uint64_t base = slab_start(e, e->slab);
    uint64_t o    = e->minoff[j] > base ? e->minoff[j] : base;
    uint64_t size = e->p->items[j].size;
    int32_t  k    = slab_of(e, o);
    uint64_t rel  = o - slab_start(e, k);
    if (k == LAST_SLAB || rel == 0 || (size <= e->max_size && rel <= e->max_size - size)) {
        return o;
    }
    return slab_start(e, k + 1);
}

// the total if item j were placed at pos
static inline uint64_t cost_at(const struct exact * e, int32_t j, uint64_t pos) {
    uint64_t size = e->p->items[j].size;
    int32_t  k    = slab_of(e, pos);
    if (k == e->slab) {
        uint64_t top = pos + size - slab_start(e, k);
        return e->closed + (top > e->cur ? top : e->cur);
    }
    return e->closed + e->cur + size;
}

// the items of the current component: by_first[*begin .. *end)
static inline void comp_items(const struct exact * e, int32_t * begin, int32_t * end) {
    *begin = e->first_pos[e->comp.lo];
    *end   = e->first_pos[e->comp.hi + 1];
}

// can items still go to a later chunk than the current one?
static inline bool more_chunks(const struct exact * e) {
    return !e->unlimited && e->slab < LAST_SLAB;
}

// what a height h above the current chunk's start adds to the total at least: h, unless the
// items above it may go to a later chunk, which adds only their bytes to the current top
static inline uint64_t in_chunk(const struct exact * e, uint64_t h) {
    return more_chunks(e) && h > e->cur ? e->cur : h;
}

// step 5 in one chunk: each section is a line from its floor (and L) to T on which its unplaced
// items, each no lower than its lowest offset, must lie side by side. Such a line holds them

static inline bool comp_has_unplaced(const struct exact * e, int32_t lo, int32_t hi) {
    for (int32_t s = lo; s <= hi; s++) {
        if (e->rem[s] > 0) {
            return true;
        }
    }
    return false;
}

// ---- galloc-whatif-exact.c: the state's memory (tests build a state with it too) -------

// trail entries a search of the problem may need (each item placed once on a path)
uint64_t galloc_exact_trail_need(const struct galloc_whatif_index * x);
// a state with nothing searched yet: the items without bytes placed, the others unplaced, every
// lowest offset 0; false: out of memory (nothing to free then)
bool galloc_exact_init(struct exact * e, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x);
void galloc_exact_free(struct exact * e);

// ---- galloc-whatif-exact-order.c: the orders (step 7) --------------------------------

// the ranks of every item under order kind (0 .. N_ORDERS - 1)
void galloc_exact_set_ranks(struct exact * e, int kind);
// the ranks of static order kind, each moved down by a random amount (up to an eighth of the
// items) drawn from seed: a perturbed order of the restarts (step 7)
void galloc_exact_perturb_ranks(struct exact * e, int kind, uint64_t seed);
// a dynamic order: ranks the unplaced items of the current component again (recorded to undo)
void galloc_exact_rerank(struct exact * e);
// is order kind / the current order dynamic?
static inline bool galloc_exact_dynamic_kind(int kind) {
    return kind >= N_ORDERS / 2;
}
static inline bool galloc_exact_dynamic(const struct exact * e) {
    return galloc_exact_dynamic_kind(e->kind);
}

// ---- galloc-whatif-exact-state.c: decisions, undo, failed states ----------------------

uint64_t galloc_exact_mix64(uint64_t z);
void galloc_exact_hash_item(struct exact * e, int32_t i, uint64_t v);
// place item j at virtual offset pos / close the current chunk, saving the state in lv
void galloc_exact_place(struct exact * e, struct level * lv, int32_t j, uint64_t pos);
void galloc_exact_close_chunk(struct exact * e, struct level * lv);
// back to the state lv saved
void galloc_exact_undo(struct exact * e, struct level * lv);
// the key of the current state (step 8), and the table of those known to fail
void galloc_exact_state_key(const struct exact * e, uint64_t * k1, uint64_t * k2);
// an empty table of slots (a power of 2) in place of the old one; false: out of memory (then none)
bool galloc_exact_memo_init(struct exact * e, uint32_t slots);
bool galloc_exact_memo_find(const struct exact * e, uint64_t k1, uint64_t k2);
void galloc_exact_memo_add(struct exact * e, uint64_t k1, uint64_t k2);
void galloc_exact_memo_clear(struct exact * e);

// ---- galloc-whatif-exact-infer.c: inference (steps 4 and 5) ------------------------

// may the current partial plan still reach a total <= T?
bool galloc_exact_consistent(struct exact * e);
// the dominance limits of level lv (step 4)
void galloc_exact_dominance_limits(const struct exact * e, struct level * lv);
// one chunk: before placements, the most unplaced bytes per section around each (fits_after)
void galloc_exact_rem_extremes(struct exact * e);
// one chunk: may j go at pos and the unplaced bytes still fit above it?
bool galloc_exact_fits_after(const struct exact * e, int32_t j, uint64_t pos);

// ---- galloc-whatif-exact-search.c: the search (steps 3, 4, 6) -----------------------

// depth-first over the items of sections [lo, hi] from depth base, under e->T and the node limit
enum search_end galloc_exact_search(struct exact * e, int32_t base, int32_t lo, int32_t hi);
// keep the current complete plan if it is the best yet
void galloc_exact_record(struct exact * e);
// undo every decision down to depth base
void galloc_exact_unwind(struct exact * e, int32_t base);
