// galloc-whatif-exact-infer.c: what a partial plan of the exact search still allows.
//
// Section inference (step 5: each section's unplaced bytes above its floor, in one chunk for
// every threshold of lowest offsets, and the layer at the floor L), the dead ends of stuck
// items, the dominance limits (step 4) and the test ahead of a placement (fits_after).

#include "galloc-whatif-exact.h"

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

// One chunk: the layer at L. A section whose floor is at most L and whose unplaced bytes exactly
// fill [L, T) needs an item starting at L. The items at L (placed there already, or unplaced with
// L as their lowest offset and free to come next) overlap at offset L, so they lie in disjoint
// times; an unplaced one covers its whole lifetime. So the sections of the component must split,
// left to right, into sections that need nothing at L (floor above L, or room to spare) and the
// lifetimes of unplaced items at L. reach: whether the sections before s split so (a path
// through the sections, each item at L a jump over its lifetime).
static bool layer_fits(struct exact * e, int32_t n_un) {
    const struct galloc_whatif_index * x = e->x;
    int32_t lo = e->comp.lo, hi = e->comp.hi;
    bool any_tight = false;
    for (int32_t s = lo; s <= hi; s++) {
        e->layer_head[s] = -1;
        any_tight = any_tight || (e->floor[s] <= e->L && e->L + e->rem[s] == e->T && e->rem[s] > 0);
    }
    if (!any_tight) {
        return true;
    }
    for (int32_t k = 0; k < n_un; k++) {
        if (e->keys[k].pos == e->L) {
            int32_t j = e->keys[k].j;
            e->layer_next[j] = e->layer_head[x->sec_last[j]];
            e->layer_head[x->sec_last[j]] = j;
        }
    }
    // acc[s]: 1 when the sections lo .. s - 1 split (acc[lo] = 1), over lo .. hi + 1
    for (int32_t s = lo; s <= hi + 1; s++) {
        e->acc[s] = s == lo;
    }
    for (int32_t s = lo; s <= hi; s++) {
        bool free_here = e->floor[s] > e->L || e->L + e->rem[s] < e->T || e->rem[s] == 0;
        if (free_here && e->acc[s]) {
            e->acc[s + 1] = 1;
        }
        for (int32_t j = e->layer_head[s]; j >= 0; j = e->layer_next[j]) {
            if (e->acc[x->sec_first[j]]) {
                e->acc[s + 1] = 1;
                break;
            }
        }
    }
    return e->acc[hi + 1] != 0;
}

// step 5, over the current component
bool galloc_exact_consistent(struct exact * e) {
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
        return sections_fit(e, n_un) && layer_fits(e, n_un);
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
void galloc_exact_dominance_limits(const struct exact * e, struct level * lv) {
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
void galloc_exact_rem_extremes(struct exact * e) {
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

bool galloc_exact_fits_after(const struct exact * e, int32_t j, uint64_t pos) {
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

