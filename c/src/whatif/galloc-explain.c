// galloc-explain.c: the peak of a plan, what is live there, and the memory over time
// (see galloc-explain.h for what "live" means).
//
// Each tensor's holding interval comes from its place; the live series is a running sum
// of interval starts and ends; the high-water series replays the placements in the order
// the planner made them (leafs, graph inputs, then per node its sources and the node). Both
// are kept as the points where they change, per allocator from its own tensors only: memory
// and time linear in tensors, steps and buffer types, never their product.

#include "galloc-error.h"
#include "galloc-explain.h"
#include "galloc-layer.h"
#include "ggml.h" // GGML_PAD

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool check_plan(const struct galloc_document * doc, const struct galloc_plan * plan, struct galloc_error * err) {
    if (plan->n_tensors != doc->n_tensors || plan->n_buffer_types != doc->n_buffer_types || plan->n_steps != doc->n_nodes) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "plan: %d tensors, %d buffer types, %d steps for a graph of %d, %d, %d",
                           plan->n_tensors, plan->n_buffer_types, plan->n_steps, doc->n_tensors, doc->n_buffer_types, doc->n_nodes);
    }
    if (plan->n_replaced > 0) { // their first lifetimes are in no place: the live bytes would miss them
        return galloc_fail(err, GALLOC_STATUS_DECLINED, "plan: %d tensors placed twice (consumed last by a node before them in the graph, "
                           "so placed and released there and placed again at their own step); a place holds one lifetime", plan->n_replaced);
    }
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        const struct galloc_place * p = &plan->places[t];
        if (!galloc_how_allocates(p->how) && p->how != GALLOC_HOW_INPLACE) {
            continue;
        }
        if (p->buffer < 0 || p->buffer >= plan->n_buffer_types) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "plan: tensors[%d].buffer: %d out of range", t, p->buffer);
        }
        const struct galloc_buffer_plan * bp = &plan->buffers[doc->buffer_types[p->buffer].allocator];
        if (p->chunk < 0 || p->chunk >= bp->n_chunks) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "plan: tensors[%d].chunk: %d out of range", t, p->chunk);
        }
        if (p->first_step < -1 || p->last_step < p->first_step || p->last_step >= plan->n_steps) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "plan: tensors[%d]: steps %d..%d out of range", t, p->first_step, p->last_step);
        }
    }
    return true;
}

// per tensor: which allocator holds its memory, over which steps, how many bytes; the tensors
// holding memory grouped by allocator (held, held_start: a counting sort, index order kept)
static void find_holdings(const struct galloc_document * doc, const struct galloc_plan * plan, struct galloc_explain * ex, int32_t * fill) {
    memset(ex->held_start, 0, (size_t) (ex->n_buffers + 1) * sizeof(int32_t));
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        const struct galloc_place * p = &plan->places[t];
        ex->hold_buffer[t] = -1;
        ex->hold_first[t]  = 0;
        ex->hold_last[t]   = -1;
        ex->hold_bytes[t]  = 0;
        ex->hold_chunk[t]  = -1;
        ex->hold_offset[t] = 0;
        bool inplace = p->how == GALLOC_HOW_INPLACE;
        if (!galloc_how_allocates(p->how) && !inplace) {
            continue;
        }
        int32_t a = doc->buffer_types[p->buffer].allocator;
        ex->hold_buffer[t] = a;
        ex->hold_first[t]  = inplace ? p->first_step + 1 : p->first_step; // its parent holds the step it takes over
        ex->hold_last[t]   = p->last_step;
        ex->hold_bytes[t]  = GGML_PAD(p->size, doc->buffer_types[a].alignment);
        ex->hold_chunk[t]  = p->chunk;
        ex->hold_offset[t] = p->offset;
        ex->held_start[a + 1]++;
    }
    for (int32_t b = 0; b < ex->n_buffers; b++) {
        ex->held_start[b + 1] += ex->held_start[b];
        fill[b] = ex->held_start[b];
    }
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        if (ex->hold_buffer[t] >= 0) {
            ex->held[fill[ex->hold_buffer[t]]++] = t;
        }
    }
}

static int compare_live(const void * x, const void * y) {
    const struct galloc_explain_live * a = x, * b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return (a->tensor > b->tensor) - (a->tensor < b->tensor);
}

