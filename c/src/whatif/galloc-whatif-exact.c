// galloc-whatif-exact.c: the exact what-if planner, a branch and bound over canonical plans.
//
// Ideas from MiniMalloc (Moffitt, ASPLOS 2023), written anew: canonical plans, a monotonic
// floor, section inference, dominance, temporal decomposition, restarts over static orders.
// A search that runs to the end (or meets the lower bound) proves its plan optimal; out of
// time it keeps the best plan found, never worse than the heuristics'.

#include "galloc-whatif-impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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
//     scheduling its items with release times). A stuck item without an unplaced
//     conflicting item is a dead end. Before a placement at pos, the plain L + unplaced
//     bytes test is done ahead (fits_after), so that most refuted branches cost no node.
//  6. Decomposition (one chunk only): pieces of the time range that no item crosses are
//     independent, so a decision (is there a plan of total <= T?) decides each piece on
//     its own and keeps its plan while searching the next. Inside a search, when no
//     unplaced item spans a boundary any more, the two sides are solved one after the
//     other, and when one has no solution the search jumps back to the decision that
//     split them, skipping the other side's alternatives.
//  7. Restarts: each piece is searched with several static orders in turn under a node
//     limit that doubles every round; a run that ends within its limit decides.
//  8. Failed states: a state from which every alternative failed (the unplaced items with
//     their lowest offsets, the floor, the components, the order; two 64-bit hashes) is
//     remembered for the rest of the piece's decision, across the rounds of step 7, and
//     not searched again.
//  9. Driver: decide at the capacity (CSV), then at the lower bound (a quarter of the
//     remaining time), then halve the gap between the bound and the best plan found (each
//     decision with half the remaining time), down to a proof or the end of the budget.
// Limits: exponential in the worst case; at most 16 chunks as ggml; chunks are not
// deduplicated by symmetry and not decomposed, so chunked problems search more.

#define LAST_SLAB (GALLOC_MAX_CHUNKS - 1)
#define MAX_TRAIL ((uint64_t) 40000000) // trail entries the search may need; larger problems are not searched
#define N_ORDERS  4

struct comp {
    int32_t  lo, hi;  // sections [lo, hi]
    uint64_t L0;      // floor when it starts
    int32_t  rank0;
    int32_t  origin;  // depth of the decision that split it off, -1: from the start
    int32_t  start;   // depth of its first decision
};

struct comp_node {
    struct comp c;
    int32_t     next; // arena index, -1: none
};

