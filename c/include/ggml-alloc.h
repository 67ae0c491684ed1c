// ggml-alloc.h: the tensor allocator and the graph allocator, as in ggml.
//
// The graph allocator plans where every tensor of a graph lives so that
// tensors whose lifetimes do not overlap share memory, then allocates one
// backend buffer per chunk of each buffer type and places the tensors. Plans
// equal upstream ggml's for the same graph; unlike upstream there is no limit
// on the number of free blocks in a chunk.
//
// Example usage:
//
//   ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
//
//   // optional: create a worst-case graph and reserve the buffers to avoid reallocations
//   ggml_gallocr_reserve(galloc, build_graph(max_batch));
//
//   // allocate the graph
//   struct ggml_cgraph * graph = build_graph(batch);
//   ggml_gallocr_alloc_graph(galloc, graph);
//
//   printf("compute buffer size: %zu bytes\n", ggml_gallocr_get_buffer_size(galloc, 0));
//
//   // evaluate the graph
//   ggml_backend_graph_compute(backend, graph);

#pragma once

#include "ggml.h"
#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// tensor allocator: tensors one after another in a single buffer
//

struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void *                base;
    size_t                alignment;
    size_t                offset; // bytes of the buffer already handed out
};

GGML_API struct ggml_tallocr ggml_tallocr_new  (ggml_backend_buffer_t buffer);
GGML_API enum ggml_status    ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor);

//
// graph allocator
//

typedef struct ggml_gallocr * ggml_gallocr_t;

// one allocator per distinct buffer type; a type listed twice shares the allocator and its buffer
GGML_API ggml_gallocr_t ggml_gallocr_new  (ggml_backend_buffer_type_t buft);
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free (ggml_gallocr_t galloc);

// plan the graph and (re)allocate the buffers if the plan needs more than they have
// node_buffer_ids/leaf_buffer_ids: the buffer type of each node and leaf (NULL: all 0)
// returns false when a buffer cannot be allocated; the assignment is kept (as upstream), so
// alloc_graph of a graph that fits it returns false until a reserve succeeds
GGML_API bool ggml_gallocr_reserve  (ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph,
                                     const int * node_buffer_ids, const int * leaf_buffer_ids);

// plan only, allocate nothing: sizes[i] is the summed chunk sizes of buffer type i; a buffer the
// plan does not fit in is freed (as upstream); the assignment is recorded for alloc_graph
GGML_API void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph * graph,
                                          const int * node_buffer_ids, const int * leaf_buffer_ids, size_t * sizes);

// place the graph's tensors; a graph that no longer fits the last plan (upstream's test: node and
// leaf counts, every node and source slot no larger than recorded) is re-planned automatically
// with one buffer type, and refused (false) with several
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

// summed chunk sizes of buffer i; 0 for a buffer type that repeats an earlier one
GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

// true for ops whose result may take over the memory of a source it consumes last
GGML_API bool ggml_op_can_inplace(enum ggml_op op);

//
// allocating all tensors of a context (weights, KV caches)
//

// tensors in creation order; a new buffer starts when the current one would pass max_size;
// several buffers come back wrapped as one. NULL when nothing needed memory or allocation failed.
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);

#ifdef __cplusplus
}
#endif
