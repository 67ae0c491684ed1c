// galloc-whatif-bound.c: lower bounds above the max load, from windows of time solved exactly.
//
// Why it is a bound: take any plan of a one-chunk problem and keep only the items live in
// a window of consecutive time sections, their lifetimes cut to the window. Two cut items
// that share a section of the window shared it before, so the kept placement is a plan of
// the smaller problem, no higher than the whole. The smaller problem's optimum, or any
// lower bound the exact search proves for it, is therefore a lower bound of the whole.
// One section alone gives the max load; wider windows see how the items that cross from
// section to section fragment the space, up to the whole problem (which is the search
// itself, so the windows stop below it).
//
// The windows: widths of 2, 4, 8, ... sections, each width cut with a stride of half a
// width; within a width the windows with the most live bytes first. Each window asks the
// exact search "is there a plan of total below the target?" (the target: the best plan
// known) with a share of the time; a window that answers no proves the target optimal.
// Bounds round up to the grain (galloc-whatif-grain.c): the optimum is a multiple of it.
// Only for one chunk (with a binding max size, dropping the item that stretches a chunk
// could make the kept placement break the chunk rule).

#include "galloc-whatif-impl.h"

#include <stdlib.h>
#include <string.h>

#define MIN_WINDOW_MS 1 // the least time one window is given

// the window [lo, hi] of sections as a problem of its own: items live in it (with bytes),
// lifetimes in sections counted from lo. An item live over the whole window conflicts with
// every other: cut the plan at its bytes, close the gap and put it at the bottom, and no plan
// grows; so such items are left out and their bytes (spanning) added to the window's
// optimum. false: out of memory
static bool window_problem(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, int32_t lo, int32_t hi,
                           struct galloc_whatif_problem * w, uint64_t * spanning) {
    int32_t n = 0;
    *spanning = 0;
    for (int32_t i = 0; i < p->n_items; i++) {
        n += p->items[i].size > 0 && x->sec_first[i] <= hi && x->sec_last[i] >= lo;
    }
    *w = (struct galloc_whatif_problem) { 0, NULL, p->alignment, GALLOC_NO_MAX_SIZE, 0 };
    w->items = malloc(((size_t) n + 1) * sizeof(struct galloc_whatif_item));
    if (!w->items) {
        return false;
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        if (p->items[i].size == 0 || x->sec_first[i] > hi || x->sec_last[i] < lo) {
            continue;
        }
        if (x->sec_first[i] <= lo && x->sec_last[i] >= hi) {
            *spanning += p->items[i].size;
            continue;
        }
        int32_t first = x->sec_first[i] > lo ? x->sec_first[i] : lo;
        int32_t last  = x->sec_last[i] < hi ? x->sec_last[i] : hi;
        w->items[w->n_items++] = (struct galloc_whatif_item) { i, 1, p->items[i].size, first - lo, last - lo };
    }
    return true;
}

// what the exact search proves of the window's optimum within budget_ms (its lower bound,
// or its optimum when proved), asked first whether a plan of total <= capacity exists;
// nodes gets the search's nodes added. false: out of memory
static bool window_bound(struct galloc_whatif_problem * w, uint64_t capacity, uint32_t budget_ms, uint64_t * bound, uint64_t * nodes) {
    struct galloc_whatif_index x;
    struct galloc_error        err;
    *bound = 0;
    if (w->n_items == 0) {
        return true;
    }
    if (!galloc_whatif_index_build(w, &x, &err)) {
        return err.status != GALLOC_STATUS_NO_MEMORY; // past a limit: no bound from this window
    }
    w->capacity = capacity;
    struct galloc_whatif_plan start, exact;
    bool ok = galloc_whatif_plan_init(&start, w->n_items, "greedy-by-size") && galloc_whatif_plan_init(&exact, w->n_items, "exact") &&
              galloc_whatif_greedy_by_size(w, &x, &start);
    *bound = x.lower_bound;
    if (ok && galloc_whatif_check(w, &start, &err)) {
        ok = galloc_whatif_exact(w, &x, &start, budget_ms, &exact);
        if (ok) {
            *bound = exact.proved_optimal ? exact.total : exact.bound;
            *nodes += exact.nodes;
        }
    }
    galloc_whatif_plan_release(&start);
    galloc_whatif_plan_release(&exact);
    galloc_whatif_index_free(&x);
    return ok;
}

