// ggml-backend-sched.c: ggml_backend_sched, the scheduler (assignment, splits, copies, reserve).
//
// Follows ggml 0.21.0's ggml_backend_sched_split_graph pass for pass: 1. ops with
// pre-allocated tensors or weights go to their backend (op_offload lets a higher-priority
// backend take an op whose weights are in host memory); 2. GPU backends expand down and up
// over unassigned nodes, then any backend; 3. nodes move to a higher-priority backend with the
// same buffer type, and the rest go where most of their sources are; 4. sources and views
// follow their users; 5. the graph is cut where the backend changes (or a weight of another
// backend appears), each split's inputs from other backends get a copy named
// "BACKEND#tensor#c". The graph handed to ggml_gallocr is the splits in order, each preceded
// by a view of every input (so the input lives until copied) and its copy; leafs are the input
// copies (parallel only) then the graph's leafs. Nothing is computed.
// Lives in the alloc layer: it plans through ggml_gallocr.

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHED_MAX_BACKENDS     16
#define SCHED_MAX_SPLIT_INPUTS 30 // a split's first capacity of inputs (GGML_SCHED_MAX_SPLIT_INPUTS)
#define SCHED_MAX_COPIES       4  // copies of the inputs with pipeline parallelism

struct sched_split {
    int                   backend_id;
    int                   i_start;
    int                   i_end;
    struct ggml_tensor ** inputs;
    int                   n_inputs;
    int                   inputs_capacity;
    struct ggml_cgraph    graph; // view of the split's nodes
};

struct ggml_backend_sched {
    bool is_reset; // reset since the last split
    bool is_alloc;

    int                        n_backends;
    ggml_backend_t             backends[SCHED_MAX_BACKENDS];
    ggml_backend_buffer_type_t bufts[SCHED_MAX_BACKENDS];
    ggml_gallocr_t             galloc;

    struct ggml_hash_set  hash_set;
    int                 * hv_tensor_backend_ids; // [hash_set.size]
    struct ggml_tensor ** hv_tensor_copies;      // [hash_set.size][n_backends][n_copies]

    int * node_backend_ids; // [nodes_size]
    int * leaf_backend_ids;
    int * prev_node_backend_ids;
    int * prev_leaf_backend_ids;
    size_t nodes_size;

    struct ggml_cgraph graph; // the copy handed to the allocator

    struct sched_split * splits;
    int                  n_splits;
    int                  splits_capacity;

    int                   n_copies;
    int                   cur_copy;
    int                   next_copy;
    struct ggml_tensor ** graph_inputs;
    int                   n_graph_inputs;
    int                   graph_inputs_capacity;

    struct ggml_context * ctx; // the copies and the inputs' views

    bool op_offload;
};

static size_t hash_id(ggml_backend_sched_t sched, struct ggml_tensor * t) {
    return ggml_hash_find_or_insert(&sched->hash_set, t);
}

// the backend id of a tensor (-1: none yet); NULL has none (upstream hashes the NULL key)
static int * tensor_backend_id(ggml_backend_sched_t sched, struct ggml_tensor * t) {
    static int none;
    if (t == NULL) {
        none = -1;
        return &none;
    }
    return &sched->hv_tensor_backend_ids[hash_id(sched, t)];
}

static struct ggml_tensor ** tensor_id_copy(ggml_backend_sched_t sched, size_t id, int backend_id, int copy_id) {
    return &sched->hv_tensor_copies[(id * (size_t) sched->n_backends + (size_t) backend_id) * (size_t) sched->n_copies + (size_t) copy_id];
}

