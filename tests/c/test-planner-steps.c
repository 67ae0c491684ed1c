// test-planner-steps.c: what the planner reports besides placements, against the graph alone.
//
// Every golden and golden-real graph, planned. Derived here from the nodes and leafs only: which
// tensors are in the graph (a leaf, a node or a node's source); a view's place (its root's plus
// view_offs), size (nbytes), first step (its first node position) and last step (its last
// position as a node or a source, the last step for an output); external tensors marked so;
// tensors out of the graph untouched; placed tensors not released kept to the last step. And the
// same graph planned with placement_only places every tensor that gets memory of its own alike.
// And each of the allocator's four rules named as it applies, in a graph worked out by hand.

#include "check.h"
#include "files.h"
#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdlib.h>
#include <string.h>

static void check_place_untouched(const struct galloc_place * p) {
    CHECK(p->buffer == -1 && p->chunk == -1 && p->offset == 0 && p->size == 0);
    CHECK(p->how == GALLOC_HOW_NONE && p->parent == -1 && p->first_step == -1 && p->last_step == -1 && p->freed == 0);
}

// the reports of one planned graph, from the graph's own lists
static void check_reports(const struct galloc_graph * g, const struct galloc_plan * plan) {
    int32_t   n         = g->n_tensors;
    int32_t   last_step = g->n_nodes - 1;
    bool    * in_graph  = calloc((size_t) n + 1, sizeof(bool));
    int32_t * first     = malloc(((size_t) n + 1) * sizeof(int32_t));
    int32_t * last      = malloc(((size_t) n + 1) * sizeof(int32_t));
    int32_t * last_use  = malloc(((size_t) n + 1) * sizeof(int32_t)); // as a source, itself or through a view
    for (int32_t t = 0; t < n; t++) {
        first[t] = last[t] = last_use[t] = -1;
    }
    for (int32_t i = 0; i < g->n_leafs; i++) {
        in_graph[g->leafs[i]] = true;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        int32_t node = g->nodes[i];
        in_graph[node] = true;
        first[node]    = first[node] < 0 ? i : first[node];
        last[node]     = i;
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            int32_t src = g->tensors[node].src[s];
            if (src >= 0) {
                int32_t root   = g->tensors[src].view_src;
                in_graph[src]  = true;
                last[src]      = i;
                last_use[src]  = i;
                if (root >= 0) {
                    last_use[root] = i;
                }
            }
        }
    }
    for (int32_t t = 0; t < n; t++) {
        const struct galloc_tensor * tensor = &g->tensors[t];
        const struct galloc_place  * p      = &plan->places[t];
        if (!in_graph[t]) {
            check_place_untouched(p);
        } else if (tensor->view_src >= 0) {
            const struct galloc_place * root = &plan->places[tensor->view_src];
            CHECK(p->how == GALLOC_HOW_VIEW && p->parent == tensor->view_src && p->size == tensor->nbytes);
            CHECK(p->first_step == first[t]);
            CHECK(p->last_step == ((tensor->flags & GGML_TENSOR_FLAG_OUTPUT) ? last_step : last[t]));
            if (root->buffer >= 0) {
                CHECK(p->buffer == root->buffer && p->chunk == root->chunk && p->offset == root->offset + tensor->view_offs);
            } else {
                CHECK(p->buffer == -1);
            }
        } else if (tensor->external) {
            CHECK(p->how == GALLOC_HOW_EXTERNAL && p->buffer == -1);
        } else if (galloc_how_allocates(p->how) || p->how == GALLOC_HOW_INPLACE) {
            CHECK(p->buffer >= 0 && p->first_step <= p->last_step && p->last_step <= last_step);
            // kept to the end, or released (or taken over) at its last use
            CHECK(p->last_step == (p->freed ? last_use[t] : last_step));
            if (tensor->flags & GGML_TENSOR_FLAG_OUTPUT) {
                CHECK(!p->freed);
            }
        } else {
            check_place_untouched(p); // in the graph, yet never needed memory
        }
    }
    free(in_graph);
    free(first);
    free(last);
    free(last_use);
}

// placement_only plans every tensor with memory of its own where the full pass does
static void check_placement_only(const struct galloc_graph * g, const struct galloc_plan * full) {
    struct galloc_graph quick = *g;
    quick.placement_only      = 1;
    struct galloc_plan  plan;
    struct galloc_error err;
    CHECK(galloc_plan_graph(&quick, &plan, &err));
    for (int32_t t = 0; t < g->n_tensors && plan.places != NULL; t++) {
        const struct galloc_place * a = &full->places[t];
        const struct galloc_place * b = &plan.places[t];
        if (galloc_how_allocates(a->how) || a->how == GALLOC_HOW_INPLACE) {
            CHECK(a->how == b->how && a->buffer == b->buffer && a->chunk == b->chunk && a->offset == b->offset && a->size == b->size);
        }
    }
    for (int32_t b = 0; b < full->n_buffer_types; b++) {
        CHECK_EQ_U64(full->buffers[b].size, plan.buffers[b].size);
    }
    galloc_plan_free(&plan);
}

