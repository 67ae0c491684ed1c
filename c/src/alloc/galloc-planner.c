// galloc-planner.c: plans a graph the way ggml's ggml_gallocr does.
//
// One pass over the graph (leafs, then counting children and views, then
// the nodes in order) decides every tensor's buffer, chunk and offset with one
// dynamic allocator per distinct buffer type. As upstream, a source gets its
// memory when its first consumer runs, even when it comes later in the graph
// (the scheduler's graphs have such sources), in that consumer's buffer type. Besides the placement it
// records each tensor's lifetime, the rule that placed it, and the peak of
// live bytes. Input is checked first so that no graph can reach an assert.

#include "galloc-arena.h"
#include "galloc-error.h"
#include "galloc-planner-arena.h"
#include "galloc-planner.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// per-tensor state of the pass (upstream's hash_node), with what the pass asks of the tensor
// often, copied from it once (the tensors are large, the states small)
enum tensor_bits {
    TENSOR_INPUT    = GGML_TENSOR_FLAG_INPUT,  // the tensor's own flag bits, copied as they are
    TENSOR_OUTPUT   = GGML_TENSOR_FLAG_OUTPUT,
    TENSOR_OWNED    = 1 << 2, // memory handed out by this pass and not yet released
    TENSOR_VIEW     = 1 << 3, // a view: never placed by the pass
    TENSOR_EXTERNAL = 1 << 4, // memory before planning: never placed by the pass
    // reports only: upstream's ggml_gallocr_alloc_graph gives tensors their memory in one walk
    // (leafs, then per node its sources and the node); a view gets its root's once the root has
    // some (a root that comes later in the graph may not yet)
    TENSOR_REACHED     = 1 << 5, // not a view, met in that walk: its memory is there
    TENSOR_VIEW_PLACED = 1 << 6, // a view met in that walk after its root (or of an external root)
};
_Static_assert((GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT) == 3, "the two flags fit below the pass's own bits");
// allocate_tensor has nothing to do for a tensor with any of these
#define TENSOR_HAS_MEMORY (TENSOR_OWNED | TENSOR_VIEW | TENSOR_EXTERNAL)

struct tensor_state {
    int32_t n_children; // node source slots still to be consumed
    int32_t n_views;    // views of this tensor still to be consumed
    int32_t last_use;   // reports only: the last node position at which it is a node or a source;
                        // -1 for a leaf no node uses, NOT_IN_GRAPH for no leaf, node or source
    uint8_t bits;       // enum tensor_bits
    uint8_t n_src;      // source slots in use: src[n_src..] are all empty (loops stop there)
};
_Static_assert(sizeof(struct tensor_state) == 16, "a power of two: a state's address is a shift of its index");
#define NOT_IN_GRAPH INT32_MIN

struct pass {
    const struct galloc_graph * graph;
    struct tensor_state       * state;
    struct galloc_place       * places;
    struct galloc_dynalloc   ** allocators; // per buffer type that owns its allocator (index by allocator_of)
    uint64_t                  * live;       // per buffer type (only the allocator's first entry is used)
    uint64_t                  * peak;
    int32_t                     step;       // node position being executed, -1 before the first
    int32_t                     n_inplace;
    int32_t                     n_replaced; // tensors placed again after their memory was released
    bool                        oom;
};

const char * galloc_how_name(enum galloc_how how) {
    switch (how) {
        case GALLOC_HOW_NONE:       return "none";
        case GALLOC_HOW_EXTERNAL:   return "external";
        case GALLOC_HOW_BEST_FIT:   return "best_fit";
        case GALLOC_HOW_LAST_BLOCK: return "last_block";
        case GALLOC_HOW_GROW:       return "grow";
        case GALLOC_HOW_NEW_CHUNK:  return "new_chunk";
        case GALLOC_HOW_INPLACE:    return "inplace";
        case GALLOC_HOW_VIEW:       return "view";
    }
    return "none";
}

bool galloc_how_allocates(int32_t how) {
    return how == GALLOC_HOW_BEST_FIT || how == GALLOC_HOW_LAST_BLOCK || how == GALLOC_HOW_GROW || how == GALLOC_HOW_NEW_CHUNK;
}

