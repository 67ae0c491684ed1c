// galloc-whatif.c: the what-if analysis driver and its JSON output.
//
// Builds a problem (from a plan, a CSV text or given items), indexes it, runs every
// planner (ggml, the two greedy planners, the exact search from the best of them),
// checks each plan and picks the best; writes the result as JSON for the web UI.

#include "galloc-error.h"
#include "galloc-whatif-impl.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void galloc_whatif_free(struct galloc_whatif_result * r) {
    if (!r) {
        return;
    }
    for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        galloc_whatif_plan_release(&r->plans[k]);
    }
    free(r->problem.items);
    free(r->tensor_item);
    memset(r, 0, sizeof(*r));
}

void galloc_whatif_budget_start(struct galloc_whatif_budget * budget, uint32_t total_ms, int32_t n_problems) {
    budget->deadline_ms = galloc_whatif_now_ms() + (double) total_ms;
    budget->n_left      = n_problems > 0 ? n_problems : 1;
}

uint32_t galloc_whatif_budget_next(struct galloc_whatif_budget * budget) {
    double left = budget->deadline_ms - galloc_whatif_now_ms();
    int32_t n   = budget->n_left > 1 ? budget->n_left : 1;
    if (budget->n_left > 1) {
        budget->n_left--;
    }
    return left <= 0 ? 0 : (uint32_t) (left / n);
}

// every planner after ggml's (which the caller set, or nobody: then it is replayed)
static bool solve(struct galloc_whatif_result * r, bool have_ggml, uint32_t budget_ms, struct galloc_error * err) {
    const struct galloc_whatif_problem * p = &r->problem;
    struct galloc_whatif_index                  x;
    if (!galloc_whatif_index_build(p, &x, err)) {
        return false;
    }
    r->lower_bound = x.lower_bound;
    struct galloc_whatif_plan * plans = r->plans;
    bool ok = true;
    if (!have_ggml) {
        ok = galloc_whatif_plan_init(&plans[GALLOC_WHATIF_GGML], p->n_items, "ggml") && galloc_whatif_ggml_replay(p, &plans[GALLOC_WHATIF_GGML]);
    }
    ok = ok && galloc_whatif_plan_init(&plans[GALLOC_WHATIF_GREEDY_SIZE], p->n_items, "greedy-by-size") &&
         galloc_whatif_greedy_by_size(p, &x, &plans[GALLOC_WHATIF_GREEDY_SIZE]);
    ok = ok && galloc_whatif_plan_init(&plans[GALLOC_WHATIF_GREEDY_BREADTH], p->n_items, "greedy-by-breadth") &&
         galloc_whatif_greedy_by_breadth(p, &x, &plans[GALLOC_WHATIF_GREEDY_BREADTH]);
    struct galloc_error msg;
    for (int k = 0; ok && k < GALLOC_WHATIF_EXACT; k++) {
        plans[k].checked = galloc_whatif_check(p, &plans[k], &msg);
    }
    // the exact search starts from the smallest checked heuristic plan
    int32_t start = -1;
    for (int k = 0; ok && k < GALLOC_WHATIF_EXACT; k++) {
        if (plans[k].checked && (start < 0 || plans[k].total < plans[start].total)) {
            start = k;
        }
    }
    ok = ok && galloc_whatif_plan_init(&plans[GALLOC_WHATIF_EXACT], p->n_items, "exact");
    if (ok && start >= 0) {
        // an eighth of the time for after the search (galloc-whatif-after.c: the repair search,
        // then the window bound), spent only when the search proved nothing
        uint32_t bound_ms = galloc_whatif_unlimited(p, &x) ? budget_ms / 8 : 0;
        double   t0       = galloc_whatif_now_ms();
        ok = galloc_whatif_exact(p, &x, &plans[start], budget_ms - bound_ms, &plans[GALLOC_WHATIF_EXACT]);
        double left = (double) budget_ms - (galloc_whatif_now_ms() - t0);
        ok = ok && galloc_whatif_after_search(p, &x, left > 0 && bound_ms ? (uint32_t) left : 0, &plans[GALLOC_WHATIF_EXACT]);
        if (ok) {
            plans[GALLOC_WHATIF_EXACT].checked = galloc_whatif_check(p, &plans[GALLOC_WHATIF_EXACT], &msg);
        }
    } else if (ok) {
        plans[GALLOC_WHATIF_EXACT].note = "no checked plan to start from";
    }
    galloc_whatif_index_free(&x);
    if (!ok) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory planning %d items", p->n_items);
    }
    r->best = galloc_whatif_pick_best(plans);
    return true;
}

