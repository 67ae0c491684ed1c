// check.c: the shared checkers of the C tests (see check.h).
//
// The overlap checker is independent of the allocator: it uses neither the planner's lifetimes
// nor the production table of in-place ops, only the graph and ggml's semantics (below). One
// core judges both a placed ggml_cgraph and a planner-level plan.

#include "check.h"
#include "ggml-backend.h"

#include <limits.h>
#include <stdlib.h>

int check_failures = 0;
int check_cases    = 0;

int check_report(const char * suite) {
    if (check_failures) {
        printf("%s: %d checks FAILED (%d cases)\n", suite, check_failures, check_cases);
        return 1;
    }
    printf("%s: %d cases passed\n", suite, check_cases);
    return 0;
}

void check_all_placed(struct ggml_cgraph * graph) {
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        struct ggml_tensor * t = ggml_graph_node(graph, i);
        CHECK(t->buffer != NULL);
        CHECK(t->data != NULL);
    }
}

// ---- the overlap checker -------------------------------------------------------------------
//
// - A tensor that is not a view is a root; a view reads its root's bytes (ggml points every
//   view at the root itself).
// - A root holds bytes still to be read from the step it is written to its last read. Leafs
//   and tensors flagged input are written before the first node (the program fills them); a
//   node at its step; a source that is neither leaf nor node (memory from elsewhere) is there
//   all along. Its last read is the last step at which it, or a view of it, is a node or a
//   source; a root flagged output, or a leaf no node reads (kept for the program), is read
//   after the last node; a node nobody reads is dead after its step. A view flagged output
//   does not keep its root: upstream frees the root once the view's readers are done, and the
//   project reproduces that rather than protecting it.
// - Two roots holding bytes at a common step must not share a byte of one memory (a root spans
//   its alloc size), but for a node that runs in place of a root whose last read is that node:
//   an op that reads each element (or row) of a source before writing the same element (row)
//   of its result (op_may_share_memory), the root reached through exactly one source slot,
//   the node starting at that source's first byte, with the same type, shape and strides.

// ops whose result may overwrite a source as it goes, from what each op computes
static bool op_may_share_memory(int32_t op) {
    switch ((enum ggml_op) op) {
        // element i of the result from element i of the sources (broadcast sources read whole)
        case GGML_OP_ADD: case GGML_OP_ADD1: case GGML_OP_ADD_ID: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV:
        case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_LOG: case GGML_OP_SIN: case GGML_OP_COS: case GGML_OP_SCALE:
        case GGML_OP_CLAMP: case GGML_OP_UNARY: case GGML_OP_SILU_BACK: case GGML_OP_FILL:
        case GGML_OP_DIAG_MASK_INF: case GGML_OP_DIAG_MASK_ZERO:
        // row r of the result from row r of the sources, the row read before it is written
        case GGML_OP_NORM: case GGML_OP_RMS_NORM: case GGML_OP_RMS_NORM_BACK: case GGML_OP_SOFT_MAX: case GGML_OP_SOFT_MAX_BACK:
        case GGML_OP_ROPE: case GGML_OP_ROPE_BACK:
            return true;
        default:
            return false;
    }
}

#define STEP_BEFORE (-1)    // written before the first node
#define STEP_AFTER  INT_MAX // read after the last node
#define STEP_UNSET  INT_MIN

// one tensor as the checker sees it (filled from a ggml graph or from a plan)
struct life {
    const char * name;
    int32_t      root; // its own index when not a view
    int32_t      op, flags, type;
    int32_t      src[GGML_MAX_SRC];
    int64_t      ne[GGML_MAX_DIMS];
    uint64_t     nb[GGML_MAX_DIMS];
    bool         placed; // has bytes: space, begin, size
    uintptr_t    space;  // which memory (one ggml buffer, one chunk)
    uint64_t     begin;  // first byte in space (a view: its own first byte)
    uint64_t     size;   // bytes a root spans
    // derived from the graph
    int          start, end;
    bool         leaf, node, output, read;
};

static void read_at(struct life * r, int step) {
    r->read = true;
    r->end  = r->end == STEP_UNSET || step > r->end ? step : r->end;
}

static void written_at(struct life * r, int step) {
    r->start = r->start == STEP_UNSET || step < r->start ? step : r->start;
}

static bool same_layout(const struct life * a, const struct life * b) {
    if (a->type != b->type) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] != b->ne[d] || a->nb[d] != b->nb[d]) {
            return false;
        }
    }
    return true;
}