static bool is_view_op(enum ggml_op op) {
    return op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

static void grow(struct ggml_tensor *** list, int * capacity) {
    int new_cap = *capacity > 0 ? 2 * *capacity : SCHED_MAX_SPLIT_INPUTS;
    struct ggml_tensor ** p = realloc(*list, (size_t) new_cap * sizeof(*p));
    if (p == NULL) {
        GGML_ABORT("scheduler: out of memory growing an input list to %d", new_cap);
    }
    *list     = p;
    *capacity = new_cap;
}

static int sched_backend_id(ggml_backend_sched_t sched, ggml_backend_t backend) {
    for (int i = 0; i < sched->n_backends; i++) {
        if (sched->backends[i] == backend) {
            return i;
        }
    }
    return -1;
}

// the highest-priority backend that supports the tensor's buffer type and the op
static int backend_from_buffer(ggml_backend_sched_t sched, const struct ggml_tensor * tensor, const struct ggml_tensor * op) {
    ggml_backend_buffer_t buffer = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
    if (buffer == NULL) {
        return -1;
    }
    for (int i = 0; i < sched->n_backends; i++) {
        if (ggml_backend_supports_buft(sched->backends[i], buffer->buft) && ggml_backend_supports_op(sched->backends[i], op)) {
            return i;
        }
    }
    return -1;
}

// pass 1: the backend a tensor's own buffer, view source, input flag or weights choose
static int backend_id_from_cur(ggml_backend_sched_t sched, struct ggml_tensor * tensor) {
    int cur = backend_from_buffer(sched, tensor, tensor);
    if (cur != -1) {
        return cur;
    }
    if (tensor->view_src != NULL) {
        cur = backend_from_buffer(sched, tensor->view_src, tensor);
        if (cur != -1) {
            return cur;
        }
    }
    if (tensor->buffer || (tensor->view_src && tensor->view_src->buffer)) {
        ggml_backend_buffer_t buffer = tensor->view_src ? tensor->view_src->buffer : tensor->buffer;
        GGML_ABORT("pre-allocated tensor (%s) in a buffer (%s) that cannot run the operation (%s)", tensor->name,
                   ggml_backend_buffer_name(buffer), ggml_op_name(tensor->op));
    }
    if (tensor->flags & GGML_TENSOR_FLAG_INPUT) {
        return sched->n_backends - 1; // the last backend, the CPU
    }
    // ops with weights run where the weights are; not ROPE (the rope freqs are too small to
    // choose by) nor FLASH_ATTN_EXT (the sinks)
    if (tensor->op == GGML_OP_ROPE || tensor->op == GGML_OP_FLASH_ATTN_EXT) {
        return -1;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const struct ggml_tensor * src = tensor->src[i];
        if (src == NULL) {
            continue;
        }
        if (src->buffer != NULL && src->buffer->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
            int src_backend_id = backend_from_buffer(sched, src, tensor);
            // a higher-priority backend may want the op (large batches of weights in host memory)
            if (sched->op_offload && src_backend_id == sched->n_backends - 1 && ggml_backend_buffer_is_host(src->buffer)) {
                for (int b = 0; b < src_backend_id; b++) {
                    if (ggml_backend_supports_op(sched->backends[b], tensor) && ggml_backend_offload_op(sched->backends[b], tensor)) {
                        return b;
                    }
                }
            }
            return src_backend_id;
        }
    }
    return -1;
}

// can backend_id read t where it is (its buffer, or the buffer type of its backend)?
static bool buffer_supported(ggml_backend_sched_t sched, struct ggml_tensor * t, int backend_id) {
    ggml_backend_buffer_t      buf  = t->view_src ? t->view_src->buffer : t->buffer;
    ggml_backend_buffer_type_t buft = NULL;
    if (buf) {
        buft = buf->buft;
    } else {
        int id = *tensor_backend_id(sched, t);
        if (id == -1 && t->view_src) {
            id = *tensor_backend_id(sched, t->view_src);
        }
        if (id != -1) {
            buft = sched->bufts[id];
        }
    }
    return buft != NULL && ggml_backend_supports_buft(sched->backends[backend_id], buft);
}

static void set_if_supported(ggml_backend_sched_t sched, struct ggml_tensor * node, int cur_backend_id, int * node_backend_id) {
    if (ggml_backend_supports_op(sched->backends[cur_backend_id], node)) {
        *node_backend_id = cur_backend_id;
    }
}

// pass 2: one direction of expansion; gpu_only: the CPU (last) backend does not spread
static void expand(ggml_backend_sched_t sched, struct ggml_cgraph * graph, bool down, bool gpu_only) {
    int cur = -1;
    for (int k = 0; k < graph->n_nodes; k++) {
        struct ggml_tensor * node = graph->nodes[down ? k : graph->n_nodes - 1 - k];
        if (is_view_op(node->op)) {
            continue;
        }
        int * id = tensor_backend_id(sched, node);
        if (*id != -1) {
            cur = (gpu_only && *id == sched->n_backends - 1) ? -1 : *id;
        } else if (cur != -1) {
            set_if_supported(sched, node, cur, id);
        }
    }
}

// pass 3: upgrade to a higher-priority backend with the same buffer type, or place unassigned
// nodes on the backend that can read most of their sources
static void upgrade(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (is_view_op(node->op)) {
            continue;
        }
        int * node_backend_id = tensor_backend_id(sched, node);
        if (*node_backend_id == -1) {
            int n_supported_best = -1;
            for (int b = 0; b < sched->n_backends; b++) {
                if (!ggml_backend_supports_op(sched->backends[b], node)) {
                    continue;
                }
                int n_supported = 0;
                for (int j = 0; j < GGML_MAX_SRC; j++) {
                    struct ggml_tensor * src = node->src[j];
                    if (src == NULL) {
                        continue;
                    }
                    if ((*tensor_backend_id(sched, src) != -1 || *tensor_backend_id(sched, src->view_src) != -1) &&
                        buffer_supported(sched, src, b)) {
                        n_supported++;
                    }
                }
                if (n_supported > n_supported_best) {
                    n_supported_best = n_supported;
                    *node_backend_id = b;
                }
            }
        } else {
            for (int b = 0; b < *node_backend_id; b++) {
                if (sched->bufts[b] != sched->bufts[*node_backend_id] || !ggml_backend_supports_op(sched->backends[b], node)) {
                    continue;
                }
                bool supported = true;
                for (int j = 0; j < GGML_MAX_SRC && supported; j++) {
                    struct ggml_tensor * src = node->src[j];
                    if (src != NULL && !buffer_supported(sched, src, b)) {
                        supported = false;
                    }
                }
                if (supported) {
                    *node_backend_id = b;
                    break;
                }
            }
        }
    }
}