struct level {
    int32_t     item;       // decision taken here: an item, -1 closing the chunk, -2 none
    size_t      trail_mark;
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

struct pos_key {
    uint64_t pos;
    int32_t  j;
};

struct exact {
    const struct galloc_whatif_problem * p;
    const struct galloc_whatif_index          * x;
    int32_t    n, n_search, n_sec;
    int32_t  * rank;        // static order of the current run
    int        kind;        // which static order (step 7)
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
    // control
    uint64_t   T;
    uint64_t   nodes, run_nodes, node_limit;
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

static uint64_t slab_start(const struct exact * e, int32_t slab) {
    return e->unlimited ? 0 : (uint64_t) slab * e->stride;
}

static int32_t slab_of(const struct exact * e, uint64_t v) {
    if (e->unlimited) {
        return 0;
    }
    uint64_t k = v / e->stride;
    return k >= LAST_SLAB ? LAST_SLAB : (int32_t) k;
}

// steps 2 and 3: where item j would go now
static uint64_t position(const struct exact * e, int32_t j) {
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
static uint64_t cost_at(const struct exact * e, int32_t j, uint64_t pos) {
    uint64_t size = e->p->items[j].size;
    int32_t  k    = slab_of(e, pos);
    if (k == e->slab) {
        uint64_t top = pos + size - slab_start(e, k);
        return e->closed + (top > e->cur ? top : e->cur);
    }
    return e->closed + e->cur + size;
}

static void trail_push(struct exact * e, int32_t idx, uint64_t val) {
    assert(e->trail_len < e->trail_cap); // each item is placed once on a path: deg + span entries
    e->trail_idx[e->trail_len] = idx;
    e->trail_val[e->trail_len] = val;
    e->trail_len++;
}

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t zob(int32_t i, uint64_t v, uint64_t seed) {
    return mix64(mix64((uint64_t) i * 0x9e3779b97f4a7c15ULL + seed) ^ v);
}

static void hash_item(struct exact * e, int32_t i, uint64_t v) {
    e->h1 ^= zob(i, v, 0x1234567ULL);
    e->h2 ^= zob(i, v, 0x7654321ULL);
}

static void save_state(const struct exact * e, struct level * lv) {
    lv->h1         = e->h1;
    lv->h2         = e->h2;
    lv->trail_mark = e->trail_len;
    lv->L          = e->L;
    lv->closed     = e->closed;
    lv->cur        = e->cur;
    lv->last_rank  = e->last_rank;
    lv->slab       = e->slab;
    lv->comp       = e->comp;
    lv->pending    = e->pending;
    lv->arena_len  = e->arena_len;
}

static void place(struct exact * e, struct level * lv, int32_t j, uint64_t pos) {
    const struct galloc_whatif_index * x    = e->x;
    uint64_t                    size = e->p->items[j].size;
    uint64_t                    end  = pos + size;
    save_state(e, lv);
    lv->item = j;
    int32_t k = slab_of(e, pos);
    if (k != e->slab) {
        e->closed += e->cur;
        e->cur     = 0;
        e->slab    = k;
    }
    if (end - slab_start(e, k) > e->cur) {
        e->cur = end - slab_start(e, k);
    }
    e->L         = pos;
    e->last_rank = e->rank[j];
    e->off[j]    = pos;
    e->placed[j] = true;
    e->n_placed++;
    hash_item(e, j, e->minoff[j]);
    for (int32_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
        int32_t q = x->adj[a];
        e->free_nb[q]--;
        if (!e->placed[q] && e->minoff[q] < end) {
            trail_push(e, q, e->minoff[q]);
            hash_item(e, q, e->minoff[q]);
            hash_item(e, q, end);
            e->minoff[q] = end;
        }
    }
    for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
        e->rem[s] -= size;
        if (e->floor[s] < end) {
            trail_push(e, -1 - s, e->floor[s]);
            e->floor[s] = end;
        }
        if (s < x->sec_last[j]) {
            e->cut[s]--;
        }
    }
}

static void close_chunk(struct exact * e, struct level * lv) {
    save_state(e, lv);
    lv->item     = -1;
    e->closed   += e->cur;
    e->cur       = 0;
    e->slab     += 1;
    e->L         = slab_start(e, e->slab);
    e->last_rank = -1;
}

static void undo(struct exact * e, struct level * lv) {
    const struct galloc_whatif_index * x = e->x;
    while (e->trail_len > lv->trail_mark) {
        e->trail_len--;
        int32_t idx = e->trail_idx[e->trail_len];
        if (idx >= 0) {
            e->minoff[idx] = e->trail_val[e->trail_len];
        } else {
            e->floor[-1 - idx] = e->trail_val[e->trail_len];
        }
    }
    int32_t j = lv->item;
    if (j >= 0) {
        uint64_t size = e->p->items[j].size;
        for (int32_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
            e->free_nb[x->adj[a]]++;
        }
        for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
            e->rem[s] += size;
            if (s < x->sec_last[j]) {
                e->cut[s]++;
            }
        }
        e->placed[j] = false;
        e->n_placed--;
    }
    e->L         = lv->L;
    e->closed    = lv->closed;
    e->cur       = lv->cur;
    e->last_rank = lv->last_rank;
    e->slab      = lv->slab;
    e->comp      = lv->comp;
    e->pending   = lv->pending;
    e->arena_len = lv->arena_len;
    e->h1        = lv->h1;
    e->h2        = lv->h2;
    lv->item     = -2;
}

// the items of the current component: by_first[*begin .. *end)
static void comp_items(const struct exact * e, int32_t * begin, int32_t * end) {
    *begin = e->first_pos[e->comp.lo];
    *end   = e->first_pos[e->comp.hi + 1];
}

// can items still go to a later chunk than the current one?
static bool more_chunks(const struct exact * e) {
    return !e->unlimited && e->slab < LAST_SLAB;
}

// what a height h above the current chunk's start adds to the total at least: h, unless the
// items above it may go to a later chunk, which adds only their bytes to the current top
static uint64_t in_chunk(const struct exact * e, uint64_t h) {
    return more_chunks(e) && h > e->cur ? e->cur : h;
}

// step 5 in one chunk: each section is a line from its floor (and L) to T on which its unplaced
// items, each no lower than its lowest offset, must lie side by side. Such a line holds them
// exactly when, for every offset h among theirs, max(h, L) + the bytes of the items whose lowest
// offset is >= h <= T (as a single machine schedules jobs with release times; an item's lowest
// offset is at least the floor of each of its sections). So the items are taken in decreasing
// order of their lowest offsets, each adding its bytes to its sections and checking them there.
// keys[0 .. n_un): each unplaced item with its lowest offset. The order is kept from one call to
// the next (ord: the items in the last order found), so sorting is an insertion sort of a nearly
// sorted list.
static bool sections_fit(struct exact * e, int32_t n_un) {
    const struct galloc_whatif_index * x = e->x;
    // keys in the last order: items of keys[] by their place in ord
    for (int32_t k = 0; k < n_un; k++) {
        e->in_keys[e->keys[k].j] = k + 1;
    }
    int32_t m = 0, rest = n_un;
    for (int32_t k = 0; k < e->n_search; k++) {
        int32_t j = e->ord[k];
        if (e->in_keys[j]) {
            e->sorted[m++] = e->keys[e->in_keys[j] - 1];
        } else {
            e->ord_next[rest++] = j; // not among the keys now: after them, in the same order
        }
    }
    for (int32_t k = 1; k < n_un; k++) {
        struct pos_key v = e->sorted[k];
        int32_t        q = k;
        while (q > 0 && e->sorted[q - 1].pos < v.pos) {
            e->sorted[q] = e->sorted[q - 1];
            q--;
        }
        e->sorted[q] = v;
    }
    // ord: the sorted keys first, then the others (already moved there, in order)
    for (int32_t k = 0; k < n_un; k++) {
        e->ord_next[k] = e->sorted[k].j;
        e->in_keys[e->sorted[k].j] = 0;
    }
    int32_t * swap = e->ord;
    e->ord      = e->ord_next;
    e->ord_next = swap;
    for (int32_t s = e->comp.lo; s <= e->comp.hi; s++) {
        e->acc[s] = 0;
    }
    // the items above L one by one; those at L or below (the last ones) all start from L, where
    // the threshold with every item is the strongest: L + all the unplaced bytes of a section
    for (int32_t k = 0; k < n_un && e->sorted[k].pos > e->L; k++) {
        int32_t  j    = e->sorted[k].j;
        uint64_t size = e->p->items[j].size, most = 0;
        for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
            e->acc[s] += size;
            most = e->acc[s] > most ? e->acc[s] : most;
        }
        if (e->sorted[k].pos + most > e->T) {
            return false;
        }
    }
    for (int32_t s = e->comp.lo; s <= e->comp.hi; s++) {
        if (e->L + e->rem[s] > e->T) {
            return false;
        }
    }
    return true;
}