uint64_t galloc_overhead_bytes(uint64_t size, uint64_t peak_live) {
    return size > peak_live ? size - peak_live : 0;
}

bool galloc_same_layout(const struct galloc_tensor * a, const struct galloc_tensor * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

// the ops whose result may take over the memory of a source it consumes last, as upstream's
// ggml_op_can_inplace (private to its ggml-alloc.c) lists them; the one copy of this table:
// ggml_op_can_inplace, the documents' tables and the web UI's generated tables read it here
bool galloc_op_can_inplace(int32_t op) {
    switch (op) {
        case GGML_OP_FILL:
        case GGML_OP_SCALE:
        case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_ADD:
        case GGML_OP_ADD_ID:
        case GGML_OP_ADD1:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_UNARY:
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK:
        case GGML_OP_SILU_BACK:
        case GGML_OP_RMS_NORM:
        case GGML_OP_RMS_NORM_BACK:
        case GGML_OP_SOFT_MAX:
        case GGML_OP_SOFT_MAX_BACK:
            return true;
        default:
            return false;
    }
}

// ---- checks -------------------------------------------------------------

static bool is_pow2(uint64_t x) {
    return x != 0 && (x & (x - 1)) == 0;
}

// the counts and arrays, before anything is sized from them
static bool check_counts(const struct galloc_graph * g, struct galloc_error * err) {
    if (g->n_tensors < 0 || g->n_nodes < 0 || g->n_leafs < 0 || g->n_buffer_types < 1) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "graph: negative counts or no buffer type");
    }
    if ((g->n_tensors && !g->tensors) || (g->n_nodes && !g->nodes) || (g->n_leafs && !g->leafs) || !g->buffer_types) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "graph: missing array");
    }
    return true;
}

// the source slots up to the last one that is not -1 (slots after it are all -1). Most tensors
// use at most two: slots 2 on are all -1 when their AND is all ones, one test for the eight
static int used_slots(const int32_t * src) {
    _Static_assert(GGML_MAX_SRC % 2 == 0, "slots are read two at a time");
    uint64_t rest = UINT64_MAX;
    for (int s = 2; s < GGML_MAX_SRC; s += 2) {
        uint64_t pair;
        memcpy(&pair, &src[s], sizeof(pair));
        rest &= pair;
    }
    if (rest == UINT64_MAX) {
        return src[1] != -1 ? 2 : src[0] != -1 ? 1 : 0;
    }
    int n = GGML_MAX_SRC;
    while (src[n - 1] == -1) { // stops at slot 2 at the latest: one of slots 2 on is not -1
        n--;
    }
    return n;
}

// every id below limit (in unsigned arithmetic, where a negative one is above every limit): one
// test of the whole array, without a branch per entry (compilers vectorize it); the checks walk
// the array entry by entry only to name the first bad one
static bool all_below(const int32_t * ids, int32_t n, uint32_t limit) {
    uint32_t above = 0;
    for (int32_t i = 0; i < n; i++) {
        above |= (uint32_t) ids[i] >= limit;
    }
    return above == 0;
}

// the bits of a tensor's state that copy the tensor
static uint8_t tensor_bits(const struct galloc_tensor * t) {
    return (uint8_t) ((t->flags & (TENSOR_INPUT | TENSOR_OUTPUT)) | (t->view_src >= 0 ? TENSOR_VIEW : 0) | (t->external ? TENSOR_EXTERNAL : 0));
}

