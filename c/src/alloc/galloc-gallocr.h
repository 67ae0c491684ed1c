// galloc-gallocr.h: ggml_gallocr's plan itself, for callers that only measure (c/src/models).
//
// ggml_gallocr_reserve_n plans a graph, then (re)allocates buffers of size_t bytes. A caller that
// only wants the sizes (llama.cpp's compute buffer of a model, also on a 32-bit target where it may
// pass 4 GiB) takes the plan instead: the same pass on the same graph, chunk sizes in 64 bits, no
// buffer touched.
//
// Example usage:
//
//   ggml_gallocr_t galloc = ggml_gallocr_new(buft);
//   const struct galloc_plan * plan = galloc_gallocr_plan(galloc, graph, NULL, NULL, &err);
//   if (plan) printf("%llu bytes\n", (unsigned long long) plan->buffers[0].size);
//   ggml_gallocr_free(galloc);

#pragma once

#include "galloc-planner.h"
#include "ggml-alloc.h"

// plans graph as ggml_gallocr_reserve_n does and records the assignment (as ggml_gallocr_reserve_n_size,
// nothing allocated: alloc_graph refuses until a reserve); the plan is galloc's, placements only
// (no lifetimes), valid until its next reserve or plan. NULL with err filled when the tensors cannot
// be indexed (GALLOC_STATUS_NO_MEMORY) or the planner refuses the graph (its status).
const struct galloc_plan * galloc_gallocr_plan(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                               const int * leaf_buffer_ids, struct galloc_error * err);