// step 5, over the current component
static bool consistent(struct exact * e) {
    const struct galloc_whatif_index * x    = e->x;
    uint64_t                    base = slab_start(e, e->slab);
    if (e->closed + e->cur > e->T) {
        return false;
    }
    // the lowest offset each unplaced item can still get
    int32_t b0, b1, n_un = 0;
    comp_items(e, &b0, &b1);
    for (int32_t k = b0; k < b1; k++) {
        int32_t j = e->by_first[k];
        if (e->placed[j]) {
            continue;
        }
        uint64_t pos = position(e, j);
        if (pos < e->L || (pos == e->L && e->rank[j] < e->last_rank)) {
            // stuck (it cannot come next in the canonical order): it will rest on an unplaced
            // conflicting item, placed at L or above
            uint64_t lowest = UINT64_MAX;
            for (int32_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
                int32_t q = x->adj[a];
                if (!e->placed[q]) {
                    uint64_t pq  = position(e, q);
                    uint64_t top = (pq > e->L ? pq : e->L) + e->p->items[q].size;
                    lowest = top < lowest ? top : lowest;
                }
            }
            if (more_chunks(e)) {
                uint64_t next = slab_start(e, e->slab + 1); // or it goes to a later chunk
                lowest = next < lowest ? next : lowest;
            }
            if (lowest == UINT64_MAX) {
                return false;
            }
            pos = lowest;
        }
        e->keys[n_un++] = (struct pos_key) { pos, j };
    }
    if (e->unlimited) {
        return sections_fit(e, n_un);
    }
    // per section: the unplaced items lie above the lowest of their offsets, and each item fits
    for (int32_t s = e->comp.lo; s <= e->comp.hi; s++) {
        e->acc[s] = UINT64_MAX;
    }
    for (int32_t k = 0; k < n_un; k++) {
        int32_t  j   = e->keys[k].j;
        uint64_t pos = e->keys[k].pos;
        if (e->closed + in_chunk(e, pos - base) + e->p->items[j].size > e->T) {
            return false;
        }
        for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
            e->acc[s] = pos < e->acc[s] ? pos : e->acc[s];
        }
    }
    for (int32_t s = e->comp.lo; s <= e->comp.hi; s++) {
        if (e->rem[s] == 0) {
            continue;
        }
        uint64_t b = e->floor[s] > e->acc[s] ? e->floor[s] : e->acc[s];
        b = b > e->L ? b : e->L;
        if (e->closed + in_chunk(e, b - base) + e->rem[s] > e->T) {
            return false;
        }
    }
    return true;
}

// step 4: the lowest end of an unplaced item of the component, and whether one fits in the
// current chunk below its top
static void dominance_limits(const struct exact * e, struct level * lv) {
    uint64_t h = UINT64_MAX, top_here = slab_start(e, e->slab) + e->cur;
    bool     under = false;
    int32_t  b0, b1;
    comp_items(e, &b0, &b1);
    for (int32_t k = b0; k < b1; k++) {
        int32_t j = e->by_first[k];
        if (!e->placed[j]) {
            uint64_t pos = position(e, j), top = pos + e->p->items[j].size;
            h     = top < h ? top : h;
            under = under || (slab_of(e, pos) == e->slab && top <= top_here);
        }
    }
    lv->min_height = h;
    lv->fits_under = under;
}

// One chunk, before a placement (step 5 ahead): placing j at pos raises L to pos, and every
// section of the component must then hold its unplaced bytes above it: pos + rem <= T, with j's
// bytes gone from its own sections. rem_before[s] / rem_after[s]: the most unplaced bytes of
// the component's sections before / after s (filled by rem_extremes).
static void rem_extremes(struct exact * e) {
    uint64_t m = 0;
    for (int32_t s = e->comp.lo; s <= e->comp.hi; s++) {
        e->rem_before[s] = m;
        m = e->rem[s] > m ? e->rem[s] : m;
    }
    e->rem_most = m;
    m = 0;
    for (int32_t s = e->comp.hi; s >= e->comp.lo; s--) {
        e->rem_after[s] = m;
        m = e->rem[s] > m ? e->rem[s] : m;
    }
}

static bool fits_after(const struct exact * e, int32_t j, uint64_t pos) {
    if (pos + e->rem_most <= e->T) {
        return true;
    }
    const struct galloc_whatif_index * x = e->x;
    int32_t lo = x->sec_first[j], hi = x->sec_last[j];
    uint64_t most = lo > e->comp.lo ? e->rem_before[lo] : 0;
    most = hi < e->comp.hi && e->rem_after[hi] > most ? e->rem_after[hi] : most;
    for (int32_t s = lo; s <= hi; s++) {
        uint64_t r = e->rem[s] - e->p->items[j].size;
        most = r > most ? r : most;
    }
    return pos + most <= e->T;
}