// every index in range; in the same walk over the tensors, each one's state (its used source
// slots and bits, not yet used) and its place (not placed)
static bool check_graph(struct pass * p, struct galloc_error * err) {
    const struct galloc_graph * g = p->graph;
    for (int32_t b = 0; b < g->n_buffer_types; b++) {
        const struct galloc_buffer_type * bt = &g->buffer_types[b];
        if (!is_pow2(bt->alignment)) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "buffer_types[%d].alignment: %llu is not a power of two", b, (unsigned long long) bt->alignment);
        }
        if (bt->allocator < 0 || bt->allocator > b || g->buffer_types[bt->allocator].allocator != bt->allocator) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "buffer_types[%d]: shares an allocator with an invalid entry %d", b, bt->allocator);
        }
    }
    // the used slots end at the last one that is not -1; each of them is -1 or an index, which in
    // unsigned arithmetic is slot + 1 in [0, n_tensors]
    const uint32_t n_tensors_u = (uint32_t) g->n_tensors;
    for (int32_t i = 0; i < g->n_tensors; i++) {
        const struct galloc_tensor * t = &g->tensors[i];
        int n_src = used_slots(t->src);
        for (int s = 0; s < n_src; s++) {
            if ((uint32_t) t->src[s] + 1u > n_tensors_u) {
                return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].src[%d]: index %d out of range (%d tensors)", i, s, t->src[s], g->n_tensors);
            }
            // a tensor reading itself (ggml_cast's result does) is planned as upstream plans it,
            // unless its op may run in place: upstream's ggml_gallocr_allocate_node would then take
            // it over "in place" of itself, at an address it never allocated
            if (t->src[s] == i && galloc_op_can_inplace(t->op)) {
                return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].src[%d]: reads itself, and its op may run in place (upstream would take "
                                   "over its own memory before allocating any)", i, s);
            }
        }
        if (t->view_src != -1) { // a view: an index (in unsigned arithmetic, a negative one is above every count)
            if ((uint32_t) t->view_src >= n_tensors_u || t->view_src == i) {
                return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].view_src: index %d out of range or itself", i, t->view_src);
            }
            if (g->tensors[t->view_src].view_src >= 0) {
                return galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].view_src: tensor %d is itself a view (view_src must be the root)", i, t->view_src);
            }
        }
        p->state[i]  = (struct tensor_state) { .last_use = NOT_IN_GRAPH, .bits = tensor_bits(t), .n_src = (uint8_t) n_src };
        p->places[i] = (struct galloc_place) { .buffer = -1, .chunk = -1, .parent = -1, .first_step = -1, .last_step = -1 };
    }
    // indices and buffer ids in unsigned arithmetic: a negative one is above every count
    const uint32_t n_buffer_types = (uint32_t) g->n_buffer_types;
    bool nodes_ok = all_below(g->nodes, g->n_nodes, n_tensors_u) && (!g->node_buffer_ids || all_below(g->node_buffer_ids, g->n_nodes, n_buffer_types));
    bool leafs_ok = all_below(g->leafs, g->n_leafs, n_tensors_u) && (!g->leaf_buffer_ids || all_below(g->leaf_buffer_ids, g->n_leafs, n_buffer_types));
    for (int32_t i = 0; !nodes_ok && i < g->n_nodes; i++) {
        if ((uint32_t) g->nodes[i] >= n_tensors_u) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "nodes[%d]: index %d out of range (%d tensors)", i, g->nodes[i], g->n_tensors);
        }
        if (g->node_buffer_ids && (uint32_t) g->node_buffer_ids[i] >= n_buffer_types) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "node_buffer_ids[%d]: buffer type %d out of range (%d buffer types)", i, g->node_buffer_ids[i], g->n_buffer_types);
        }
    }
    for (int32_t i = 0; !leafs_ok && i < g->n_leafs; i++) {
        if ((uint32_t) g->leafs[i] >= n_tensors_u) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "leafs[%d]: index %d out of range (%d tensors)", i, g->leafs[i], g->n_tensors);
        }
        if (g->leaf_buffer_ids && (uint32_t) g->leaf_buffer_ids[i] >= n_buffer_types) {
            return galloc_fail(err, GALLOC_STATUS_INVALID, "leaf_buffer_ids[%d]: buffer type %d out of range (%d buffer types)", i, g->leaf_buffer_ids[i], g->n_buffer_types);
        }
    }
    return true;
}

// ---- the pass -----------------------------------------------------------

static uint64_t tensor_alloc_size(const struct pass * p, int32_t t, int32_t buffer_id) {
    const struct galloc_graph * g = p->graph;
    return g->alloc_size ? g->alloc_size(g->user, t, buffer_id) : g->tensors[t].alloc_size;
}

static uint64_t align_up(uint64_t size, uint64_t alignment) {
    return GGML_PAD(size, alignment);
}