int32_t galloc_explain_live_at(const struct galloc_explain * ex, int32_t b, int32_t step,
                               struct galloc_explain_live * out, int32_t max) {
    if (b < 0 || b >= ex->n_buffers || ex->buffers[b].shared_with >= 0) {
        return 0;
    }
    int32_t n = 0;
    for (int32_t k = ex->held_start[b]; k < ex->held_start[b + 1]; k++) {
        int32_t t = ex->held[k];
        if (ex->hold_first[t] <= step && step <= ex->hold_last[t]) {
            if (out && n < max) {
                out[n] = (struct galloc_explain_live) { t, ex->hold_bytes[t] };
            }
            n++;
        }
    }
    if (out && n > 1 && max > 1) {
        qsort(out, (size_t) (n < max ? n : max), sizeof(*out), compare_live);
    }
    return n;
}

uint64_t galloc_explain_series_at(const struct galloc_explain_series * s, int32_t i) {
    if (s->n == 0 || i < 0) {
        return 0;
    }
    int32_t lo = 0, hi = s->n - 1; // the last point at or before i
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (s->at[mid] <= i) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return s->bytes[lo];
}

void galloc_explain_series_expand(const struct galloc_explain_series * s, int32_t n, uint64_t * out) {
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        while (k + 1 < s->n && s->at[k + 1] <= i) {
            k++;
        }
        out[i] = s->n > 0 ? s->bytes[k] : 0;
    }
}

// a series' arrays for up to max points, starting at 0 from index 0
static bool series_init(struct galloc_explain_series * s, int32_t max) {
    s->at    = malloc((size_t) max * sizeof(int32_t));
    s->bytes = malloc((size_t) max * sizeof(uint64_t));
    if (!s->at || !s->bytes) {
        return false;
    }
    s->n        = 1;
    s->at[0]    = 0;
    s->bytes[0] = 0;
    return true;
}

// the series takes value bytes from index i on (i at or after its last point)
static void series_set(struct galloc_explain_series * s, int32_t i, uint64_t bytes) {
    if (s->at[s->n - 1] == i) {
        s->bytes[s->n - 1] = bytes;
        if (s->n > 1 && s->bytes[s->n - 2] == bytes) {
            s->n--; // back to the value before: no change at i
        }
    } else if (s->bytes[s->n - 1] != bytes) {
        s->at[s->n]    = i;
        s->bytes[s->n] = bytes;
        s->n++;
    }
}

// a start or end of a holding interval: bytes added at series index at (an end adds the wrapped negative)
struct live_event {
    int32_t  at;
    uint64_t delta;
};

static int compare_events(const void * x, const void * y) {
    const struct live_event * a = x, * b = y;
    return (a->at > b->at) - (a->at < b->at);
}

// live bytes per step of allocator a: its intervals' starts and ends, sorted, summed (events:
// scratch for two per tensor it holds)
static bool live_series(const struct galloc_explain * ex, int32_t a, struct live_event * events, struct galloc_explain_series * out) {
    int32_t n = ex->n_steps + 1, n_events = 0;
    for (int32_t k = ex->held_start[a]; k < ex->held_start[a + 1]; k++) {
        int32_t t = ex->held[k];
        if (ex->hold_first[t] <= ex->hold_last[t]) {
            events[n_events++] = (struct live_event) { ex->hold_first[t] + 1, ex->hold_bytes[t] };
            if (ex->hold_last[t] + 2 < n) {
                events[n_events++] = (struct live_event) { ex->hold_last[t] + 2, (uint64_t) 0 - ex->hold_bytes[t] }; // wraps back exactly
            }
        }
    }
    qsort(events, (size_t) n_events, sizeof(*events), compare_events);
    if (!series_init(out, n_events + 1)) {
        return false;
    }
    uint64_t sum = 0;
    for (int32_t e = 0; e < n_events; e++) {
        sum += events[e].delta;
        if (e + 1 == n_events || events[e + 1].at != events[e].at) {
            series_set(out, events[e].at, sum);
        }
    }
    return true;
}

