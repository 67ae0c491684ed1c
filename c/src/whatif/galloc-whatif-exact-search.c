// galloc-whatif-exact-search.c: the exact search's depth-first walk over canonical plans.
//
// The next item in canonical order (step 3), dominance (step 4), the components of the time
// range split off when no unplaced item crosses a boundary (step 6), failed states skipped
// (step 8). Without recursion: the WebAssembly stack is small.

#include "galloc-whatif-exact.h"

#include <assert.h>
#include <string.h>

// step 4: the eligible item with the smallest (pos, rank) after the level's last key; -1: none
static int32_t next_candidate(struct exact * e, const struct level * lv, uint64_t * pos_out) {
    int32_t  best      = -1;
    uint64_t best_pos  = 0;
    int32_t  best_rank = 0;
    int32_t  b0, b1;
    comp_items(e, &b0, &b1);
    if (e->unlimited) {
        galloc_exact_rem_extremes(e);
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
        if (cost_at(e, j, pos) > e->T || (e->unlimited && !galloc_exact_fits_after(e, j, pos))) {
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
            e->rerank_chances++; // the first of a run: a component is pending only after a cut
            struct comp shrunk = e->comp;
            struct comp pieces = { 0, 0, e->L, e->last_rank, d, d + 1, e->comp.epoch };
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
            if (galloc_exact_dynamic(e)) {
                galloc_exact_rerank(e);
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
        if (galloc_exact_dynamic(e)) {
            galloc_exact_rerank(e);
        }
    }
}

void galloc_exact_record(struct exact * e) {
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
void galloc_exact_unwind(struct exact * e, int32_t base) {
    while (e->depth > base) {
        e->depth--;
        galloc_exact_undo(e, &e->levels[e->depth]);
    }
}

// the key of the current state: the unplaced items with their lowest offsets, the floor, the
// component and the pending ones
static void level_init(struct exact * e, int32_t d) {
    struct level * lv = &e->levels[d];
    *lv = (struct level) { .item = -2 };
    if (!e->perturbed) { // a perturbed run neither reads nor writes the table (step 7)
        galloc_exact_state_key(e, &lv->key1, &lv->key2);
        lv->dead = galloc_exact_memo_find(e, lv->key1, lv->key2);
    }
    if (lv->dead) {
        return;
    }
    galloc_exact_dominance_limits(e, lv);
}

// depth-first over the levels without recursion (the WebAssembly stack is small), for the
// items of one independent piece of the time range, from depth base. Stops at the first
// plan of total <= T, keeping it placed; otherwise leaves the state as it found it.
enum search_end galloc_exact_search(struct exact * e, int32_t base, int32_t lo, int32_t hi) {
    e->depth     = base;
    e->run_nodes = 0;
    e->rerank_chances = 0;
    e->pending   = -1;
    e->L         = slab_start(e, e->slab); // a piece owes nothing to the order of the others
    e->last_rank = -1;
    e->comp      = (struct comp) { lo, hi, e->L, e->last_rank, base - 1, base, 0 };
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
            galloc_exact_place(e, lv, j, pos);
            go = true;
        } else if (!lv->dead && may_close(e, lv)) {
            lv->closed_tried = true;
            galloc_exact_close_chunk(e, lv);
            go = true;
        }
        if (go) {
            if (galloc_exact_consistent(e)) {
                after_decision(e, e->depth, lv->item);
                e->depth++;
                level_init(e, e->depth);
            } else {
                galloc_exact_undo(e, lv);
            }
            continue;
        }
        // no alternative left here: back to the previous decision, or, when this is the
        // first decision of a component, to the decision that split it off
        if (!lv->dead) {
            galloc_exact_memo_add(e, lv->key1, lv->key2); // every alternative from this state failed
        }
        int32_t target = e->depth == e->comp.start ? e->comp.origin : e->depth - 1;
        if (target < base) {
            r = SEARCH_EXHAUSTED;
            break;
        }
        while (e->depth > target) {
            e->depth--;
            galloc_exact_undo(e, &e->levels[e->depth]);
        }
    }
    galloc_exact_unwind(e, base);
    return r;
}
