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
#include "galloc-planner.h"

#include <stdlib.h>
#include <string.h>

// the planner's table (galloc_op_can_inplace), the one list of ops that may run in place
bool ggml_op_can_inplace(enum ggml_op op) {
    return galloc_op_can_inplace((int32_t) op);
}

static size_t align_size(size_t size, size_t alignment) {
    return (size + alignment - 1) & ~(alignment - 1);
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
    size_t size = align_size(ggml_backend_buffer_get_alloc_size(talloc->buffer, tensor), talloc->alignment);
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

struct tensor_index {
    struct index_slot   * slots;    // open addressing; key and value share a cache line
    size_t                capacity; // slots, a power of two, at least twice count
    int32_t               count;
    struct ggml_tensor ** tensors;  // index -> tensor
    size_t                tensors_capacity;
};

static size_t pointer_hash(const void * p) {
    uint64_t x = (uint64_t) (uintptr_t) p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t) x;
}

// forget every tensor; size the table for about `expected` of them
static void tensor_index_clear(struct tensor_index * ti, size_t expected) {
    size_t capacity = 64;
    while (capacity < expected * 2) {
        capacity *= 2;
    }
    if (capacity > ti->capacity) {
        free(ti->slots);
        ti->slots    = calloc(capacity, sizeof(*ti->slots));
        ti->capacity = capacity;
        GGML_ASSERT(ti->slots && "out of memory indexing graph tensors");
    } else if (ti->slots) {
        memset(ti->slots, 0, ti->capacity * sizeof(*ti->slots));
    }
    ti->count = 0;
}

static void tensor_index_slot_put(struct tensor_index * ti, struct ggml_tensor * t, int32_t value) {
    size_t mask = ti->capacity - 1;
    size_t i    = pointer_hash(t) & mask;
    while (ti->slots[i].key != NULL) {
        i = (i + 1) & mask;
    }
    ti->slots[i] = (struct index_slot) { t, value };
}

static void tensor_index_grow(struct tensor_index * ti) {
    size_t              capacity  = ti->capacity ? ti->capacity * 2 : 64;
    struct index_slot * old_slots = ti->slots;
    size_t              old_cap   = ti->capacity;
    ti->slots    = calloc(capacity, sizeof(*ti->slots));
    ti->capacity = capacity;
    GGML_ASSERT(ti->slots && "out of memory indexing graph tensors");
    for (size_t i = 0; i < old_cap; i++) {
        if (old_slots[i].key) {
            tensor_index_slot_put(ti, old_slots[i].key, old_slots[i].value);
        }
    }
    free(old_slots);
}

// index of t, adding it when new
static int32_t tensor_index_get(struct tensor_index * ti, struct ggml_tensor * t) {
    if (ti->capacity) {
        size_t mask = ti->capacity - 1;
        for (size_t i = pointer_hash(t) & mask; ti->slots[i].key != NULL; i = (i + 1) & mask) {
            if (ti->slots[i].key == t) {
                return ti->slots[i].value;
            }
        }
    }
    if ((size_t) (ti->count + 1) * 2 > ti->capacity) {
        tensor_index_grow(ti);
    }
    if ((size_t) ti->count == ti->tensors_capacity) {
        ti->tensors_capacity = ti->tensors_capacity ? ti->tensors_capacity * 2 : 64;
        ti->tensors = realloc(ti->tensors, ti->tensors_capacity * sizeof(*ti->tensors));
        GGML_ASSERT(ti->tensors && "out of memory indexing graph tensors");
    }
    tensor_index_slot_put(ti, t, ti->count);
    ti->tensors[ti->count] = t;
    return ti->count++;
}