int32_t galloc_whatif_pick_best(const struct galloc_whatif_plan * plans) {
    int32_t best = GALLOC_WHATIF_GGML;
    for (int32_t k = 1; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        // smaller, or as small as a ggml plan that fails the checker (explain --offline best then has
        // a checked plan to show where it had none)
        if (plans[k].valid && plans[k].checked &&
            (plans[k].total < plans[best].total || (plans[k].total == plans[best].total && !plans[best].checked))) {
            best = k;
        }
    }
    return best;
}

// one allocator's problem through the plan's tensor index, unsolved (as galloc_whatif_items_from_plan);
// tensor_item (NULL: not wanted) gets the item of each of the allocator's tensors
static bool items_indexed(const struct galloc_graph * graph, const struct galloc_plan * plan, struct galloc_whatif_tensors * tensors,
                          int32_t buffer_type, int32_t * tensor_item, struct galloc_whatif_result * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!graph || !plan || !plan->places || !plan->buffers || !graph->buffer_types || !tensors || !tensors->start) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: no graph, plan or tensor index");
    }
    if (plan->n_tensors != graph->n_tensors || plan->n_buffer_types != graph->n_buffer_types || tensors->n_tensors != plan->n_tensors ||
        tensors->n_buffer_types != graph->n_buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the plan (%d tensors, %d buffer types) is not of this graph (%d, %d)", plan->n_tensors,
                    plan->n_buffer_types, graph->n_tensors, graph->n_buffer_types);
    }
    if (graph->placement_only) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the plan was made with placement_only, without the lifetimes it needs");
    }
    if (buffer_type < 0 || buffer_type >= graph->n_buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: buffer type %d out of range (%d buffer types)", buffer_type, graph->n_buffer_types);
    }
    int32_t a = graph->buffer_types[buffer_type].allocator;
    if (a < 0 || a > buffer_type) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "whatif: buffer type %d shares an invalid allocator %d", buffer_type, a);
    }
    out->buffer_type = a;
    if (!galloc_whatif_problem_from_plan(graph, plan, tensors, a, &out->problem, tensor_item, &out->n_shrinking, &out->plans[GALLOC_WHATIF_GGML], err)) {
        galloc_whatif_free(out);
        return false;
    }
    out->peak_live = plan->buffers[a].peak_live;
    out->best      = GALLOC_WHATIF_GGML;
    return true;
}

bool galloc_whatif_items_from_plan(const struct galloc_graph * graph, const struct galloc_plan * plan, int32_t buffer_type,
                                   struct galloc_whatif_result * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    struct galloc_whatif_tensors tensors;
    if (!galloc_whatif_tensors_build(graph, plan, &tensors, err)) {
        return false;
    }
    // tensor_item: every tensor of the graph, -1 unless the allocator's problem holds it
    int32_t * tensor_item = malloc(((size_t) plan->n_tensors + 1) * sizeof(int32_t));
    if (!tensor_item) {
        galloc_whatif_tensors_free(&tensors);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        tensor_item[t] = -1;
    }
    bool ok = items_indexed(graph, plan, &tensors, buffer_type, tensor_item, out, err);
    galloc_whatif_tensors_free(&tensors);
    if (!ok) {
        free(tensor_item);
        return false;
    }
    out->n_tensors   = plan->n_tensors;
    out->tensor_item = tensor_item;
    return true;
}

bool galloc_whatif_from_plan(const struct galloc_graph * graph, const struct galloc_plan * plan, int32_t buffer_type,
                             uint32_t exact_budget_ms, struct galloc_whatif_result * out, struct galloc_error * err) {
    if (!galloc_whatif_items_from_plan(graph, plan, buffer_type, out, err)) {
        return false;
    }
    if (!solve(out, true, exact_budget_ms, err)) {
        galloc_whatif_free(out);
        return false;
    }
    return true;
}

bool galloc_whatif_from_plan_tensors(const struct galloc_graph * graph, const struct galloc_plan * plan, struct galloc_whatif_tensors * tensors,
                                     int32_t buffer_type, uint32_t exact_budget_ms, struct galloc_whatif_result * out, struct galloc_error * err) {
    if (!items_indexed(graph, plan, tensors, buffer_type, NULL, out, err)) {
        return false;
    }
    if (!solve(out, true, exact_budget_ms, err)) {
        galloc_whatif_free(out);
        return false;
    }
    return true;
}

