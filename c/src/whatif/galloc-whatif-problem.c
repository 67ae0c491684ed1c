// galloc-whatif-problem.c: what-if problems from plans and CSV text, their index and checker.
//
// Extracts one allocator's items from a planned graph (in-place chains merged), parses
// MiniMalloc CSV problems defensively (every error names its line), builds the index
// the planners share (time sections, conflict graph), and checks any plan against the
// rules of galloc-whatif.h, independently of the planners.

#include "galloc-decimal.h"
#include "galloc-error.h"
#include "galloc-whatif-impl.h"
#include "ggml.h" // GGML_PAD

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOTAL_BYTES ((uint64_t) 1 << 58) // summed item sizes; keeps the exact search's addresses in 64 bits


// ---- plans ----------------------------------------------------------------

bool galloc_whatif_plan_init(struct galloc_whatif_plan * plan, int32_t n_items, const char * name) {
    memset(plan, 0, sizeof(*plan));
    plan->name    = name;
    plan->note    = "";
    plan->chunks  = calloc((size_t) n_items + 1, sizeof(int32_t));
    plan->offsets = calloc((size_t) n_items + 1, sizeof(uint64_t));
    return plan->chunks && plan->offsets;
}

void galloc_whatif_plan_release(struct galloc_whatif_plan * plan) {
    free(plan->chunks);
    free(plan->offsets);
    plan->chunks  = NULL;
    plan->offsets = NULL;
}

void galloc_whatif_plan_finish(const struct galloc_whatif_problem * problem, struct galloc_whatif_plan * plan) {
    plan->n_chunks = 0;
    plan->total    = 0;
    memset(plan->chunk_sizes, 0, sizeof(plan->chunk_sizes));
    for (int32_t i = 0; i < problem->n_items; i++) {
        int32_t  c   = plan->chunks[i];
        uint64_t end = plan->offsets[i] + problem->items[i].size;
        if (c < 0 || c >= GALLOC_MAX_CHUNKS) {
            continue; // the checker reports it
        }
        if (c + 1 > plan->n_chunks) {
            plan->n_chunks = c + 1;
        }
        if (end > plan->chunk_sizes[c]) {
            plan->chunk_sizes[c] = end;
        }
    }
    for (int32_t c = 0; c < plan->n_chunks; c++) {
        plan->total += plan->chunk_sizes[c];
    }
    plan->valid = true;
}

void galloc_whatif_plan_copy_placement(struct galloc_whatif_plan * dst, const struct galloc_whatif_plan * src, int32_t n_items) {
    memcpy(dst->chunks, src->chunks, (size_t) n_items * sizeof(int32_t));
    memcpy(dst->offsets, src->offsets, (size_t) n_items * sizeof(uint64_t));
    memcpy(dst->chunk_sizes, src->chunk_sizes, sizeof(dst->chunk_sizes));
    dst->n_chunks = src->n_chunks;
    dst->total    = src->total;
    dst->valid    = src->valid;
}

bool galloc_whatif_fits(const struct galloc_whatif_problem * problem, int32_t chunk, uint64_t offset, uint64_t size, uint64_t zero_max) {
    if (problem->max_size == GALLOC_NO_MAX_SIZE || offset == 0 || chunk == GALLOC_MAX_CHUNKS - 1) {
        return true;
    }
    uint64_t limit = zero_max > problem->max_size ? zero_max : problem->max_size;
    return size <= limit && offset <= limit - size;
}

bool galloc_whatif_unlimited(const struct galloc_whatif_problem * problem, const struct galloc_whatif_index * index) {
    return problem->max_size == GALLOC_NO_MAX_SIZE || problem->max_size >= index->total_size;
}

// ---- the index --------------------------------------------------------------

struct time_key {
    int64_t t;
    int32_t i;
};

