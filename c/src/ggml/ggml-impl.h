// ggml-impl.h: internals of ggml that allocator code and its tests reach into.
//
// Holds the graph structure (upstream's `struct ggml_cgraph` fields
// `n_nodes`, `nodes`, `n_leafs`, `leafs` are read directly by callers), the
// pointer hash set graphs use to mark visited tensors, and small helpers the
// library shares between modules.

#pragma once

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MIN
#    define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#    define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

//
// logging (to stderr; level names as upstream)
//

enum ggml_log_level {
    GGML_LOG_LEVEL_NONE  = 0,
    GGML_LOG_LEVEL_DEBUG = 1,
    GGML_LOG_LEVEL_INFO  = 2,
    GGML_LOG_LEVEL_WARN  = 3,
    GGML_LOG_LEVEL_ERROR = 4,
    GGML_LOG_LEVEL_CONT  = 5,
};

GGML_ATTRIBUTE_FORMAT(2, 3)
void ggml_log_internal(enum ggml_log_level level, const char * format, ...);

#define GGML_LOG_INFO(...)  ggml_log_internal(GGML_LOG_LEVEL_INFO , __VA_ARGS__)
#define GGML_LOG_WARN(...)  ggml_log_internal(GGML_LOG_LEVEL_WARN , __VA_ARGS__)
#define GGML_LOG_ERROR(...) ggml_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)
#define GGML_LOG_DEBUG(...) ggml_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)

// quiet (default: errors only) or verbose logging of the library
void ggml_log_set_verbose(bool verbose);

//
// pointer hash set (open addressing, linear probing)
//

struct ggml_hash_set {
    size_t                size;  // number of slots
    uint32_t            * used;  // bitset of occupied slots
    struct ggml_tensor ** keys;
};

#define GGML_HASHSET_FULL           ((size_t)-1)
#define GGML_HASHSET_ALREADY_EXISTS ((size_t)-2)

size_t               ggml_hash_size(size_t min_sz); // a prime >= min_sz
struct ggml_hash_set ggml_hash_set_new(size_t size);
void                 ggml_hash_set_free(struct ggml_hash_set * hash_set);
void                 ggml_hash_set_reset(struct ggml_hash_set * hash_set);

size_t ggml_hash_find         (const struct ggml_hash_set * hash_set, const struct ggml_tensor * key); // slot, or GGML_HASHSET_FULL
bool   ggml_hash_contains     (const struct ggml_hash_set * hash_set, const struct ggml_tensor * key);
size_t ggml_hash_insert       (struct ggml_hash_set * hash_set, struct ggml_tensor * key); // slot, or GGML_HASHSET_ALREADY_EXISTS
size_t ggml_hash_find_or_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key);

//
// graphs
//

enum ggml_cgraph_eval_order {
    GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT = 0,
    GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT,
    GGML_CGRAPH_EVAL_ORDER_COUNT
};

struct ggml_cgraph {
    int size;    // capacity of nodes and leafs
    int n_nodes; // tensors computed by the graph, in execution order
    int n_leafs; // tensors the graph only reads (op NONE, not a parameter)

    struct ggml_tensor ** nodes;
    struct ggml_tensor ** grads;     // unused here: always NULL
    struct ggml_tensor ** grad_accs; // unused here: always NULL
    struct ggml_tensor ** leafs;

    struct ggml_hash_set visited_hash_set;

    enum ggml_cgraph_eval_order order;

    // a walk (ggml_build_forward_expand) ran out of memory: tensors are missing. Upstream's walk
    // recurses and cannot fail; this one keeps its own stack, and says so instead of aborting.
    // The graph allocator refuses such a graph (out of memory); builders check it.
    bool out_of_memory;
};

// the block size of a tensor's type; aborts (GGML_ASSERT) on a type outside ggml's table or
// removed from it, as tensor creation does, where ggml would divide by zero
int64_t ggml_tensor_blck_size(const struct ggml_tensor * tensor);

static inline bool ggml_impl_is_view(const struct ggml_tensor * t) {
    return t->view_src != NULL;
}

// op parameters are stored as raw int32 words
static inline void ggml_set_op_params(struct ggml_tensor * tensor, const void * params, size_t params_size) {
    GGML_ASSERT(tensor != NULL);
    GGML_ASSERT(params_size <= GGML_MAX_OP_PARAMS);
    memcpy(tensor->op_params, params, params_size);
}

static inline int32_t ggml_get_op_params_i32(const struct ggml_tensor * tensor, uint32_t i) {
    return tensor->op_params[i];
}

static inline void ggml_set_op_params_i32(struct ggml_tensor * tensor, uint32_t i, int32_t value) {
    tensor->op_params[i] = value;
}

static inline void ggml_set_op_params_f32(struct ggml_tensor * tensor, uint32_t i, float value) {
    memcpy(&tensor->op_params[i], &value, sizeof(value));
}

// the first `size` bytes of a graph view: nodes [i0, i1)
struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph, int i0, int i1);

#ifdef __cplusplus
}
#endif
