// galloc-whatif-greedy.c: the heuristic planners of the what-if analysis.
//
// greedy-by-size (TFLite Micro's greedy memory planner), greedy-by-breadth (the same
// placement rule in the order of the busiest steps), and ggml's own dynamic allocator
// replayed over a problem's items in time order (the "ggml" plan of CSV problems).
// The orders and the placement rule are spelled out in galloc-whatif.h.

#include "galloc-whatif-impl.h"

#include <stdlib.h>
#include <string.h>

// an already placed conflicting item: its bytes in a chunk
struct span {
    uint64_t off;
    uint64_t end;
};

static int cmp_span(const void * a, const void * b) {
    const struct span * x = a, * y = b;
    if (x->off != y->off) {
        return x->off < y->off ? -1 : 1;
    }
    return (x->end > y->end) - (x->end < y->end);
}

// a placed item in its chunk's span order, with its lifetime at hand for the walk
struct chunk_item {
    int64_t first;
    int64_t last;
    int32_t i;
};

struct greedy {
    const struct galloc_whatif_problem * p;
    const struct galloc_whatif_index          * x;
    struct galloc_whatif_plan          * plan;
    bool                               * placed;
    struct span                        * spans; // scratch: the conflicting items of one chunk
    int32_t                              n_chunks;
    uint64_t                             zero_max[GALLOC_MAX_CHUNKS]; // largest item at each chunk's start
    // per chunk, its placed items of nonzero size in the order of their spans (offset, then end):
    // walked instead of gathering and sorting an item's conflicts when it has more conflicts
    // than the chunk has items to walk (the same spans in the same order: the same plan)
    struct chunk_item                  * by_offset[GALLOC_MAX_CHUNKS];
    int32_t                              n_by_offset[GALLOC_MAX_CHUNKS];
};

static struct span span_of(const struct greedy * g, int32_t j) {
    return (struct span) { g->plan->offsets[j], g->plan->offsets[j] + g->p->items[j].size };
}

// the placed items of chunk c that conflict with item i (lifetimes overlap), in span order, into g->spans
static int32_t chunk_conflicts(struct greedy * g, int32_t c, int32_t i) {
    const struct galloc_whatif_item * it     = &g->p->items[i];
    int32_t                           degree = g->x->adj_start[i + 1] - g->x->adj_start[i];
    int32_t                           n      = 0;
    // sorting d conflicts costs about d log2 d comparisons; walking the chunk one per item
    uint64_t sort_cost = (uint64_t) degree;
    for (int32_t d = degree; d > 1; d >>= 1) {
        sort_cost += (uint64_t) degree;
    }
    if (g->by_offset[c] && (uint64_t) g->n_by_offset[c] <= 2 * sort_cost) {
        const struct chunk_item * a = g->by_offset[c];
        for (int32_t k = 0; k < g->n_by_offset[c]; k++) {
            if (a[k].first <= it->last && it->first <= a[k].last) {
                g->spans[n++] = span_of(g, a[k].i);
            }
        }
        return n;
    }
    for (int32_t k = g->x->adj_start[i]; k < g->x->adj_start[i + 1]; k++) {
        int32_t j = g->x->adj[k];
        if (g->placed[j] && g->plan->chunks[j] == c && g->p->items[j].size > 0) {
            g->spans[n++] = span_of(g, j);
        }
    }
    qsort(g->spans, (size_t) n, sizeof(struct span), cmp_span);
    return n;
}