static int cmp_time_key(const void * a, const void * b) {
    const struct time_key * x = a, * y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

static int cmp_i64(const void * a, const void * b) {
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

// index of t in the sorted distinct bounds (t is always present)
static int32_t find_bound(const int64_t * bounds, int32_t n, int64_t t) {
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (bounds[mid] < t) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

void galloc_whatif_index_free(struct galloc_whatif_index * index) {
    free(index->sec_first);
    free(index->sec_last);
    free(index->sec_live);
    free(index->adj_start);
    free(index->adj);
    memset(index, 0, sizeof(*index));
}

// conflicts by a sweep over the items in order of their first step: when item i starts,
// every started item that has not ended yet conflicts with it. Pass 0 counts (stopping
// past the limit), pass 1 fills the CSR arrays.
static bool build_conflicts(const struct galloc_whatif_problem * p, struct galloc_whatif_index * x, const struct time_key * order,
                            struct galloc_error * err) {
    int32_t   n      = p->n_items;
    int32_t * active = malloc(((size_t) n + 1) * sizeof(int32_t));
    int32_t * fill   = malloc(((size_t) n + 1) * sizeof(int32_t));
    x->adj_start     = calloc((size_t) n + 2, sizeof(int32_t));
    if (!active || !fill || !x->adj_start) {
        free(active);
        free(fill);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing %d items", n);
    }
    bool ok = true;
    for (int pass = 0; pass < 2 && ok; pass++) {
        int32_t  n_active = 0;
        uint64_t pairs    = 0;
        for (int32_t k = 0; k < n; k++) {
            int32_t i = order[k].i;
            int32_t kept = 0;
            for (int32_t a = 0; a < n_active; a++) {
                int32_t j = active[a];
                if (p->items[j].last < p->items[i].first) {
                    continue; // ended
                }
                active[kept++] = j;
                if (pass == 0) {
                    x->adj_start[i + 1]++;
                    x->adj_start[j + 1]++;
                } else {
                    x->adj[fill[i]++] = j;
                    x->adj[fill[j]++] = i;
                }
                pairs++;
            }
            n_active = kept;
            active[n_active++] = i;
            if (pairs > GALLOC_WHATIF_MAX_PAIRS) {
                ok = galloc_fail(err, GALLOC_STATUS_DECLINED,
                                 "declined: more than %llu pairs of items live at once; the document is valid, but too large to analyse",
                                 (unsigned long long) GALLOC_WHATIF_MAX_PAIRS);
                break;
            }
        }
        if (!ok) {
            break;
        }
        if (pass == 0) {
            x->n_pairs = pairs;
            for (int32_t i = 0; i < n; i++) {
                x->adj_start[i + 1] += x->adj_start[i];
                fill[i] = x->adj_start[i];
            }
            x->adj = malloc(2 * (size_t) pairs * sizeof(int32_t) + sizeof(int32_t));
            if (!x->adj) {
                ok = galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory for %llu conflicting pairs", (unsigned long long) pairs);
            }
        }
    }
    free(active);
    free(fill);
    return ok;
}

bool galloc_whatif_index_build(const struct galloc_whatif_problem * p, struct galloc_whatif_index * x, struct galloc_error * err) {
    memset(x, 0, sizeof(*x));
    int32_t n = p->n_items;
    x->n_items = n;
    for (int32_t i = 0; i < n; i++) {
        x->total_size += p->items[i].size; // each <= 2^40 and n < 2^31: no overflow
    }
    if (x->total_size > MAX_TOTAL_BYTES) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "items sum to %llu bytes, past 2^58", (unsigned long long) x->total_size);
    }

    // sections: bounds at every first and every last + 1
    int64_t         * bounds = malloc(2 * ((size_t) n + 1) * sizeof(int64_t));
    struct time_key * order  = malloc(((size_t) n + 1) * sizeof(struct time_key));
    x->sec_first = malloc(((size_t) n + 1) * sizeof(int32_t));
    x->sec_last  = malloc(((size_t) n + 1) * sizeof(int32_t));
    if (!bounds || !order || !x->sec_first || !x->sec_last) {
        free(bounds);
        free(order);
        galloc_whatif_index_free(x);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing %d items", n);
    }
    int32_t nb = 0;
    for (int32_t i = 0; i < n; i++) {
        bounds[nb++] = p->items[i].first;
        bounds[nb++] = p->items[i].last + 1;
        order[i]     = (struct time_key) { p->items[i].first, i };
    }
    qsort(bounds, (size_t) nb, sizeof(int64_t), cmp_i64);
    int32_t nd = 0;
    for (int32_t k = 0; k < nb; k++) {
        if (nd == 0 || bounds[k] != bounds[nd - 1]) {
            bounds[nd++] = bounds[k];
        }
    }
    x->n_sections = nd > 0 ? nd - 1 : 0;
    x->sec_live   = calloc((size_t) x->n_sections + 1, sizeof(uint64_t));
    bool ok = x->sec_live != NULL;
    if (ok) {
        for (int32_t i = 0; i < n; i++) {
            x->sec_first[i] = find_bound(bounds, nd, p->items[i].first);
            x->sec_last[i]  = find_bound(bounds, nd, p->items[i].last + 1) - 1;
        }
        // live bytes per section by differences
        uint64_t * delta = calloc((size_t) x->n_sections + 2, sizeof(uint64_t));
        uint64_t * minus = calloc((size_t) x->n_sections + 2, sizeof(uint64_t));
        ok = delta && minus;
        if (ok) {
            for (int32_t i = 0; i < n; i++) {
                delta[x->sec_first[i]]    += p->items[i].size;
                minus[x->sec_last[i] + 1] += p->items[i].size;
            }
            uint64_t live = 0;
            for (int32_t s = 0; s < x->n_sections; s++) {
                live = live + delta[s] - minus[s];
                x->sec_live[s] = live;
                if (live > x->lower_bound) {
                    x->lower_bound = live;
                }
            }
        }
        free(delta);
        free(minus);
        if (!ok) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing %d items", n);
        }
    } else {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing %d items", n);
    }
    free(bounds);
    if (ok) {
        qsort(order, (size_t) n, sizeof(struct time_key), cmp_time_key);
        ok = build_conflicts(p, x, order, err);
    }
    free(order);
    if (!ok) {
        galloc_whatif_index_free(x);
    }
    return ok;
}

