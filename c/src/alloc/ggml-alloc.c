// ggml-alloc.c: ggml's allocator API on top of the planner.
//
// ggml_gallocr turns a ggml_cgraph into the planner's arrays (tensors by
// index), plans it with galloc_plan_graph, keeps the per-node assignment the
// way upstream does, allocates one backend buffer per chunk, and places the
// tensors. Also the simple tensor allocator (ggml_tallocr) and
// ggml_backend_alloc_ctx_tensors_from_buft.

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "galloc-arena.h"
#include "galloc-error.h"
#include "galloc-gallocr.h"
#include "galloc-planner-arena.h"
#include "galloc-planner.h"

#include <stdlib.h>
#include <string.h>

// the planner's table (galloc_op_can_inplace), the one list of ops that may run in place
bool ggml_op_can_inplace(enum ggml_op op) {
    return galloc_op_can_inplace((int32_t) op);
}

// ---- tensor allocator ---------------------------------------------------

struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer) {
    void * base  = ggml_backend_buffer_get_base(buffer);
    size_t align = ggml_backend_buffer_get_alignment(buffer);
    GGML_ASSERT(align && !(align & (align - 1)) && "alignment must be a power of two");
    size_t misalign = (size_t) ((uintptr_t) base % align);
    return (struct ggml_tallocr) {
        .buffer    = buffer,
        .base      = base,
        .alignment = align,
        .offset    = misalign ? align - misalign : 0,
    };
}

enum ggml_status ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor) {
    size_t size = GGML_PAD(ggml_backend_buffer_get_alloc_size(talloc->buffer, tensor), talloc->alignment);
    if (talloc->offset + size > ggml_backend_buffer_get_size(talloc->buffer)) {
        GGML_ABORT("%s: not enough space in the buffer to allocate %s (needed %zu, available %zu)", __func__, tensor->name,
                   size, ggml_backend_buffer_get_size(talloc->buffer) - talloc->offset);
    }
    void * addr = (char *) ggml_backend_buffer_get_base(talloc->buffer) + talloc->offset;
    talloc->offset += size;
    return ggml_backend_tensor_alloc(talloc->buffer, tensor, addr);
}

// ---- pointer -> index map (tensors of a graph) --------------------------

struct index_slot {
    struct ggml_tensor * key;   // NULL = empty
    int32_t              value; // index of key
};

// the tensors of one reserve, at most max_count of them; its arrays are taken from the allocator's arena
struct tensor_index {
    struct index_slot   * slots;    // open addressing; key and value share a cache line
    size_t                mask;     // slots - 1; slots is a power of two, at least twice max_count
    int32_t               count;
    int32_t               max_count;
    struct ggml_tensor ** tensors;  // index -> tensor
};

static size_t pointer_hash(const void * p) {
    uint64_t x = (uint64_t) (uintptr_t) p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t) x;
}

static size_t tensor_index_slots(int32_t max_count) {
    size_t slots = 64;
    while (slots < (size_t) max_count * 2) {
        slots *= 2;
    }
    return slots;
}

// index of t; a new tensor is added (*added), or -1 when max_count tensors are indexed already
static int32_t tensor_index_get(struct tensor_index * ti, struct ggml_tensor * t, bool * added) {
    size_t i = pointer_hash(t) & ti->mask;
    for (; ti->slots[i].key != NULL; i = (i + 1) & ti->mask) {
        if (ti->slots[i].key == t) {
            *added = false;
            return ti->slots[i].value;
        }
    }
    if (ti->count == ti->max_count) {
        return -1;
    }
    ti->slots[i] = (struct index_slot) { t, ti->count };
    ti->tensors[ti->count] = t;
    *added = true;
    return ti->count++;
}

// ---- graph allocator ----------------------------------------------------

struct vbuffer {
    ggml_backend_buffer_t chunks[GALLOC_MAX_CHUNKS]; // one backend buffer per chunk
};

// where the last plan put one tensor (upstream's tensor_alloc)
struct tensor_alloc {
    int32_t  buffer_id; // -1: not placed by the allocator (a view, or has data)
    int32_t  chunk;
    size_t   offset;
    size_t   size_max;  // alloc size when planned
};

struct ggml_gallocr {
    ggml_backend_buffer_type_t * bufts;
    struct galloc_buffer_type  * types;
    struct vbuffer            ** buffers;
    int                          n_buffers;