// the order the planner placed tensors in: leafs; graph inputs (counting pass); per node its
// sources, then the node. order[] gets every tensor once, at its first visit.
static int32_t placement_order(const struct galloc_document * doc, bool * seen, int32_t * order) {
    int32_t n = 0;
    memset(seen, 0, (size_t) doc->n_tensors * sizeof(bool));
#define VISIT(t) do { int32_t t_ = (t); if (t_ >= 0 && !seen[t_]) { seen[t_] = true; order[n++] = t_; } } while (0)
    for (int32_t i = 0; i < doc->n_leafs; i++) {
        VISIT(doc->leafs[i]);
    }
    for (int32_t i = 0; i < doc->n_nodes; i++) {
        const struct galloc_tensor * node = &doc->tensors[doc->nodes[i]];
        if (node->flags & GGML_TENSOR_FLAG_INPUT) {
            VISIT(doc->nodes[i]);
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (node->src[s] >= 0 && (doc->tensors[node->src[s]].flags & GGML_TENSOR_FLAG_INPUT)) {
                VISIT(node->src[s]);
            }
        }
    }
    for (int32_t i = 0; i < doc->n_nodes; i++) {
        const struct galloc_tensor * node = &doc->tensors[doc->nodes[i]];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            VISIT(node->src[s]);
        }
        VISIT(doc->nodes[i]);
    }
#undef VISIT
    return n;
}

// high-water mark per step of every allocator, and per chunk the tensor that last raised it.
// The placements in order (stably bucketed by their step, so a plan made elsewhere whose steps
// disagree with the visiting order still counts each placement at its own step) are swept once;
// each raise is a point of its allocator's series. counts, running: scratch per allocator.
static bool high_water_series(const struct galloc_document * doc, const struct galloc_plan * plan, const int32_t * order,
                              int32_t n_order, int32_t * bucket_start, int32_t * sorted, uint64_t * ex_scratch_chunk_end,
                              int32_t * counts, uint64_t * running, struct galloc_explain * ex) {
    int32_t n = ex->n_steps + 1;
    memset(bucket_start, 0, (size_t) (n + 1) * sizeof(int32_t));
    memset(counts, 0, (size_t) ex->n_buffers * sizeof(int32_t));
    for (int32_t j = 0; j < n_order; j++) {
        const struct galloc_place * p = &plan->places[order[j]];
        if (galloc_how_allocates(p->how)) {
            bucket_start[p->first_step + 2]++;
            counts[doc->buffer_types[p->buffer].allocator]++;
        }
    }
    for (int32_t i = 1; i <= n; i++) {
        bucket_start[i] += bucket_start[i - 1];
    }
    for (int32_t j = 0; j < n_order; j++) {
        const struct galloc_place * p = &plan->places[order[j]];
        if (galloc_how_allocates(p->how)) {
            sorted[bucket_start[p->first_step + 1]++] = order[j];
        }
    }
    // bucket_start[i] is now the end of step i - 1's placements
    for (int32_t b = 0; b < ex->n_buffers; b++) {
        struct galloc_explain_buffer * eb = &ex->buffers[b];
        for (int32_t c = 0; c < GALLOC_MAX_CHUNKS; c++) {
            eb->chunk_raiser[c]      = -1;
            eb->chunk_raiser_step[c] = -1;
        }
        if (eb->shared_with < 0 && !series_init(&eb->high_water, counts[b] + 1)) {
            return false;
        }
        running[b] = 0;
    }
    uint64_t * chunk_end = ex_scratch_chunk_end; // per allocator and chunk: highest end placed so far
    memset(chunk_end, 0, (size_t) ex->n_buffers * GALLOC_MAX_CHUNKS * sizeof(uint64_t));
    int32_t j = 0;
    for (int32_t i = 0; i < n; i++) {
        for (; j < bucket_start[i]; j++) {
            int32_t                        t  = sorted[j];
            const struct galloc_place    * p  = &plan->places[t];
            int32_t                        a  = doc->buffer_types[p->buffer].allocator;
            struct galloc_explain_buffer * eb = &ex->buffers[a];
            uint64_t *                     ce = &chunk_end[(size_t) a * GALLOC_MAX_CHUNKS + (size_t) p->chunk];
            uint64_t end = p->offset + GGML_PAD(p->size, eb->alignment);
            if (end > *ce) {
                running[a] += end - *ce;
                series_set(&eb->high_water, i, running[a]);
                *ce = end;
                eb->chunk_raiser[p->chunk]      = t;
                eb->chunk_raiser_step[p->chunk]   = i - 1;
                eb->chunk_raiser_offset[p->chunk] = p->offset;
                eb->chunk_raiser_bytes[p->chunk]  = end - p->offset;
            }
        }
    }
    return true;
}