// ---- lower bound and checker ---------------------------------------------------

uint64_t galloc_whatif_lower_bound(const struct galloc_whatif_problem * p) {
    // events: an end (index i) at last + 1, a start (index n + i) at first; at equal times ends come first
    int32_t           n  = p->n_items;
    struct time_key * ev = malloc(2 * ((size_t) n + 1) * sizeof(struct time_key));
    if (!ev) {
        return 0;
    }
    for (int32_t i = 0; i < n; i++) {
        ev[2 * i]     = (struct time_key) { p->items[i].last + 1, i };
        ev[2 * i + 1] = (struct time_key) { p->items[i].first, n + i };
    }
    int32_t n_ev = 2 * n;
    qsort(ev, (size_t) n_ev, sizeof(struct time_key), cmp_time_key);
    uint64_t live = 0, peak = 0;
    for (int32_t k = 0; k < n_ev; k++) {
        bool    start = ev[k].i >= n;
        int32_t i     = start ? ev[k].i - n : ev[k].i;
        if (start) {
            live += p->items[i].size;
            peak = live > peak ? live : peak;
        } else {
            live -= p->items[i].size;
        }
    }
    free(ev);
    return peak;
}

bool galloc_whatif_check(const struct galloc_whatif_problem * p, const struct galloc_whatif_plan * plan, struct galloc_error * err) {
    if (!plan->valid) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: no plan", plan->name);
    }
    if (plan->n_chunks < 0 || plan->n_chunks > GALLOC_MAX_CHUNKS || (p->n_items > 0 && plan->n_chunks < 1)) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: %d chunks", plan->name, plan->n_chunks);
    }
    uint64_t ends[GALLOC_MAX_CHUNKS] = { 0 }, zero_max[GALLOC_MAX_CHUNKS] = { 0 };
    for (int32_t i = 0; i < p->n_items; i++) {
        int32_t c = plan->chunks[i];
        if (c < 0 || c >= plan->n_chunks) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: item %d in chunk %d of %d", plan->name, i, c, plan->n_chunks);
        }
        if (plan->offsets[i] == 0 && p->items[i].size > zero_max[c]) {
            zero_max[c] = p->items[i].size;
        }
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        int32_t  c    = plan->chunks[i];
        uint64_t off  = plan->offsets[i];
        uint64_t size = p->items[i].size;
        if (off % p->alignment != 0 || off > UINT64_MAX / 2) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: item %d at offset %llu (alignment %llu)", plan->name, i, (unsigned long long) off,
                        (unsigned long long) p->alignment);
        }
        if (!galloc_whatif_fits(p, c, off, size, zero_max[c])) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: item %d at [%llu, %llu) of chunk %d passes the max size %llu", plan->name, i,
                        (unsigned long long) off, (unsigned long long) (off + size), c, (unsigned long long) p->max_size);
        }
        if (off + size > ends[c]) {
            ends[c] = off + size;
        }
    }
    uint64_t total = 0;
    for (int32_t c = 0; c < plan->n_chunks; c++) {
        if (plan->chunk_sizes[c] != ends[c]) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: chunk %d has size %llu, its items end at %llu", plan->name, c,
                        (unsigned long long) plan->chunk_sizes[c], (unsigned long long) ends[c]);
        }
        total += ends[c];
    }
    if (total != plan->total) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: total %llu, chunks sum to %llu", plan->name, (unsigned long long) plan->total,
                    (unsigned long long) total);
    }

    // overlaps: items by first step; each against the items that start within its lifetime
    struct time_key * order = malloc(((size_t) p->n_items + 1) * sizeof(struct time_key));
    if (!order) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory checking %d items", p->n_items);
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        order[i] = (struct time_key) { p->items[i].first, i };
    }
    qsort(order, (size_t) p->n_items, sizeof(struct time_key), cmp_time_key);
    bool ok = true;
    for (int32_t k = 0; k < p->n_items && ok; k++) {
        int32_t                           i = order[k].i;
        const struct galloc_whatif_item * a = &p->items[i];
        for (int32_t q = k + 1; q < p->n_items && order[q].t <= a->last; q++) {
            int32_t                           j = order[q].i;
            const struct galloc_whatif_item * b = &p->items[j];
            if (plan->chunks[i] != plan->chunks[j] || a->size == 0 || b->size == 0) {
                continue; // other chunks; an item without bytes overlaps nothing
            }
            uint64_t ao = plan->offsets[i], bo = plan->offsets[j];
            if (ao < bo + b->size && bo < ao + a->size) {
                ok = galloc_fail(err, GALLOC_STATUS_INVALID, "%s: items %d [%llu, %llu) and %d [%llu, %llu) of chunk %d are live together at step %lld",
                          plan->name, i, (unsigned long long) ao, (unsigned long long) (ao + a->size), j, (unsigned long long) bo,
                          (unsigned long long) (bo + b->size), plan->chunks[i], (long long) b->first);
                break;
            }
        }
    }
    free(order);
    return ok;
}

