// galloc-whatif-repair.c: the repair search's neighbourhoods (a large-neighbourhood search).
//
// The plan's total P is the highest end of its items; the target is T = P - 1. The items that
// end above T must come down. A move picks one of them, frees it with a neighbourhood of items
// around it (its conflicting items, the items live in a window of time about it, the highest
// first or at random), and places the freed items again exactly within T, every other item
// fixed (galloc-whatif-repair-fill.c). When that succeeds, fewer items end above T (the picked
// one and every freed one end within T now, the others did not move): the plan is kept, so each
// kept move lowers (total, items above T), and when no item is left above T the total is lower.
// A neighbourhood that has no placement within T, or whose search runs past its node limit,
// leaves the plan as it is; after a run of failures the neighbourhoods grow. The plan never gets
// worse, so the search may stop at any time.
// (As Large Neighbourhood Search, Shaw 1998; TelaMalloc and MiniMalloc search a whole plan.)

#include "galloc-whatif-repair.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SIZE  8    // items freed in a move at first
#define GROW_AFTER  24   // failed moves in a row before the neighbourhoods grow
#define MOST_SIZE   256  // items freed in a move at most (a move's setup is about its items' conflicts)
#define NODES_PER_ITEM 400 // node limit of a move's search, per freed item

struct repair {
    const struct galloc_whatif_problem * p;
    const struct galloc_whatif_index   * x;
    struct galloc_fill fill;
    uint64_t * off;
    int32_t  * items;   // the neighbourhood
    int32_t  * rank;
    int32_t  * cand;    // scratch: candidates
    uint64_t * score;
    bool     * in;      // per item: in the neighbourhood
    int32_t  * over;    // the items ending above T
    uint64_t * saved;   // the neighbourhood's offsets before a move
    uint64_t   rng;
};

static uint64_t next_random(struct repair * r) {
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng;
}

static uint64_t below(struct repair * r, uint64_t n) {
    return n ? next_random(r) % n : 0;
}

static uint64_t top_of(const struct repair * r, int32_t i) {
    return r->off[i] + r->p->items[i].size;
}

static uint64_t peak(const struct repair * r) {
    uint64_t most = 0;
    for (int32_t i = 0; i < r->p->n_items; i++) {
        if (r->p->items[i].size > 0 && top_of(r, i) > most) {
            most = top_of(r, i);
        }
    }
    return most;
}

static void shuffle(struct repair * r, int32_t * a, int32_t m) {
    for (int32_t q = m - 1; q > 0; q--) {
        int32_t t = (int32_t) below(r, (uint64_t) q + 1), v = a[q];
        a[q] = a[t];
        a[t] = v;
    }
}

static int32_t add(struct repair * r, int32_t m, int32_t i) {
    if (!r->in[i] && r->p->items[i].size > 0) {
        r->in[i]      = true;
        r->items[m++] = i;
    }
    return m;
}

// candidates live in sections [lo, hi], ordered by score, highest first
static int32_t window(struct repair * r, int32_t lo, int32_t hi, uint64_t jitter) {
    const struct galloc_whatif_index * x = r->x;
    int32_t m = 0;
    for (int32_t i = 0; i < r->p->n_items; i++) {
        if (!r->in[i] && r->p->items[i].size > 0 && x->sec_first[i] <= hi && x->sec_last[i] >= lo) {
            r->cand[m]  = i;
            r->score[i] = top_of(r, i) + below(r, jitter + 1);
            m++;
        }
    }
    // insertion sort is enough for a neighbourhood's window, but windows may hold every item:
    // a shell sort over gaps keeps it O(m^1.3)
    for (int32_t gap = m / 2; gap > 0; gap /= 2) {
        for (int32_t q = gap; q < m; q++) {
            int32_t v = r->cand[q], t = q;
            while (t >= gap && r->score[r->cand[t - gap]] < r->score[v]) {
                r->cand[t] = r->cand[t - gap];
                t -= gap;
            }
            r->cand[t] = v;
        }
    }
    return m;
}

// a neighbourhood of up to k items around item o; returns its size
static int32_t neighbourhood(struct repair * r, int32_t o, int32_t k, uint64_t P) {
    const struct galloc_whatif_index * x = r->x;
    int32_t m = add(r, 0, o);
    int     kind = (int) below(r, 3);
    if (kind == 2) {
        // breadth first over the conflicts from o, each item's neighbours in random order
        for (int32_t head = 0; head < m && m < k; head++) {
            int32_t i = r->items[head], c = 0;
            for (int32_t a = x->adj_start[i]; a < x->adj_start[i + 1]; a++) {
                r->cand[c++] = x->adj[a];
            }
            shuffle(r, r->cand, c);
            for (int32_t q = 0; q < c && m < k; q++) {
                m = add(r, m, r->cand[q]);
            }
        }
        return m;
    }
    // a window of time about o, widened at random: its highest items first (kind 0, a little
    // jitter) or in random order (kind 1)
    int32_t  span = x->sec_last[o] - x->sec_first[o] + 1;
    int32_t  wide = kind == 0 ? 0 : span + 1;
    int32_t  lo   = x->sec_first[o] - (int32_t) below(r, (uint64_t) wide);
    int32_t  hi   = x->sec_last[o] + (int32_t) below(r, (uint64_t) wide);
    lo = lo < 0 ? 0 : lo;
    hi = hi >= x->n_sections ? x->n_sections - 1 : hi;
    int32_t c = window(r, lo, hi, kind == 0 ? P / 64 : 0);
    if (kind == 1) {
        shuffle(r, r->cand, c);
    }
    for (int32_t q = 0; q < c && m < k; q++) {
        m = add(r, m, r->cand[q]);
    }
    return m;
}

