// test-planner-checks.c: galloc_plan_graph refuses a graph whose indices are out of range, with
// the place named (its own checks, not the document reader's: a graph built by hand).
//
// A three-tensor graph (leaf 0, node 1 = f(0), node 2 = f(0, 1)) broken one field at a time:
// every source slot, view_src, nodes, leafs and both buffer id lists at -2, -1 where it is not
// allowed, the tensor count, and the int32 extremes; the intact graph and -1 slots accepted.
// And a chain with lists long enough to be checked many entries at a time: a bad entry at every
// position of each list named, and of two bad entries the one the checks meet first.

#include "check.h"
#include "galloc-planner.h"

#include <stdint.h>
#include <string.h>

struct small_graph {
    struct galloc_tensor      tensors[3];
    int32_t                   nodes[2], node_ids[2], leafs[1], leaf_ids[1];
    struct galloc_buffer_type bufts[1];
    struct galloc_graph       g;
};

static void small_graph_init(struct small_graph * s) {
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 3; i++) {
        struct galloc_tensor * t = &s->tensors[i];
        t->op = i == 0 ? GGML_OP_NONE : GGML_OP_ADD;
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            t->src[k] = -1;
        }
        t->view_src   = -1;
        t->alloc_size = t->nbytes = 64;
        t->ne[0] = 16, t->ne[1] = t->ne[2] = t->ne[3] = 1;
        t->nb[0] = 4, t->nb[1] = t->nb[2] = t->nb[3] = 64;
    }
    s->tensors[1].src[0] = 0;
    s->tensors[2].src[0] = 0;
    s->tensors[2].src[1] = 1;
    s->nodes[0] = 1, s->nodes[1] = 2, s->leafs[0] = 0;
    s->bufts[0] = (struct galloc_buffer_type) { .alignment = 32, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    s->g = (struct galloc_graph) { .n_tensors = 3, .tensors = s->tensors, .n_nodes = 2, .nodes = s->nodes, .node_buffer_ids = s->node_ids,
                                   .n_leafs = 1, .leafs = s->leafs, .leaf_buffer_ids = s->leaf_ids, .n_buffer_types = 1, .buffer_types = s->bufts };
}

// plans s->g; refused with exactly `message`, or accepted when it is NULL
static void expect_plan(const struct small_graph * s, const char * what, const char * message) {
    struct galloc_plan  plan;
    struct galloc_error err;
    bool                ok = galloc_plan_graph(&s->g, &plan, &err);
    if (ok) {
        galloc_plan_free(&plan);
    }
    bool as_expected = message == NULL ? ok : !ok && err.status == GALLOC_STATUS_INVALID && strcmp(err.message, message) == 0;
    if (!as_expected) {
        check_failures++;
        fprintf(stderr, "%s: got %s'%s', expected %s'%s'\n", what, ok ? "(accepted) " : "", ok ? "" : err.message, message ? "" : "acceptance ",
                message ? message : "");
    }
}

static void test_intact_graph(void) {
    struct small_graph s;
    small_graph_init(&s);
    expect_plan(&s, "intact", NULL);
    s.tensors[2].src[1] = -1; // a hole: slot 2 used, slot 1 empty
    s.tensors[2].src[2] = 1;
    expect_plan(&s, "a hole in the sources", NULL);
    s.tensors[2].src[2]             = -1;
    s.tensors[2].src[GGML_MAX_SRC - 1] = 1; // the last slot
    expect_plan(&s, "the last source slot", NULL);
}

static void test_bad_sources(void) {
    static const int32_t bad[] = { -2, 3, 4, INT32_MAX, INT32_MIN, -1000 };
    char what[64], message[128];
    for (int slot = 0; slot < GGML_MAX_SRC; slot++) {
        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
            struct small_graph s;
            small_graph_init(&s);
            s.tensors[2].src[slot] = bad[k];
            snprintf(what, sizeof(what), "src[%d] = %d", slot, bad[k]);
            snprintf(message, sizeof(message), "tensors[2].src[%d]: index %d out of range (3 tensors)", slot, bad[k]);
            expect_plan(&s, what, message);
        }
    }
    // the first bad slot is named, before a later one
    struct small_graph s;
    small_graph_init(&s);
    s.tensors[1].src[4] = 7;
    s.tensors[1].src[8] = -3;
    expect_plan(&s, "two bad slots", "tensors[1].src[4]: index 7 out of range (3 tensors)");
}

static void test_bad_views(void) {
    static const struct {
        int32_t      tensor, view_src;
        const char * message;
    } cases[] = {
        { 1, -2, "tensors[1].view_src: index -2 out of range or itself" },
        { 1, 3, "tensors[1].view_src: index 3 out of range or itself" },
        { 1, INT32_MAX, "tensors[1].view_src: index 2147483647 out of range or itself" },
        { 1, INT32_MIN, "tensors[1].view_src: index -2147483648 out of range or itself" },
        { 1, 1, "tensors[1].view_src: index 1 out of range or itself" },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct small_graph s;
        small_graph_init(&s);
        s.tensors[cases[k].tensor].view_src = cases[k].view_src;
        expect_plan(&s, cases[k].message, cases[k].message);
    }
    struct small_graph s;
    small_graph_init(&s);
    s.tensors[1].view_src = 0; // a view of the leaf: allowed
    expect_plan(&s, "a view", NULL);
    s.tensors[2].view_src = 1; // a view of a view: not
    expect_plan(&s, "a view of a view", "tensors[2].view_src: tensor 1 is itself a view (view_src must be the root)");
}