static int32_t allocator_of(const struct pass * p, int32_t buffer_id) {
    return p->graph->buffer_types[buffer_id].allocator;
}

static void live_add(struct pass * p, int32_t buffer_id, uint64_t bytes) {
    int32_t a = allocator_of(p, buffer_id);
    p->live[a] += bytes;
    if (p->live[a] > p->peak[a]) {
        p->peak[a] = p->live[a];
    }
}

static void release_bytes(struct pass * p, int32_t buffer_id, struct galloc_address addr, uint64_t size) {
    int32_t a = allocator_of(p, buffer_id);
    uint64_t rounded = align_up(size, p->graph->buffer_types[a].alignment);
    p->live[a] -= rounded;
    if (!galloc_dynalloc_release(p->allocators[a], addr, size)) {
        p->oom = true;
    }
}

static bool is_output(const struct pass * p, int32_t t) {
    return (p->state[t].bits & TENSOR_OUTPUT) != 0;
}

// can node t take over the memory of its source s?
static bool can_take_over(const struct pass * p, int32_t t, int32_t s) {
    const struct galloc_tensor * tt = &p->graph->tensors[t];
    const struct galloc_tensor * ts = &p->graph->tensors[s];
    if (!(p->state[s].bits & TENSOR_OWNED)) {
        return false; // external memory, a view, or already released
    }
    if (is_output(p, s) || (ts->view_src >= 0 && is_output(p, ts->view_src))) {
        return false;
    }
    if (p->state[s].n_children != 1 || p->state[s].n_views != 0) {
        return false; // not consumed here for the last time (tested before the layout: it costs less)
    }
    if (!galloc_same_layout(tt, ts)) {
        return false;
    }
    // upstream asserts here when the node needs more bytes than its parent: skip such a parent instead
    // (the parent's place holds its alloc size in its buffer)
    const struct galloc_place * parent = &p->places[s];
    return parent->size >= tensor_alloc_size(p, t, parent->buffer);
}

// memory for tensor t, which has none (allocate_tensor asked): in place over a source, else from its allocator
static void place_tensor(struct pass * p, int32_t t, int32_t buffer_id) {
    const struct galloc_tensor * tensor = &p->graph->tensors[t];
    struct galloc_place        * place  = &p->places[t];
    p->state[t].bits |= TENSOR_OWNED;
    // placed before, at the step of a consumer that comes before it in the graph and released
    // there: upstream places it again (at its own step). The place describes this placement only
    if (place->freed) {
        p->n_replaced++;
        place->freed = 0;
    }
    place->first_step = p->step;

    // in place: the first source consumed here for the last time
    if (galloc_op_can_inplace(tensor->op)) {
        int n_src = p->state[t].n_src;
        for (int i = 0; i < n_src; i++) {
            int32_t s = tensor->src[i];
            if (s < 0 || !can_take_over(p, t, s)) { // (s == t only for ops that may not run in place: check_graph)
                continue;
            }
            struct galloc_place * parent = &p->places[s];
            place->buffer = parent->buffer;
            place->chunk  = parent->chunk;
            place->offset = parent->offset;
            place->size   = tensor_alloc_size(p, t, parent->buffer);
            place->how    = GALLOC_HOW_INPLACE;
            place->parent = s;
            p->state[s].bits &= (uint8_t) ~TENSOR_OWNED;
            parent->last_step = p->step;
            parent->freed     = 1;
            p->n_inplace++;

            // give back the parent's tail beyond what the node needs
            uint64_t align       = p->graph->buffer_types[allocator_of(p, parent->buffer)].alignment;
            uint64_t parent_size = align_up(parent->size, align);
            uint64_t node_size   = align_up(place->size, align);
            if (parent_size > node_size) {
                struct galloc_address tail = { parent->chunk, parent->offset + node_size };
                release_bytes(p, parent->buffer, tail, parent_size - node_size);
            }
            return;
        }
    }

    // the rule that placed it, by enum galloc_fit
    static const int8_t how_of_fit[] = {
        [GALLOC_FIT_BEST] = GALLOC_HOW_BEST_FIT, [GALLOC_FIT_LAST_BLOCK] = GALLOC_HOW_LAST_BLOCK,
        [GALLOC_FIT_GROW] = GALLOC_HOW_GROW,     [GALLOC_FIT_NEW_CHUNK] = GALLOC_HOW_NEW_CHUNK,
    };
    uint64_t              size = tensor_alloc_size(p, t, buffer_id);
    struct galloc_address addr = { 0, 0 };
    enum galloc_fit       fit  = GALLOC_FIT_BEST;
    if (!galloc_dynalloc_alloc(p->allocators[allocator_of(p, buffer_id)], size, &addr, &fit)) {
        p->oom = true;
        p->state[t].bits &= (uint8_t) ~TENSOR_OWNED;
        return;
    }
    live_add(p, buffer_id, align_up(size, p->graph->buffer_types[allocator_of(p, buffer_id)].alignment));
    place->buffer = buffer_id;
    place->chunk  = addr.chunk;
    place->offset = addr.offset;
    place->size   = size;
    place->parent = -1;
    place->how    = how_of_fit[fit];
}