    // The arrays of the last reserve, all in one arena that the next reserve reuses (sized once,
    // grown geometrically, never shrunk), with the planner's own per-tensor arrays: freeing and
    // allocating them per reserve would, above glibc's thresholds, hand them back to the kernel
    // and fault them in again each time.
    struct galloc_arena    arena;
    struct tensor_index    index;   // the tensors of the last reserve
    struct galloc_tensor * tensors; // the planner's description of each, by index; a node's src[] are the indices of its sources
    int32_t              * ids;     // node and leaf indices and their buffer ids
    uint8_t              * used_slots; // per node: its source slots up to the last one filled (alloc_graph looks at those)
    int64_t                tensors_hint; // tensors the last reserve needed room for, when more than its leafs and nodes
    // the assignment of the last reserve: one entry per indexed tensor, reached through ids and
    // the nodes' src[] (upstream copies it into every node's source slots; the indices say the same)
    struct tensor_alloc  * allocs;
    uint8_t              * checked; // scratch of alloc_graph: allocs[i] already found to still hold its tensor
    // the graph the assignment is for: 0 and 0 on a new allocator (an empty graph fits it, as
    // upstream's), -1 after a plan that failed (upstream aborts there)
    int                    n_nodes;
    int                    n_leafs;
    struct galloc_plan     plan;    // the last plan: its places are in the arena, the rest is reused by the next
};

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    GGML_ASSERT(n_bufs > 0);
    // out of memory: NULL (upstream asserts), so that a caller that checks can say so
    ggml_gallocr_t galloc = calloc(1, sizeof(*galloc));
    if (galloc == NULL) {
        return NULL;
    }
    galloc->bufts     = calloc((size_t) n_bufs, sizeof(*galloc->bufts));
    galloc->types     = calloc((size_t) n_bufs, sizeof(*galloc->types));
    galloc->buffers   = calloc((size_t) n_bufs, sizeof(*galloc->buffers));
    galloc->n_buffers = n_bufs;
    if (!galloc->bufts || !galloc->types || !galloc->buffers) {
        free(galloc->bufts);
        free(galloc->types);
        free(galloc->buffers);
        free(galloc);
        return NULL;
    }

    for (int i = 0; i < n_bufs; i++) {
        galloc->bufts[i] = bufts[i];
        // the same buffer type listed twice shares one allocator
        int32_t allocator = i;
        for (int j = 0; j < i; j++) {
            if (bufts[j] == bufts[i]) {
                allocator = j;
                break;
            }
        }
        size_t alignment = ggml_backend_buft_get_alignment(bufts[i]);
        GGML_ASSERT(alignment && !(alignment & (alignment - 1)) && "buffer type alignment must be a power of two");
        size_t max_size = ggml_backend_buft_get_max_size(bufts[i]);
        galloc->types[i] = (struct galloc_buffer_type) {
            .alignment = alignment,
            .max_size  = max_size == SIZE_MAX ? GALLOC_NO_MAX_SIZE : (uint64_t) max_size,
            .allocator = allocator,
        };
    }
    return galloc;
}

ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    return ggml_gallocr_new_n(&buft, 1);
}

static void vbuffer_free(struct vbuffer * buf) {
    if (buf == NULL) {
        return;
    }
    for (int i = 0; i < GALLOC_MAX_CHUNKS; i++) {
        ggml_backend_buffer_free(buf->chunks[i]);
    }
    free(buf);
}

static size_t vbuffer_chunk_size(const struct vbuffer * buf, int chunk) {
    return buf && buf->chunks[chunk] ? ggml_backend_buffer_get_size(buf->chunks[chunk]) : 0;
}

static size_t vbuffer_size(const struct vbuffer * buf) {
    size_t size = 0;
    for (int i = 0; i < GALLOC_MAX_CHUNKS && buf->chunks[i]; i++) {
        size += ggml_backend_buffer_get_size(buf->chunks[i]);
    }
    return size;
}