// ---- problems from plans ---------------------------------------------------

#define CHAIN_ROOT_UNKNOWN (-2)

// the first tensor of t's in-place chain (a tensor not placed in place), -1 when the chain leaves
// the tensors or loops. memo (per tensor, CHAIN_ROOT_UNKNOWN until known) keeps every answer found,
// so each tensor is walked over once in all; path has room for n_tensors + 1 entries.
static int32_t find_chain_root(const struct galloc_plan * plan, int32_t t, int32_t * memo, int32_t * path) {
    int32_t nt = plan->n_tensors, n_path = 0, r = t;
    while (r >= 0 && r < nt && plan->places[r].how == GALLOC_HOW_INPLACE && memo[r] == CHAIN_ROOT_UNKNOWN && n_path <= nt) {
        path[n_path++] = r;
        r = plan->places[r].parent;
    }
    int32_t root;
    if (r < 0 || r >= nt) {
        root = -1; // a parent outside the tensors
    } else if (plan->places[r].how != GALLOC_HOW_INPLACE) {
        root = r;
    } else if (memo[r] != CHAIN_ROOT_UNKNOWN) {
        root = memo[r];
    } else {
        root = -1; // more hops than tensors: a loop
    }
    for (int32_t k = 0; k < n_path; k++) {
        memo[path[k]] = root;
    }
    return root;
}