// memory for tensor t unless it has some (its own, external, or a view's, which are never placed):
// the test made where the pass meets a tensor, as most tensors it meets already have theirs
static inline void allocate_tensor(struct pass * p, int32_t t, int32_t buffer_id) {
    if (!(p->state[t].bits & TENSOR_HAS_MEMORY)) {
        place_tensor(p, t, buffer_id);
    }
}

static void free_tensor(struct pass * p, int32_t t) {
    if (is_output(p, t)) {
        return; // graph outputs keep their memory
    }
    struct galloc_place * place = &p->places[t];
    if (place->buffer < 0) {
        return; // only after running out of memory
    }
    struct galloc_address addr  = { place->chunk, place->offset };
    release_bytes(p, place->buffer, addr, place->size); // its alloc size in that buffer
    p->state[t].bits &= (uint8_t) ~TENSOR_OWNED;
    place->last_step  = p->step;
    place->freed      = 1;
}

// entry i of a graph's node_buffer_ids or leaf_buffer_ids (NULL: all 0)
static int32_t buffer_id_at(const int32_t * buffer_ids, int32_t i) {
    return buffer_ids ? buffer_ids[i] : 0;
}

// reports only: tensor t met in upstream's walk that gives tensors their memory (see TENSOR_REACHED)
static inline void reach_tensor(struct tensor_state * state, const struct galloc_tensor * tensors, int32_t t) {
    int32_t root = tensors[t].view_src;
    if (root < 0) {
        state[t].bits |= TENSOR_REACHED;
    } else if (state[root].bits & (TENSOR_REACHED | TENSOR_EXTERNAL)) {
        state[t].bits |= TENSOR_VIEW_PLACED;
    }
}