// pass 4: sources and views take their user's (or view source's) backend
static void assign_sources(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int * cur = tensor_backend_id(sched, node);
        if (node->view_src != NULL && *cur == -1) {
            *cur = *tensor_backend_id(sched, node->view_src);
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            int * src_id = tensor_backend_id(sched, src);
            if (*src_id == -1) {
                *src_id = src->view_src != NULL ? *tensor_backend_id(sched, src->view_src) : *cur;
            }
        }
        for (int b = 0; b < sched->n_backends && *cur == -1; b++) {
            set_if_supported(sched, node, b, cur);
        }
        if (*cur == -1) {
            GGML_ABORT("scheduler: no backend supports node %s (%s)", node->name, ggml_op_name(node->op));
        }
    }
}

// the tensors pass 5 may create (copies and the inputs' views), at most: a context that large
static size_t copies_bound(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    size_t n = 0;
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (is_view_op(node->op)) {
            continue;
        }
        int node_id = *tensor_backend_id(sched, node);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            if ((src->flags & GGML_TENSOR_FLAG_INPUT) && sched->n_copies > 1) {
                n += (size_t) sched->n_copies;
            }
            if (*tensor_backend_id(sched, src) != node_id) {
                n += (size_t) sched->n_copies + 1;
            }
        }
    }
    return n;
}

static struct ggml_tensor * dup_tensor_layout(struct ggml_context * ctx, const struct ggml_tensor * tensor) {
    struct ggml_tensor * dup = ggml_dup_tensor(ctx, tensor);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        dup->nb[i] = tensor->nb[i];
    }
    return dup;
}

static struct sched_split * new_split(ggml_backend_sched_t sched, int i_split) {
    if (i_split >= sched->splits_capacity) {
        int old_cap = sched->splits_capacity;
        struct sched_split * p = realloc(sched->splits, (size_t) old_cap * 2 * sizeof(*p));
        if (p == NULL) {
            GGML_ABORT("scheduler: out of memory for %d splits", old_cap * 2);
        }
        memset(p + old_cap, 0, (size_t) old_cap * sizeof(*p));
        sched->splits          = p;
        sched->splits_capacity = old_cap * 2;
    }
    return &sched->splits[i_split];
}