bool galloc_whatif_from_csv(const char * csv, size_t len, uint64_t capacity, uint32_t exact_budget_ms, struct galloc_whatif_result * out,
                            struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    out->buffer_type = -1;
    if (!galloc_whatif_problem_from_csv(csv, len, &out->problem, err)) {
        return false;
    }
    out->problem.capacity = capacity;
    if (!solve(out, false, exact_budget_ms, err)) {
        galloc_whatif_free(out);
        return false;
    }
    out->peak_live = out->lower_bound;
    return true;
}

bool galloc_whatif_from_problem(const struct galloc_whatif_problem * problem, uint32_t exact_budget_ms, struct galloc_whatif_result * out,
                                struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    out->buffer_type = -1;
    const struct galloc_whatif_problem * p = problem;
    if (!p || p->n_items < 0 || (p->n_items > 0 && !p->items)) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "whatif: no items");
    }
    if (p->alignment == 0 || (p->alignment & (p->alignment - 1)) != 0 || p->alignment > ((uint64_t) 1 << 30)) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "whatif: alignment %llu is not a power of two up to 2^30", (unsigned long long) p->alignment);
    }
    if (p->max_size == 0) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "whatif: max size 0");
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        const struct galloc_whatif_item * it = &p->items[i];
        if (it->size > GALLOC_WHATIF_MAX_ITEM_BYTES) {
            return galloc_fail(err, GALLOC_STATUS_LIMIT, "whatif: item %d: size %llu is past 2^40", i, (unsigned long long) it->size);
        }
        if (it->first < -1 || it->first > it->last || it->last > GALLOC_WHATIF_MAX_TIME) {
            return galloc_fail(err, GALLOC_STATUS_LIMIT, "whatif: item %d: lifetime [%lld, %lld] is not within [-1, 2^62]", i, (long long) it->first,
                        (long long) it->last);
        }
    }
    out->problem       = *p;
    out->problem.items = malloc(((size_t) p->n_items + 1) * sizeof(struct galloc_whatif_item));
    if (!out->problem.items) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    for (int32_t i = 0; i < p->n_items; i++) {
        out->problem.items[i]      = p->items[i];
        out->problem.items[i].size = (p->items[i].size + p->alignment - 1) & ~(p->alignment - 1);
    }
    if (!solve(out, false, exact_budget_ms, err)) {
        galloc_whatif_free(out);
        return false;
    }
    out->peak_live = out->lower_bound;
    return true;
}

// ---- JSON --------------------------------------------------------------------------

static void write_u64_or_null(struct galloc_json_writer * w, const char * key, uint64_t v, uint64_t null_value) {
    galloc_json_write_newline(w, 2);
    galloc_json_write_key(w, key);
    if (v == null_value) {
        galloc_json_write_null(w);
    } else {
        galloc_json_write_u64(w, v);
    }
}

uint64_t galloc_whatif_above_bound(const struct galloc_whatif_result * r, const struct galloc_whatif_plan * plan, double * percent) {
    uint64_t above = plan->total > r->lower_bound ? plan->total - r->lower_bound : 0;
    if (percent) {
        *percent = r->lower_bound ? 100.0 * (double) above / (double) r->lower_bound : 0.0;
    }
    return above;
}