// the allocator whose problem holds tensor t, -1: none (no buffer, or a broken allocator link)
static int32_t tensor_allocator(const struct galloc_graph * g, const struct galloc_plan * plan, int32_t t) {
    int32_t b = plan->places[t].buffer;
    if (b < 0 || b >= g->n_buffer_types) {
        return -1;
    }
    int32_t a = g->buffer_types[b].allocator;
    return a >= 0 && a < g->n_buffer_types ? a : -1;
}

void galloc_whatif_tensors_free(struct galloc_whatif_tensors * x) {
    if (!x) {
        return;
    }
    free(x->start);
    free(x->list);
    free(x->root);
    free(x->scratch);
    memset(x, 0, sizeof(*x));
}

bool galloc_whatif_tensors_build(const struct galloc_graph * g, const struct galloc_plan * plan, struct galloc_whatif_tensors * x,
                                 struct galloc_error * err) {
    memset(x, 0, sizeof(*x));
    if (!g || !plan || !plan->places || !plan->buffers || !g->buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: no graph or plan");
    }
    if (plan->n_tensors != g->n_tensors || plan->n_buffer_types != g->n_buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the plan (%d tensors, %d buffer types) is not of this graph (%d, %d)", plan->n_tensors,
                           plan->n_buffer_types, g->n_tensors, g->n_buffer_types);
    }
    if (plan->n_replaced > 0) { // an item per place would miss their first lifetimes
        return galloc_fail(err, GALLOC_STATUS_DECLINED, "whatif: %d tensors placed twice (consumed last by a node before them in the graph, "
                           "so placed and released there and placed again at their own step); a place holds one lifetime", plan->n_replaced);
    }
    size_t nt = (size_t) plan->n_tensors, nb = (size_t) g->n_buffer_types;
    x->n_tensors      = plan->n_tensors;
    x->n_buffer_types = g->n_buffer_types;
    x->start          = calloc(nb + 2, sizeof(int32_t));
    x->list           = malloc((nt + 1) * sizeof(int32_t));
    x->root           = malloc((nt + 1) * sizeof(int32_t));
    x->scratch        = malloc((nt + 1) * sizeof(int32_t));
    int32_t * path    = malloc((nt + 1) * sizeof(int32_t));
    if (!x->start || !x->list || !x->root || !x->scratch || !path) {
        free(path);
        galloc_whatif_tensors_free(x);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing %d tensors", plan->n_tensors);
    }
    // counting sort by allocator: each allocator's tensors in increasing order
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        int32_t a = tensor_allocator(g, plan, t);
        x->start[a + 1] += a >= 0;
        x->root[t]    = CHAIN_ROOT_UNKNOWN;
        x->scratch[t] = -1;
    }
    for (size_t a = 0; a < nb; a++) {
        x->start[a + 1] += x->start[a];
    }
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        int32_t a = tensor_allocator(g, plan, t);
        if (a >= 0) {
            x->list[x->start[a]++] = t;
        }
    }
    for (size_t a = nb; a > 0; a--) {
        x->start[a] = x->start[a - 1];
    }
    x->start[0] = 0;
    // in-place chains, each tensor walked once in all
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        if (plan->places[t].how == GALLOC_HOW_INPLACE && x->root[t] == CHAIN_ROOT_UNKNOWN) {
            find_chain_root(plan, t, x->root, path);
        }
    }
    free(path);
    return true;
}