static void tensor_index_free(struct tensor_index * ti) {
    free(ti->slots);
    free(ti->tensors);
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

    // the assignment of the last reserve: one entry per indexed tensor, reached through ids
    // (upstream copies it into every node's source slots; the slots' indices say the same)
    struct tensor_alloc * allocs;
    uint8_t             * checked; // scratch of alloc_graph: allocs[i] already found to still hold its tensor
    int32_t               allocs_capacity;
    // the graph the assignment is for: 0 and 0 on a new allocator (an empty graph fits it, as
    // upstream's), -1 after a plan that failed (upstream aborts there)
    int                   n_nodes;
    int                   n_leafs;

    struct tensor_index   index;
    struct galloc_tensor * tensors;
    int32_t                tensors_capacity;
    int32_t              * ids; // the last reserve's node and leaf indices, buffer ids, and node source indices
    struct galloc_plan     plan; // the last plan; its memory is reused by the next
};

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    GGML_ASSERT(n_bufs > 0);
    ggml_gallocr_t galloc = calloc(1, sizeof(*galloc));
    GGML_ASSERT(galloc != NULL);
    galloc->bufts     = calloc((size_t) n_bufs, sizeof(*galloc->bufts));
    galloc->types     = calloc((size_t) n_bufs, sizeof(*galloc->types));
    galloc->buffers   = calloc((size_t) n_bufs, sizeof(*galloc->buffers));
    galloc->n_buffers = n_bufs;
    GGML_ASSERT(galloc->bufts && galloc->types && galloc->buffers);

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
    tensor_index_free(&galloc->index);
    galloc_plan_free(&galloc->plan);
    free(galloc->tensors);
    free(galloc->ids);
    free(galloc->allocs);
    free(galloc->checked);
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

static int32_t index_tensor(ggml_gallocr_t galloc, struct ggml_tensor * t);