// with report, the walk that counts children and views also notes what is in the graph, the step
// at which each tensor is last a node or a source, and the one at which a view is first a node
// (in its place, which the pass never writes: a view is never placed). finish_places reads them
static void run_pass_with(struct pass * p, const bool report) {
    // the graph's arrays in locals: the state's byte stores may alias anything, so fields read
    // through g would be loaded again after each
    const struct galloc_graph  * g        = p->graph;
    const struct galloc_tensor * tensors  = g->tensors;
    const int32_t              * nodes    = g->nodes;
    const int32_t              * node_ids = g->node_buffer_ids;
    const int32_t                n_nodes  = g->n_nodes;
    struct tensor_state        * state    = p->state;
    p->step = -1;

    // allocate leafs
    for (int32_t i = 0; i < g->n_leafs; i++) {
        int32_t leaf = g->leafs[i];
        if (report) {
            state[leaf].last_use = -1; // in the graph (the nodes, counted next, set the steps they use it at)
            reach_tensor(state, tensors, leaf);
        }
        allocate_tensor(p, leaf, buffer_id_at(g->leaf_buffer_ids, i));
    }

    // count children and views; allocate graph inputs first so nothing overwrites them
    for (int32_t i = 0; i < n_nodes; i++) {
        int32_t                      n     = nodes[i];
        const struct galloc_tensor * node  = &tensors[n];
        struct tensor_state        * ns    = &state[n];
        int                          n_src = ns->n_src;
        if (report) {
            ns->last_use = i;
        }
        if (ns->bits & TENSOR_VIEW) {
            if (report && p->places[n].first_step == -1) {
                p->places[n].first_step = i;
            }
            if (node->op != GGML_OP_NONE) {
                state[node->view_src].n_views++;
            }
        }
        if (ns->bits & TENSOR_INPUT) {
            allocate_tensor(p, n, buffer_id_at(node_ids, i));
        }
        for (int s = 0; s < n_src; s++) {
            int32_t src = node->src[s];
            if (src < 0) {
                continue;
            }
            struct tensor_state * ss = &state[src];
            ss->n_children++;
            if (report) {
                ss->last_use = i;
            }
            if (ss->bits & TENSOR_INPUT) {
                allocate_tensor(p, src, buffer_id_at(node_ids, i));
            }
        }
        if (report) { // upstream's walk: the sources, then the node
            for (int s = 0; s < n_src; s++) {
                if (node->src[s] >= 0) {
                    reach_tensor(state, tensors, node->src[s]);
                }
            }
            reach_tensor(state, tensors, n);
        }
    }

    // allocate the nodes in execution order, freeing sources after their last use
    for (int32_t i = 0; i < n_nodes; i++) {
        int32_t                      n         = nodes[i];
        const struct galloc_tensor * node      = &tensors[n];
        int32_t                      buffer_id = buffer_id_at(node_ids, i);
        int                          n_src     = state[n].n_src;
        p->step = i;

        for (int s = 0; s < n_src; s++) {
            if (node->src[s] >= 0) {
                allocate_tensor(p, node->src[s], buffer_id);
            }
        }
        allocate_tensor(p, n, buffer_id);

        // update parents
        for (int s = 0; s < n_src; s++) {
            int32_t src = node->src[s];
            if (src < 0) {
                continue;
            }
            struct tensor_state * st = &state[src];
            st->n_children--;
            if (st->n_children != 0 || st->n_views != 0) {
                continue;
            }
            if (st->bits & TENSOR_VIEW) {
                int32_t               root = tensors[src].view_src;
                struct tensor_state * rs   = &state[root];
                rs->n_views--;
                if (rs->n_views == 0 && rs->n_children == 0 && (rs->bits & TENSOR_OWNED)) {
                    free_tensor(p, root);
                }
            } else if (st->bits & TENSOR_OWNED) {
                free_tensor(p, src);
            }
        }
    }
}

static void run_pass(struct pass * p) {
    if (!p->graph->placement_only) {
        run_pass_with(p, true);
    } else {
        run_pass_with(p, false);
    }
}

// ---- results ------------------------------------------------------------

// for the tensors in the graph: views take their root's place; lifetimes of views span their uses;
// what still holds its memory (owned at the end: placed and neither released nor taken over) keeps
// it to the last step. Most tensors are none of these (checked first); an owned one is in the graph
static void finish_places(struct pass * p) {
    const struct galloc_graph * g         = p->graph;
    int32_t                     last_step = g->n_nodes - 1;
    for (int32_t t = 0; t < g->n_tensors; t++) {
        uint8_t bits = p->state[t].bits;
        if (!(bits & TENSOR_HAS_MEMORY) || (!(bits & TENSOR_OWNED) && p->state[t].last_use == NOT_IN_GRAPH)) {
            continue;
        }
        struct galloc_place * place = &p->places[t];
        if (bits & TENSOR_VIEW) {
            const struct galloc_tensor * tensor = &g->tensors[t];
            const struct galloc_place  * root   = &p->places[tensor->view_src];
            place->how        = GALLOC_HOW_VIEW;
            place->parent     = tensor->view_src;
            place->size       = tensor->nbytes;
            place->last_step  = (bits & TENSOR_OUTPUT) ? last_step : p->state[t].last_use; // first_step: the pass's
            if (root->buffer >= 0 && (bits & TENSOR_VIEW_PLACED)) { // else met only before its root: no memory
                place->buffer = root->buffer;
                place->chunk  = root->chunk;
                place->offset = root->offset + tensor->view_offs;
            }
        } else if (bits & TENSOR_EXTERNAL) {
            place->how = GALLOC_HOW_EXTERNAL;
        } else if (bits & TENSOR_OWNED) {
            place->last_step = last_step;
        }
    }
}

