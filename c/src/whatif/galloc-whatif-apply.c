// galloc-whatif-apply.c: an offline planner's packing of one allocator put back into a graph's
// plan, so everything that reads plans (the explanation, the comparison) reads it too.
//
// The packing is per item (galloc-whatif.h: a tensor with memory of its own, and its in-place
// successors sharing it); each tensor of an item takes the item's chunk and offset, a view its
// source's plus its view_offs. Lifetimes stay ggml's: the items were made from them.

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

bool galloc_whatif_apply(const struct galloc_graph * graph, const struct galloc_plan * plan, const struct galloc_whatif_result * r,
                         const int32_t * chunks, const uint64_t * offsets, int32_t n_items, struct galloc_plan * out,
                         struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!graph || !plan || !r || !r->tensor_item || r->n_tensors != plan->n_tensors || plan->n_tensors != graph->n_tensors ||
        r->buffer_type < 0 || r->buffer_type >= plan->n_buffer_types) {
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
    out->n_tensors      = plan->n_tensors;
    out->n_buffer_types = plan->n_buffer_types;
    out->n_steps        = plan->n_steps;
    out->n_inplace      = plan->n_inplace;
    out->places         = malloc(((size_t) plan->n_tensors + 1) * sizeof(*out->places));
    out->buffers        = malloc(((size_t) plan->n_buffer_types + 1) * sizeof(*out->buffers));
    if (!out->places || !out->buffers) {
        galloc_whatif_plan_release(&placed);
        galloc_plan_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    memcpy(out->places, plan->places, (size_t) plan->n_tensors * sizeof(*out->places));
    memcpy(out->buffers, plan->buffers, (size_t) plan->n_buffer_types * sizeof(*out->buffers));
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        int32_t i = r->tensor_item[t];
        if (i >= 0 && i < n_items) {
            out->places[t].chunk  = placed.chunks[i];
            out->places[t].offset = placed.offsets[i];
        }
    }
    for (int32_t t = 0; t < plan->n_tensors; t++) {
        uint64_t offs = 0;
        int32_t  root = plan->places[t].how == GALLOC_HOW_VIEW ? view_root(plan, t, &offs, graph) : -1;
        if (root >= 0 && r->tensor_item[root] >= 0) {
            out->places[t].chunk  = out->places[root].chunk;
            out->places[t].offset = out->places[root].offset + offs;
        }
    }
    struct galloc_buffer_plan * bp = &out->buffers[r->buffer_type];
    memcpy(bp->chunk_sizes, placed.chunk_sizes, sizeof(placed.chunk_sizes));
    bp->n_chunks = placed.n_chunks;
    bp->size     = placed.total;
    galloc_whatif_plan_release(&placed);
    return true;
}