// the planner's view of ggml tensor t, index i; sources are filled in for nodes afterwards
// (only a node's sources matter to the pass)
static void describe_tensor(ggml_gallocr_t galloc, const struct ggml_tensor * t, int32_t i) {
    int32_t view_src = t->view_src ? index_tensor(galloc, t->view_src) : -1; // may grow galloc->tensors
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

// t's index in this reserve; a tensor seen for the first time is described (with its view root)
static int32_t index_tensor(ggml_gallocr_t galloc, struct ggml_tensor * t) {
    int32_t count = galloc->index.count;
    int32_t i     = tensor_index_get(&galloc->index, t);
    if (i == count) {
        if (i == galloc->tensors_capacity) {
            int32_t capacity = galloc->tensors_capacity ? galloc->tensors_capacity * 2 : 64;
            struct galloc_tensor * tensors = realloc(galloc->tensors, (size_t) capacity * sizeof(*tensors));
            GGML_ASSERT(tensors && "out of memory describing graph tensors");
            galloc->tensors          = tensors;
            galloc->tensors_capacity = capacity;
        }
        describe_tensor(galloc, t, i);
    }
    return i;
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

// plan graph; with allocate, (re)allocate the buffers the plan needs
// plan graph and record the assignment; then, as upstream does, every buffer the plan does not
// fit in is freed and, with allocate, allocated again (without: left unallocated). A failed
// allocation keeps the assignment, as upstream's does.
static bool gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                            const int * leaf_buffer_ids, bool allocate, size_t * sizes) {
    galloc->n_nodes = -1; // no valid assignment until the plan succeeds

    // scratch: node and leaf indices, their buffer ids, and every node's source indices
    galloc->ids = realloc(galloc->ids, ((size_t) graph->n_nodes * (2 + GGML_MAX_SRC) + (size_t) graph->n_leafs * 2 + 1) * sizeof(int32_t));
    GGML_ASSERT(galloc->ids && "out of memory");
    int32_t * nodes    = galloc->ids;
    int32_t * leafs    = nodes + graph->n_nodes;
    int32_t * node_ids = leafs + graph->n_leafs;
    int32_t * leaf_ids = node_ids + graph->n_nodes;
    int32_t * srcs     = leaf_ids + graph->n_leafs; // n_nodes * GGML_MAX_SRC

    // index and describe every tensor the pass can touch: leafs, nodes, their sources and view roots
    tensor_index_clear(&galloc->index, (size_t) graph->n_leafs + (size_t) graph->n_nodes * 2);
    for (int i = 0; i < graph->n_leafs; i++) {
        leafs[i]    = index_tensor(galloc, graph->leafs[i]);
        leaf_ids[i] = leaf_buffer_ids ? leaf_buffer_ids[i] : 0;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        nodes[i]    = index_tensor(galloc, node);
        node_ids[i] = node_buffer_ids ? node_buffer_ids[i] : 0;
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            srcs[(size_t) i * GGML_MAX_SRC + s] = node->src[s] ? index_tensor(galloc, node->src[s]) : -1;
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        memcpy(galloc->tensors[nodes[i]].src, &srcs[(size_t) i * GGML_MAX_SRC], sizeof(int32_t) * GGML_MAX_SRC);
    }
    bool uniform = gallocr_uniform_alloc_size(galloc);

    struct galloc_graph g = {
        .n_tensors       = galloc->index.count,
        .tensors         = galloc->tensors,
        .n_nodes         = graph->n_nodes,
        .nodes           = nodes,
        .node_buffer_ids = node_ids,
        .n_leafs         = graph->n_leafs,
        .leafs           = leafs,
        .leaf_buffer_ids = leaf_ids,
        .n_buffer_types  = galloc->n_buffers,
        .buffer_types    = galloc->types,
        .alloc_size      = uniform ? NULL : gallocr_alloc_size,
        .user            = galloc,
        .placement_only  = 1, // views are placed by ggml_backend_view_init, lifetimes are not reported
    };
    struct galloc_plan * plan = &galloc->plan;
    struct galloc_error err;
    if (!galloc_plan_graph_reuse(&g, plan, &err)) {
        GGML_LOG_ERROR("%s: %s\n", __func__, err.message);
        return false;
    }

    if (sizes) {
        for (int i = 0; i < galloc->n_buffers; i++) {
            const struct galloc_buffer_plan * bp = &plan->buffers[i];
            sizes[i] = 0;
            for (int c = 0; c < bp->n_chunks; c++) {
                sizes[i] += (size_t) bp->chunk_sizes[c];
            }
        }
    }

    // keep the assignment of every tensor
    if (galloc->allocs_capacity < galloc->index.count + 1) {
        free(galloc->allocs);
        free(galloc->checked);
        galloc->allocs_capacity = galloc->index.count + 1;
        galloc->allocs          = malloc((size_t) galloc->allocs_capacity * sizeof(*galloc->allocs));
        galloc->checked         = malloc((size_t) galloc->allocs_capacity);
        GGML_ASSERT(galloc->allocs && galloc->checked && "out of memory");
    }
    for (int32_t t = 0; t < galloc->index.count; t++) {
        record_alloc(galloc, plan, uniform, galloc->index.tensors[t], t, &galloc->allocs[t]);
    }
    galloc->n_nodes = graph->n_nodes;
    galloc->n_leafs = graph->n_leafs;

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

// does the recorded assignment still hold tensor t?
static bool tensor_alloc_valid(ggml_gallocr_t galloc, const struct ggml_tensor * t, const struct tensor_alloc * ta) {
    size_t size = 0;
    if (t->data == NULL && t->view_src == NULL) {
        if (ta->buffer_id < 0) {
            return false; // had data when planned, has none now
        }
        size = ggml_backend_buft_get_alloc_size(galloc->bufts[ta->buffer_id], t);
    }
    return ta->size_max >= size;
}

// the index the last reserve gave node i's source slot s (-1: the slot was empty)
static int32_t galloc_source_index(ggml_gallocr_t galloc, int i, int s) {
    const int32_t * srcs = galloc->ids + (size_t) galloc->n_nodes * 2 + (size_t) galloc->n_leafs * 2;
    return srcs[(size_t) i * GGML_MAX_SRC + s];
}

// the recorded assignment of node i's source slot s (none when the slot was empty)
static const struct tensor_alloc * source_alloc(ggml_gallocr_t galloc, int i, int s) {
    static const struct tensor_alloc none = { .buffer_id = -1, .chunk = -1, .offset = SIZE_MAX, .size_max = 0 };
    int32_t src = galloc_source_index(galloc, i, s);
    return src >= 0 ? &galloc->allocs[src] : &none;
}

static const struct tensor_alloc * node_alloc(ggml_gallocr_t galloc, int i) {
    return &galloc->allocs[galloc->ids[i]];
}

static const struct tensor_alloc * leaf_alloc(ggml_gallocr_t galloc, int i) {
    return &galloc->allocs[galloc->ids[galloc->n_nodes + i]];
}

// does the assignment recorded for tensor index idx still hold t? A tensor met again (as a
// node and in several source slots) is checked once.
static bool recorded_still_valid(ggml_gallocr_t galloc, const struct ggml_tensor * t, int32_t idx, const struct tensor_alloc * ta) {
    bool same = idx >= 0 && galloc->index.tensors[idx] == t;
    if (same && galloc->checked[idx]) {
        return true;
    }
    if (!tensor_alloc_valid(galloc, t, ta)) {
        return false;
    }
    if (same) {
        galloc->checked[idx] = 1;
    }
    return true;
}

// upstream's ggml_gallocr_needs_realloc: the same node and leaf counts, and every node and
// source slot still held by what was recorded for its position; leafs themselves are not looked at
static bool gallocr_needs_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (galloc->n_nodes != graph->n_nodes || galloc->n_leafs != graph->n_leafs) {
        return true;
    }
    if (graph->n_nodes == 0) {
        return false; // nothing to check (and a new allocator has no scratch yet)
    }
    memset(galloc->checked, 0, (size_t) galloc->index.count);
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (!recorded_still_valid(galloc, node, galloc->ids[i], node_alloc(galloc, i))) {
            return true;
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (node->src[s] && !recorded_still_valid(galloc, node->src[s], galloc_source_index(galloc, i, s), source_alloc(galloc, i, s))) {
                return true;
            }
        }
    }
    return false;
}