// step 4: the eligible item with the smallest (pos, rank) after the level's last key; -1: none
static int32_t next_candidate(struct exact * e, const struct level * lv, uint64_t * pos_out) {
    int32_t  best      = -1;
    uint64_t best_pos  = 0;
    int32_t  best_rank = 0;
    int32_t  b0, b1;
    comp_items(e, &b0, &b1);
    if (e->unlimited) {
        rem_extremes(e);
    }
    for (int32_t k = b0; k < b1; k++) {
        int32_t j = e->by_first[k];
        if (e->placed[j]) {
            continue;
        }
        uint64_t pos = position(e, j);
        int32_t  r   = e->rank[j];
        if (pos < e->L || (pos == e->L && r < e->last_rank)) {
            continue; // not canonical
        }
        if (slab_of(e, pos) == e->slab ? pos >= lv->min_height : lv->fits_under) {
            continue; // dominated: another item could move below it (in the current chunk)
        }
        if (lv->started && (pos < lv->key_off || (pos == lv->key_off && r <= lv->key_rank))) {
            continue; // tried already
        }
        if (best >= 0 && (pos > best_pos || (pos == best_pos && r > best_rank))) {
            continue;
        }
        if (cost_at(e, j, pos) > e->T || (e->unlimited && !fits_after(e, j, pos))) {
            continue;
        }
        best      = j;
        best_pos  = pos;
        best_rank = r;
    }
    *pos_out = best_pos;
    return best;
}

// may the current chunk be closed? Not while an unplaced item fits below its top (step 4).
static bool may_close(const struct exact * e, const struct level * lv) {
    return !lv->closed_tried && more_chunks(e) && e->cur > 0 && !lv->fits_under;
}

static bool comp_has_unplaced(const struct exact * e, int32_t lo, int32_t hi) {
    for (int32_t s = lo; s <= hi; s++) {
        if (e->rem[s] > 0) {
            return true;
        }
    }
    return false;
}

static void push_pending(struct exact * e, struct comp c) {
    // the components created on one path form a laminar family of section ranges: fewer than n_sec pushes
    assert(e->arena_len < e->arena_cap);
    e->arena[e->arena_len] = (struct comp_node) { c, e->pending };
    e->pending = e->arena_len++;
}

// Splits the sections [lo, hi] at the boundaries no unplaced item crosses. The leftmost
// piece with unplaced items becomes the current component, the others are pushed to be
// solved after it, left to right. Returns the number of pieces with unplaced items.
static int32_t split(struct exact * e, int32_t lo, int32_t hi, struct comp model) {
    int32_t     n_pieces = 0;
    struct comp first    = model;
    for (int32_t s = hi - 1; s >= lo - 1; s--) {
        if (s >= lo && e->cut[s] != 0) {
            continue;
        }
        if (comp_has_unplaced(e, s + 1, hi)) {
            if (n_pieces > 0) {
                push_pending(e, first);
            }
            first    = model;
            first.lo = s + 1;
            first.hi = hi;
            n_pieces++;
        }
        hi = s;
    }
    if (n_pieces > 0) {
        e->comp = first;
    }
    return n_pieces;
}

// step 6 after the decision at depth d (j: the item placed, or -1): split the component
// where nothing unplaced crosses any more; when it is done, start the next one
static void after_decision(struct exact * e, int32_t d, int32_t j) {
    if (e->decompose && j >= 0) {
        const struct galloc_whatif_index * x = e->x;
        bool new_cut = false;
        for (int32_t s = x->sec_first[j]; s < x->sec_last[j] && !new_cut; s++) {
            new_cut = s >= e->comp.lo && s < e->comp.hi && e->cut[s] == 0;
        }
        if (new_cut) {
            struct comp shrunk = e->comp;
            struct comp pieces = { 0, 0, e->L, e->last_rank, d, d + 1 };
            int32_t     mark   = e->arena_len, pending = e->pending;
            if (split(e, e->comp.lo, e->comp.hi, pieces) == 1) {
                // one piece left: the component only shrank, it keeps its origin
                int32_t lo = e->comp.lo, hi = e->comp.hi;
                e->arena_len = mark;
                e->pending   = pending;
                e->comp      = shrunk;
                e->comp.lo   = lo;
                e->comp.hi   = hi;
            }
        }
    }
    // the component is done: the next one starts at the floor where it was split off
    while (!comp_has_unplaced(e, e->comp.lo, e->comp.hi) && e->pending >= 0) {
        const struct comp_node * nd = &e->arena[e->pending];
        e->pending    = nd->next;
        e->comp       = nd->c;
        e->comp.start = d + 1;
        e->L          = e->comp.L0;
        e->last_rank  = e->comp.rank0;
    }
}

static void record(struct exact * e) {
    uint64_t cost = e->closed + e->cur;
    if (!e->found || cost < e->best_cost) {
        e->best_cost = cost;
        e->found     = true;
        e->found_ms  = galloc_whatif_now_ms() - e->t0;
        if (e->fit_ms < 0 && e->p->capacity && cost <= e->p->capacity) {
            e->fit_ms = e->found_ms;
        }
        memcpy(e->best_off, e->off, (size_t) e->n * sizeof(uint64_t));
    }
}