// pass 5: cut the graph into splits and give each split's foreign inputs a copy
static void split_and_copy(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    int i_split = 0;
    struct sched_split * split = &sched->splits[0];
    int i = 0;
    split->backend_id = -1;
    for (; i < graph->n_nodes; i++) {
        if (!is_view_op(graph->nodes[i]->op)) {
            split->backend_id = *tensor_backend_id(sched, graph->nodes[i]);
            break;
        }
    }
    split->i_start  = 0;
    split->n_inputs = 0;
    int cur_backend_id = split->backend_id;
    for (; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (is_view_op(node->op)) {
            continue;
        }
        const int node_backend_id = *tensor_backend_id(sched, node);

        // a new split for a weight of another, incompatible backend (its copy's memory can
        // then be reused), or when the split's input list is full and a new input comes
        bool need_new_split = false;
        if (node_backend_id == cur_backend_id && split->n_inputs > 0) {
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                if (src->buffer != NULL && src->buffer->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
                    int src_backend_id = *tensor_backend_id(sched, src);
                    if (src_backend_id != cur_backend_id && !buffer_supported(sched, src, cur_backend_id)) {
                        need_new_split = true;
                        break;
                    }
                }
                if (split->n_inputs >= split->inputs_capacity) {
                    const size_t id = hash_id(sched, src);
                    int src_backend_id = sched->hv_tensor_backend_ids[id];
                    bool supported = buffer_supported(sched, src, cur_backend_id);
                    if (src_backend_id != cur_backend_id && *tensor_id_copy(sched, id, cur_backend_id, 0) == NULL && !supported) {
                        need_new_split = true;
                        break;
                    }
                }
            }
        }

        if (node_backend_id != cur_backend_id || need_new_split) {
            split->i_end = i;
            i_split++;
            split = new_split(sched, i_split);
            split->backend_id = node_backend_id;
            split->i_start    = i;
            split->n_inputs   = 0;
            cur_backend_id    = node_backend_id;
        }

        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            size_t src_id = hash_id(sched, src);
            const int src_backend_id = sched->hv_tensor_backend_ids[src_id];
            GGML_ASSERT(src_backend_id != -1); // pass 4 assigned every source

            if ((src->flags & GGML_TENSOR_FLAG_INPUT) && sched->n_copies > 1) {
                if (*tensor_id_copy(sched, src_id, src_backend_id, 0) == NULL) {
                    ggml_backend_t backend = sched->backends[src_backend_id];
                    for (int c = 0; c < sched->n_copies; c++) {
                        struct ggml_tensor * tensor_copy;
                        if (c == sched->cur_copy) {
                            tensor_copy = src; // the original is the current copy
                        } else {
                            tensor_copy = dup_tensor_layout(sched->ctx, src);
                            ggml_format_name(tensor_copy, "%s#%s#%d", ggml_backend_name(backend), src->name, c);
                        }
                        ggml_set_input(tensor_copy);
                        ggml_set_output(tensor_copy); // never overwritten by the allocator
                        *tensor_id_copy(sched, src_id, src_backend_id, c) = tensor_copy;
                    }
                    if (sched->n_graph_inputs >= sched->graph_inputs_capacity) {
                        grow(&sched->graph_inputs, &sched->graph_inputs_capacity);
                    }
                    sched->graph_inputs[sched->n_graph_inputs++] = src;
                }
            }

            if (src_backend_id != cur_backend_id && !buffer_supported(sched, src, cur_backend_id)) {
                if (*tensor_id_copy(sched, src_id, cur_backend_id, 0) == NULL) {
                    ggml_backend_t backend = sched->backends[cur_backend_id];
                    for (int c = 0; c < sched->n_copies; c++) {
                        struct ggml_tensor * tensor_copy = dup_tensor_layout(sched->ctx, src);
                        ggml_format_name(tensor_copy, "%s#%s#%d", ggml_backend_name(backend), src->name, c);
                        if (sched->n_copies > 1) {
                            ggml_set_input(tensor_copy);
                            ggml_set_output(tensor_copy);
                        }
                        *tensor_id_copy(sched, src_id, cur_backend_id, c) = tensor_copy;
                    }
                    if (split->n_inputs >= split->inputs_capacity) {
                        grow(&split->inputs, &split->inputs_capacity);
                    }
                    split->inputs[split->n_inputs++] = src;
                }
                node->src[j] = *tensor_id_copy(sched, src_id, cur_backend_id, sched->cur_copy);
            }
        }
    }
    split->i_end    = graph->n_nodes;
    sched->n_splits = i_split + 1;
}

