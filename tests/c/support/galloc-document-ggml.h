// galloc-document-ggml.h: a graph document rebuilt as real ggml objects, for ggml_gallocr.
//
// The planner reads documents directly; this builds the same graph the way a
// ggml program holds it (a no_alloc context with one ggml_tensor per
// document tensor, a ggml_cgraph with the document's nodes and leafs in
// order, one virtual buffer type per document buffer type, the tensors
// allocated outside the allocator placed in virtual buffers), so that
// ggml_gallocr itself can plan any document: to check that the ggml API path
// plans exactly as the planner does, and to time it on the graphs upstream
// was timed on.
//
// Example usage:
//
//   struct galloc_ggml_graph g;
//   if (galloc_document_to_ggml(&doc, &g, &err)) {
//       ggml_gallocr_t ga = ggml_gallocr_new_n(g.bufts, g.n_bufts);
//       ggml_gallocr_reserve_n(ga, g.graph, g.node_buffer_ids, g.leaf_buffer_ids);
//       ggml_gallocr_alloc_graph(ga, g.graph);   // g.tensors[i]->data: where tensor i went
//       ggml_gallocr_free(ga);
//       galloc_ggml_graph_free(&g);
//   }

#pragma once

#include "galloc-document.h"
#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

struct galloc_ggml_graph {
    struct ggml_context *        ctx;             // owns the tensors and the graph
    struct ggml_cgraph *         graph;
    struct ggml_tensor **        tensors;         // by document index
    int                          n_bufts;
    ggml_backend_buffer_type_t * bufts;           // virtual types with the document's alignments and max sizes
    int *                        node_buffer_ids; // parallel to graph->nodes (all 0 when the document has none)
    int *                        leaf_buffer_ids; // parallel to graph->leafs
    ggml_backend_buffer_t *      external;        // per buffer type: the buffer of the external tensors, or NULL
};

// build doc as ggml objects. false with a message in err when doc cannot be expressed through
// ggml's buffer type interface (a per-tensor alloc_size other than nbytes) or when out of memory.
bool galloc_document_to_ggml(const struct galloc_document * doc, struct galloc_ggml_graph * out, struct galloc_error * err);
// release everything (safe on a zeroed struct); buffers made by a ggml_gallocr must be freed first
void galloc_ggml_graph_free(struct galloc_ggml_graph * g);

#ifdef __cplusplus
}
#endif