// undo every decision down to depth base
static void unwind(struct exact * e, int32_t base) {
    while (e->depth > base) {
        e->depth--;
        undo(e, &e->levels[e->depth]);
    }
}

// the key of the current state: the unplaced items with their lowest offsets, the floor, the
// component and the pending ones
static void state_key(const struct exact * e, uint64_t * k1, uint64_t * k2) {
    uint64_t extra = mix64(e->L ^ mix64((uint64_t) (uint32_t) e->last_rank ^ ((uint64_t) (uint32_t) e->comp.lo << 32)) ^
                           mix64((uint64_t) (uint32_t) e->comp.hi + 77) ^ mix64((uint64_t) e->kind * 0x9e3779b97f4a7c15ULL + 5));
    if (!e->unlimited) {
        extra = mix64(extra ^ mix64(e->closed + 13) ^ mix64(e->cur * 31 + (uint64_t) e->slab));
    }
    for (int32_t c = e->pending; c >= 0; c = e->arena[c].next) {
        const struct comp * pc = &e->arena[c].c;
        extra = mix64(extra ^ pc->L0 ^ mix64(((uint64_t) (uint32_t) pc->lo << 32) ^ (uint64_t) (uint32_t) pc->hi ^
                                            ((uint64_t) (uint32_t) pc->rank0 << 16)));
    }
    *k1 = e->h1 ^ extra;
    *k2 = e->h2 ^ mix64(extra + 0x51ed27ULL);
    if ((*k1 | *k2) == 0) {
        *k1 = 1;
    }
}

static bool memo_find(const struct exact * e, uint64_t k1, uint64_t k2) {
    if (!e->memo) {
        return false;
    }
    for (uint32_t i = (uint32_t) k1 & e->memo_mask, probes = 0; probes < 16; i = (i + 1) & e->memo_mask, probes++) {
        uint64_t a = e->memo[2 * i], b = e->memo[2 * i + 1];
        if ((a | b) == 0) {
            return false;
        }
        if (a == k1 && b == k2) {
            return true;
        }
    }
    return false;
}

static void memo_add(struct exact * e, uint64_t k1, uint64_t k2) {
    if (!e->memo || e->memo_used > e->memo_mask / 2) {
        return; // full enough: stop learning
    }
    for (uint32_t i = (uint32_t) k1 & e->memo_mask, probes = 0; probes < 16; i = (i + 1) & e->memo_mask, probes++) {
        if ((e->memo[2 * i] | e->memo[2 * i + 1]) == 0) {
            e->memo[2 * i]     = k1;
            e->memo[2 * i + 1] = k2;
            e->memo_slots[e->memo_used++] = i;
            return;
        }
    }
}

static void memo_clear(struct exact * e) {
    for (uint32_t k = 0; k < e->memo_used; k++) {
        e->memo[2 * e->memo_slots[k]]     = 0;
        e->memo[2 * e->memo_slots[k] + 1] = 0;
    }
    e->memo_used = 0;
}

static void level_init(struct exact * e, int32_t d) {
    struct level * lv = &e->levels[d];
    *lv = (struct level) { .item = -2 };
    state_key(e, &lv->key1, &lv->key2);
    lv->dead = memo_find(e, lv->key1, lv->key2);
    if (lv->dead) {
        return;
    }
    dominance_limits(e, lv);
}

// depth-first over the levels without recursion (the WebAssembly stack is small), for the
// items of one independent piece of the time range, from depth base. Stops at the first
// plan of total <= T, keeping it placed; otherwise leaves the state as it found it.
static enum search_end search(struct exact * e, int32_t base, int32_t lo, int32_t hi) {
    e->depth     = base;
    e->run_nodes = 0;
    e->pending   = -1;
    e->L         = slab_start(e, e->slab); // a piece owes nothing to the order of the others
    e->last_rank = -1;
    e->comp      = (struct comp) { lo, hi, e->L, e->last_rank, base - 1, base };
    level_init(e, base);
    enum search_end r;
    for (;;) {
        if (e->pending < 0 && !comp_has_unplaced(e, e->comp.lo, e->comp.hi)) {
            return SEARCH_FOUND;
        }
        e->nodes++;
        if (++e->run_nodes > e->node_limit) {
            r = SEARCH_LIMIT;
            break;
        }
        if ((e->nodes & e->clock_mask) == 0 && galloc_whatif_now_ms() > e->deadline) {
            r = SEARCH_TIMEOUT;
            break;
        }
        struct level * lv  = &e->levels[e->depth];
        uint64_t       pos = 0;
        int32_t        j   = lv->dead ? -1 : next_candidate(e, lv, &pos);
        bool           go  = false;
        if (j >= 0) {
            lv->started  = true;
            lv->key_off  = pos;
            lv->key_rank = e->rank[j];
            place(e, lv, j, pos);
            go = true;
        } else if (!lv->dead && may_close(e, lv)) {
            lv->closed_tried = true;
            close_chunk(e, lv);
            go = true;
        }
        if (go) {
            if (consistent(e)) {
                after_decision(e, e->depth, lv->item);
                e->depth++;
                level_init(e, e->depth);
            } else {
                undo(e, lv);
            }
            continue;
        }
        // no alternative left here: back to the previous decision, or, when this is the
        // first decision of a component, to the decision that split it off
        if (!lv->dead) {
            memo_add(e, lv->key1, lv->key2); // every alternative from this state failed
        }
        int32_t target = e->depth == e->comp.start ? e->comp.origin : e->depth - 1;
        if (target < base) {
            r = SEARCH_EXHAUSTED;
            break;
        }
        while (e->depth > target) {
            e->depth--;
            undo(e, &e->levels[e->depth]);
        }
    }
    unwind(e, base);
    return r;
}