static void test_bad_lists(void) {
    static const int32_t bad_index[] = { -1, -2, 3, INT32_MAX, INT32_MIN };
    static const int32_t bad_id[]    = { -1, 1, INT32_MAX, INT32_MIN };
    char message[128];
    for (size_t k = 0; k < sizeof(bad_index) / sizeof(bad_index[0]); k++) {
        struct small_graph s;
        small_graph_init(&s);
        s.nodes[1] = bad_index[k];
        snprintf(message, sizeof(message), "nodes[1]: index %d out of range (3 tensors)", bad_index[k]);
        expect_plan(&s, message, message);
        small_graph_init(&s);
        s.leafs[0] = bad_index[k];
        snprintf(message, sizeof(message), "leafs[0]: index %d out of range (3 tensors)", bad_index[k]);
        expect_plan(&s, message, message);
    }
    for (size_t k = 0; k < sizeof(bad_id) / sizeof(bad_id[0]); k++) {
        struct small_graph s;
        small_graph_init(&s);
        s.node_ids[1] = bad_id[k];
        snprintf(message, sizeof(message), "node_buffer_ids[1]: buffer type %d out of range (1 buffer types)", bad_id[k]);
        expect_plan(&s, message, message);
        small_graph_init(&s);
        s.leaf_ids[0] = bad_id[k];
        snprintf(message, sizeof(message), "leaf_buffer_ids[0]: buffer type %d out of range (1 buffer types)", bad_id[k]);
        expect_plan(&s, message, message);
    }
}

// a chain: leaf 0, then node k (tensor k + 1) = f(tensor k); the leaf listed LONG_LEAFS times
enum { LONG_NODES = 37, LONG_LEAFS = 21, LONG_TENSORS = LONG_NODES + 1 };
struct long_graph {
    struct galloc_tensor      tensors[LONG_TENSORS];
    int32_t                   nodes[LONG_NODES], node_ids[LONG_NODES], leafs[LONG_LEAFS], leaf_ids[LONG_LEAFS];
    struct galloc_buffer_type bufts[1];
    struct galloc_graph       g;
};

static void long_graph_init(struct long_graph * l) {
    memset(l, 0, sizeof(*l));
    for (int i = 0; i < LONG_TENSORS; i++) {
        struct galloc_tensor * t = &l->tensors[i];
        t->op = i == 0 ? GGML_OP_NONE : GGML_OP_MUL_MAT;
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            t->src[k] = -1;
        }
        t->src[0]     = i - 1;
        t->view_src   = -1;
        t->alloc_size = t->nbytes = 64;
    }
    for (int k = 0; k < LONG_NODES; k++) {
        l->nodes[k] = k + 1;
    }
    l->bufts[0] = (struct galloc_buffer_type) { .alignment = 32, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    l->g = (struct galloc_graph) { .n_tensors = LONG_TENSORS, .tensors = l->tensors, .n_nodes = LONG_NODES, .nodes = l->nodes,
                                   .node_buffer_ids = l->node_ids, .n_leafs = LONG_LEAFS, .leafs = l->leafs, .leaf_buffer_ids = l->leaf_ids,
                                   .n_buffer_types = 1, .buffer_types = l->bufts };
}

// plans l->g as expect_plan does
static void expect_long_plan(const struct long_graph * l, const char * message) {
    struct small_graph s; // expect_plan reads only the graph
    memset(&s, 0, sizeof(s));
    s.g = l->g;
    expect_plan(&s, message ? message : "the intact chain", message);
}

// the four lists of a long graph, in the order the checks walk them
static const char * const long_list_names[4] = { "nodes", "node_buffer_ids", "leafs", "leaf_buffer_ids" };
static const int          long_list_sizes[4] = { LONG_NODES, LONG_NODES, LONG_LEAFS, LONG_LEAFS };

static int32_t * long_list(struct long_graph * l, int which) {
    int32_t * lists[4] = { l->nodes, l->node_ids, l->leafs, l->leaf_ids };
    return lists[which];
}

// list `which` holds `bad` at k: the message naming it (indices in even lists, buffer ids in odd)
static void bad_entry_message(char * message, size_t size, int which, int k, int32_t bad) {
    if (which % 2 == 0) {
        snprintf(message, size, "%s[%d]: index %d out of range (%d tensors)", long_list_names[which], k, bad, LONG_TENSORS);
    } else {
        snprintf(message, size, "%s[%d]: buffer type %d out of range (1 buffer types)", long_list_names[which], k, bad);
    }
}

static void test_bad_long_lists(void) {
    static const int32_t bad_index[] = { LONG_TENSORS, -1, INT32_MIN };
    static const int32_t bad_id[]    = { 1, -1, INT32_MAX };
    struct long_graph l;
    char message[128];
    long_graph_init(&l);
    expect_long_plan(&l, NULL);
    for (int which = 0; which < 4; which++) {
        for (int k = 0; k < long_list_sizes[which]; k++) {
            int32_t bad = which % 2 == 0 ? bad_index[k % 3] : bad_id[k % 3];
            long_graph_init(&l);
            long_list(&l, which)[k] = bad;
            bad_entry_message(message, sizeof(message), which, k, bad);
            expect_long_plan(&l, message);
            // a bad entry that the checks meet later changes nothing: the last node's index, or
            // (for a bad node) the last leaf
            if (which == 1 && k + 1 < LONG_NODES) {
                l.nodes[LONG_NODES - 1] = bad_index[0];
                expect_long_plan(&l, message);
            } else if (which == 0) {
                l.leafs[LONG_LEAFS - 1] = bad_index[0];
                expect_long_plan(&l, message);
            }
        }
    }
}

int main(void) {
    RUN(test_intact_graph);
    RUN(test_bad_sources);
    RUN(test_bad_views);
    RUN(test_bad_lists);
    RUN(test_bad_long_lists);
    return check_report("planner-checks");
}