static struct vbuffer * vbuffer_alloc(ggml_backend_buffer_type_t buft, const struct galloc_buffer_plan * plan) {
    struct vbuffer * buf = calloc(1, sizeof(*buf));
    if (buf == NULL) {
        return NULL;
    }
    for (int c = 0; c < plan->n_chunks; c++) {
        buf->chunks[c] = ggml_backend_buft_alloc_buffer(buft, (size_t) plan->chunk_sizes[c]);
        if (buf->chunks[c] == NULL) {
            vbuffer_free(buf);
            return NULL;
        }
        ggml_backend_buffer_set_usage(buf->chunks[c], GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    }
    return buf;
}

// buffers[i] alone (not shared with an earlier entry) is freed here
static void gallocr_free_buffer(ggml_gallocr_t galloc, int i) {
    struct vbuffer * buf = galloc->buffers[i];
    if (buf == NULL) {
        return;
    }
    for (int j = 0; j < galloc->n_buffers; j++) {
        if (galloc->buffers[j] == buf) {
            galloc->buffers[j] = NULL;
        }
    }
    vbuffer_free(buf);
}

void ggml_gallocr_free(ggml_gallocr_t galloc) {
    if (galloc == NULL) {
        return;
    }
    for (int i = 0; i < galloc->n_buffers; i++) {
        gallocr_free_buffer(galloc, i);
    }
    galloc_plan_free(&galloc->plan);
    galloc_arena_free(&galloc->arena);
    free(galloc->bufts);
    free(galloc->types);
    free(galloc->buffers);
    free(galloc);
}

static uint64_t gallocr_alloc_size(void * user, int32_t t, int32_t buffer_id) {
    ggml_gallocr_t galloc = user;
    return ggml_backend_buft_get_alloc_size(galloc->bufts[buffer_id], galloc->index.tensors[t]);
}

// true when no buffer type has its own alloc size rule: every alloc size is ggml_nbytes
static bool gallocr_uniform_alloc_size(ggml_gallocr_t galloc) {
    for (int i = 0; i < galloc->n_buffers; i++) {
        if (galloc->bufts[i]->iface.get_alloc_size) {
            return false;
        }
    }
    return true;
}

// the planner's view of ggml tensor t, index i, whose view root has index view_src; sources
// are filled in for nodes (only a node's sources matter to the pass)
static void describe_tensor(ggml_gallocr_t galloc, const struct ggml_tensor * t, int32_t i, int32_t view_src) {
    struct galloc_tensor * d = &galloc->tensors[i];
    d->type = t->type;
    for (int k = 0; k < GGML_MAX_DIMS; k++) {
        d->ne[k] = t->ne[k];
        d->nb[k] = t->nb[k];
    }
    d->op    = t->op;
    d->flags = t->flags;
    for (int s = 0; s < GGML_MAX_SRC; s++) {
        d->src[s] = -1;
    }
    d->view_src   = view_src;
    d->view_offs  = t->view_offs;
    d->nbytes     = ggml_nbytes(t);
    d->alloc_size = d->nbytes; // with a per-type rule, asked through gallocr_alloc_size instead
    d->external   = t->data != NULL || t->buffer != NULL;
}

// t's index in this reserve; a tensor seen for the first time is described (with its view
// root, indexed right after it). -1 when the arrays are full
static int32_t index_tensor(ggml_gallocr_t galloc, struct ggml_tensor * t) {
    bool    added = false;
    int32_t i     = tensor_index_get(&galloc->index, t, &added);
    if (added) {
        int32_t view_src = -1;
        if (t->view_src != NULL && (view_src = index_tensor(galloc, t->view_src)) < 0) {
            return -1;
        }
        describe_tensor(galloc, t, i, view_src);
    }
    return i;
}

// index and describe every tensor the pass can touch: leafs, nodes, their sources and view
// roots; false when there are more than the arrays hold
static bool index_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    int32_t * nodes    = galloc->ids;
    int32_t * leafs    = nodes + graph->n_nodes;
    int32_t * node_ids = leafs + graph->n_leafs;
    int32_t * leaf_ids = node_ids + graph->n_nodes;
    for (int i = 0; i < graph->n_leafs; i++) {
        if ((leafs[i] = index_tensor(galloc, graph->leafs[i])) < 0) {
            return false;
        }
        if (leaf_buffer_ids) { // without, all 0: the planner is given none (and the array's pages stay untouched)
            leaf_ids[i] = leaf_buffer_ids[i];
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        int32_t              n    = index_tensor(galloc, node);
        if (n < 0) {
            return false;
        }
        nodes[i] = n;
        if (node_buffer_ids) {
            node_ids[i] = node_buffer_ids[i];
        }
        int used = 0; // the slots were set to -1 when the tensor was described
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (node->src[s]) {
                int32_t src = index_tensor(galloc, node->src[s]);
                if (src < 0) {
                    return false;
                }
                galloc->tensors[n].src[s] = src;
                used = s + 1;
            }
        }
        galloc->used_slots[i] = (uint8_t) used;
    }
    return true;
}