// items of allocator a: every tensor placed on its own starts an item; in-place tensors join
// the item of the parent they took over (the root of their chain). Walks a's tensors only.
bool galloc_whatif_problem_from_plan(const struct galloc_graph * g, const struct galloc_plan * plan, struct galloc_whatif_tensors * x, int32_t a,
                              struct galloc_whatif_problem * prob, int32_t * tensor_item, int32_t * n_shrinking,
                              struct galloc_whatif_plan * ggml_plan, struct galloc_error * err) {
    uint64_t        align = g->buffer_types[a].alignment;
    const int32_t * list  = x->list + x->start[a];
    int32_t         nl    = x->start[a + 1] - x->start[a];
    int32_t       * item  = x->scratch; // -1 outside this call
    memset(prob, 0, sizeof(*prob));
    prob->alignment = align;
    prob->max_size  = g->buffer_types[a].max_size;
    *n_shrinking    = 0;

    int32_t n = 0;
    for (int32_t k = 0; k < nl; k++) {
        if (galloc_how_allocates(plan->places[list[k]].how)) {
            item[list[k]] = n++;
        }
    }
    prob->items = calloc((size_t) n + 1, sizeof(struct galloc_whatif_item));
    bool * shrinks = calloc((size_t) n + 1, sizeof(bool));
    bool   ok      = prob->items && shrinks && galloc_whatif_plan_init(ggml_plan, n, "ggml");
    if (!ok) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory extracting %d items", n);
    }
    prob->n_items = ok ? n : 0;
    for (int32_t k = 0; k < nl && ok; k++) {
        int32_t                     t  = list[k];
        const struct galloc_place * pl = &plan->places[t];
        if (item[t] >= 0) {
            struct galloc_whatif_item * it = &prob->items[item[t]];
            if (pl->size > GALLOC_WHATIF_MAX_ITEM_BYTES) {
                ok = galloc_fail(err, GALLOC_STATUS_LIMIT, "tensor %d: alloc size %llu is past 2^40", t, (unsigned long long) pl->size);
                break;
            }
            it->id        = t;
            it->n_tensors = 1;
            it->size      = GGML_PAD(pl->size, align);
            it->first     = pl->first_step;
            it->last      = pl->last_step < pl->first_step ? pl->first_step : pl->last_step;
            ggml_plan->chunks[item[t]]  = pl->chunk;
            ggml_plan->offsets[item[t]] = pl->offset;
        }
    }
    // in-place tensors join the item of their chain's first tensor (resolved once, in the index)
    for (int32_t k = 0; k < nl && ok; k++) {
        int32_t                     t  = list[k];
        const struct galloc_place * pl = &plan->places[t];
        if (pl->how != GALLOC_HOW_INPLACE) {
            continue;
        }
        int32_t root = x->root[t];
        if (root < 0 || item[root] < 0) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "tensor %d: in place over a chain without a placed first tensor", t);
            break;
        }
        struct galloc_whatif_item * it   = &prob->items[item[root]];
        uint64_t                    size = GGML_PAD(pl->size > GALLOC_WHATIF_MAX_ITEM_BYTES ? GALLOC_WHATIF_MAX_ITEM_BYTES : pl->size, align);
        item[t] = item[root];
        it->n_tensors++;
        if (size < it->size) {
            shrinks[item[root]] = true;
        }
        if (size > it->size) {
            it->size = size; // cannot happen with ggml's rule (a child never needs more than its parent)
        }
        if (pl->first_step < it->first) {
            it->first = pl->first_step;
        }
        if (pl->last_step > it->last) {
            it->last = pl->last_step;
        }
    }
    for (int32_t i = 0; ok && i < n; i++) {
        *n_shrinking += shrinks[i] ? 1 : 0;
    }
    // hand the items to tensor_item (when asked) and leave the scratch as it was found
    for (int32_t k = 0; k < nl; k++) {
        if (tensor_item && ok) {
            tensor_item[list[k]] = item[list[k]];
        }
        item[list[k]] = -1;
    }
    free(shrinks);
    if (!ok) {
        free(prob->items);
        prob->items   = NULL;
        prob->n_items = 0;
        galloc_whatif_plan_release(ggml_plan);
        return false;
    }
    const struct galloc_buffer_plan * bp = &plan->buffers[a];
    ggml_plan->n_chunks = bp->n_chunks < GALLOC_MAX_CHUNKS ? bp->n_chunks : GALLOC_MAX_CHUNKS;
    memcpy(ggml_plan->chunk_sizes, bp->chunk_sizes, sizeof(ggml_plan->chunk_sizes));
    ggml_plan->total = bp->size;
    ggml_plan->valid = true;
    return true;
}

