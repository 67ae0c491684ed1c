// galloc-planner.h: the graph allocation planner, data in, data out.
//
// Takes a graph as plain arrays (tensors by index, nodes and leafs in
// order, a buffer type per node and leaf) and decides, as upstream ggml's
// ggml_gallocr does, which buffer type, chunk and offset every tensor gets.
// It also reports what the ggml API does not: when each tensor gets and
// loses its memory, why it was placed where it is, and the peak of live
// bytes per buffer type. The ggml_gallocr API, the JSON documents and the
// WASM module all plan through this one function.
//
// Example usage:
//
//   struct galloc_graph graph = { .n_tensors = n, .tensors = tensors, .n_nodes = ..., ... };
//   struct galloc_plan  plan;
//   struct galloc_error err;
//   if (!galloc_plan_graph(&graph, &plan, &err)) { puts(err); }
//   printf("tensor 3: chunk %d offset %llu\n", plan.places[3].chunk, (unsigned long long) plan.places[3].offset);
//   galloc_plan_free(&plan);

#pragma once

#include "galloc-dynalloc.h"
#include "galloc-status.h"
#include "ggml.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// one tensor as the planner sees it
struct galloc_tensor {
    // the fields a planning pass reads for every tensor come first, in one cache line
    int32_t  op;                // enum ggml_op
    int32_t  flags;             // GGML_TENSOR_FLAG_* bits
    int32_t  src[GGML_MAX_SRC]; // source tensor indices, -1 for an empty slot
    int32_t  view_src;          // root tensor whose memory this one aliases; -1 when not a view
    int32_t  external;          // nonzero: has memory before planning (data or buffer set): never placed
    uint64_t alloc_size;        // bytes the buffer type asks for (used when graph.alloc_size is NULL)
    uint64_t view_offs;         // bytes into view_src
    uint64_t nbytes;            // ggml_nbytes
    int32_t  type;              // enum ggml_type (only compared, for in-place layout checks)
    int64_t  ne[GGML_MAX_DIMS]; // elements per dimension
    uint64_t nb[GGML_MAX_DIMS]; // stride in bytes per dimension
};

// one entry of the buffer type list (ggml_gallocr_new_n's bufts)
struct galloc_buffer_type {
    uint64_t alignment; // power of two
    uint64_t max_size;  // largest chunk in bytes, GALLOC_NO_MAX_SIZE for none
    int32_t  allocator; // index of the first entry with the same type (its own index if none earlier)
};

struct galloc_graph {
    int32_t                      n_tensors;
    const struct galloc_tensor * tensors;
    int32_t                      n_nodes;
    const int32_t              * nodes;           // tensor indices in execution order
    const int32_t              * node_buffer_ids; // parallel to nodes; NULL: all 0
    int32_t                      n_leafs;
    const int32_t              * leafs;
    const int32_t              * leaf_buffer_ids; // parallel to leafs; NULL: all 0
    int32_t                      n_buffer_types;
    const struct galloc_buffer_type * buffer_types;
    // optional: bytes buffer type buffer_id asks for a tensor; NULL: tensors[i].alloc_size
    uint64_t (*alloc_size)(void * user, int32_t tensor, int32_t buffer_id);
    void     * user;
    // nonzero: skip what only reports need (views' places and lifetimes, "kept to the end" steps)
    int32_t    placement_only;
};

// why a tensor is where it is
enum galloc_how {
    GALLOC_HOW_NONE = 0,   // not placed: not in the graph, or never needed memory
    GALLOC_HOW_EXTERNAL,   // had memory before planning (weights, KV cache)
    GALLOC_HOW_BEST_FIT,   // best-fitting free block inside a chunk
    GALLOC_HOW_LAST_BLOCK, // last free block of a chunk, within the chunk's size so far
    GALLOC_HOW_GROW,       // last free block of a chunk, growing the chunk
    GALLOC_HOW_NEW_CHUNK,  // a new chunk
    GALLOC_HOW_INPLACE,    // took over the memory of `parent`, consumed here for the last time
    GALLOC_HOW_VIEW,       // aliases `parent` (its view_src) at view_offs
};

// where one tensor lives
struct galloc_place {
    int32_t  buffer;     // buffer type index whose memory it uses; -1 when not placed
    int32_t  chunk;
    uint64_t offset;     // bytes from the chunk's start
    uint64_t size;       // alloc size for placed tensors, nbytes for views
    int32_t  how;        // enum galloc_how
    int32_t  parent;     // INPLACE: the source taken over; VIEW: view_src; else -1
    int32_t  first_step; // node position at which it got memory; -1: before the first node
    int32_t  last_step;  // last node position at which its memory is its own (n_nodes - 1 if kept to the end)
    int32_t  freed;      // 1 when its memory was released or taken over during the pass
};

struct galloc_buffer_plan {
    int32_t  n_chunks;
    uint64_t chunk_sizes[GALLOC_MAX_CHUNKS]; // bytes each chunk's backend buffer needs
    uint64_t size;        // sum of chunk_sizes; 0 for a type that repeats an earlier one
    uint64_t peak_live;   // largest sum of (rounded) bytes held at once: the lower bound of any plan
    int32_t  shared_with; // earlier buffer type index sharing this allocator, or -1
};

struct galloc_plan {
    int32_t                     n_tensors;
    struct galloc_place       * places;  // one per tensor
    int32_t                     n_buffer_types;
    struct galloc_buffer_plan * buffers; // one per buffer type
    int32_t                     n_steps; // = n_nodes
    int32_t                     n_inplace; // tensors placed in place over a parent
    int32_t                     n_replaced; // tensors placed a second time: a node before them in the
                                            // graph consumed them last, so upstream placed them at that
                                            // step, released them there and places them again at their
                                            // own step; a place keeps only the second placement and its
                                            // steps (the lifetime reports refuse such plans)
    struct galloc_plan_scratch * scratch;  // private: working memory kept for galloc_plan_graph_reuse
};

// plan the graph. Checks indices, buffer ids and alignments (a clear message in err, false);
// never asserts on its input. On success the plan must be released with galloc_plan_free.
bool galloc_plan_graph(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_error * err);
void galloc_plan_free (struct galloc_plan * plan);

// the same, reusing the memory of a plan made before (or of a zeroed one): planning many graphs,
// or one graph again, allocates nothing once the plan is large enough. Still freed with galloc_plan_free.
bool galloc_plan_graph_reuse(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_error * err);

// same memory layout: equal type, ne and nb
bool galloc_same_layout(const struct galloc_tensor * a, const struct galloc_tensor * b);

const char * galloc_how_name(enum galloc_how how); // "best_fit", "inplace", ...
// true for the ways a tensor gets memory of its own from the allocator (best fit, last block,
// grow, new chunk); false in place, for views, outside the allocator and unplaced
bool galloc_how_allocates(int32_t how);

// bytes of a buffer above its peak of live bytes: what the packing costs beyond the tensors'
// own bytes (size - peak_live; 0 when the peak is not below the size). The one place of this
// rule: the plan document's "overhead", the explanation and the CLI take it from here.
uint64_t galloc_overhead_bytes(uint64_t size, uint64_t peak_live);

// true for ops (enum ggml_op) whose result may take over the memory of a source it consumes
// last: the planner's table, which ggml_op_can_inplace answers from
bool galloc_op_can_inplace(int32_t op);

#ifdef __cplusplus
}
#endif