// memory kept in a plan between runs of galloc_plan_graph_reuse; the per-tensor arrays (the
// places and the pass's state) are taken from an arena each run: the plan's own, or the caller's
struct galloc_plan_scratch {
    struct galloc_arena       arena;            // the plan's own (galloc_plan_graph_reuse)
    int32_t                   buffers_capacity; // entries of buffers, allocators, live, peak, alignments, max_sizes
    struct galloc_dynalloc ** allocators;       // one per buffer type that owns its allocator, else NULL
    uint64_t                * live;
    uint64_t                * peak;
    uint64_t                * alignments;       // what each allocator was made for
    uint64_t                * max_sizes;
};

static void scratch_free_allocators(struct galloc_plan_scratch * sc) {
    for (int32_t b = 0; b < sc->buffers_capacity; b++) {
        galloc_dynalloc_free(sc->allocators[b]);
        sc->allocators[b] = NULL;
    }
}

static void scratch_free(struct galloc_plan_scratch * sc) {
    if (!sc) {
        return;
    }
    scratch_free_allocators(sc);
    galloc_arena_free(&sc->arena);
    free(sc->allocators);
    free(sc->live);
    free(sc->peak);
    free(sc->alignments);
    free(sc->max_sizes);
    free(sc);
}

// grow *ptr to n entries of size bytes (contents not kept)
static bool grow(void ** ptr, size_t n, size_t size) {
    void * grown = realloc(*ptr, n * size);
    if (!grown) {
        return false;
    }
    *ptr = grown;
    return true;
}

static bool plan_make_scratch(struct galloc_plan * plan) {
    if (!plan->scratch) {
        plan->scratch = calloc(1, sizeof(*plan->scratch));
    }
    return plan->scratch != NULL;
}

// make room in the plan and its scratch for nb buffer types
static bool plan_reserve_buffers(struct galloc_plan * plan, int32_t nb) {
    struct galloc_plan_scratch * sc = plan->scratch;
    if (nb > sc->buffers_capacity) {
        scratch_free_allocators(sc);
        size_t n = (size_t) nb;
        if (!grow((void **) &plan->buffers, n, sizeof(*plan->buffers)) || !grow((void **) &sc->allocators, n, sizeof(*sc->allocators)) ||
            !grow((void **) &sc->live, n, sizeof(uint64_t)) || !grow((void **) &sc->peak, n, sizeof(uint64_t)) ||
            !grow((void **) &sc->alignments, n, sizeof(uint64_t)) || !grow((void **) &sc->max_sizes, n, sizeof(uint64_t))) {
            sc->buffers_capacity = 0;
            return false;
        }
        memset(sc->allocators, 0, n * sizeof(*sc->allocators));
        sc->buffers_capacity = nb;
    }
    return true;
}

size_t galloc_plan_arena_bytes(int32_t n_tensors) {
    size_t n = n_tensors > 0 ? (size_t) n_tensors : 0;
    return galloc_arena_sum(galloc_arena_array_size(n, sizeof(struct galloc_place)), galloc_arena_array_size(n, sizeof(struct tensor_state)));
}