// ---- problems from CSV --------------------------------------------------------

// a field of a line: [begin, end) without surrounding spaces
struct field {
    const char * s;
    size_t       n;
};

static struct field trim(const char * s, size_t n) {
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) {
        n--;
    }
    return (struct field) { s, n };
}

static bool field_is(struct field f, const char * word) {
    return f.n == strlen(word) && memcmp(f.s, word, f.n) == 0;
}

// decimal digits only, at most max; false on anything else (sign, empty, overflow)
static bool parse_u64(struct field f, uint64_t max, uint64_t * out) {
    return galloc_decimal_scan_u64(f.s, f.n, max, out);
}

// a field shown in a message: at most 24 bytes, printable ASCII only
static void show_field(char * buf, size_t size, struct field f) {
    size_t k = 0;
    for (; k < f.n && k < 24 && k + 4 < size; k++) {
        char c = f.s[k];
        buf[k] = (c >= 32 && c < 127) ? c : '?';
    }
    if (k < f.n && k + 4 < size) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
}

static bool bad_number(struct galloc_error * err, int64_t line, const char * what, struct field f, const char * limit) {
    char shown[32];
    show_field(shown, sizeof(shown), f);
    return galloc_fail(err, GALLOC_STATUS_INVALID, "line %lld: %s '%s' is not an integer in [0, %s]", (long long) line, what, shown, limit);
}

// a row's id as it stands in the text, for the duplicate check
struct csv_id {
    const char * s;
    size_t       n;
    int64_t      line;
};

static int cmp_csv_id(const void * a, const void * b) {
    const struct csv_id * x = a, * y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int    c = memcmp(x->s, y->s, n);
    if (c != 0) {
        return c;
    }
    if (x->n != y->n) {
        return x->n < y->n ? -1 : 1;
    }
    return (x->line > y->line) - (x->line < y->line);
}

// ids are names: not empty, no control bytes, each used once (names the later line of a pair)
static bool check_csv_ids(struct csv_id * ids, int32_t n, struct galloc_error * err) {
    qsort(ids, (size_t) n, sizeof(*ids), cmp_csv_id);
    for (int32_t k = 1; k < n; k++) {
        if (ids[k].n == ids[k - 1].n && memcmp(ids[k].s, ids[k - 1].s, ids[k].n) == 0) {
            char shown[32];
            show_field(shown, sizeof(shown), (struct field) { ids[k].s, ids[k].n });
            return galloc_fail(err, GALLOC_STATUS_INVALID, "line %lld: id '%s' is already the id of line %lld", (long long) ids[k].line, shown,
                               (long long) ids[k - 1].line);
        }
    }
    return true;
}