// begin a reserve: take its arrays, for up to max_tensors tensors, from the arena
static bool take_arrays(ggml_gallocr_t galloc, struct ggml_cgraph * graph, int32_t max_tensors) {
    size_t n_tensors = (size_t) max_tensors;
    size_t n_slots   = tensor_index_slots(max_tensors);
    size_t n_ids     = ((size_t) graph->n_nodes + (size_t) graph->n_leafs) * 2;
    size_t bytes     = galloc_plan_arena_bytes(max_tensors);
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_slots, sizeof(struct index_slot)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_tensors, sizeof(struct ggml_tensor *)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_tensors, sizeof(struct galloc_tensor)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_ids, sizeof(int32_t)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_tensors, sizeof(struct tensor_alloc)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size(n_tensors, sizeof(uint8_t)));
    bytes = galloc_arena_sum(bytes, galloc_arena_array_size((size_t) graph->n_nodes, sizeof(uint8_t)));

    struct galloc_arena * arena = &galloc->arena;
    galloc_arena_begin(arena, bytes); // a failure shows in the takes
    galloc->index = (struct tensor_index) {
        .slots     = galloc_arena_take_array(arena, n_slots, sizeof(struct index_slot)),
        .mask      = n_slots - 1,
        .max_count = max_tensors,
        .tensors   = galloc_arena_take_array(arena, n_tensors, sizeof(struct ggml_tensor *)),
    };
    galloc->tensors     = galloc_arena_take_array(arena, n_tensors, sizeof(struct galloc_tensor));
    galloc->ids         = galloc_arena_take_array(arena, n_ids, sizeof(int32_t));
    galloc->allocs      = galloc_arena_take_array(arena, n_tensors, sizeof(struct tensor_alloc));
    galloc->checked     = galloc_arena_take_array(arena, n_tensors, sizeof(uint8_t));
    galloc->used_slots  = galloc_arena_take_array(arena, (size_t) graph->n_nodes, sizeof(uint8_t));
    if (!galloc->index.slots || !galloc->index.tensors || !galloc->tensors || !galloc->ids || !galloc->allocs || !galloc->checked ||
        !galloc->used_slots) {
        return false;
    }
    memset(galloc->index.slots, 0, n_slots * sizeof(struct index_slot));
    return true;
}

static void record_alloc(ggml_gallocr_t galloc, const struct galloc_plan * plan, bool uniform, struct ggml_tensor * t, int32_t index,
                         struct tensor_alloc * out) {
    if (t == NULL || t->view_src != NULL || t->data != NULL) {
        *out = (struct tensor_alloc) { .buffer_id = -1, .chunk = -1, .offset = SIZE_MAX, .size_max = 0 };
        return;
    }
    const struct galloc_place * place = &plan->places[index];
    int32_t buffer_id = place->buffer >= 0 ? place->buffer : 0;
    *out = (struct tensor_alloc) {
        .buffer_id = buffer_id,
        .chunk     = place->buffer >= 0 ? place->chunk : 0,
        .offset    = place->buffer >= 0 ? (size_t) place->offset : 0,
        .size_max  = uniform ? (size_t) galloc->tensors[index].nbytes : ggml_backend_buft_get_alloc_size(galloc->bufts[buffer_id], t),
    };
}

// plan graph and record the assignment (no buffer is touched); false with err filled when the
// arrays cannot be had (GALLOC_STATUS_NO_MEMORY) or the planner refuses the graph
static bool gallocr_plan(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                         const int * leaf_buffer_ids, struct galloc_error * err) {
    galloc->n_nodes = -1; // no valid assignment until the plan succeeds
    if (graph->out_of_memory) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory building the graph (ggml_build_forward_expand)");
    }

    // a ggml graph's tensors are its leafs and nodes (every source and view root is one of them);
    // a graph with others is indexed again with room for twice as many
    int64_t expected    = (int64_t) graph->n_leafs + graph->n_nodes + 16;
    int64_t max_tensors = expected > galloc->tensors_hint ? expected : galloc->tensors_hint; // the last reserve may have needed more
    for (;;) {
        if (max_tensors > INT32_MAX || !take_arrays(galloc, graph, (int32_t) max_tensors)) {
            return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory indexing the graph's tensors");
        }
        if (index_graph(galloc, graph, node_buffer_ids, leaf_buffer_ids)) {
            break;
        }
        max_tensors *= 2;
    }
    galloc->tensors_hint = galloc->index.count > expected ? max_tensors : 0;
    int32_t * nodes    = galloc->ids;
    int32_t * leafs    = nodes + graph->n_nodes;
    int32_t * node_ids = leafs + graph->n_leafs;
    int32_t * leaf_ids = node_ids + graph->n_nodes;
    bool uniform = gallocr_uniform_alloc_size(galloc);

    struct galloc_graph g = {
        .n_tensors       = galloc->index.count,
        .tensors         = galloc->tensors,
        .n_nodes         = graph->n_nodes,
        .nodes           = nodes,
        .node_buffer_ids = node_buffer_ids ? node_ids : NULL, // NULL: all 0
        .n_leafs         = graph->n_leafs,
        .leafs           = leafs,
        .leaf_buffer_ids = leaf_buffer_ids ? leaf_ids : NULL,
        .n_buffer_types  = galloc->n_buffers,
        .buffer_types    = galloc->types,
        .alloc_size      = uniform ? NULL : gallocr_alloc_size,
        .user            = galloc,
        .placement_only  = 1, // views are placed by ggml_backend_view_init, lifetimes are not reported
    };
    struct galloc_plan * plan = &galloc->plan;
    if (!galloc_plan_graph_in_arena(&g, plan, &galloc->arena, err)) {
        return false;
    }

    // keep the assignment of every tensor
    for (int32_t t = 0; t < galloc->index.count; t++) {
        record_alloc(galloc, plan, uniform, galloc->index.tensors[t], t, &galloc->allocs[t]);
    }
    galloc->n_nodes = graph->n_nodes;
    galloc->n_leafs = graph->n_leafs;
    return true;
}

