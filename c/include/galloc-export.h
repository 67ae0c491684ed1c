// galloc-export.h: write any ggml graph as a galloc graph document (JSON).
//
// For llama.cpp/ggml users: compile c/src/galloc-export.c into your own build
// (it needs only ggml.h, ggml-backend.h and ggml-impl.h for the graph's leafs,
// as ggml's own allocator test does), call it where the graph is allocated,
// and load the file in galloc to see and replay the plan.
//
// Example usage:
//
//   ggml_backend_buffer_type_t bufts[1] = { ggml_backend_cpu_buffer_type() };
//   size_t len;
//   char * json = galloc_export_graph(gf, "my-graph", bufts, 1, NULL, NULL, &len);
//   FILE * f = fopen("my-graph.graph.json", "w"); fwrite(json, 1, len, f); fclose(f);
//   free(json);

#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// the graph document of graph as planned by ggml_gallocr_new_n(bufts, n_bufts) +
// ggml_gallocr_reserve_n(graph, node_buffer_ids, leaf_buffer_ids) (ids may be NULL: all 0).
// Tensors that already have memory are written with "buffer_type" (their buffer's type,
// appended to the list when it is not one of bufts). malloc'd, NUL-terminated; NULL when out of memory.
char * galloc_export_graph(struct ggml_cgraph * graph, const char * name, ggml_backend_buffer_type_t * bufts, int n_bufts,
                           const int * node_buffer_ids, const int * leaf_buffer_ids, size_t * len);

// the tensors of graph in the order galloc_export_graph lists them (tensors[i] of its document
// is order[i]); malloc'd, *n_tensors entries; NULL when out of memory
struct ggml_tensor ** galloc_export_tensor_order(struct ggml_cgraph * graph, int32_t * n_tensors);

#ifdef __cplusplus
}
#endif