bool galloc_whatif_problem_from_csv(const char * csv, size_t len, struct galloc_whatif_problem * prob, struct galloc_error * err) {
    memset(prob, 0, sizeof(*prob));
    prob->alignment = 1;
    prob->max_size  = GALLOC_NO_MAX_SIZE;
    if (!csv && len > 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "no CSV text");
    }
    struct galloc_whatif_item * items = NULL;
    struct csv_id *             ids   = NULL;
    size_t  cap        = 0;
    int32_t n          = 0;
    int64_t line       = 0;
    bool    seen_first = false;
    size_t  pos        = 0;
    bool    ok         = true;
    while (pos < len && ok) {
        line++;
        const char * start = csv + pos;
        const char * nl    = memchr(start, '\n', len - pos);
        size_t       n_ch  = nl ? (size_t) (nl - start) : len - pos;
        pos += n_ch + (nl ? 1 : 0);
        if (n_ch > 0 && start[n_ch - 1] == '\r') {
            n_ch--;
        }
        if (n_ch > GALLOC_WHATIF_CSV_MAX_LINE) {
            ok = galloc_fail(err, GALLOC_STATUS_LIMIT, "line %lld: longer than %d bytes", (long long) line, GALLOC_WHATIF_CSV_MAX_LINE);
            break;
        }
        struct field whole = trim(start, n_ch);
        if (whole.n == 0) {
            continue; // blank line
        }
        // split into fields
        struct field f[5];
        int32_t      n_f = 0;
        const char * s   = start;
        const char * end = start + n_ch;
        while (n_f < 5) {
            const char * comma = memchr(s, ',', (size_t) (end - s));
            const char * fe    = comma ? comma : end;
            f[n_f++] = trim(s, (size_t) (fe - s));
            if (!comma) {
                break;
            }
            s = comma + 1;
        }
        bool header = !seen_first && n_f == 4 && field_is(f[1], "lower") && field_is(f[2], "upper") && field_is(f[3], "size");
        seen_first = true;
        if (header) {
            continue;
        }
        if (n_f != 4) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "line %lld: expected 4 fields (id,lower,upper,size), found %s%d", (long long) line,
                      n_f == 5 ? "more than " : "", n_f == 5 ? 4 : n_f);
            break;
        }
        bool id_ok = f[0].n > 0;
        for (size_t k = 0; k < f[0].n && id_ok; k++) {
            id_ok = (unsigned char) f[0].s[k] >= 32 && f[0].s[k] != 127;
        }
        if (!id_ok) {
            char shown[32];
            show_field(shown, sizeof(shown), f[0]);
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "line %lld: id '%s' is empty or holds control characters", (long long) line, shown);
            break;
        }
        uint64_t lower = 0, upper = 0, size = 0;
        if (!parse_u64(f[1], (uint64_t) GALLOC_WHATIF_MAX_TIME, &lower)) {
            ok = bad_number(err, line, "lower", f[1], "2^62");
            break;
        }
        if (!parse_u64(f[2], (uint64_t) GALLOC_WHATIF_MAX_TIME, &upper)) {
            ok = bad_number(err, line, "upper", f[2], "2^62");
            break;
        }
        if (!parse_u64(f[3], GALLOC_WHATIF_MAX_ITEM_BYTES, &size)) {
            ok = bad_number(err, line, "size", f[3], "2^40");
            break;
        }
        if (upper <= lower) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "line %lld: upper %llu <= lower %llu", (long long) line, (unsigned long long) upper,
                      (unsigned long long) lower);
            break;
        }
        if (n >= GALLOC_WHATIF_CSV_MAX_ROWS) {
            ok = galloc_fail(err, GALLOC_STATUS_LIMIT, "line %lld: more than %d rows", (long long) line, GALLOC_WHATIF_CSV_MAX_ROWS);
            break;
        }
        if ((size_t) n == cap) {
            size_t                      new_cap = cap ? 2 * cap : 256;
            struct galloc_whatif_item * grown   = realloc(items, new_cap * sizeof(*items));
            struct csv_id *             grown_ids = grown ? realloc(ids, new_cap * sizeof(*ids)) : NULL;
            if (grown) {
                items = grown;
            }
            if (!grown || !grown_ids) {
                ok = galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "line %lld: out of memory", (long long) line);
                break;
            }
            ids = grown_ids;
            cap = new_cap;
        }
        items[n] = (struct galloc_whatif_item) { n, 1, size, (int64_t) lower, (int64_t) upper - 1 };
        ids[n]   = (struct csv_id) { f[0].s, f[0].n, line };
        n++;
    }
    if (ok && n == 0) {
        ok = galloc_fail(err, GALLOC_STATUS_INVALID, "no rows (expected lines id,lower,upper,size)");
    }
    if (ok) {
        ok = check_csv_ids(ids, n, err);
    }
    free(ids);
    if (!ok) {
        free(items);
        return false;
    }
    prob->items   = items;
    prob->n_items = n;
    return true;
}