const struct galloc_plan * galloc_gallocr_plan(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                               const int * leaf_buffer_ids, struct galloc_error * err) {
    return gallocr_plan(galloc, graph, node_buffer_ids, leaf_buffer_ids, err) ? &galloc->plan : NULL;
}

// plan graph and record the assignment; then, as upstream does, every buffer the plan does not
// fit in is freed and, with allocate, allocated again (without: left unallocated). A failed
// allocation keeps the assignment, as upstream's does.
static bool gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                            const int * leaf_buffer_ids, bool allocate, size_t * sizes) {
    struct galloc_error err;
    if (!gallocr_plan(galloc, graph, node_buffer_ids, leaf_buffer_ids, &err)) {
        GGML_LOG_ERROR("%s: %s\n", __func__, err.message);
        return false;
    }
    const struct galloc_plan * plan = &galloc->plan;

    if (sizes) {
        for (int i = 0; i < galloc->n_buffers; i++) {
            const struct galloc_buffer_plan * bp = &plan->buffers[i];
            sizes[i] = 0;
            for (int c = 0; c < bp->n_chunks; c++) {
                sizes[i] += (size_t) bp->chunk_sizes[c];
            }
        }
    }

    for (int i = 0; i < galloc->n_buffers; i++) {
        // a buffer type listed twice shares the buffer of its first entry
        int32_t first = galloc->types[i].allocator;
        if (first != i) {
            galloc->buffers[i] = galloc->buffers[first];
            continue;
        }
        // even without tensors a buffer is needed, to initialise views
        const struct galloc_buffer_plan * bp = &plan->buffers[i];
        bool realloc_needed = galloc->buffers[i] == NULL;
        for (int c = 0; c < bp->n_chunks; c++) {
            if ((size_t) bp->chunk_sizes[c] > vbuffer_chunk_size(galloc->buffers[i], c)) {
                realloc_needed = true;
            }
        }
        if (!realloc_needed) {
            continue;
        }
        gallocr_free_buffer(galloc, i);
        if (!allocate) {
            continue; // no_alloc: the plan is measured, the memory it does not fit in is given back
        }
        galloc->buffers[i] = vbuffer_alloc(galloc->bufts[i], bp);
        if (galloc->buffers[i] == NULL) {
            GGML_LOG_ERROR("%s: failed to allocate %s buffer of size %llu\n", __func__,
                           ggml_backend_buft_name(galloc->bufts[i]), (unsigned long long) bp->size);
            return false;
        }
    }
    return true;
}

bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    return gallocr_reserve(galloc, graph, node_buffer_ids, leaf_buffer_ids, true, NULL);
}

bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    return ggml_gallocr_reserve_n(galloc, graph, NULL, NULL);
}

void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                 const int * leaf_buffer_ids, size_t * sizes) {
    GGML_ASSERT(gallocr_reserve(galloc, graph, node_buffer_ids, leaf_buffer_ids, false, sizes));
}

// ---- the per-token path: alloc_graph on a reserved allocator -----------
//
// llama.cpp calls ggml_gallocr_alloc_graph once per token with a graph of the shape it reserved
// for. The answer is upstream's: the same check (ggml_gallocr_needs_realloc: every node and source
// slot still held by what was recorded for its position), the same tensors placed in the same
// order. What is skipped is work whose outcome is already known: a node's empty source slots after
// the last one filled at the reserve are looked at together (all still empty: one test), a tensor
// met again at another position is checked once, and a tensor the check has just validated is
// placed without computing its size again.

// does the recorded assignment still hold tensor t? uniform: every alloc size is ggml_nbytes
static inline bool tensor_alloc_valid(ggml_gallocr_t galloc, const struct ggml_tensor * t, const struct tensor_alloc * ta, bool uniform) {
    size_t size = 0;
    if (t->data == NULL && t->view_src == NULL) {
        if (ta->buffer_id < 0) {
            return false; // had data when planned, has none now
        }
        size = uniform ? ggml_nbytes(t) : ggml_backend_buft_get_alloc_size(galloc->bufts[ta->buffer_id], t);
    }
    return ta->size_max >= size;
}

// the indices the last reserve gave node i's source slots (-1: the slot was empty)
static inline const int32_t * node_sources(ggml_gallocr_t galloc, int i) {
    return galloc->tensors[galloc->ids[i]].src;
}