// the peak of allocator b's series and the tensors live there
static bool find_peak(struct galloc_explain * ex, struct galloc_explain_buffer * eb) {
    const struct galloc_explain_series * s = &eb->live_bytes;
    int32_t at = 0; // the first point of the highest value: the first index reaching it
    for (int32_t k = 1; k < s->n; k++) {
        if (s->bytes[k] > s->bytes[at]) {
            at = k;
        }
    }
    eb->peak_live = s->bytes[at];
    eb->peak_step = s->at[at] - 1;
    eb->overhead  = galloc_overhead_bytes(eb->size, eb->peak_live);
    int32_t count = galloc_explain_live_at(ex, eb->buffer_type, eb->peak_step, NULL, 0);
    eb->live      = malloc((size_t) (count > 0 ? count : 1) * sizeof(*eb->live));
    if (!eb->live) {
        return false;
    }
    eb->n_live = galloc_explain_live_at(ex, eb->buffer_type, eb->peak_step, eb->live, count);
    return true;
}

double galloc_explain_percent(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static int compare_groups_by_name(const void * x, const void * y) {
    const struct galloc_explain_group * a = x, * b = y;
    return strcmp(a->name, b->name);
}

static int compare_groups_by_bytes(const void * x, const void * y) {
    const struct galloc_explain_group * a = x, * b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

// the live set at the peak folded by layer: one entry per tensor, sorted by name, merged
static bool fold_live(const struct galloc_document * doc, struct galloc_explain * ex, struct galloc_explain_buffer * eb) {
    eb->groups = malloc((size_t) (eb->n_live > 0 ? eb->n_live : 1) * sizeof(*eb->groups));
    if (!eb->groups) {
        return false;
    }
    for (int32_t i = 0; i < eb->n_live; i++) { // live is largest first: a group's first member is its largest
        struct galloc_explain_group * g = &eb->groups[i];
        int32_t t = eb->live[i].tensor;
        if (doc->tensor_names[t][0] == '\0') {
            snprintf(g->name, sizeof(g->name), "#%d", t);
        } else {
            galloc_layer_fold(doc->tensor_names[t], g->name, sizeof(g->name));
        }
        g->count       = 1;
        g->bytes       = eb->live[i].bytes;
        g->tensor      = t;
        g->first_layer = g->last_layer = ex->layer[t];
    }
    // stable merge: qsort is not stable, so members keep "largest first" by taking the max below
    qsort(eb->groups, (size_t) eb->n_live, sizeof(*eb->groups), compare_groups_by_name);
    int32_t n = 0;
    for (int32_t i = 0; i < eb->n_live; i++) {
        struct galloc_explain_group * g = &eb->groups[i];
        if (n > 0 && strcmp(eb->groups[n - 1].name, g->name) == 0) {
            struct galloc_explain_group * m = &eb->groups[n - 1];
            uint64_t mb = ex->hold_bytes[m->tensor], gb = ex->hold_bytes[g->tensor];
            if (gb > mb || (gb == mb && g->tensor < m->tensor)) {
                m->tensor = g->tensor;
            }
            m->count += 1;
            m->bytes += g->bytes;
            if (g->first_layer >= 0 && (m->first_layer < 0 || g->first_layer < m->first_layer)) {
                m->first_layer = g->first_layer;
            }
            if (g->last_layer > m->last_layer) {
                m->last_layer = g->last_layer;
            }
        } else {
            eb->groups[n++] = *g;
        }
    }
    qsort(eb->groups, (size_t) n, sizeof(*eb->groups), compare_groups_by_bytes);
    eb->n_groups = n;
    return true;
}

static void * alloc_array(size_t n, size_t size, bool * ok) {
    void * p = malloc((n > 0 ? n : 1) * size);
    *ok = *ok && p != NULL;
    return p;
}

bool galloc_explain_plan(const struct galloc_document * doc, const struct galloc_plan * plan,
                         struct galloc_explain * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!check_plan(doc, plan, err)) {
        return false;
    }
    size_t nt = (size_t) doc->n_tensors, ns = (size_t) doc->n_nodes + 1, nb = (size_t) doc->n_buffer_types;
    bool   ok = true;
    out->n_steps     = doc->n_nodes;
    out->n_tensors   = doc->n_tensors;
    out->n_buffers   = doc->n_buffer_types;
    out->buffers     = calloc(nb, sizeof(*out->buffers));
    ok               = out->buffers != NULL;
    out->layer       = alloc_array(nt, sizeof(int32_t), &ok);
    out->hold_buffer = alloc_array(nt, sizeof(int32_t), &ok);
    out->hold_first  = alloc_array(nt, sizeof(int32_t), &ok);
    out->hold_last   = alloc_array(nt, sizeof(int32_t), &ok);
    out->hold_bytes  = alloc_array(nt, sizeof(uint64_t), &ok);
    out->hold_chunk  = alloc_array(nt, sizeof(int32_t), &ok);
    out->hold_offset = alloc_array(nt, sizeof(uint64_t), &ok);
    out->held        = alloc_array(nt, sizeof(int32_t), &ok);
    out->held_start  = alloc_array(nb + 1, sizeof(int32_t), &ok);
    // scratch: nothing here is per step and per buffer type (1,000 types of a 200,000-step graph)
    bool     * seen      = alloc_array(nt, sizeof(bool), &ok);
    int32_t  * order     = alloc_array(nt, sizeof(int32_t), &ok);
    int32_t  * sorted    = alloc_array(nt, sizeof(int32_t), &ok);
    int32_t  * buckets   = alloc_array(ns + 1, sizeof(int32_t), &ok);
    struct live_event * events = alloc_array(2 * nt, sizeof(struct live_event), &ok);
    uint64_t * chunk_end = alloc_array(nb * GALLOC_MAX_CHUNKS, sizeof(uint64_t), &ok);
    int32_t  * per_type  = alloc_array(nb, sizeof(int32_t), &ok);
    uint64_t * running   = alloc_array(nb, sizeof(uint64_t), &ok);
    for (size_t b = 0; ok && b < nb; b++) {
        struct galloc_explain_buffer    * eb = &out->buffers[b];
        const struct galloc_buffer_plan * bp = &plan->buffers[b];
        eb->buffer_type = (int32_t) b;
        eb->shared_with = doc->buffer_types[b].allocator != (int32_t) b ? doc->buffer_types[b].allocator : -1;
        eb->alignment   = doc->buffer_types[b].alignment;
        eb->n_chunks    = eb->shared_with < 0 ? bp->n_chunks : 0;
        for (int32_t c = 0; c < eb->n_chunks; c++) {
            eb->chunk_sizes[c] = bp->chunk_sizes[c];
            eb->size += bp->chunk_sizes[c];
        }
        eb->peak_step = -1;
    }
    if (ok) {
        int32_t max_layer = -1;
        for (int32_t t = 0; t < doc->n_tensors; t++) {
            out->layer[t] = galloc_layer_parse(doc->tensor_names[t]).layer;
            max_layer     = out->layer[t] > max_layer ? out->layer[t] : max_layer;
        }
        out->n_layers = max_layer + 1;
        find_holdings(doc, plan, out, per_type);
        int32_t n_order = placement_order(doc, seen, order);
        ok = high_water_series(doc, plan, order, n_order, buckets, sorted, chunk_end, per_type, running, out);
        for (size_t b = 0; ok && b < nb; b++) {
            struct galloc_explain_buffer * eb = &out->buffers[b];
            if (eb->shared_with < 0) {
                ok = live_series(out, (int32_t) b, events, &eb->live_bytes) && find_peak(out, eb) && fold_live(doc, out, eb);
            }
        }
    }
    free(seen);
    free(order);
    free(sorted);
    free(buckets);
    free(events);
    free(chunk_end);
    free(per_type);
    free(running);
    if (!ok) {
        galloc_explain_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory explaining %d tensors", doc->n_tensors);
    }
    return true;
}

void galloc_explain_free(struct galloc_explain * ex) {
    if (!ex) {
        return;
    }
    for (int32_t b = 0; ex->buffers && b < ex->n_buffers; b++) {
        free(ex->buffers[b].live);
        free(ex->buffers[b].groups);
        free(ex->buffers[b].live_bytes.at);
        free(ex->buffers[b].live_bytes.bytes);
        free(ex->buffers[b].high_water.at);
        free(ex->buffers[b].high_water.bytes);
    }
    free(ex->buffers);
    free(ex->layer);
    free(ex->hold_buffer);
    free(ex->hold_first);
    free(ex->hold_last);
    free(ex->hold_bytes);
    free(ex->hold_chunk);
    free(ex->hold_offset);
    free(ex->held);
    free(ex->held_start);
    memset(ex, 0, sizeof(*ex));
}
