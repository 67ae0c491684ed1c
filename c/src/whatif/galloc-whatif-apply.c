// galloc-whatif-apply.c: an offline planner's packing of one allocator put back into a graph's
// plan, so everything that reads plans (the explanation, the comparison) reads it too.
//
// The packing is per item (galloc-whatif.h: a tensor with memory of its own, and its in-place
// successors sharing it); each tensor of an item takes the item's chunk and offset, a view its
// source's plus its view_offs. Lifetimes stay ggml's: the items were made from them. Through the
// plan's tensor index, one allocator costs its own tensors only, so packing every allocator of
// a plan is linear in the tensors (galloc_whatif_apply_indexed into one copy of the plan).

#include "galloc-error.h"
#include "galloc-whatif-impl.h"

#include <stdlib.h>
#include <string.h>

// the tensor whose memory view t aliases (following views of views), -1 when there is none
static int32_t view_root(const struct galloc_plan * plan, int32_t t, uint64_t * offs, const struct galloc_graph * graph) {
    *offs = 0;
    for (int32_t hops = 0; hops <= plan->n_tensors; hops++) {
        const struct galloc_place * p = &plan->places[t];
        if (p->how != GALLOC_HOW_VIEW) {
            return t;
        }
        if (p->parent < 0 || p->parent >= plan->n_tensors) {
            return -1;
        }
        *offs += graph->tensors[t].view_offs;
        t = p->parent;
    }
    return -1; // a cycle: no plan has one, so nothing to move
}

bool galloc_whatif_plan_copy(const struct galloc_plan * plan, struct galloc_plan * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!plan || !plan->places || !plan->buffers || plan->n_tensors < 0 || plan->n_buffer_types < 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: no plan to copy");
    }
    out->n_tensors      = plan->n_tensors;
    out->n_buffer_types = plan->n_buffer_types;
    out->n_steps        = plan->n_steps;
    out->n_inplace      = plan->n_inplace;
    out->n_replaced     = plan->n_replaced;
    out->places         = malloc(((size_t) plan->n_tensors + 1) * sizeof(*out->places));
    out->buffers        = malloc(((size_t) plan->n_buffer_types + 1) * sizeof(*out->buffers));
    if (!out->places || !out->buffers) {
        galloc_plan_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory copying a plan of %d tensors", plan->n_tensors);
    }
    memcpy(out->places, plan->places, (size_t) plan->n_tensors * sizeof(*out->places));
    memcpy(out->buffers, plan->buffers, (size_t) plan->n_buffer_types * sizeof(*out->buffers));
    return true;
}

// per tensor of allocator a (x->scratch) the item holding it, numbered as the problem numbered
// them (galloc_whatif_problem_from_plan); false when r's items are not those tensors'
static bool number_items(const struct galloc_plan * plan, struct galloc_whatif_tensors * x, int32_t a, const struct galloc_whatif_result * r) {
    const int32_t * list = x->list + x->start[a];
    int32_t         nl   = x->start[a + 1] - x->start[a];
    int32_t         n    = 0;
    bool            ok   = true;
    for (int32_t k = 0; k < nl && ok; k++) {
        int32_t t = list[k];
        if (galloc_how_allocates(plan->places[t].how)) {
            ok = n < r->problem.n_items && r->problem.items[n].id == t;
            x->scratch[t] = n++;
        }
    }
    for (int32_t k = 0; k < nl && ok; k++) { // in-place tensors: their chain's first tensor's item
        int32_t t = list[k];
        if (plan->places[t].how == GALLOC_HOW_INPLACE) {
            x->scratch[t] = x->root[t] >= 0 ? x->scratch[x->root[t]] : -1;
        }
    }
    return ok && n == r->problem.n_items;
}

bool galloc_whatif_apply_indexed(const struct galloc_graph * graph, struct galloc_whatif_tensors * tensors, const struct galloc_whatif_result * r,
                                 const int32_t * chunks, const uint64_t * offsets, int32_t n_items, struct galloc_plan * plan,
                                 struct galloc_error * err) {
    if (!graph || !plan || !plan->places || !plan->buffers || !r || !tensors || !tensors->start || tensors->n_tensors != plan->n_tensors ||
        plan->n_tensors != graph->n_tensors || tensors->n_buffer_types != plan->n_buffer_types || r->buffer_type < 0 ||
        r->buffer_type >= plan->n_buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the problem is not of this plan");
    }
    if (n_items != r->problem.n_items || (n_items > 0 && (!chunks || !offsets))) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: a placement of %d items for a problem of %d", n_items, r->problem.n_items);
    }
    struct galloc_whatif_plan placed;
    if (!galloc_whatif_plan_init(&placed, n_items, "placement")) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    for (int32_t i = 0; i < n_items; i++) {
        placed.chunks[i]  = chunks[i];
        placed.offsets[i] = offsets[i];
    }
    galloc_whatif_plan_finish(&r->problem, &placed);
    if (!galloc_whatif_check(&r->problem, &placed, err)) {
        galloc_whatif_plan_release(&placed);
        return false;
    }
    int32_t         a    = r->buffer_type;
    const int32_t * list = tensors->list + tensors->start[a];
    int32_t         nl   = tensors->start[a + 1] - tensors->start[a];
    bool            ok   = number_items(plan, tensors, a, r);
    if (ok) {
        // the items' tensors first, then the views (in their source's buffer, as the planner puts them) over them
        for (int32_t k = 0; k < nl; k++) {
            int32_t i = tensors->scratch[list[k]];
            if (i >= 0) {
                plan->places[list[k]].chunk  = placed.chunks[i];
                plan->places[list[k]].offset = placed.offsets[i];
            }
        }
        for (int32_t k = 0; k < nl; k++) {
            int32_t  t    = list[k];
            uint64_t offs = 0;
            int32_t  root = plan->places[t].how == GALLOC_HOW_VIEW ? view_root(plan, t, &offs, graph) : -1;
            if (root >= 0 && tensors->scratch[root] >= 0) {
                plan->places[t].chunk  = plan->places[root].chunk;
                plan->places[t].offset = plan->places[root].offset + offs;
            }
        }
        struct galloc_buffer_plan * bp = &plan->buffers[a];
        memcpy(bp->chunk_sizes, placed.chunk_sizes, sizeof(placed.chunk_sizes));
        bp->n_chunks = placed.n_chunks;
        bp->size     = placed.total;
    }
    for (int32_t k = 0; k < nl; k++) { // the scratch as it was found
        tensors->scratch[list[k]] = -1;
    }
    galloc_whatif_plan_release(&placed);
    return ok || galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the problem's items are not the tensors of allocator %d in this plan", a);
}

bool galloc_whatif_apply(const struct galloc_graph * graph, const struct galloc_plan * plan, const struct galloc_whatif_result * r,
                         const int32_t * chunks, const uint64_t * offsets, int32_t n_items, struct galloc_plan * out,
                         struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!graph || !plan || !r || plan->n_tensors != graph->n_tensors) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "whatif: the problem is not of this plan");
    }
    struct galloc_whatif_tensors tensors;
    if (!galloc_whatif_tensors_build(graph, plan, &tensors, err)) {
        return false;
    }
    bool ok = galloc_whatif_plan_copy(plan, out, err) && galloc_whatif_apply_indexed(graph, &tensors, r, chunks, offsets, n_items, out, err);
    galloc_whatif_tensors_free(&tensors);
    if (!ok) {
        galloc_plan_free(out);
    }
    return ok;
}