// the graph handed to the allocator: per split its inputs' views and copies, then its nodes
static void build_graph_copy(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    int * tmp = sched->node_backend_ids;
    sched->node_backend_ids      = sched->prev_node_backend_ids;
    sched->prev_node_backend_ids = tmp;
    tmp = sched->leaf_backend_ids;
    sched->leaf_backend_ids      = sched->prev_leaf_backend_ids;
    sched->prev_leaf_backend_ids = tmp;

    int total_inputs = sched->n_graph_inputs;
    for (int i = 0; i < sched->n_splits; i++) {
        total_inputs += sched->splits[i].n_inputs;
    }
    int graph_size = (graph->n_nodes > graph->n_leafs ? graph->n_nodes : graph->n_leafs) + total_inputs * 2 * sched->n_copies;
    if ((size_t) graph_size > sched->nodes_size) {
        GGML_ABORT("scheduler: %d nodes after the split, more than the %zu it was made for", graph_size, sched->nodes_size);
    }
    if (sched->graph.size < graph_size) {
        struct ggml_tensor ** nodes = realloc(sched->graph.nodes, (size_t) graph_size * sizeof(*nodes));
        if (nodes == NULL) {
            GGML_ABORT("scheduler: out of memory for a graph of %d nodes", graph_size);
        }
        sched->graph.nodes = nodes;
        struct ggml_tensor ** leafs = realloc(sched->graph.leafs, (size_t) graph_size * sizeof(*leafs));
        if (leafs == NULL) {
            GGML_ABORT("scheduler: out of memory for a graph of %d leafs", graph_size);
        }
        sched->graph.leafs = leafs;
        sched->graph.size  = graph_size;
    }
    sched->graph.n_nodes = 0;
    sched->graph.n_leafs = 0;
    struct ggml_cgraph * copy = &sched->graph;

    for (int i = 0; i < sched->n_splits; i++) {
        struct sched_split * split = &sched->splits[i];
        split->graph = ggml_graph_view(graph, split->i_start, split->i_end);
        // the backend may reorder the split (before the copy is made, so they agree)
        ggml_backend_graph_optimize(sched->backends[split->backend_id], &split->graph);

        for (int j = 0; j < split->n_inputs; j++) {
            struct ggml_tensor * input    = split->inputs[j];
            const size_t         input_id = hash_id(sched, input);
            struct ggml_tensor * input_cpy = *tensor_id_copy(sched, input_id, split->backend_id, sched->cur_copy);

            // a view of the input keeps it alive until the copy is made
            struct ggml_tensor * input_dep = ggml_view_tensor(sched->ctx, input);
            input_dep->src[0] = input;
            sched->node_backend_ids[copy->n_nodes] = sched->hv_tensor_backend_ids[input_id];
            copy->nodes[copy->n_nodes++] = input_dep;

            // the copy, allocated at the start of the split
            sched->node_backend_ids[copy->n_nodes] = split->backend_id;
            copy->nodes[copy->n_nodes++] = input_cpy;
        }
        for (int j = split->i_start; j < split->i_end; j++) {
            sched->node_backend_ids[copy->n_nodes] = *tensor_backend_id(sched, graph->nodes[j]);
            copy->nodes[copy->n_nodes++] = graph->nodes[j];
        }
    }

    if (sched->n_copies > 1) {
        // the input copies come first among the leafs, so they are allocated first
        for (int i = 0; i < sched->n_graph_inputs; i++) {
            struct ggml_tensor * input = sched->graph_inputs[i];
            size_t id = hash_id(sched, input);
            int backend_id = sched->hv_tensor_backend_ids[id];
            for (int c = 0; c < sched->n_copies; c++) {
                sched->leaf_backend_ids[copy->n_leafs] = backend_id;
                copy->leafs[copy->n_leafs++] = *tensor_id_copy(sched, id, backend_id, c);
            }
        }
        for (int i = 0; i < sched->n_splits; i++) {
            struct sched_split * split = &sched->splits[i];
            for (int j = 0; j < split->n_inputs; j++) {
                size_t id = hash_id(sched, split->inputs[j]);
                for (int c = 0; c < sched->n_copies; c++) {
                    sched->leaf_backend_ids[copy->n_leafs] = split->backend_id;
                    copy->leafs[copy->n_leafs++] = *tensor_id_copy(sched, id, split->backend_id, c);
                }
            }
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        sched->leaf_backend_ids[copy->n_leafs] = *tensor_backend_id(sched, leaf);
        copy->leafs[copy->n_leafs++] = leaf;
    }
}

void ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    GGML_ASSERT(sched);
    sched->n_splits       = 0;
    sched->n_graph_inputs = 0;
    sched->is_reset       = false;

    // pass 1: tensors in buffers, inputs, ops with weights (user assignments are kept)
    for (int i = 0; i < graph->n_leafs; i++) {
        int * id = tensor_backend_id(sched, graph->leafs[i]);
        if (*id == -1) {
            *id = backend_id_from_cur(sched, graph->leafs[i]);
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        int * id = tensor_backend_id(sched, graph->nodes[i]);
        if (*id == -1) {
            *id = backend_id_from_cur(sched, graph->nodes[i]);
        }
    }
    // pass 2: expand GPU backends down, up; then every backend down, up
    expand(sched, graph, true, true);
    expand(sched, graph, false, true);
    expand(sched, graph, true, false);
    expand(sched, graph, false, false);
    upgrade(sched, graph);        // pass 3
    assign_sources(sched, graph); // pass 4

    ggml_free(sched->ctx);
    size_t n_tensors = copies_bound(sched, graph) + 1;
    struct ggml_init_params params = { n_tensors * ggml_tensor_overhead(), NULL, true };
    sched->ctx = ggml_init(params);
    if (sched->ctx == NULL) {
        GGML_ABORT("scheduler: out of memory for a context of %zu tensors", n_tensors);
    }
    split_and_copy(sched, graph); // pass 5
    build_graph_copy(sched, graph);
}

ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends,
                                            size_t graph_size, bool parallel, bool op_offload) {
    if (n_backends <= 0 || n_backends > SCHED_MAX_BACKENDS || backends == NULL) {
        GGML_LOG_ERROR("%s: %d backends, between 1 and %d needed\n", __func__, n_backends, SCHED_MAX_BACKENDS);
        return NULL;
    }
    if (ggml_backend_dev_type(ggml_backend_get_device(backends[n_backends - 1])) != GGML_BACKEND_DEVICE_TYPE_CPU) {
        GGML_LOG_ERROR("%s: the last backend (%s) must be a CPU device's\n", __func__, ggml_backend_name(backends[n_backends - 1]));
        return NULL;
    }
    if (graph_size == 0 || graph_size > (size_t) 1 << 24) {
        GGML_LOG_ERROR("%s: graph size %zu out of range\n", __func__, graph_size);
        return NULL;
    }
    struct ggml_backend_sched * sched = calloc(1, sizeof(*sched));
    if (sched == NULL) {
        return NULL;
    }
    sched->n_backends = n_backends;
    sched->n_copies   = parallel ? SCHED_MAX_COPIES : 1;
    sched->op_offload = op_offload;
    for (int b = 0; b < n_backends; b++) {
        sched->backends[b] = backends[b];
        sched->bufts[b]    = bufts ? bufts[b] : ggml_backend_get_default_buffer_type(backends[b]);
        if (!ggml_backend_supports_buft(backends[b], sched->bufts[b])) {
            GGML_LOG_ERROR("%s: backend %s cannot use buffer type %s\n", __func__, ggml_backend_name(backends[b]),
                           ggml_backend_buft_name(sched->bufts[b]));
            free(sched);
            return NULL;
        }
    }

    sched->hash_set = ggml_hash_set_new(graph_size);
    sched->hv_tensor_backend_ids = malloc(sched->hash_set.size * sizeof(int));
    sched->hv_tensor_copies      = malloc(sched->hash_set.size * (size_t) n_backends * (size_t) sched->n_copies * sizeof(struct ggml_tensor *));
    // as upstream: at most one split per node, each with its inputs twice (view and copy)
    sched->nodes_size            = graph_size + graph_size * SCHED_MAX_SPLIT_INPUTS * 2;
    sched->node_backend_ids      = calloc(sched->nodes_size, sizeof(int));
    sched->leaf_backend_ids      = calloc(sched->nodes_size, sizeof(int));
    sched->prev_node_backend_ids = calloc(sched->nodes_size, sizeof(int));
    sched->prev_leaf_backend_ids = calloc(sched->nodes_size, sizeof(int));
    sched->splits_capacity       = 16;
    sched->splits                = calloc((size_t) sched->splits_capacity, sizeof(*sched->splits));
    sched->graph_inputs_capacity = SCHED_MAX_SPLIT_INPUTS;
    sched->graph_inputs          = calloc((size_t) sched->graph_inputs_capacity, sizeof(*sched->graph_inputs));
    sched->galloc                = ggml_gallocr_new_n(sched->bufts, n_backends);
    if (!sched->hash_set.keys || !sched->hv_tensor_backend_ids || !sched->hv_tensor_copies || !sched->node_backend_ids ||
        !sched->leaf_backend_ids || !sched->prev_node_backend_ids || !sched->prev_leaf_backend_ids || !sched->splits ||
        !sched->graph_inputs || !sched->galloc) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        ggml_backend_sched_free(sched);
        return NULL;
    }
    ggml_backend_sched_reset(sched);
    return sched;
}

