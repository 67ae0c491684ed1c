// galloc-document-ggml.c: a graph document rebuilt as ggml tensors and a ggml_cgraph (see galloc-document-ggml.h).

#include "galloc-document-ggml.h"
#include "galloc-error.h"
#include "galloc-virtual.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool make_buffer_types(const struct galloc_document * doc, struct galloc_ggml_graph * g) {
    g->bufts    = calloc((size_t) doc->n_buffer_types, sizeof(*g->bufts));
    g->external = calloc((size_t) doc->n_buffer_types, sizeof(*g->external));
    if (!g->bufts || !g->external) {
        return false;
    }
    g->n_bufts = doc->n_buffer_types;
    for (int b = 0; b < doc->n_buffer_types; b++) {
        const struct galloc_buffer_type * bt = &doc->buffer_types[b];
        size_t max_size = bt->max_size >= (uint64_t) SIZE_MAX ? SIZE_MAX : (size_t) bt->max_size;
        // a type listed twice in the document is one ggml buffer type listed twice
        g->bufts[b] = bt->allocator != b ? g->bufts[bt->allocator]
                                         : galloc_virtual_buft_new(doc->buffer_type_names[b], (size_t) bt->alignment, max_size);
        if (!g->bufts[b]) {
            return false;
        }
    }
    return true;
}

static bool make_tensors(const struct galloc_document * doc, struct galloc_ggml_graph * g) {
    g->tensors = calloc((size_t) doc->n_tensors + 1, sizeof(*g->tensors));
    if (!g->tensors) {
        return false;
    }
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        const struct galloc_tensor * d = &doc->tensors[i];
        struct ggml_tensor *         t = ggml_new_tensor(g->ctx, (enum ggml_type) d->type, GGML_MAX_DIMS, d->ne);
        if (!t) {
            return false;
        }
        for (int k = 0; k < GGML_MAX_DIMS; k++) {
            t->nb[k] = (size_t) d->nb[k];
        }
        t->op    = (enum ggml_op) d->op; // an op this ggml lacks keeps its id: ggml_op_can_inplace says no
        t->flags = d->flags;
        if (d->external && doc->tensor_buffer_type[i] < 0) {
            static char outside_any_buffer[1];
            t->data = outside_any_buffer; // data and no buffer: upstream treats it as allocated
        }
        ggml_set_name(t, doc->tensor_names[i]);
        g->tensors[i] = t;
    }
    // sources and views once every tensor exists (they may point forwards)
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        const struct galloc_tensor * d = &doc->tensors[i];
        struct ggml_tensor *         t = g->tensors[i];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            t->src[s] = d->src[s] >= 0 ? g->tensors[d->src[s]] : NULL;
        }
        t->view_src  = d->view_src >= 0 ? g->tensors[d->view_src] : NULL;
        t->view_offs = (size_t) d->view_offs;
    }
    return true;
}

// one virtual buffer per buffer type for the tensors the document says live outside the allocator
static bool place_external_tensors(const struct galloc_document * doc, struct galloc_ggml_graph * g) {
    for (int b = 0; b < doc->n_buffer_types; b++) {
        size_t alignment = (size_t) doc->buffer_types[b].alignment;
        size_t size      = 0;
        for (int32_t i = 0; i < doc->n_tensors; i++) {
            if (doc->tensors[i].external && doc->tensor_buffer_type[i] == b) {
                size += GGML_PAD((size_t) doc->tensors[i].nbytes, alignment);
            }
        }
        if (size == 0) {
            continue;
        }
        // a buffer of the type itself (virtual buffers are not held to the type's max size), with room
        // to align the fake base address up to the alignment
        g->external[b] = ggml_backend_buft_alloc_buffer(g->bufts[b], size + alignment);
        if (!g->external[b]) {
            return false;
        }
        struct ggml_tallocr tallocr = ggml_tallocr_new(g->external[b]);
        for (int32_t i = 0; i < doc->n_tensors; i++) {
            if (doc->tensors[i].external && doc->tensor_buffer_type[i] == b && g->tensors[i]->view_src == NULL) {
                ggml_tallocr_alloc(&tallocr, g->tensors[i]);
            }
        }
    }
    return true;
}