static void write_plan(struct galloc_json_writer * w, const struct galloc_whatif_result * r, const struct galloc_whatif_plan * pl,
                       int32_t n_items, uint64_t capacity, bool is_exact) {
    galloc_json_write_newline(w, 4);
    galloc_json_write_begin_object(w);
    galloc_json_write_key_cstr(w, "name", pl->name ? pl->name : "");
    galloc_json_write_key_bool(w, "valid", pl->valid);
    galloc_json_write_key_bool(w, "checked", pl->checked);
    galloc_json_write_key_u64(w, "total", pl->total);
    double percent = 0;
    galloc_json_write_key_u64(w, "above_bound", galloc_whatif_above_bound(r, pl, &percent));
    galloc_json_write_key(w, "above_bound_percent"); // null: the bound is 0
    if (r->lower_bound) {
        galloc_json_write_f64(w, percent);
    } else {
        galloc_json_write_null(w);
    }
    galloc_json_write_key(w, "chunk_sizes");
    galloc_json_write_u64_array(w, pl->chunk_sizes, (size_t) pl->n_chunks);
    galloc_json_write_key_u64(w, "time_us", pl->time_ms > 0 ? (uint64_t) (pl->time_ms * 1000.0) : 0);
    galloc_json_write_key_u64(w, "found_us", pl->found_ms > 0 ? (uint64_t) (pl->found_ms * 1000.0) : 0);
    galloc_json_write_key(w, "fit_us"); // when a plan within the capacity was there; null: never, or no capacity
    if (capacity && is_exact && pl->fit_ms >= 0) {
        galloc_json_write_u64(w, (uint64_t) (pl->fit_ms * 1000.0));
    } else if (capacity && !is_exact && pl->total <= capacity) {
        galloc_json_write_u64(w, 0);
    } else {
        galloc_json_write_null(w);
    }
    galloc_json_write_key_bool(w, "proved_optimal", pl->proved_optimal);
    galloc_json_write_key_u64(w, "bound", pl->bound);
    galloc_json_write_key_u64(w, "nodes", pl->nodes);
    galloc_json_write_key_cstr(w, "note", pl->note ? pl->note : "");
    galloc_json_write_newline(w, 6);
    galloc_json_write_key(w, "chunks");
    galloc_json_write_i32_array(w, pl->chunks, pl->chunks ? (size_t) n_items : 0);
    galloc_json_write_newline(w, 6);
    galloc_json_write_key(w, "offsets");
    galloc_json_write_u64_array(w, pl->offsets, pl->offsets ? (size_t) n_items : 0);
    galloc_json_write_newline(w, 4);
    galloc_json_write_end_object(w);
}

char * galloc_whatif_write_json(const struct galloc_whatif_result * r, size_t * len) {
    const struct galloc_whatif_problem * p = &r->problem;
    struct galloc_json_writer                   w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "format");
    galloc_json_write_cstr(&w, "galloc-whatif");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "version");
    galloc_json_write_u64(&w, 1);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "buffer_type");
    if (r->buffer_type >= 0) {
        galloc_json_write_i64(&w, r->buffer_type);
    } else {
        galloc_json_write_null(&w);
    }
    write_u64_or_null(&w, "alignment", p->alignment, 0);
    write_u64_or_null(&w, "max_size", p->max_size, GALLOC_NO_MAX_SIZE);
    write_u64_or_null(&w, "capacity", p->capacity, 0);
    write_u64_or_null(&w, "lower_bound", r->lower_bound, UINT64_MAX);
    write_u64_or_null(&w, "peak_live", r->peak_live, UINT64_MAX);
    write_u64_or_null(&w, "n_shrinking", (uint64_t) r->n_shrinking, UINT64_MAX);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "best");
    galloc_json_write_cstr(&w, r->plans[r->best].name ? r->plans[r->best].name : "");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "items");
    galloc_json_write_begin_array(&w);
    for (int32_t i = 0; i < p->n_items; i++) {
        const struct galloc_whatif_item * it = &p->items[i];
        galloc_json_write_newline(&w, 4);
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "id");
        galloc_json_write_i64(&w, it->id);
        galloc_json_write_key(&w, "tensors");
        galloc_json_write_i64(&w, it->n_tensors);
        galloc_json_write_key(&w, "size");
        galloc_json_write_u64(&w, it->size);
        galloc_json_write_key(&w, "first");
        galloc_json_write_i64(&w, it->first);
        galloc_json_write_key(&w, "last");
        galloc_json_write_i64(&w, it->last);
        galloc_json_write_end_object(&w);
    }
    if (p->n_items > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "planners");
    galloc_json_write_begin_array(&w);
    for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        write_plan(&w, r, &r->plans[k], p->n_items, p->capacity, k == GALLOC_WHATIF_EXACT);
    }
    galloc_json_write_newline(&w, 2);
    galloc_json_write_end_array(&w);
    if (r->tensor_item) {
        galloc_json_write_newline(&w, 2);
        galloc_json_write_key(&w, "tensor_item");
        galloc_json_write_i32_array(&w, r->tensor_item, (size_t) r->n_tensors);
    }
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    galloc_json_write_newline(&w, 0);
    return galloc_json_writer_finish(&w, len);
}