static void test_graphs_in(const char * dir) {
    int     n_names = 0;
    char ** names   = golden_names_in(dir, &n_names);
    CHECK(names != NULL && n_names > 0);
    for (int k = 0; k < n_names; k++) {
        size_t                 len  = 0;
        char *                 text = golden_read_in(dir, names[k], "graph", &len);
        struct galloc_document doc;
        struct galloc_plan     plan;
        struct galloc_error    err;
        bool ok = text != NULL && galloc_document_read(text, len, &doc, &err);
        free(text);
        CHECK(ok);
        if (!ok) {
            continue;
        }
        CHECK(galloc_plan_graph(&doc.graph, &plan, &err));
        check_reports(&doc.graph, &plan);
        check_placement_only(&doc.graph, &plan);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    golden_names_free(names);
}

static void test_golden(void) {
    test_graphs_in(GOLDEN_DIR);
}

static void test_golden_real(void) {
    test_graphs_in("tests/golden-real");
}

// by hand: an external source that is neither a leaf nor a node (in the graph only as a source),
// a view used later than its root's last direct use, an output, and tensors out of the graph (a
// plain one, an external one, a view); a leaf that is a view and no node uses (in the graph, never
// used: first and last step -1)
static void test_by_hand(void) {
    struct galloc_tensor tensors[9];
    memset(tensors, 0, sizeof(tensors));
    for (int i = 0; i < 9; i++) {
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            tensors[i].src[k] = -1;
        }
        tensors[i].op         = GGML_OP_ADD;
        tensors[i].view_src   = -1;
        tensors[i].alloc_size = tensors[i].nbytes = 64;
    }
    tensors[0].op       = GGML_OP_NONE; // leaf
    tensors[1].op       = GGML_OP_NONE; // external, only a source
    tensors[1].external = 1;
    tensors[2].src[0] = 0, tensors[2].src[1] = 1;
    tensors[3].op = GGML_OP_VIEW, tensors[3].view_src = 2, tensors[3].view_offs = 16, tensors[3].nbytes = 32;
    tensors[4].src[0] = 3, tensors[4].src[1] = 0;
    tensors[4].flags = GGML_TENSOR_FLAG_OUTPUT;
    tensors[6].op = GGML_OP_NONE, tensors[6].external = 1;                                      // out of the graph
    tensors[7].op = GGML_OP_VIEW, tensors[7].view_src = 2, tensors[7].nbytes = 32;             // out of the graph
    tensors[8].op = GGML_OP_VIEW, tensors[8].view_src = 0, tensors[8].view_offs = 32, tensors[8].nbytes = 32; // a leaf
    int32_t                   nodes[] = { 2, 3, 4 }, leafs[] = { 0, 8 };
    struct galloc_buffer_type buft    = { .alignment = 32, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    struct galloc_graph g = { .n_tensors = 9, .tensors = tensors, .n_nodes = 3, .nodes = nodes, .n_leafs = 2, .leafs = leafs,
                              .n_buffer_types = 1, .buffer_types = &buft };
    struct galloc_plan  plan;
    struct galloc_error err;
    CHECK(galloc_plan_graph(&g, &plan, &err));
    check_reports(&g, &plan);
    check_placement_only(&g, &plan);
    CHECK(plan.places[1].how == GALLOC_HOW_EXTERNAL);
    CHECK(plan.places[3].how == GALLOC_HOW_VIEW && plan.places[3].offset == plan.places[2].offset + 16);
    CHECK(plan.places[3].first_step == 1 && plan.places[3].last_step == 2);
    CHECK(plan.places[2].freed && plan.places[2].last_step == 2); // released with its view's last use
    CHECK(!plan.places[4].freed && plan.places[4].last_step == 2);
    CHECK(plan.places[5].how == GALLOC_HOW_NONE && plan.places[6].how == GALLOC_HOW_NONE && plan.places[7].how == GALLOC_HOW_NONE);
    CHECK(plan.places[8].how == GALLOC_HOW_VIEW && plan.places[8].offset == plan.places[0].offset + 32);
    CHECK(plan.places[8].first_step == -1 && plan.places[8].last_step == -1);
    galloc_plan_free(&plan);
}

// each rule of the allocator named as upstream's scans pick it, worked out by hand (alignment 16, no
// in-place ops): A (16 bytes, leaf) opens chunk 0 at 0; B (32) grows it from 16 (the last block's
// reuse 16 - 16 - 32 < 0), then A's [0, 16) is free; C (16) fits that inner block exactly (best fit
// at 0), then B's [16, 48) joins the last block; D (16) takes the last block at 16 inside the 48
// bytes the chunk already needs (reuse 48 - 16 - 16 >= 0)
static void test_rules(void) {
    struct galloc_tensor tensors[4];
    memset(tensors, 0, sizeof(tensors));
    const uint64_t bytes[4] = { 16, 32, 16, 16 };
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            tensors[i].src[k] = -1;
        }
        tensors[i].op         = i == 0 ? GGML_OP_NONE : GGML_OP_MUL_MAT;
        tensors[i].src[0]     = i - 1;
        tensors[i].view_src   = -1;
        tensors[i].alloc_size = tensors[i].nbytes = bytes[i];
    }
    tensors[3].flags = GGML_TENSOR_FLAG_OUTPUT;
    int32_t                   nodes[] = { 1, 2, 3 }, leafs[] = { 0 };
    struct galloc_buffer_type buft    = { .alignment = 16, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    struct galloc_graph g = { .n_tensors = 4, .tensors = tensors, .n_nodes = 3, .nodes = nodes, .n_leafs = 1, .leafs = leafs,
                              .n_buffer_types = 1, .buffer_types = &buft };
    struct galloc_plan  plan;
    struct galloc_error err;
    CHECK(galloc_plan_graph(&g, &plan, &err));
    static const int32_t  how[4]    = { GALLOC_HOW_NEW_CHUNK, GALLOC_HOW_GROW, GALLOC_HOW_BEST_FIT, GALLOC_HOW_LAST_BLOCK };
    static const uint64_t offset[4] = { 0, 16, 0, 16 };
    for (int i = 0; i < 4; i++) {
        CHECK(plan.places[i].how == how[i] && plan.places[i].chunk == 0 && plan.places[i].offset == offset[i]);
    }
    CHECK_EQ_U64(plan.buffers[0].size, 48);
    check_reports(&g, &plan);
    galloc_plan_free(&plan);
}