// the items ending above T, into over[]
static int32_t count_over(struct repair * r, uint64_t T) {
    int32_t n_over = 0;
    for (int32_t i = 0; i < r->p->n_items; i++) {
        if (r->p->items[i].size > 0 && top_of(r, i) > T) {
            r->over[n_over++] = i;
        }
    }
    return n_over;
}

static void repair_free(struct repair * r) {
    galloc_fill_free(&r->fill);
    free(r->items);
    free(r->rank);
    free(r->cand);
    free(r->score);
    free(r->in);
    free(r->over);
    free(r->saved);
}

bool galloc_whatif_repair(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t * off, uint64_t lower,
                          double deadline, uint64_t max_moves, uint64_t seed, struct galloc_repair_stats * stats) {
    struct repair r = { .p = p, .x = x, .off = off, .rng = seed * 0x9e3779b97f4a7c15ULL | 1 };
    memset(stats, 0, sizeof(*stats));
    size_t n = (size_t) p->n_items + 1;
    r.items = malloc(n * sizeof(int32_t));
    r.rank  = malloc(n * sizeof(int32_t));
    r.cand  = malloc(n * sizeof(int32_t));
    r.score = malloc(n * sizeof(uint64_t));
    r.in    = calloc(n, sizeof(bool));
    r.over  = malloc(n * sizeof(int32_t));
    r.saved = malloc(n * sizeof(uint64_t));
    if (!r.items || !r.rank || !r.cand || !r.score || !r.in || !r.over || !r.saved || !galloc_fill_init(&r.fill, p, x, MOST_SIZE)) {
        repair_free(&r);
        return false;
    }
    bool     ok   = true;
    int32_t  k    = FIRST_SIZE, fails = 0;
    int32_t  most = p->n_items < MOST_SIZE ? p->n_items : MOST_SIZE;
    uint64_t P    = peak(&r);
    while (ok && P > lower && (max_moves == 0 || stats->moves < max_moves) && galloc_whatif_now_ms() < deadline) {
        uint64_t T      = P - 1;
        int32_t  n_over = count_over(&r, T);
        if (n_over == 0) {
            P = peak(&r);
            continue;
        }
        // a move down: the freed items within T. After a failed one, now and then a move aside:
        // the freed items placed again within P, kept when no more items end above T than before
        // (the plan walks the plateau of its total, to where a move down may succeed)
        bool    aside = fails > 0 && below(&r, 4) == 0;
        int32_t o     = r.over[below(&r, (uint64_t) n_over)];
        int32_t m     = neighbourhood(&r, o, k, P);
        for (int32_t q = 0; q < m; q++) {
            r.rank[q]  = q;
            r.saved[q] = off[r.items[q]];
        }
        shuffle(&r, r.rank, m);
        enum galloc_fill_end end = GALLOC_FILL_LIMIT;
        ok = galloc_fill_solve(&r.fill, off, r.items, r.rank, m, aside ? P : T, (uint64_t) m * NODES_PER_ITEM, deadline, &end);
        for (int32_t q = 0; q < m; q++) {
            r.in[r.items[q]] = false;
        }
        stats->moves++;
        if (end == GALLOC_FILL_FOUND && aside) {
            if (count_over(&r, T) > n_over) {
                for (int32_t q = 0; q < m; q++) {
                    off[r.items[q]] = r.saved[q];
                }
            }
        } else if (end == GALLOC_FILL_FOUND) {
            stats->improved++;
            fails = 0;
            P     = n_over == 1 ? peak(&r) : P;
        } else if (++fails >= GROW_AFTER) {
            fails = 0;
            k     = k + (k + 3) / 4 < most ? k + (k + 3) / 4 : most; // never past the fill's room
        }
    }
    stats->nodes = r.fill.nodes;
    repair_free(&r);
    return ok;
}

bool galloc_whatif_repair_plan(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint64_t lower, double deadline,
                               struct galloc_whatif_plan * plan) {
    if (!galloc_whatif_unlimited(p, x)) {
        return true; // a max size that binds: not for the repair search (one chunk, no max size)
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        if (plan->chunks[i] != 0) {
            return true;
        }
    }
    double     t0  = galloc_whatif_now_ms();
    uint64_t * off = malloc(((size_t) p->n_items + 1) * sizeof(uint64_t));
    if (!off) {
        return false;
    }
    memcpy(off, plan->offsets, (size_t) p->n_items * sizeof(uint64_t));
    struct galloc_repair_stats stats;
    bool ok = galloc_whatif_repair(p, x, off, lower, deadline, 0, 0x5eed, &stats);
    struct repair r = { .p = p, .off = off };
    if (ok && peak(&r) < plan->total) {
        memcpy(plan->offsets, off, (size_t) p->n_items * sizeof(uint64_t));
        galloc_whatif_plan_finish(p, plan);
        plan->found_ms = galloc_whatif_now_ms() - t0;
        if (p->capacity && plan->total <= p->capacity && plan->fit_ms < 0) {
            plan->fit_ms = plan->found_ms;
        }
    }
    free(off);
    return ok;
}