// does root n (a node written at its step) run in place of root r, as the rules above allow?
static bool runs_in_place_of(const struct life * lives, int32_t n, int32_t r) {
    const struct life * node = &lives[n];
    if (!node->node || node->start != lives[r].end || node->start == STEP_BEFORE || !op_may_share_memory(node->op)) {
        return false;
    }
    int  slots    = 0;
    bool at_start = false;
    for (int s = 0; s < GGML_MAX_SRC; s++) {
        int32_t src = node->src[s];
        if (src >= 0 && lives[src].root == r) {
            slots++;
            at_start = lives[src].placed && lives[src].space == node->space && lives[src].begin == node->begin &&
                       same_layout(&lives[src], node);
        }
    }
    return slots == 1 && at_start;
}

static const struct life * sort_lives; // qsort has no context argument

static int compare_by_place(const void * a, const void * b) {
    const struct life * x = &sort_lives[*(const int32_t *) a], * y = &sort_lives[*(const int32_t *) b];
    if (x->space != y->space) {
        return x->space < y->space ? -1 : 1;
    }
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

// lifetimes from the graph, then every pair of roots sharing bytes; the failures
static int check_lives(struct life * lives, int32_t n, const int32_t * nodes, int32_t n_nodes, const int32_t * leafs, int32_t n_leafs) {
    for (int32_t i = 0; i < n; i++) {
        lives[i].start = lives[i].end = STEP_UNSET;
        lives[i].leaf = lives[i].node = lives[i].output = lives[i].read = false;
    }
    for (int32_t i = 0; i < n_leafs; i++) {
        struct life * r = &lives[lives[leafs[i]].root];
        r->leaf = true;
        written_at(r, STEP_BEFORE);
    }
    for (int32_t i = 0; i < n_nodes; i++) {
        const struct life * t = &lives[nodes[i]];
        struct life *       r = &lives[t->root];
        if (t->root != nodes[i]) {
            read_at(r, i); // a view reads its root
        } else {
            r->node = true;
            written_at(r, t->flags & GGML_TENSOR_FLAG_INPUT ? STEP_BEFORE : i);
            r->output = r->output || (t->flags & GGML_TENSOR_FLAG_OUTPUT);
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (t->src[s] < 0) {
                continue;
            }
            const struct life * src = &lives[t->src[s]];
            struct life *       sr  = &lives[src->root];
            read_at(sr, i);
            if (src->root == t->src[s]) {
                sr->output = sr->output || (src->flags & GGML_TENSOR_FLAG_OUTPUT);
                if (src->flags & GGML_TENSOR_FLAG_INPUT) {
                    written_at(sr, STEP_BEFORE);
                }
            }
        }
    }
    int32_t * order = malloc((size_t) (n > 0 ? n : 1) * sizeof(*order));
    if (order == NULL) {
        fprintf(stderr, "overlap checker: out of memory\n");
        return 1;
    }
    int32_t n_roots = 0;
    for (int32_t k = 0; k < n; k++) {
        struct life * r = &lives[k];
        if (r->root != k) {
            continue;
        }
        if (!r->leaf && !r->node) {
            r->start = STEP_BEFORE; // memory from elsewhere
            r->end   = STEP_AFTER;
        } else if (r->output || (r->leaf && !r->read)) {
            r->end = STEP_AFTER;
        } else if (r->end == STEP_UNSET || r->end < r->start) {
            r->end = r->start; // nobody reads it after its step
        }
        if (r->placed && r->size > 0 && (r->leaf || r->node || r->read)) {
            order[n_roots++] = k;
        }
    }
    sort_lives = lives;
    qsort(order, (size_t) n_roots, sizeof(*order), compare_by_place);
    int failures = 0;
    for (int32_t a = 0; a < n_roots; a++) {
        const struct life * x = &lives[order[a]];
        for (int32_t b = a + 1; b < n_roots && lives[order[b]].space == x->space && lives[order[b]].begin < x->begin + x->size; b++) {
            const struct life * y        = &lives[order[b]];
            bool                together = x->start <= y->end && y->start <= x->end;
            if (together && !runs_in_place_of(lives, order[a], order[b]) && !runs_in_place_of(lives, order[b], order[a])) {
                if (failures++ < 5) {
                    fprintf(stderr, "overlap: %s (steps %d..%d) and %s (steps %d..%d) share bytes\n", x->name, x->start, x->end, y->name,
                            y->start, y->end);
                }
            }
        }
    }
    free(order);
    return failures;
}

// ---- from a placed ggml graph

struct ggml_lives {
    struct ggml_hash_set  set;
    int32_t *             slot_index; // hash slot -> index, -1: none
    struct ggml_tensor ** tensors;
    struct life *         lives;
    int32_t               n;
};

static int32_t ggml_life_index(struct ggml_lives * gl, struct ggml_tensor * t) {
    size_t slot = ggml_hash_find_or_insert(&gl->set, t);
    if (gl->slot_index[slot] < 0) {
        gl->slot_index[slot]  = gl->n;
        gl->tensors[gl->n++] = t;
    }
    return gl->slot_index[slot];
}

void check_no_overlap(struct ggml_cgraph * graph) {
    int32_t n_nodes = ggml_graph_n_nodes(graph);
    // leafs, nodes and their sources, and the root of each
    size_t  most    = 2 * ((size_t) graph->n_leafs + (size_t) n_nodes * (1 + GGML_MAX_SRC)) + 1;
    struct ggml_lives gl = { ggml_hash_set_new(most), NULL, NULL, NULL, 0 };
    gl.slot_index = malloc(gl.set.size * sizeof(*gl.slot_index));
    gl.tensors    = malloc(most * sizeof(*gl.tensors));
    gl.lives      = calloc(most, sizeof(*gl.lives));
    int32_t * nodes = malloc(((size_t) n_nodes + (size_t) graph->n_leafs + 1) * sizeof(*nodes));
    if (gl.slot_index == NULL || gl.tensors == NULL || gl.lives == NULL || nodes == NULL) {
        CHECK(!"out of memory in check_no_overlap");
    } else {
        int32_t * leafs = nodes + n_nodes;
        for (size_t i = 0; i < gl.set.size; i++) {
            gl.slot_index[i] = -1;
        }
        for (int32_t i = 0; i < graph->n_leafs; i++) {
            leafs[i] = ggml_life_index(&gl, graph->leafs[i]);
        }
        for (int32_t i = 0; i < n_nodes; i++) {
            nodes[i] = ggml_life_index(&gl, ggml_graph_node(graph, i));
        }
        // every tensor met: its description (a node's sources and every view root join the table as met)
        int32_t n_graph = gl.n; // the leafs and nodes: only their sources matter
        for (int32_t k = 0; k < gl.n; k++) {
            struct ggml_tensor * t = gl.tensors[k];
            struct life *        l = &gl.lives[k];
            l->name  = t->name;
            l->op    = t->op;
            l->flags = t->flags;
            l->type  = t->type;
            for (int d = 0; d < GGML_MAX_DIMS; d++) {
                l->ne[d] = t->ne[d];
                l->nb[d] = t->nb[d];
            }
            l->placed = t->buffer != NULL && t->data != NULL;
            l->space  = (uintptr_t) t->buffer;
            l->begin  = (uint64_t) (uintptr_t) t->data;
            l->size   = l->placed ? ggml_backend_buffer_get_alloc_size(t->buffer, t) : 0;
            for (int s = 0; s < GGML_MAX_SRC; s++) {
                gl.lives[k].src[s] = k < n_graph && t->src[s] ? ggml_life_index(&gl, t->src[s]) : -1;
            }
            gl.lives[k].root = t->view_src ? ggml_life_index(&gl, t->view_src) : k;
        }
        check_failures += check_lives(gl.lives, gl.n, nodes, n_nodes, leafs, graph->n_leafs);
    }
    free(nodes);
    free(gl.lives);
    free(gl.tensors);
    free(gl.slot_index);
    ggml_hash_set_free(&gl.set);
}

// ---- from a planner-level plan

int check_plan_no_overlap(const struct galloc_graph * g, const struct galloc_plan * plan) {
    struct life * lives = calloc((size_t) (g->n_tensors > 0 ? g->n_tensors : 1), sizeof(*lives));
    if (lives == NULL) {
        return 1;
    }
    for (int32_t i = 0; i < g->n_tensors; i++) {
        const struct galloc_tensor * t = &g->tensors[i];
        const struct galloc_place *  p = &plan->places[i];
        struct life *                l = &lives[i];
        l->name  = "tensor";
        l->root  = t->view_src >= 0 ? t->view_src : i;
        l->op    = t->op;
        l->flags = t->flags;
        l->type  = t->type;
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            l->ne[d] = t->ne[d];
            l->nb[d] = t->nb[d];
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            l->src[s] = t->src[s];
        }
        l->placed = p->buffer >= 0;
        l->space  = l->placed ? (uintptr_t) g->buffer_types[p->buffer].allocator * GALLOC_MAX_CHUNKS + (uintptr_t) p->chunk + 1 : 0;
        l->begin  = p->offset;
        l->size   = p->size;
    }
    int failures = check_lives(lives, g->n_tensors, g->nodes, g->n_nodes, g->leafs, g->n_leafs);
    free(lives);
    return failures;
}

void check_within_max_size(struct ggml_context * ctx, size_t max_size) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (!t->buffer) {
            continue;
        }
        char * base = ggml_backend_buffer_get_base(t->buffer);
        CHECK((char *) t->data >= base);
        CHECK((size_t) ((char *) t->data - base) + ggml_nbytes(t) <= max_size);
    }
}