// a node that names itself as a source (ggml_cast's CPY does; documents refuse any other), built
// by hand: B (no bytes) names B and A; A has another layout. As a CPY (an op that may not run in
// place) B gets a place of its own, in its buffer, as in upstream; both, consumed there (B by
// itself), are released. As an ADD it is refused: upstream's ggml_gallocr_allocate_node marks B
// allocated before it tries B's sources, so B takes itself over "in place", at the address it
// was never given (offset 0 of buffer 0, over A)
static void test_own_source(void) {
    struct galloc_tensor tensors[2];
    memset(tensors, 0, sizeof(tensors));
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            tensors[i].src[k] = -1;
        }
        tensors[i].view_src = -1;
        tensors[i].ne[1] = tensors[i].ne[2] = tensors[i].ne[3] = 1;
    }
    tensors[0].op    = GGML_OP_NONE;
    tensors[0].ne[0] = 4;
    tensors[0].nb[0] = 4;
    tensors[0].alloc_size = tensors[0].nbytes = 16;
    tensors[1].op     = GGML_OP_CPY;
    tensors[1].src[0] = 1;
    tensors[1].src[1] = 0;
    int32_t                   nodes[] = { 1 }, leafs[] = { 0 };
    struct galloc_buffer_type buft    = { .alignment = 16, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    struct galloc_graph g = { .n_tensors = 2, .tensors = tensors, .n_nodes = 1, .nodes = nodes, .n_leafs = 1, .leafs = leafs,
                              .n_buffer_types = 1, .buffer_types = &buft };
    struct galloc_plan  plan;
    struct galloc_error err;
    bool planned = galloc_plan_graph(&g, &plan, &err);
    CHECK(planned);
    if (planned) {
        CHECK(plan.places[1].how != GALLOC_HOW_INPLACE && galloc_how_allocates(plan.places[1].how));
        CHECK(plan.places[1].parent == -1 && plan.places[1].buffer == 0 && plan.places[1].size == 0 && plan.places[1].freed == 1);
        CHECK(plan.places[0].how == GALLOC_HOW_NEW_CHUNK && plan.places[0].freed == 1);
        CHECK_EQ_U64(plan.buffers[0].size, 16);
        check_reports(&g, &plan);
        galloc_plan_free(&plan);
    }
    tensors[1].op = GGML_OP_ADD;
    CHECK(!galloc_plan_graph(&g, &plan, &err));
    CHECK(err.status == GALLOC_STATUS_INVALID && strncmp(err.message, "tensors[1].src[0]: reads itself, and its op may run in place", 60) == 0);
}

int main(void) {
    RUN(test_rules);
    RUN(test_own_source);
    RUN(test_by_hand);
    RUN(test_golden);
    RUN(test_golden_real);
    return check_report("planner-steps");
}