// the recorded assignment of the source with index src (none when the slot was empty)
static const struct tensor_alloc no_alloc = { .buffer_id = -1, .chunk = -1, .offset = SIZE_MAX, .size_max = 0 };
static inline const struct tensor_alloc * source_alloc(ggml_gallocr_t galloc, int32_t src) {
    return src >= 0 ? &galloc->allocs[src] : &no_alloc;
}

static inline const struct tensor_alloc * node_alloc(ggml_gallocr_t galloc, int i) {
    return &galloc->allocs[galloc->ids[i]];
}

static inline const struct tensor_alloc * leaf_alloc(ggml_gallocr_t galloc, int i) {
    return &galloc->allocs[galloc->ids[galloc->n_nodes + i]];
}

// does the assignment recorded for tensor index idx still hold t? A tensor met again (as a
// node and in several source slots) is checked once.
static inline bool recorded_still_valid(ggml_gallocr_t galloc, const struct ggml_tensor * t, int32_t idx, const struct tensor_alloc * ta,
                                        bool uniform) {
    bool same = idx >= 0 && galloc->index.tensors[idx] == t;
    if (same && galloc->checked[idx]) {
        return true;
    }
    if (!tensor_alloc_valid(galloc, t, ta, uniform)) {
        return false;
    }
    if (same) {
        galloc->checked[idx] = 1;
    }
    return true;
}

#if defined(__GNUC__) || defined(__clang__)
#    define FALL_THROUGH __attribute__((fallthrough))
#else
#    define FALL_THROUGH
#endif

// node i's source slots to look at: up to the last one filled at the reserve when every slot after
// it is still empty (one test for all of them), else all of them (*wide set)
static inline int node_slot_end(ggml_gallocr_t galloc, const struct ggml_tensor * node, int i, bool * wide) {
    _Static_assert(GGML_MAX_SRC == 10, "the slots after the last filled one are or-ed below, one case per slot");
    struct ggml_tensor * const * src  = node->src;
    int                          used = galloc->used_slots[i];
    uintptr_t                    tail = 0;
    switch (used) { // from slot `used` to the last, each case falling through to the next
        case 0: tail |= (uintptr_t) src[0]; FALL_THROUGH;
        case 1: tail |= (uintptr_t) src[1]; FALL_THROUGH;
        case 2: tail |= (uintptr_t) src[2]; FALL_THROUGH;
        case 3: tail |= (uintptr_t) src[3]; FALL_THROUGH;
        case 4: tail |= (uintptr_t) src[4]; FALL_THROUGH;
        case 5: tail |= (uintptr_t) src[5]; FALL_THROUGH;
        case 6: tail |= (uintptr_t) src[6]; FALL_THROUGH;
        case 7: tail |= (uintptr_t) src[7]; FALL_THROUGH;
        case 8: tail |= (uintptr_t) src[8]; FALL_THROUGH;
        case 9: tail |= (uintptr_t) src[9]; FALL_THROUGH;
        default: break;
    }
    if (tail != 0) {
        *wide = true;
        return GGML_MAX_SRC;
    }
    return used;
}

// upstream's ggml_gallocr_needs_realloc: the same node and leaf counts, and every node and
// source slot still held by what was recorded for its position; leafs themselves are not looked
// at. *wide: some node has a source in a slot after the last one filled at the reserve
static bool gallocr_needs_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph, bool uniform, bool * wide) {
    *wide = false;
    if (galloc->n_nodes != graph->n_nodes || galloc->n_leafs != graph->n_leafs) {
        return true;
    }
    if (graph->n_nodes == 0) {
        return false; // nothing to check (and a new allocator has no scratch yet)
    }
    memset(galloc->checked, 0, (size_t) galloc->index.count);
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (!recorded_still_valid(galloc, node, galloc->ids[i], node_alloc(galloc, i), uniform)) {
            return true;
        }
        const int32_t * srcs = node_sources(galloc, i);
        int             end  = node_slot_end(galloc, node, i, wide);
        for (int s = 0; s < end; s++) {
            struct ggml_tensor * src = node->src[s];
            if (src && !recorded_still_valid(galloc, src, srcs[s], source_alloc(galloc, srcs[s]), uniform)) {
                return true;
            }
        }
    }
    return false;
}

// the planned buffer chunk of ta; NULL (said in the log) when it was never allocated: a
// reserve_n_size or a failed reserve recorded the assignment without its memory (upstream
// dereferences the missing buffer there)
static ggml_backend_buffer_t planned_chunk(ggml_gallocr_t galloc, const struct ggml_tensor * t, const struct tensor_alloc * ta) {
    struct vbuffer * buf = galloc->buffers[ta->buffer_id];
    if (buf == NULL || buf->chunks[ta->chunk] == NULL) {
        GGML_LOG_ERROR("%s: %s has no %s buffer: the last reserve allocated none (ggml_gallocr_reserve_n_size, or a failed "
                       "allocation); call ggml_gallocr_reserve_n first\n", __func__, t->name, ggml_backend_buft_name(galloc->bufts[ta->buffer_id]));
        return NULL;
    }
    return buf->chunks[ta->chunk];
}