static bool plan_in_arena(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_arena * arena, struct galloc_error * err) {
    int32_t nt = graph->n_tensors;
    int32_t nb = graph->n_buffer_types;
    size_t  n  = (size_t) nt;
    struct pass p = { 0 };
    plan->places = galloc_arena_take_array(arena, n, sizeof(*plan->places));
    p.state      = galloc_arena_take_array(arena, n, sizeof(*p.state));
    if (!plan->places || !p.state || !plan_reserve_buffers(plan, nb)) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory while planning %d tensors", nt);
    }
    struct galloc_plan_scratch * sc = plan->scratch;
    p.graph  = graph;
    p.places = plan->places;
    if (!check_graph(&p, err)) {
        return false;
    }

    p.allocators = sc->allocators;
    p.live       = sc->live;
    p.peak       = sc->peak;
    memset(p.live, 0, (size_t) nb * sizeof(uint64_t));
    memset(p.peak, 0, (size_t) nb * sizeof(uint64_t));

    // one dynamic allocator per distinct buffer type, kept between runs when it still fits
    bool ok = true;
    for (int32_t b = 0; b < nb; b++) {
        const struct galloc_buffer_type * bt = &graph->buffer_types[b];
        struct galloc_dynalloc ** a = &sc->allocators[b];
        if (bt->allocator != b) {
            galloc_dynalloc_free(*a);
            *a = NULL;
            continue;
        }
        if (*a && sc->alignments[b] == bt->alignment && sc->max_sizes[b] == bt->max_size) {
            galloc_dynalloc_reset(*a);
            continue;
        }
        galloc_dynalloc_free(*a);
        *a = galloc_dynalloc_new(bt->alignment, bt->max_size);
        sc->alignments[b] = bt->alignment;
        sc->max_sizes[b]  = bt->max_size;
        ok = ok && *a != NULL;
    }
    if (ok) {
        run_pass(&p);
        if (!graph->placement_only) {
            finish_places(&p);
        }
        ok = !p.oom;
    }
    if (!ok) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory while planning %d tensors", nt);
    }

    for (int32_t b = 0; b < nb; b++) {
        struct galloc_buffer_plan       * bp = &plan->buffers[b];
        const struct galloc_buffer_type * bt = &graph->buffer_types[b];
        const struct galloc_dynalloc    * a  = sc->allocators[bt->allocator];
        memset(bp, 0, sizeof(*bp));
        bp->shared_with = bt->allocator != b ? bt->allocator : -1;
        bp->n_chunks    = galloc_dynalloc_n_chunks(a);
        for (int32_t c = 0; c < bp->n_chunks; c++) {
            bp->chunk_sizes[c] = galloc_dynalloc_chunk_size(a, c);
            if (bt->allocator == b) {
                bp->size += bp->chunk_sizes[c];
            }
        }
        bp->peak_live = bt->allocator == b ? p.peak[b] : 0;
    }
    plan->n_tensors      = nt;
    plan->n_buffer_types = nb;
    plan->n_steps        = graph->n_nodes;
    plan->n_inplace      = p.n_inplace;
    plan->n_replaced     = p.n_replaced;
    return true;
}

// the counts are checked before anything is sized from them
static bool plan_start(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_error * err) {
    plan->n_tensors      = 0;
    plan->n_buffer_types = 0;
    if (!plan->scratch) {
        free(plan->places); // a zeroed plan, or one put together outside the planner: its own places
    }
    plan->places = NULL; // the planner's are in the last run's arena
    if (!check_counts(graph, err)) {
        return false;
    }
    if (!plan_make_scratch(plan)) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory while planning %d tensors", graph->n_tensors);
    }
    return true;
}

bool galloc_plan_graph_reuse(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_error * err) {
    if (!plan_start(graph, plan, err)) {
        return false;
    }
    struct galloc_arena * arena = &plan->scratch->arena;
    galloc_arena_begin(arena, galloc_plan_arena_bytes(graph->n_tensors)); // a failure shows in the takes
    return plan_in_arena(graph, plan, arena, err);
}

bool galloc_plan_graph_in_arena(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_arena * arena, struct galloc_error * err) {
    return plan_start(graph, plan, err) && plan_in_arena(graph, plan, arena, err);
}

bool galloc_plan_graph(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_error * err) {
    memset(plan, 0, sizeof(*plan));
    if (!galloc_plan_graph_reuse(graph, plan, err)) {
        galloc_plan_free(plan);
        return false;
    }
    return true;
}

void galloc_plan_free(struct galloc_plan * plan) {
    if (!plan) {
        return;
    }
    if (!plan->scratch) {
        free(plan->places); // a plan put together outside the planner (galloc_whatif_apply) owns its places
    }
    free(plan->buffers); // the planner's places are in an arena
    scratch_free(plan->scratch);
    memset(plan, 0, sizeof(*plan));
}