// ---- static orders (step 7) ---------------------------------------------------

struct rank_key {
    uint64_t total;  // the most bytes live in any section of the item
    double   length; // lifetime in steps
    double   area;   // size x length
    uint64_t size;
    int32_t  i;
    int32_t  kind;   // which order (the same in every key; qsort has no context argument)
};

static int cmp3(double a, double b) {
    return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_rank(const void * pa, const void * pb) {
    const struct rank_key * a = pa, * b = pb;
    int c = 0;
    switch (a->kind) {
        case 0: // total, length, area
            c = c ? c : cmp3((double) a->total, (double) b->total);
            c = c ? c : cmp3(a->length, b->length);
            c = c ? c : cmp3(a->area, b->area);
            break;
        case 1: // length, area, total
            c = c ? c : cmp3(a->length, b->length);
            c = c ? c : cmp3(a->area, b->area);
            c = c ? c : cmp3((double) a->total, (double) b->total);
            break;
        case 2: // total, area, length
            c = c ? c : cmp3((double) a->total, (double) b->total);
            c = c ? c : cmp3(a->area, b->area);
            c = c ? c : cmp3(a->length, b->length);
            break;
        default: // size, length
            c = c ? c : cmp3((double) a->size, (double) b->size);
            c = c ? c : cmp3(a->length, b->length);
            break;
    }
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static bool set_ranks(struct exact * e, int kind) {
    struct rank_key * keys = malloc(((size_t) e->n + 1) * sizeof(struct rank_key));
    if (!keys) {
        return false;
    }
    for (int32_t i = 0; i < e->n; i++) {
        const struct galloc_whatif_item * it    = &e->p->items[i];
        uint64_t                          total = 0;
        for (int32_t s = e->x->sec_first[i]; s <= e->x->sec_last[i]; s++) {
            total = e->x->sec_live[s] > total ? e->x->sec_live[s] : total;
        }
        double length = (double) (it->last - it->first) + 1.0;
        keys[i] = (struct rank_key) { total, length, length * (double) it->size, it->size, i, kind };
    }
    qsort(keys, (size_t) e->n, sizeof(struct rank_key), cmp_rank);
    for (int32_t k = 0; k < e->n; k++) {
        e->rank[keys[k].i] = k;
    }
    free(keys);
    return true;
}

// one piece: restarts over the orders with a doubling node limit (step 7)
static enum search_end decide_piece(struct exact * e, int32_t base, int32_t lo, int32_t hi) {
    int32_t b0 = e->first_pos[lo], b1 = e->first_pos[hi + 1];
    uint64_t limit = (uint64_t) (b1 - b0) + 64;
    // the failed states of each order stay known from round to round (a state's key holds the
    // order): a longer run of the same order skips what the shorter one already refuted
    memo_clear(e);
    for (;;) {
        limit = limit < UINT64_MAX / 2 ? limit * 2 : limit;
        for (int kind = 0; kind < N_ORDERS; kind++) {
            if (!set_ranks(e, kind)) {
                return SEARCH_TIMEOUT; // out of memory: give up like a timeout
            }
            e->node_limit = limit;
            e->kind       = kind;
            enum search_end r = search(e, base, lo, hi);
            if (r != SEARCH_LIMIT) {
                return r;
            }
            if (galloc_whatif_now_ms() > e->deadline) {
                return SEARCH_TIMEOUT;
            }
        }
    }
}

// is there a plan of total <= T? The pieces of the time range that no item crosses are
// independent (step 6): each is decided on its own, its plan kept while the next is searched.
static enum search_end decide(struct exact * e, uint64_t T, double deadline) {
    e->T         = T;
    e->deadline  = deadline;
    e->depth     = 0;
    e->L         = 0;
    e->last_rank = -1;
    enum search_end r  = SEARCH_FOUND;
    int32_t         lo = 0;
    for (int32_t s = 0; s < e->n_sec && r == SEARCH_FOUND; s++) {
        if (e->decompose ? (s + 1 < e->n_sec && e->cut[s] != 0) : s + 1 < e->n_sec) {
            continue; // the piece goes on
        }
        if (comp_has_unplaced(e, lo, s)) {
            r = decide_piece(e, e->depth, lo, s);
        }
        lo = s + 1;
    }
    if (r == SEARCH_FOUND) {
        record(e);
    }
    unwind(e, 0);
    return r;
}

// ---- setup and driver ---------------------------------------------------------

static void exact_free(struct exact * e) {
    free(e->rank);
    free(e->by_first);
    free(e->first_pos);
    free(e->placed);
    free(e->off);
    free(e->minoff);
    free(e->free_nb);
    free(e->floor);
    free(e->rem);
    free(e->cut);
    free(e->acc);
    free(e->keys);
    free(e->sorted);
    free(e->ord);
    free(e->ord_next);
    free(e->in_keys);
    free(e->rem_before);
    free(e->rem_after);
    free(e->arena);
    free(e->trail_idx);
    free(e->trail_val);
    free(e->levels);
    free(e->best_off);
    free(e->memo);
    free(e->memo_slots);
}

struct first_key {
    int32_t sec, i;
};

static int cmp_first(const void * a, const void * b) {
    const struct first_key * x = a, * y = b;
    if (x->sec != y->sec) {
        return x->sec < y->sec ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

static bool exact_init(struct exact * e, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t trail_cap) {
    memset(e, 0, sizeof(*e));
    size_t n = (size_t) p->n_items + 1, ns = (size_t) x->n_sections + 2;
    e->p         = p;
    e->x         = x;
    e->n         = p->n_items;
    e->n_sec     = x->n_sections;
    e->align     = p->alignment;
    e->unlimited = galloc_whatif_unlimited(p, x);
    e->decompose = e->unlimited;
    e->max_size  = p->max_size;
    e->arena_cap = x->n_sections + 2;
    e->rank      = malloc(n * sizeof(int32_t));
    e->by_first  = malloc(n * sizeof(int32_t));
    e->first_pos = malloc(ns * sizeof(int32_t));
    e->placed    = calloc(n, sizeof(bool));
    e->off       = calloc(n, sizeof(uint64_t));
    e->minoff    = calloc(n, sizeof(uint64_t));
    e->free_nb   = calloc(n, sizeof(int32_t));
    e->floor     = calloc(ns, sizeof(uint64_t));
    e->rem       = calloc(ns, sizeof(uint64_t));
    e->cut       = calloc(ns, sizeof(int32_t));
    e->acc       = calloc(ns, sizeof(uint64_t));
    e->rem_before = calloc(ns, sizeof(uint64_t));
    e->rem_after  = calloc(ns, sizeof(uint64_t));
    e->keys      = malloc(n * sizeof(struct pos_key));
    e->sorted    = malloc(n * sizeof(struct pos_key));
    e->ord       = malloc(n * sizeof(int32_t));
    e->ord_next  = malloc(n * sizeof(int32_t));
    e->in_keys   = calloc(n, sizeof(int32_t));
    e->arena     = malloc((size_t) e->arena_cap * sizeof(struct comp_node));
    e->trail_cap = (size_t) trail_cap;
    e->trail_idx = malloc((size_t) trail_cap * sizeof(int32_t) + sizeof(int32_t));
    e->trail_val = malloc((size_t) trail_cap * sizeof(uint64_t) + sizeof(uint64_t));
    e->levels    = calloc(n + GALLOC_MAX_CHUNKS + 1, sizeof(struct level));
    e->best_off  = calloc(n, sizeof(uint64_t));
    struct first_key * keys = malloc(n * sizeof(struct first_key));
    if (!e->rank || !e->by_first || !e->first_pos || !e->placed || !e->off || !e->minoff || !e->free_nb || !e->floor || !e->rem ||
        !e->cut || !e->acc || !e->rem_before || !e->rem_after || !e->keys || !e->sorted || !e->ord || !e->ord_next || !e->in_keys || !e->arena || !e->trail_idx || !e->trail_val || !e->levels || !e->best_off || !keys) {
        free(keys);
        exact_free(e);
        return false;
    }
    uint64_t largest = 0;
    for (int32_t i = 0; i < e->n; i++) {
        largest = p->items[i].size > largest ? p->items[i].size : largest;
    }
    e->stride = p->max_size > largest ? p->max_size : largest;
    e->strict = !e->unlimited && largest > p->max_size;
    // items without bytes are placed from the start (chunk 0, offset 0); they constrain nothing
    for (int32_t i = 0; i < e->n; i++) {
        e->free_nb[i] = x->adj_start[i + 1] - x->adj_start[i];
    }
    int32_t nk = 0;
    for (int32_t i = 0; i < e->n; i++) {
        if (p->items[i].size == 0) {
            e->placed[i] = true;
            for (int32_t a = x->adj_start[i]; a < x->adj_start[i + 1]; a++) {
                e->free_nb[x->adj[a]]--;
            }
            continue;
        }
        e->n_search++;
        keys[nk++] = (struct first_key) { x->sec_first[i], i };
        for (int32_t s = x->sec_first[i]; s <= x->sec_last[i]; s++) {
            e->rem[s] += p->items[i].size;
            if (s < x->sec_last[i]) {
                e->cut[s]++;
            }
        }
    }
    for (int32_t q = 0; q < nk; q++) {
        hash_item(e, keys[q].i, 0);
    }
    // the failed-state table: about 1024 slots per item, 4096 to 2^20 (16 MiB); without it the
    // search is slower, not wrong
    uint32_t slots = 4096;
    while (slots < (1u << 20) && slots < (uint32_t) nk * 4096u) {
        slots *= 2;
    }
    e->memo_mask  = slots - 1;
    e->memo       = calloc(2 * (size_t) slots, sizeof(uint64_t));
    e->memo_slots = malloc((size_t) slots / 2 * sizeof(uint32_t) + sizeof(uint32_t));
    if (!e->memo || !e->memo_slots) {
        free(e->memo);
        free(e->memo_slots);
        e->memo       = NULL;
        e->memo_slots = NULL;
    }
    e->clock_mask = nk > 2048 ? 0 : 255;
    qsort(keys, (size_t) nk, sizeof(struct first_key), cmp_first);
    int32_t k = 0;
    for (int32_t s = 0; s <= e->n_sec; s++) {
        while (k < nk && keys[k].sec < s) {
            k++;
        }
        e->first_pos[s] = k;
    }
    for (int32_t q = 0; q < nk; q++) {
        e->by_first[q] = keys[q].i;
        e->ord[q]      = keys[q].i;
    }
    free(keys);
    return true;
}

// the best plan found, from virtual offsets to chunks and offsets
static void to_plan(const struct exact * e, struct galloc_whatif_plan * plan) {
    for (int32_t i = 0; i < e->n; i++) {
        bool    empty = e->p->items[i].size == 0;
        int32_t c     = empty ? 0 : slab_of(e, e->best_off[i]);
        plan->chunks[i]  = c;
        plan->offsets[i] = empty ? 0 : e->best_off[i] - slab_start(e, c);
    }
    galloc_whatif_plan_finish(e->p, plan);
}

// one decision and what it teaches: a plan (best lowers) or a proof (lower rises)
// (under the stricter rule a search to the end proves nothing: it reports a timeout)
static enum search_end decide_and_learn(struct exact * e, uint64_t T, double deadline, uint64_t * lower, uint64_t * best) {
    enum search_end r = decide(e, T, deadline);
    if (r == SEARCH_FOUND) {
        *best = e->best_cost;
    } else if (r == SEARCH_EXHAUSTED && e->strict) {
        r = SEARCH_TIMEOUT;
    } else if (r == SEARCH_EXHAUSTED) {
        *lower = T + e->align;
    }
    return r;
}

bool galloc_whatif_exact(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, const struct galloc_whatif_plan * incumbent,
                  uint32_t budget_ms, struct galloc_whatif_plan * plan) {
    double t0 = galloc_whatif_now_ms();
    galloc_whatif_plan_copy_placement(plan, incumbent, p->n_items);
    uint64_t lower = x->lower_bound;
    uint64_t best  = incumbent->total;
    plan->bound    = lower;
    plan->fit_ms   = p->capacity && best <= p->capacity ? 0 : -1;
    if (best <= lower) {
        plan->proved_optimal = true;
        plan->bound          = best;
        plan->note           = "the best heuristic plan meets the lower bound";
        plan->time_ms        = galloc_whatif_now_ms() - t0;
        return true;
    }
    if (budget_ms == 0) {
        plan->note    = "no search (budget 0 ms)";
        plan->time_ms = galloc_whatif_now_ms() - t0;
        return true;
    }
    uint64_t span_sum = 0;
    for (int32_t i = 0; i < p->n_items; i++) {
        span_sum += (uint64_t) (x->sec_last[i] - x->sec_first[i] + 1);
    }
    uint64_t trail_cap = 2 * x->n_pairs + span_sum;
    if (trail_cap > MAX_TRAIL) {
        plan->note    = "problem too large for the exact search";
        plan->time_ms = galloc_whatif_now_ms() - t0;
        return true;
    }
    struct exact e;
    if (!exact_init(&e, p, x, trail_cap)) {
        return false;
    }
    e.t0        = t0;
    e.best_cost = best;
    e.fit_ms    = -1;
    double end  = t0 + (double) budget_ms;
    bool   out_of_time = false;

    // the capacity asked for (a CSV problem's)
    if (p->capacity >= lower && p->capacity < best) {
        out_of_time = decide_and_learn(&e, p->capacity, end, &lower, &best) == SEARCH_TIMEOUT;
    }
    // the lower bound, with a quarter of the time left (a plan there is optimal at once)
    if (!out_of_time && lower < best) {
        double now = galloc_whatif_now_ms();
        decide_and_learn(&e, lower, now + (end - now) / 4, &lower, &best);
    }
    // then halve the gap between the bound and the best plan, each decision with half the time
    // left: a plan below the middle lowers the best, a search to the end raises the bound past
    // it; a middle not decided in time is given up, and the halving goes on above it
    uint64_t from = lower; // the lowest total still tried
    while (!out_of_time && from < best) {
        uint64_t mid = from + (best - from) / (2 * e.align) * e.align;
        double   now = galloc_whatif_now_ms();
        if (now >= end) {
            break;
        }
        enum search_end r = decide_and_learn(&e, mid, now + (end - now) / 2, &lower, &best);
        from = r == SEARCH_TIMEOUT ? mid + e.align : lower;
    }
    bool proved = lower >= best;
    if (e.found && e.best_cost < incumbent->total) {
        to_plan(&e, plan);
        plan->found_ms = e.found_ms;
    }
    if (plan->fit_ms < 0) {
        plan->fit_ms = e.fit_ms; // unless the heuristics' plan fit already
    }
    plan->proved_optimal = proved;
    plan->bound          = proved ? plan->total : lower;
    plan->nodes          = e.nodes;
    plan->note           = proved ? "" : e.strict ? "items past the max size: no proof beyond the lower bound"
                                                  : "out of time: the best plan found, not proved optimal";
    exact_free(&e);
    plan->time_ms = galloc_whatif_now_ms() - t0;
    return true;
}