// the chunk the last tensor went to, with its base and size (asked once per alloc_graph, not per
// tensor: a buffer's base and size do not change while its tensors are placed)
struct chunk_cache {
    int32_t               buffer_id; // -1: none yet
    int32_t               chunk;
    ggml_backend_buffer_t buffer;
    char                * base;
    size_t                size;
};

// place t (no data, not a view) where ta says. validated: the check found t's alloc size within
// ta->size_max, so when the planned range fits the chunk the tensor does too and its size is not
// computed again; otherwise ggml_backend_tensor_alloc checks it
static bool place_planned(ggml_gallocr_t galloc, struct ggml_tensor * t, const struct tensor_alloc * ta, bool validated,
                          struct chunk_cache * cc) {
    GGML_ASSERT(ta->buffer_id >= 0 && ta->offset != SIZE_MAX && "tensor has no planned place");
    if (ta->buffer_id != cc->buffer_id || ta->chunk != cc->chunk) {
        ggml_backend_buffer_t chunk = planned_chunk(galloc, t, ta);
        if (chunk == NULL) {
            return false;
        }
        *cc = (struct chunk_cache) { ta->buffer_id, ta->chunk, chunk, ggml_backend_buffer_get_base(chunk), ggml_backend_buffer_get_size(chunk) };
    }
    char * addr = cc->base + ta->offset;
    if (!validated || t->buffer != NULL || ta->offset > cc->size || ta->size_max > cc->size - ta->offset) {
        ggml_backend_tensor_alloc(cc->buffer, t, addr); // asserts what does not hold
        return true;
    }
    t->buffer = cc->buffer;
    t->data   = addr;
    ggml_backend_buffer_init_tensor(cc->buffer, t);
    return true;
}

// upstream's ggml_gallocr_init_tensor: a view gets its root's memory once that has a buffer, a
// tensor with data is left alone, any other goes where the plan put it; false: see planned_chunk
static inline bool gallocr_init_tensor(ggml_gallocr_t galloc, struct ggml_tensor * t, const struct tensor_alloc * ta, bool validated,
                                       struct chunk_cache * cc) {
    if (t->view_src != NULL) {
        if (t->buffer == NULL && t->view_src->buffer != NULL) {
            ggml_backend_view_init(t);
        }
        return true;
    }
    if (t->data != NULL) {
        return true; // allocated outside the graph allocator
    }
    return place_planned(galloc, t, ta, validated, cc);
}

// a leaf the check does not look at (upstream's does not either) that cannot go where the last
// reserve put it: grown past the end of its chunk, or without data now where it had some then
// (upstream writes past its buffer or asserts there). Re-reserving for it leaves every plan upstream
// makes unchanged: a leaf that still fits its chunk is placed as upstream places it.
static bool leaf_out_of_place(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (galloc->n_nodes != graph->n_nodes || galloc->n_leafs != graph->n_leafs) {
        return false; // re-reserved anyway
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        const struct ggml_tensor * t = graph->leafs[i];
        if (t->data != NULL || t->view_src != NULL) {
            continue;
        }
        const struct tensor_alloc * ta = leaf_alloc(galloc, i);
        if (ta->buffer_id < 0 || ta->offset == SIZE_MAX) {
            return true;
        }
        const struct vbuffer * buf = galloc->buffers[ta->buffer_id];
        if (buf == NULL || buf->chunks[ta->chunk] == NULL) {
            continue; // no memory to place it in: said by planned_chunk
        }
        const size_t chunk = ggml_backend_buffer_get_size(buf->chunks[ta->chunk]);
        const size_t size  = ggml_backend_buft_get_alloc_size(galloc->bufts[ta->buffer_id], t);
        if (ta->offset > chunk || size > chunk - ta->offset) {
            return true;
        }
    }
    return false;
}

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    bool uniform = gallocr_uniform_alloc_size(galloc);
    bool wide    = false;
    if (gallocr_needs_reserve(galloc, graph, uniform, &wide) || leaf_out_of_place(galloc, graph)) {
        if (galloc->n_buffers != 1) {
            GGML_LOG_ERROR("%s: the graph changed since the last reserve and there are %d buffer types: call ggml_gallocr_reserve_n first\n",
                           __func__, galloc->n_buffers);
            return false;
        }
        if (!ggml_gallocr_reserve(galloc, graph)) {
            return false;
        }
        wide = false; // the reserve recorded every filled slot
    }

    // reset buffers
    for (int i = 0; i < galloc->n_buffers; i++) {
        if (galloc->buffers[i] == NULL) {
            continue;
        }
        for (int c = 0; c < GALLOC_MAX_CHUNKS; c++) {
            if (galloc->buffers[i]->chunks[c]) {
                ggml_backend_buffer_reset(galloc->buffers[i]->chunks[c]);
            }
        }
    }

    // place leafs (not looked at by the check), then each node's sources and the node (all checked)
    struct chunk_cache cc = { .buffer_id = -1 };
    for (int i = 0; i < graph->n_leafs; i++) {
        if (!gallocr_init_tensor(galloc, graph->leafs[i], leaf_alloc(galloc, i), false, &cc)) {
            return false;
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        const int32_t      * srcs = node_sources(galloc, i);
        int                  end  = wide ? GGML_MAX_SRC : galloc->used_slots[i];
        for (int s = 0; s < end; s++) {
            struct ggml_tensor * src = node->src[s];
            if (src && !gallocr_init_tensor(galloc, src, source_alloc(galloc, srcs[s]), true, &cc)) {
                return false;
            }
        }
        if (!gallocr_init_tensor(galloc, node, node_alloc(galloc, i), true, &cc)) {
            return false;
        }
    }
    return true;
}