// false when the planned buffer was never allocated: a reserve_n_size or a failed reserve recorded
// the assignment without its memory (upstream dereferences the missing buffer there)
static bool gallocr_init_tensor(ggml_gallocr_t galloc, struct ggml_tensor * t, const struct tensor_alloc * ta) {
    if (t->view_src != NULL) {
        if (t->buffer == NULL && t->view_src->buffer != NULL) {
            ggml_backend_view_init(t);
        }
        return true;
    }
    if (t->data != NULL) {
        return true; // allocated outside the graph allocator
    }
    GGML_ASSERT(ta->buffer_id >= 0 && ta->offset != SIZE_MAX && "tensor has no planned place");
    struct vbuffer * buf = galloc->buffers[ta->buffer_id];
    if (buf == NULL || buf->chunks[ta->chunk] == NULL) {
        GGML_LOG_ERROR("%s: %s has no %s buffer: the last reserve allocated none (ggml_gallocr_reserve_n_size, or a failed "
                       "allocation); call ggml_gallocr_reserve_n first\n", __func__, t->name, ggml_backend_buft_name(galloc->bufts[ta->buffer_id]));
        return false;
    }
    char * base = ggml_backend_buffer_get_base(buf->chunks[ta->chunk]);
    ggml_backend_tensor_alloc(buf->chunks[ta->chunk], t, base + ta->offset);
    return true;
}

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (gallocr_needs_reserve(galloc, graph)) {
        if (galloc->n_buffers != 1) {
            GGML_LOG_ERROR("%s: the graph changed since the last reserve and there are %d buffer types: call ggml_gallocr_reserve_n first\n",
                           __func__, galloc->n_buffers);
            return false;
        }
        if (!ggml_gallocr_reserve(galloc, graph)) {
            return false;
        }
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

    // place leafs, then each node's sources and the node
    for (int i = 0; i < graph->n_leafs; i++) {
        if (!gallocr_init_tensor(galloc, graph->leafs[i], leaf_alloc(galloc, i))) {
            return false;
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (node->src[s] && !gallocr_init_tensor(galloc, node->src[s], source_alloc(galloc, i, s))) {
                return false;
            }
        }
        if (!gallocr_init_tensor(galloc, node, node_alloc(galloc, i))) {
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
            this_size = align_size(ggml_backend_buft_get_alloc_size(buft, t), alignment);
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
    free(list.items);
    return buffer;
}