struct window {
    int32_t  lo, hi;
    uint64_t live; // the most bytes live in one of its sections
};

static int cmp_window(const void * a, const void * b) {
    const struct window * u = a, * v = b;
    if (u->live != v->live) {
        return u->live > v->live ? -1 : 1;
    }
    return (u->lo > v->lo) - (u->lo < v->lo);
}

bool galloc_whatif_window_bound(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t target,
                                uint32_t budget_ms, struct galloc_whatif_bound * out) {
    double t0  = galloc_whatif_now_ms();
    double end = t0 + (double) budget_ms;
    memset(out, 0, sizeof(*out));
    out->bound = x->lower_bound;
    if (!galloc_whatif_unlimited(p, x) || x->n_sections < 3 || target <= out->bound || budget_ms == 0) {
        return true;
    }
    int32_t         n_levels = 0;
    struct window * windows  = malloc(((size_t) x->n_sections + 1) * sizeof(struct window));
    if (!windows) {
        return false;
    }
    for (int32_t width = 2; width < x->n_sections; width *= 2) {
        n_levels++;
    }
    bool     ok    = true;
    uint64_t grain = galloc_whatif_grain(p); // the optimum is a multiple of it (galloc-whatif-grain.c)
    for (int32_t width = 2; ok && width < x->n_sections && out->bound < target; width *= 2, n_levels--) {
        int32_t n_win = 0;
        for (int32_t lo = 0; lo + width / 2 < x->n_sections; lo += width / 2) {
            int32_t  hi   = lo + width - 1 < x->n_sections ? lo + width - 1 : x->n_sections - 1;
            uint64_t live = 0;
            for (int32_t s = lo; s <= hi; s++) {
                live = x->sec_live[s] > live ? x->sec_live[s] : live;
            }
            windows[n_win++] = (struct window) { lo, hi, live };
        }
        qsort(windows, (size_t) n_win, sizeof(struct window), cmp_window);
        double level_end = galloc_whatif_now_ms() + (end - galloc_whatif_now_ms()) / n_levels;
        for (int32_t k = 0; ok && k < n_win && out->bound < target; k++) {
            double now = galloc_whatif_now_ms();
            if (now >= end) {
                break;
            }
            double   share = (level_end - now) / (double) (n_win - k);
            uint32_t ms    = share > MIN_WINDOW_MS ? (uint32_t) share : MIN_WINDOW_MS;
            struct galloc_whatif_problem w;
            uint64_t spanning = 0, rest = 0;
            // asked first: is there a plan one grain below the target?
            ok = window_problem(p, x, windows[k].lo, windows[k].hi, &w, &spanning);
            uint64_t below = target > grain ? target - grain : 0;
            ok = ok && window_bound(&w, below > spanning ? below - spanning : 0, ms, &rest, &out->nodes);
            uint64_t bound = galloc_whatif_grain_up(spanning + rest, grain);
            free(w.items);
            out->n_windows++;
            if (ok && bound > out->bound) {
                out->bound = bound;
                out->lo    = windows[k].lo;
                out->hi    = windows[k].hi;
            }
        }
    }
    free(windows);
    out->time_ms = galloc_whatif_now_ms() - t0;
    return ok;
}

bool galloc_whatif_bound_plan(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint32_t budget_ms,
                              struct galloc_whatif_plan * plan) {
    if (plan->proved_optimal || !plan->valid || budget_ms == 0) {
        return true;
    }
    struct galloc_whatif_bound b;
    if (!galloc_whatif_window_bound(p, x, plan->total, budget_ms, &b)) {
        return false;
    }
    plan->time_ms += b.time_ms;
    plan->bound = galloc_whatif_grain_up(b.bound > plan->bound ? b.bound : plan->bound, galloc_whatif_grain(p));
    if (plan->bound >= plan->total) {
        plan->proved_optimal = true;
        plan->bound          = plan->total;
        plan->note           = "proved optimal by a window of time solved exactly";
    }
    return true;
}