static bool make_graph(const struct galloc_document * doc, struct galloc_ggml_graph * g, size_t graph_size) {
    g->graph           = ggml_new_graph_custom(g->ctx, graph_size, false);
    g->node_buffer_ids = calloc((size_t) doc->n_nodes + 1, sizeof(int));
    g->leaf_buffer_ids = calloc((size_t) doc->n_leafs + 1, sizeof(int));
    if (!g->graph || !g->node_buffer_ids || !g->leaf_buffer_ids) {
        return false;
    }
    for (int32_t i = 0; i < doc->n_nodes; i++) {
        g->graph->nodes[i]    = g->tensors[doc->nodes[i]];
        g->node_buffer_ids[i] = doc->node_buffer_ids ? doc->node_buffer_ids[i] : 0;
    }
    for (int32_t i = 0; i < doc->n_leafs; i++) {
        g->graph->leafs[i]    = g->tensors[doc->leafs[i]];
        g->leaf_buffer_ids[i] = doc->leaf_buffer_ids ? doc->leaf_buffer_ids[i] : 0;
    }
    g->graph->n_nodes = doc->n_nodes;
    g->graph->n_leafs = doc->n_leafs;
    return true;
}

bool galloc_document_to_ggml(const struct galloc_document * doc, struct galloc_ggml_graph * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        if (doc->tensor_alloc_sizes != NULL && doc->tensor_alloc_sizes[i] >= 0) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].alloc_sizes: sizes per buffer type, which the virtual buffer types here cannot express", i);
        }
        if (doc->tensors[i].type >= GALLOC_DOCUMENT_UNKNOWN) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].type: %s is not a type of this ggml", i, galloc_document_type_name(doc, i));
        }
        if (doc->tensors[i].alloc_size != doc->tensors[i].nbytes) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].alloc_size: %llu differs from nbytes (%llu), which a ggml buffer type here cannot express",
                               i, (unsigned long long) doc->tensors[i].alloc_size, (unsigned long long) doc->tensors[i].nbytes);
        }
    }
    size_t graph_size = (size_t) (doc->n_nodes > doc->n_leafs ? doc->n_nodes : doc->n_leafs) + 1;
    struct ggml_init_params params = {
        .mem_size   = ((size_t) doc->n_tensors + 1) * ggml_tensor_overhead() + ggml_graph_overhead_custom(graph_size, false),
        .mem_buffer = NULL,
        .no_alloc   = true,
    };
    out->ctx = ggml_init(params);
    bool ok  = out->ctx && make_buffer_types(doc, out) && make_tensors(doc, out) && place_external_tensors(doc, out) &&
              make_graph(doc, out, graph_size);
    if (!ok) {
        galloc_ggml_graph_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory while building %d ggml tensors", doc->n_tensors);
    }
    return true;
}

void galloc_ggml_graph_free(struct galloc_ggml_graph * g) {
    if (g->external) {
        for (int b = 0; b < g->n_bufts; b++) {
            ggml_backend_buffer_free(g->external[b]);
        }
    }
    if (g->bufts) {
        for (int b = 0; b < g->n_bufts; b++) {
            bool first = true; // a type listed twice is freed once
            for (int k = 0; k < b; k++) {
                first = first && g->bufts[k] != g->bufts[b];
            }
            if (first) {
                galloc_virtual_buft_free(g->bufts[b]);
            }
        }
    }
    ggml_free(g->ctx);
    free(g->tensors);
    free(g->bufts);
    free(g->external);
    free(g->node_buffer_ids);
    free(g->leaf_buffer_ids);
    memset(g, 0, sizeof(*g));
}