void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    if (sched == NULL) {
        return;
    }
    ggml_gallocr_free(sched->galloc);
    ggml_free(sched->ctx);
    ggml_hash_set_free(&sched->hash_set);
    for (int i = 0; sched->splits && i < sched->splits_capacity; i++) {
        free(sched->splits[i].inputs);
    }
    free(sched->splits);
    free(sched->graph_inputs);
    free(sched->hv_tensor_backend_ids);
    free(sched->hv_tensor_copies);
    free(sched->node_backend_ids);
    free(sched->leaf_backend_ids);
    free(sched->prev_node_backend_ids);
    free(sched->prev_leaf_backend_ids);
    free(sched->graph.nodes);
    free(sched->graph.leafs);
    free(sched);
}

void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    if (!sched->is_reset) {
        ggml_hash_set_reset(&sched->hash_set);
        memset(sched->hv_tensor_backend_ids, -1, sched->hash_set.size * sizeof(int));
        memset(sched->hv_tensor_copies, 0, sched->hash_set.size * (size_t) sched->n_backends * (size_t) sched->n_copies * sizeof(struct ggml_tensor *));
        sched->is_reset = true;
    }
    sched->is_alloc = false;
}

static void check_graph_size(ggml_backend_sched_t sched, const struct ggml_cgraph * graph) {
    if ((size_t) graph->n_nodes + (size_t) graph->n_leafs > sched->hash_set.size) {
        GGML_ABORT("scheduler: a graph of %d nodes and %d leafs is larger than the %zu it was made for", graph->n_nodes,
                   graph->n_leafs, sched->hash_set.size);
    }
}

void ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes) {
    GGML_ASSERT(sched && sizes);
    check_graph_size(sched, measure_graph);
    ggml_backend_sched_reset(sched);
    ggml_backend_sched_synchronize(sched);
    ggml_backend_sched_split_graph(sched, measure_graph);
    ggml_gallocr_reserve_n_size(sched->galloc, &sched->graph, sched->node_backend_ids, sched->leaf_backend_ids, sizes);
}

bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph) {
    GGML_ASSERT(sched);
    check_graph_size(sched, measure_graph);
    ggml_backend_sched_synchronize(sched);
    ggml_backend_sched_split_graph(sched, measure_graph);
    if (!ggml_gallocr_reserve_n(sched->galloc, &sched->graph, sched->node_backend_ids, sched->leaf_backend_ids)) {
        return false;
    }
    ggml_backend_sched_reset(sched);
    return true;
}

// as upstream's alloc_splits: re-plan when a node moved to another buffer type or the plan no
// longer fits
bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    GGML_ASSERT(sched);
    check_graph_size(sched, graph);
    GGML_ASSERT(!sched->is_alloc);
    sched->cur_copy  = sched->next_copy;
    sched->next_copy = (sched->next_copy + 1) % sched->n_copies;
    ggml_backend_sched_split_graph(sched, graph);

    bool changed = false;
    for (int i = 0; i < sched->graph.n_nodes && !changed; i++) {
        changed = sched->node_backend_ids[i] != sched->prev_node_backend_ids[i] &&
                  sched->bufts[sched->node_backend_ids[i]] != sched->bufts[sched->prev_node_backend_ids[i]];
    }
    for (int i = 0; i < sched->graph.n_leafs && !changed; i++) {
        changed = sched->leaf_backend_ids[i] != sched->prev_leaf_backend_ids[i] &&
                  sched->bufts[sched->leaf_backend_ids[i]] != sched->bufts[sched->prev_leaf_backend_ids[i]];
    }
    if (changed || !ggml_gallocr_alloc_graph(sched->galloc, &sched->graph)) {
        ggml_gallocr_reserve_n(sched->galloc, &sched->graph, sched->node_backend_ids, sched->leaf_backend_ids);
        if (!ggml_gallocr_alloc_graph(sched->galloc, &sched->graph)) {
            GGML_LOG_ERROR("%s: failed to allocate graph\n", __func__);
            return false;
        }
    }
    sched->is_alloc = true;
    return true;
}