size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id) {
    GGML_ASSERT(buffer_id >= 0 && buffer_id < galloc->n_buffers);
    if (galloc->buffers[buffer_id] == NULL) {
        return 0;
    }
    for (int i = 0; i < buffer_id; i++) {
        if (galloc->buffers[i] == galloc->buffers[buffer_id]) {
            return 0; // the same buffer type listed twice: counted once
        }
    }
    return vbuffer_size(galloc->buffers[buffer_id]);
}

// ---- all tensors of a context -------------------------------------------

struct buffer_list {
    ggml_backend_buffer_t * items;
    size_t                  count;
};

static void buffer_list_free(struct buffer_list * list) {
    for (size_t i = 0; i < list->count; i++) {
        ggml_backend_buffer_free(list->items[i]);
    }
    free(list->items);
}

// one buffer for tensors [first, last) of the context
static bool alloc_tensor_range(struct ggml_context * ctx, struct ggml_tensor * first, struct ggml_tensor * last,
                               ggml_backend_buffer_type_t buft, size_t size, struct buffer_list * list) {
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(buft, size);
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate %s buffer of size %zu\n", __func__, ggml_backend_buft_name(buft), size);
        return false;
    }
    ggml_backend_buffer_t * items = realloc(list->items, (list->count + 1) * sizeof(*items));
    if (items == NULL) {
        ggml_backend_buffer_free(buffer);
        return false;
    }
    list->items = items;
    list->items[list->count++] = buffer;

    struct ggml_tallocr tallocr = ggml_tallocr_new(buffer);
    for (struct ggml_tensor * t = first; t != last; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data == NULL && t->view_src == NULL) {
            ggml_tallocr_alloc(&tallocr, t);
        } else if (t->view_src != NULL && t->buffer == NULL && t->view_src->buffer != NULL) {
            ggml_backend_view_init(t);
        }
    }
    return true;
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    GGML_ASSERT(ggml_get_no_alloc(ctx) == true);
    size_t alignment = ggml_backend_buft_get_alignment(buft);
    size_t max_size  = ggml_backend_buft_get_max_size(buft);

    struct buffer_list   list     = { NULL, 0 };
    size_t               cur_size = 0;
    struct ggml_tensor * first    = ggml_get_first_tensor(ctx);
    for (struct ggml_tensor * t = first; t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        size_t this_size = 0;
        if (t->data == NULL && t->view_src == NULL) {
            this_size = GGML_PAD(ggml_backend_buft_get_alloc_size(buft, t), alignment);
        }
        if (cur_size > 0 && cur_size + this_size > max_size) {
            if (!alloc_tensor_range(ctx, first, t, buft, cur_size, &list)) {
                buffer_list_free(&list);
                return NULL;
            }
            first    = t;
            cur_size = this_size;
        } else {
            cur_size += this_size;
        }
    }
    if (cur_size > 0) {
        if (!alloc_tensor_range(ctx, first, NULL, buft, cur_size, &list)) {
            buffer_list_free(&list);
            return NULL;
        }
    }
    // views that follow the last allocated range still need their source's memory
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (t->view_src != NULL && t->buffer == NULL && t->view_src->buffer != NULL) {
            ggml_backend_view_init(t);
        }
    }

    if (list.count == 0) {
        free(list.items);
        return NULL;
    }
    ggml_backend_buffer_t buffer = list.count == 1 ? list.items[0] : ggml_backend_multi_buffer_alloc_buffer(list.items, list.count);
    if (buffer == NULL) {
        buffer_list_free(&list); // out of memory joining the ranges
        return NULL;
    }
    free(list.items);
    return buffer;
}
