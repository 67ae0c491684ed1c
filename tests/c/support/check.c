// check.c: the shared checkers of the C tests (see check.h).
//
// Overlap is judged by liveness: a node may share bytes with an earlier node
// only if the earlier one is not an output and no node from the later one on
// (other than the later one itself, when it runs in place) still reads it or
// a view of it.

#include "check.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

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

static struct ggml_tensor * root_of(struct ggml_tensor * t) {
    while (t->view_src) {
        t = t->view_src;
    }
    return t;
}

static bool still_read(struct ggml_cgraph * graph, int from, struct ggml_tensor * current, struct ggml_tensor * other) {
    if (other->flags & GGML_TENSOR_FLAG_OUTPUT) {
        return true;
    }
    for (int i = from; i < ggml_graph_n_nodes(graph); i++) {
        struct ggml_tensor * t = ggml_graph_node(graph, i);
        if (t == current && ggml_op_can_inplace(t->op)) {
            continue;
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (t->src[s] == other || (t->src[s] && t->src[s]->view_src == other)) {
                return true;
            }
        }
    }
    return false;
}

static bool bytes_overlap(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    if (a->buffer != b->buffer) {
        return false;
    }
    uintptr_t a0 = (uintptr_t) a->data, a1 = a0 + ggml_nbytes(a);
    uintptr_t b0 = (uintptr_t) b->data, b1 = b0 + ggml_nbytes(b);
    return a1 > b0 && b1 > a0;
}

void check_no_overlap(struct ggml_cgraph * graph) {
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        for (int j = 0; j < i; j++) {
            struct ggml_tensor * t = ggml_graph_node(graph, i);
            struct ggml_tensor * o = ggml_graph_node(graph, j);
            CHECK(t != o);
            if (root_of(t) == root_of(o) || !bytes_overlap(t, o)) {
                continue;
            }
            if (still_read(graph, i, t, o)) {
                check_failures++;
                fprintf(stderr, "overlap: node %d (%s) shares bytes with live node %d (%s)\n", i, t->name, j, o->name);
            }
        }
    }
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