void ggml_backend_sched_synchronize(ggml_backend_sched_t sched) {
    GGML_ASSERT(sched);
    if (!sched->is_alloc) {
        sched->next_copy = 0; // after a synchronization, copy 0 is used again
    }
}

int ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched) {
    return sched->n_splits;
}

int ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched) {
    return sched->n_copies;
}

int ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched) {
    return sched->n_backends;
}

ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i) {
    GGML_ASSERT(i >= 0 && i < sched->n_backends);
    return sched->backends[i];
}

ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend) {
    int b = sched_backend_id(sched, backend);
    GGML_ASSERT(b >= 0 && "backend not in the scheduler");
    return sched->bufts[b];
}

size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend) {
    int b = sched_backend_id(sched, backend);
    GGML_ASSERT(b >= 0 && "backend not in the scheduler");
    return ggml_gallocr_get_buffer_size(sched->galloc, b);
}

void ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend) {
    int b = sched_backend_id(sched, backend);
    GGML_ASSERT(b >= 0 && "backend not in the scheduler");
    *tensor_backend_id(sched, node) = b;
    sched->is_reset = false;
}

ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node) {
    int b = *tensor_backend_id(sched, node);
    return b == -1 ? NULL : sched->backends[b];
}

struct ggml_cgraph * ggml_backend_sched_get_graph_copy(ggml_backend_sched_t sched) {
    return &sched->graph;
}

const int * ggml_backend_sched_get_node_backend_ids(ggml_backend_sched_t sched) {
    return sched->node_backend_ids;
}

const int * ggml_backend_sched_get_leaf_backend_ids(ggml_backend_sched_t sched) {
    return sched->leaf_backend_ids;
}

int ggml_backend_sched_get_split_backend(ggml_backend_sched_t sched, int i_split) {
    GGML_ASSERT(i_split >= 0 && i_split < sched->n_splits);
    return sched->splits[i_split].backend_id;
}

int ggml_backend_sched_get_split_n_inputs(ggml_backend_sched_t sched, int i_split) {
    GGML_ASSERT(i_split >= 0 && i_split < sched->n_splits);
    return sched->splits[i_split].n_inputs;
}

struct ggml_tensor * ggml_backend_sched_get_split_input(ggml_backend_sched_t sched, int i_split, int i_input) {
    GGML_ASSERT(i_split >= 0 && i_split < sched->n_splits);
    GGML_ASSERT(i_input >= 0 && i_input < sched->splits[i_split].n_inputs);
    return sched->splits[i_split].inputs[i_input];
}

void ggml_backend_sched_get_split_range(ggml_backend_sched_t sched, int i_split, int * i_start, int * i_end) {
    GGML_ASSERT(i_split >= 0 && i_split < sched->n_splits);
    *i_start = sched->splits[i_split].i_start;
    *i_end   = sched->splits[i_split].i_end;
}