// item i, just placed in chunk c, into that chunk's span order; false when out of memory
static bool chunk_insert(struct greedy * g, int32_t c, int32_t i) {
    if (g->p->items[i].size == 0) {
        return true;
    }
    if (!g->by_offset[c] && !(g->by_offset[c] = malloc(((size_t) g->p->n_items + 1) * sizeof(struct chunk_item)))) {
        return false;
    }
    struct chunk_item * a = g->by_offset[c];
    struct span         si = span_of(g, i);
    int32_t             lo = 0, hi = g->n_by_offset[c];
    while (lo < hi) { // the first item whose span comes after i's
        int32_t     mid = lo + (hi - lo) / 2;
        struct span sm  = span_of(g, a[mid].i);
        if (cmp_span(&sm, &si) <= 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    memmove(&a[lo + 1], &a[lo], (size_t) (g->n_by_offset[c] - lo) * sizeof(struct chunk_item));
    a[lo] = (struct chunk_item) { g->p->items[i].first, g->p->items[i].last, i };
    g->n_by_offset[c]++;
    return true;
}

// Among the gaps between the sorted spans that hold size bytes and the space above them all,
// the smallest gap (the top counts as infinite), lowest first, at which the chunk rule holds.
// false when no position in the chunk keeps the rule.
static bool best_gap(const struct greedy * g, int32_t chunk, const struct span * spans, int32_t n, uint64_t size, uint64_t * offset) {
    uint64_t cur = 0, best = 0, best_gap = UINT64_MAX;
    bool     found = false;
    for (int32_t k = 0; k < n; k++) {
        if (spans[k].off > cur) {
            uint64_t gap = spans[k].off - cur;
            if (gap >= size && gap < best_gap && galloc_whatif_fits(g->p, chunk, cur, size, g->zero_max[chunk])) {
                best     = cur;
                best_gap = gap;
                found    = true;
            }
        }
        if (spans[k].end > cur) {
            cur = spans[k].end;
        }
    }
    if (!found && galloc_whatif_fits(g->p, chunk, cur, size, g->zero_max[chunk])) {
        best  = cur;
        found = true;
    }
    *offset = best;
    return found;
}

// place item i: the first chunk with a position that keeps the rules, else a new chunk;
// false when out of memory
static bool place(struct greedy * g, int32_t i) {
    uint64_t size = g->p->items[i].size;
    g->placed[i]  = true;
    for (int32_t c = 0; c < g->n_chunks; c++) {
        int32_t  n   = chunk_conflicts(g, c, i);
        uint64_t off = 0;
        if (best_gap(g, c, g->spans, n, size, &off)) {
            g->plan->chunks[i]  = c;
            g->plan->offsets[i] = off;
            if (off == 0 && size > g->zero_max[c]) {
                g->zero_max[c] = size;
            }
            return chunk_insert(g, c, i);
        }
    }
    // the 16th chunk takes anything, so a new chunk is always possible here
    g->zero_max[g->n_chunks] = size;
    g->plan->chunks[i]       = g->n_chunks++;
    g->plan->offsets[i]      = 0;
    return chunk_insert(g, g->plan->chunks[i], i);
}

static bool greedy_init(struct greedy * g, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, struct galloc_whatif_plan * plan) {
    memset(g, 0, sizeof(*g));
    g->p        = p;
    g->x        = x;
    g->plan     = plan;
    g->n_chunks = p->n_items > 0 ? 1 : 0;
    g->placed   = calloc((size_t) p->n_items + 1, sizeof(bool));
    int32_t max_degree = 0;
    for (int32_t i = 0; i < p->n_items; i++) {
        int32_t d = x->adj_start[i + 1] - x->adj_start[i];
        max_degree = d > max_degree ? d : max_degree;
    }
    g->spans = malloc(((size_t) max_degree + 1) * sizeof(struct span));
    return g->placed && g->spans;
}

static void greedy_free(struct greedy * g) {
    for (int32_t c = 0; c < GALLOC_MAX_CHUNKS; c++) {
        free(g->by_offset[c]);
    }
    free(g->placed);
    free(g->spans);
}

// ---- orders ---------------------------------------------------------------------

struct order_key {
    uint64_t breadth; // greedy-by-breadth: the live bytes of the item's busiest section; 0 for by-size
    int32_t  section; // ... that section (the earliest of equals)
    uint64_t size;
    int64_t  length;  // last - first
    int32_t  id;
    int32_t  i;
};

static int cmp_order(const void * a, const void * b) {
    const struct order_key * x = a, * y = b;
    if (x->breadth != y->breadth) {
        return x->breadth > y->breadth ? -1 : 1;
    }
    if (x->section != y->section) {
        return x->section < y->section ? -1 : 1;
    }
    if (x->size != y->size) {
        return x->size > y->size ? -1 : 1;
    }
    if (x->length != y->length) {
        return x->length > y->length ? -1 : 1;
    }
    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

static bool run_in_order(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, struct galloc_whatif_plan * plan, bool by_breadth) {
    double             t0   = galloc_whatif_now_ms();
    struct order_key * keys = malloc(((size_t) p->n_items + 1) * sizeof(struct order_key));
    struct greedy      g;
    bool               ok   = greedy_init(&g, p, x, plan) && keys;
    if (ok) {
        for (int32_t i = 0; i < p->n_items; i++) {
            const struct galloc_whatif_item * it = &p->items[i];
            struct order_key                * k  = &keys[i];
            *k = (struct order_key) { 0, 0, it->size, it->last - it->first, it->id, i };
            if (by_breadth) {
                // steps by breadth, largest first: an item is placed with its busiest step
                for (int32_t s = x->sec_first[i]; s <= x->sec_last[i]; s++) {
                    if (x->sec_live[s] > k->breadth) {
                        k->breadth = x->sec_live[s];
                        k->section = s;
                    }
                }
            }
        }
        qsort(keys, (size_t) p->n_items, sizeof(struct order_key), cmp_order);
        for (int32_t k = 0; ok && k < p->n_items; k++) {
            ok = place(&g, keys[k].i);
        }
        if (ok) {
            galloc_whatif_plan_finish(p, plan);
        }
    }
    greedy_free(&g);
    free(keys);
    plan->time_ms = galloc_whatif_now_ms() - t0;
    return ok;
}

bool galloc_whatif_greedy_by_size(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, struct galloc_whatif_plan * plan) {
    return run_in_order(p, x, plan, false);
}

bool galloc_whatif_greedy_by_breadth(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, struct galloc_whatif_plan * plan) {
    return run_in_order(p, x, plan, true);
}

// ---- ggml's allocator, replayed ---------------------------------------------------

struct event {
    int64_t t;
    int32_t i;
};

static int cmp_event(const void * a, const void * b) {
    const struct event * x = a, * y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

// at each time: the items that start, in item order, get memory; then the items that end give it back
bool galloc_whatif_ggml_replay(const struct galloc_whatif_problem * p, struct galloc_whatif_plan * plan) {
    double                   t0     = galloc_whatif_now_ms();
    int32_t                  n      = p->n_items;
    struct event           * starts = malloc(((size_t) n + 1) * sizeof(struct event));
    struct event           * ends   = malloc(((size_t) n + 1) * sizeof(struct event));
    struct galloc_dynalloc * alloc  = galloc_dynalloc_new(p->alignment, p->max_size);
    bool                     ok     = starts && ends && alloc;
    if (ok) {
        for (int32_t i = 0; i < n; i++) {
            starts[i] = (struct event) { p->items[i].first, i };
            ends[i]   = (struct event) { p->items[i].last, i };
        }
        qsort(starts, (size_t) n, sizeof(struct event), cmp_event);
        qsort(ends, (size_t) n, sizeof(struct event), cmp_event);
        int32_t s = 0, e = 0;
        while (ok && e < n) {
            int64_t t = s < n && starts[s].t <= ends[e].t ? starts[s].t : ends[e].t;
            for (; ok && s < n && starts[s].t == t; s++) {
                struct galloc_address addr = { 0, 0 };
                int32_t               i    = starts[s].i;
                ok = galloc_dynalloc_alloc(alloc, p->items[i].size, &addr, NULL);
                plan->chunks[i]  = addr.chunk;
                plan->offsets[i] = addr.offset;
            }
            for (; ok && e < n && ends[e].t == t; e++) {
                int32_t               i    = ends[e].i;
                struct galloc_address addr = { plan->chunks[i], plan->offsets[i] };
                ok = galloc_dynalloc_release(alloc, addr, p->items[i].size);
            }
        }
        if (ok) {
            galloc_whatif_plan_finish(p, plan);
        }
    }
    galloc_dynalloc_free(alloc);
    free(starts);
    free(ends);
    plan->time_ms = galloc_whatif_now_ms() - t0;
    return ok;
}
