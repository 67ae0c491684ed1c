// test-ggml.c: tests of the ggml core (c/src/ggml: ggml.c, ggml-ops.c, ggml-hash.c).
//
// Checks what allocation plans depend on: type traits and nbytes, strides,
// view roots and offsets, op shapes/sources/params, graph build order with the
// leaf/node split and auto-names, pool accounting, and that API misuse aborts
// with a message (run in a forked child), ggml_gallocr_alloc_graph's placing of a
// leaf grown past its buffer among them. `main` is a flat list of cases.

#include "files.h"
#include "galloc-planner.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

//
// harness
//

static int g_failures = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            g_failures++;                                                        \
        }                                                                        \
    } while (0)

#define CHECK_STR(a, b)                                                                     \
    do {                                                                                    \
        const char * check_a_ = (a);                                                        \
        const char * check_b_ = (b);                                                        \
        if (check_a_ == NULL || check_b_ == NULL || strcmp(check_a_, check_b_) != 0) {      \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s == \"%s\" (got \"%s\")\n",         \
                    __FILE__, __LINE__, #a, check_b_ ? check_b_ : "(null)",                 \
                    check_a_ ? check_a_ : "(null)");                                        \
            g_failures++;                                                                   \
        }                                                                                   \
    } while (0)

#define CHECK_NE4(t, a0, a1, a2, a3) \
    CHECK((t)->ne[0] == (a0) && (t)->ne[1] == (a1) && (t)->ne[2] == (a2) && (t)->ne[3] == (a3))

// runs fn in a forked child with stderr captured; returns the wait status
static int child_run(void (*fn)(void), char * err, size_t err_size) {
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    char sink[256];
    while ((n = read(fds[0], len + 1 < err_size ? err + len : sink,
                     len + 1 < err_size ? err_size - 1 - len : sizeof(sink))) > 0) {
        if (len + 1 < err_size) {
            len += (size_t) n;
        }
    }
    err[len] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

// fn must abort (SIGABRT) and print `expected` on stderr
static void check_aborts(void (*fn)(void), const char * expected, const char * what) {
    char err[4096];
    const int status = child_run(fn, err, sizeof(err));
    const bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    if (!aborted || strstr(err, expected) == NULL) {
        fprintf(stderr, "%s: expected an abort with \"%s\"; aborted=%d, stderr:\n%s\n", what, expected, aborted, err);
        g_failures++;
    }
}

// a no_alloc context sized like the conformance test's
static struct ggml_context * ctx_new(void) {
    struct ggml_init_params params = { 48 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        fprintf(stderr, "ggml_init failed\n");
        exit(2);
    }
    return ctx;
}

//
// cases: types and names
//

// every type, op, unary op and GLU of ggml 0.21.0 as upstream's own library prints them
// (tests/fixtures/ggml-0.21.0-tables.tsv), and nothing more: same ids, names, block sizes,
// bytes per block, quantized flags, and which ops may run in place (the planner's table and ggml_op_can_inplace)
static void test_tables_match_upstream(void) {
    size_t len  = 0;
    char * text = read_whole_file("tests/fixtures/ggml-0.21.0-tables.tsv", &len);
    CHECK(text != NULL);
    if (text == NULL) {
        return;
    }
    int n_types = 0, n_ops = 0, n_unary = 0, n_glu = 0;
    for (char * line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char kind[16], name[64];
        int  id = -1;
        long long a = 0, b = 0, c = 0;
        if (line[0] == '#') {
            continue;
        }
        int fields = sscanf(line, "%15s %d %63s %lld %lld %lld", kind, &id, name, &a, &b, &c);
        CHECK(fields >= 3);
        if (strcmp(kind, "type") == 0 && fields == 6) {
            n_types++;
            CHECK(id >= 0 && id < GGML_TYPE_COUNT);
            CHECK_STR(ggml_type_name((enum ggml_type) id), name);
            CHECK(ggml_blck_size((enum ggml_type) id) == a);
            CHECK(ggml_type_size((enum ggml_type) id) == (size_t) b);
            CHECK(ggml_is_quantized((enum ggml_type) id) == (c != 0));
        } else if (strcmp(kind, "op") == 0 && fields == 4) {
            n_ops++;
            CHECK(id >= 0 && id < GGML_OP_COUNT);
            CHECK_STR(ggml_op_name((enum ggml_op) id), name);
            CHECK(ggml_op_can_inplace((enum ggml_op) id) == (a != 0));
            CHECK(galloc_op_can_inplace(id) == (a != 0)); // the planner's table, which the pass reads
        } else if (strcmp(kind, "unary_op") == 0) {
            n_unary++;
            CHECK_STR(ggml_unary_op_name((enum ggml_unary_op) id), name);
        } else if (strcmp(kind, "glu_op") == 0) {
            n_glu++;
            CHECK_STR(ggml_glu_op_name((enum ggml_glu_op) id), name);
        } else {
            CHECK(!"unknown line in the tables fixture");
        }
    }
    free(text);
    CHECK(n_ops == GGML_OP_COUNT && n_unary == GGML_UNARY_OP_COUNT && n_glu == GGML_GLU_OP_COUNT);
    CHECK(GGML_OP_COUNT == 101 && GGML_UNARY_OP_COUNT == 22 && GGML_GLU_OP_COUNT == 6 && GGML_TYPE_COUNT == 43);
    // every value below GGML_TYPE_COUNT not in the fixture is a removed type, with no traits
    int named = 0;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (ggml_type_name((enum ggml_type) t) != NULL) {
            named++;
        } else {
            CHECK(ggml_blck_size((enum ggml_type) t) == 0 && ggml_type_size((enum ggml_type) t) == 0);
        }
    }
    CHECK(named == n_types && n_types == 35);
    CHECK(ggml_type_name(GGML_TYPE_COUNT) == NULL && ggml_op_name(GGML_OP_COUNT) == NULL);
    CHECK(!ggml_op_can_inplace(GGML_OP_COUNT) && !ggml_op_can_inplace((enum ggml_op) 0x40000000));
    CHECK(!galloc_op_can_inplace(GGML_OP_COUNT) && !galloc_op_can_inplace(-1));
    CHECK(ggml_row_size(GGML_TYPE_Q4_0, 64) == 36);
    CHECK(ggml_row_size(GGML_TYPE_F16, 10) == 20);
}

static void test_op_names(void) {
    CHECK_STR(ggml_op_name(GGML_OP_NONE), "NONE");
    CHECK_STR(ggml_op_name(GGML_OP_ADD), "ADD");
    CHECK_STR(ggml_op_name(GGML_OP_ADD_ID), "ADD_ID");
    CHECK_STR(ggml_op_name(GGML_OP_MUL_MAT), "MUL_MAT");
    CHECK_STR(ggml_op_name(GGML_OP_SOFT_MAX), "SOFT_MAX");
    CHECK_STR(ggml_op_name(GGML_OP_SET_ROWS), "SET_ROWS");
    CHECK_STR(ggml_op_name(GGML_OP_FLASH_ATTN_EXT), "FLASH_ATTN_EXT");
    CHECK_STR(ggml_op_name(GGML_OP_SOLVE_TRI), "SOLVE_TRI");
    CHECK_STR(ggml_op_name(GGML_OP_UNARY), "UNARY");
    CHECK_STR(ggml_op_name(GGML_OP_OPT_STEP_SGD), "OPT_STEP_SGD");
    CHECK_STR(ggml_op_name(GGML_OP_GLU), "GLU");
    CHECK(ggml_op_name(GGML_OP_COUNT) == NULL);

    // every op has a distinct name, and a symbol
    for (int i = 0; i < GGML_OP_COUNT; i++) {
        const char * name = ggml_op_name((enum ggml_op) i);
        CHECK(name != NULL && name[0] != '\0');
        CHECK(ggml_op_symbol((enum ggml_op) i) != NULL);
        for (int j = 0; j < i && name != NULL; j++) {
            const char * other = ggml_op_name((enum ggml_op) j);
            CHECK(other == NULL || strcmp(name, other) != 0);
        }
    }
    CHECK_STR(ggml_op_symbol(GGML_OP_ADD), "x+y");
    CHECK_STR(ggml_op_symbol(GGML_OP_MUL_MAT), "X*Y");

    CHECK_STR(ggml_unary_op_name(GGML_UNARY_OP_ABS), "ABS");
    CHECK_STR(ggml_unary_op_name(GGML_UNARY_OP_SILU), "SILU");
    CHECK_STR(ggml_unary_op_name(GGML_UNARY_OP_GELU_QUICK), "GELU_QUICK");
    CHECK_STR(ggml_unary_op_name(GGML_UNARY_OP_GELU_ERF), "GELU_ERF");
    for (int i = 0; i < GGML_UNARY_OP_COUNT; i++) {
        CHECK(ggml_unary_op_name((enum ggml_unary_op) i) != NULL);
    }
    const char * glu[] = { "REGLU", "GEGLU", "SWIGLU", "SWIGLU_OAI", "GEGLU_ERF", "GEGLU_QUICK" };
    for (int i = 0; i < GGML_GLU_OP_COUNT; i++) {
        CHECK_STR(ggml_glu_op_name((enum ggml_glu_op) i), glu[i]);
    }
    CHECK_STR(ggml_status_to_string(GGML_STATUS_SUCCESS), "GGML status: success");
}

//
// cases: tensors
//

static void test_nbytes_and_strides(void) {
    struct ggml_context * ctx = ctx_new();

    struct ggml_tensor * f = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
    CHECK(f->nb[0] == 4 && f->nb[1] == 16 && f->nb[2] == 48 && f->nb[3] == 96);
    CHECK(ggml_nbytes(f) == 96);
    CHECK(ggml_nbytes_pad(f) == 96);
    CHECK(ggml_nelements(f) == 24 && ggml_nrows(f) == 6 && ggml_n_dims(f) == 3);
    CHECK(ggml_is_contiguous(f) && !ggml_is_permuted(f) && !ggml_is_transposed(f));
    CHECK(f->data == NULL && f->view_src == NULL && f->op == GGML_OP_NONE && f->name[0] == '\0');

    // quantized: whole blocks per row
    struct ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 3);
    CHECK(q->nb[0] == 18 && q->nb[1] == 36 && q->nb[2] == 108 && q->nb[3] == 108);
    CHECK(ggml_nbytes(q) == 108);
    struct ggml_tensor * k = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_K, 512, 2);
    CHECK(ggml_nbytes(k) == 2 * 2 * 144);
    struct ggml_tensor * m = ggml_new_tensor_1d(ctx, GGML_TYPE_MXFP4, 96);
    CHECK(ggml_nbytes(m) == 3 * 17);

    // permuted and transposed: same bytes, reached through other strides
    struct ggml_tensor * p = ggml_permute(ctx, f, 2, 0, 1, 3);
    CHECK_NE4(p, 3, 2, 4, 1);
    CHECK(p->nb[0] == 16 && p->nb[1] == 48 && p->nb[2] == 4);
    CHECK(ggml_nbytes(p) == 96);
    CHECK(ggml_is_permuted(p) && !ggml_is_contiguous(p));
    struct ggml_tensor * t = ggml_transpose(ctx, ggml_reshape_2d(ctx, f, 8, 3));
    CHECK(ggml_is_transposed(t) && t->ne[0] == 3 && t->nb[0] == 32);
    CHECK(ggml_nbytes(t) == 96);

    // strided 2d view: the last row ends where its stride says
    struct ggml_tensor * v = ggml_view_2d(ctx, f, 2, 3, 16, 8);
    CHECK(v->nb[1] == 16 && v->nb[2] == 48 && v->nb[3] == 48);
    CHECK(ggml_nbytes(v) == 4 + 1 * 4 + 2 * 16);

    // empty tensors have no bytes
    struct ggml_tensor * e = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 0);
    CHECK(ggml_nbytes(e) == 0 && ggml_is_empty(e));

    struct ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    CHECK(ggml_is_scalar(s) && ggml_is_vector(s) && ggml_is_matrix(s) && ggml_n_dims(s) == 1);
    CHECK(ggml_are_same_shape(f, ggml_dup_tensor(ctx, f)));
    CHECK(ggml_are_same_stride(f, ggml_view_tensor(ctx, f)));
    CHECK(!ggml_are_same_stride(f, p));
    CHECK(ggml_can_repeat(s, f) && !ggml_can_repeat(f, s));
    ggml_free(ctx);
}

static void test_pool_accounting(void) {
    // the conformance context holds its graph and 48 tensors
    struct ggml_context * ctx = ctx_new();
    CHECK(ggml_get_mem_size(ctx) == 48 * ggml_tensor_overhead() + ggml_graph_overhead());
    CHECK(ggml_used_mem(ctx) == 0);
    CHECK(ggml_tensor_overhead() >= sizeof(struct ggml_tensor) && ggml_tensor_overhead() % GGML_MEM_ALIGN == 0);
    CHECK(ggml_graph_overhead() == ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false));
    CHECK(ggml_graph_overhead_custom(16, false) < ggml_graph_overhead());

    struct ggml_cgraph * g = ggml_new_graph(ctx);
    CHECK(ggml_used_mem(ctx) == ggml_graph_overhead());
    CHECK(ggml_graph_size(g) == GGML_DEFAULT_GRAPH_SIZE);
    CHECK(g->visited_hash_set.size >= 2 * GGML_DEFAULT_GRAPH_SIZE);
    struct ggml_tensor * last = NULL;
    for (int i = 0; i < 48; i++) {
        last = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    }
    CHECK(ggml_used_mem(ctx) == ggml_get_mem_size(ctx));
    CHECK(last->data == NULL);
    ggml_free(ctx);
    ggml_free(NULL);

    // with data: the bytes follow the tensor in the pool, aligned
    const size_t data_bytes = GGML_PAD(10 * sizeof(float), GGML_MEM_ALIGN);
    struct ggml_init_params params = { 2 * (ggml_tensor_overhead() + data_bytes), NULL, false };
    ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    CHECK(a->data != NULL && b->data != NULL);
    CHECK((char *) a->data > (char *) a && (char *) a->data + ggml_nbytes(a) <= (char *) b);
    CHECK(((uintptr_t) a->data) % GGML_MEM_ALIGN == 0);
    CHECK(ggml_used_mem(ctx) == ggml_get_mem_size(ctx));
    memset(a->data, 0xab, ggml_nbytes(a));
    memset(b->data, 0xcd, ggml_nbytes(b));
    CHECK(((unsigned char *) a->data)[ggml_nbytes(a) - 1] == 0xab);
    ggml_free(ctx);
}

static void pool_overflow_child(void) {
    struct ggml_init_params params = { 2 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4); // one too many
}

static void test_pool_overflow_aborts(void) {
    check_aborts(pool_overflow_child, "not enough space in the context's memory pool (needed", "pool overflow");
}

static void test_user_buffer_and_reset(void) {
    static _Alignas(GGML_MEM_ALIGN) char pool[8192];
    struct ggml_init_params params = { sizeof(pool), pool, false };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4);
    CHECK((char *) a >= pool && (char *) a < pool + sizeof(pool));
    CHECK((char *) a->data > (char *) a && (char *) a->data < pool + sizeof(pool));
    CHECK(ggml_get_no_alloc(ctx) == false);
    ggml_set_no_alloc(ctx, true);
    CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4)->data == NULL);
    ggml_reset(ctx);
    CHECK(ggml_used_mem(ctx) == 0 && ggml_get_first_tensor(ctx) == NULL);
    ggml_free(ctx); // does not free the caller's pool
}

static void test_tensor_walk_and_names(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * t0 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_new_graph_custom(ctx, 8, false); // graphs are skipped by the walk
    struct ggml_tensor * t1 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * t2 = ggml_scale(ctx, t1, 3.0f);
    struct ggml_tensor * order[3] = { t0, t1, t2 };
    int i = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        CHECK(i < 3 && t == order[i]);
        ggml_format_name(t, "t%d", i);
        i++;
    }
    CHECK(i == 3);
    CHECK(ggml_get_tensor(ctx, "t1") == t1 && ggml_get_tensor(ctx, "nope") == NULL);

    ggml_set_name(t0, "a name that is much longer than the sixty-three characters a tensor name can hold");
    CHECK(strlen(ggml_get_name(t0)) == GGML_MAX_NAME - 1);
    ggml_set_name(t1, "x");
    ggml_format_name(t1, "%s.%s", t1->name, t1->name); // its own name as an argument
    CHECK_STR(t1->name, "x.x");
    // what snprintf writes (the names' fast path handles %s and %d, vsnprintf the rest), truncated alike
    static const char * volatile base_at = "a base name of fifty-eight characters, or so, and it goes";
    const char * base = base_at; // (volatile: the compiler must not see the truncation coming and refuse the test)
    CHECK(strlen(base) == 57);
    char want[GGML_MAX_NAME];
#define SAME_AS_SNPRINTF(...) do { snprintf(want, sizeof(want), __VA_ARGS__); ggml_format_name(t1, __VA_ARGS__); CHECK_STR(t1->name, want); } while (0)
    SAME_AS_SNPRINTF("%s (view)", "attn_norm-3");
    SAME_AS_SNPRINTF("%s (view)", base);          // cut inside the suffix
    SAME_AS_SNPRINTF("%s (view)", "");
    SAME_AS_SNPRINTF("%s-%d", "attn_norm", 17);
    SAME_AS_SNPRINTF("%s-%d", base, 123456789);   // cut inside the number
    SAME_AS_SNPRINTF("%s-%d", "x", -2147483647 - 1);
    SAME_AS_SNPRINTF("leaf_%d", 0);
    SAME_AS_SNPRINTF("%s%s", base, base);
    SAME_AS_SNPRINTF("plain text only");
    SAME_AS_SNPRINTF("%d%%", 42);                 // others through vsnprintf
    SAME_AS_SNPRINTF("%5d|%s", 7, "x");
    SAME_AS_SNPRINTF("%s-%u", "y", 4000000000u);
#undef SAME_AS_SNPRINTF

    ggml_set_input(t0);
    ggml_set_output(t2);
    ggml_set_param(t1);
    CHECK(t0->flags == GGML_TENSOR_FLAG_INPUT && t2->flags == GGML_TENSOR_FLAG_OUTPUT && t1->flags == GGML_TENSOR_FLAG_PARAM);
    struct ggml_tensor * loss = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_set_loss(loss);
    CHECK(loss->flags == GGML_TENSOR_FLAG_LOSS);
    ggml_free(ctx);
}

// ggml 0.21.0 marks the source of an output view as an output too (ggml.c: "set output of
// view src"), so the allocator keeps the source's memory to the end of the graph
static void test_output_view_marks_source(void) {
    struct ggml_init_params ip = { 16 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    struct ggml_tensor * b = ggml_scale(ctx, a, 2.0f);
    struct ggml_tensor * v = ggml_view_1d(ctx, b, 16, 32);
    struct ggml_tensor * w = ggml_view_1d(ctx, v, 4, 0); // a view of a view: its view_src is b
    struct ggml_tensor * c = ggml_scale(ctx, b, 3.0f);
    CHECK(w->view_src == b);
    ggml_set_output(w);
    CHECK(w->flags == GGML_TENSOR_FLAG_OUTPUT && b->flags == GGML_TENSOR_FLAG_OUTPUT);
    CHECK(v->flags == 0 && a->flags == 0 && c->flags == 0); // not on the way to the memory's owner
    ggml_set_output(c);
    CHECK(c->flags == GGML_TENSOR_FLAG_OUTPUT && b->flags == GGML_TENSOR_FLAG_OUTPUT && a->flags == 0);
    ggml_free(ctx);
}

//
// cases: views
//

static void test_views_point_at_root(void) {
    struct ggml_init_params params = { 16 * ggml_tensor_overhead() + 4096, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4); // 128 bytes, with data
    ggml_set_name(x, "x");

    struct ggml_tensor * v1 = ggml_view_1d(ctx, x, 16, 32);
    CHECK(v1->view_src == x && v1->view_offs == 32 && v1->src[0] == x && v1->op == GGML_OP_VIEW);
    CHECK((char *) v1->data == (char *) x->data + 32);
    CHECK_STR(v1->name, "x (view)");
    size_t stored;
    memcpy(&stored, v1->op_params, sizeof(stored));
    CHECK(stored == 32);

    // a view of a view: root and summed offsets
    struct ggml_tensor * v2 = ggml_view_2d(ctx, v1, 2, 3, 16, 8);
    CHECK(v2->view_src == x && v2->view_offs == 40 && v2->src[0] == v1);
    CHECK((char *) v2->data == (char *) x->data + 40);
    CHECK_STR(v2->name, "x (view) (view)");

    struct ggml_tensor * r = ggml_reshape_2d(ctx, v1, 4, 4);
    CHECK(r->view_src == x && r->view_offs == 32 && r->op == GGML_OP_RESHAPE && r->src[0] == v1);
    CHECK(r->nb[1] == 16 && ggml_is_contiguous(r));
    CHECK_STR(r->name, "x (view) (reshaped)");

    struct ggml_tensor * p = ggml_permute(ctx, r, 1, 0, 2, 3);
    CHECK(p->view_src == x && p->view_offs == 32 && p->op == GGML_OP_PERMUTE && p->src[0] == r);
    CHECK(p->op_params[0] == 1 && p->op_params[1] == 0 && p->op_params[2] == 2 && p->op_params[3] == 3);
    CHECK_STR(p->name, "x (view) (reshaped) (permuted)");

    struct ggml_tensor * t = ggml_transpose(ctx, x);
    CHECK(t->view_src == x && t->view_offs == 0 && t->op == GGML_OP_TRANSPOSE);
    CHECK_NE4(t, 4, 8, 1, 1);
    CHECK(t->nb[0] == 32 && t->nb[1] == 4);
    CHECK_STR(t->name, "x (transposed)");

    struct ggml_tensor * rs = ggml_reshape(ctx, x, ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 32));
    CHECK(rs->type == GGML_TYPE_F32 && rs->ne[0] == 32 && rs->view_src == x);

    // ggml_view_tensor is a plain alias: op NONE, no sources
    struct ggml_tensor * vt = ggml_view_tensor(ctx, v2);
    CHECK(vt->view_src == x && vt->view_offs == 40 && vt->op == GGML_OP_NONE && vt->src[0] == NULL);
    CHECK(ggml_are_same_stride(vt, v2) && ggml_are_same_shape(vt, v2));
    ggml_free(ctx);
}

static void view_out_of_bounds_child(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_view_1d(ctx, x, 4, 4); // 16 bytes at offset 4 of a 16-byte tensor
}

static void test_view_out_of_bounds_aborts(void) {
    check_aborts(view_out_of_bounds_child, "GGML_ASSERT(", "view out of bounds");
}

// a no_alloc context for two graphs of leaf_graph
static struct ggml_context * two_graph_ctx(void) {
    struct ggml_init_params params = { 16 * ggml_tensor_overhead() + 2 * ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        fprintf(stderr, "ggml_init failed\n");
        exit(2);
    }
    return ctx;
}

// a graph with a leaf no node consumes: L (leaf_n floats), then x (input) -> y = scale(x), an output
static struct ggml_cgraph * leaf_graph(struct ggml_context * ctx, int64_t leaf_n) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, leaf_n));
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_scale(ctx, x, 2.0f);
    ggml_set_output(y);
    ggml_build_forward_expand(gf, y);
    return gf;
}

// reserved with a leaf of 16 floats, then given the same shape with a leaf of 2^20: upstream's check
// does not look at leafs, so upstream places the leaf at its planned offset, past its buffer's end;
// galloc re-reserves instead (c80be71), and the leaf lies inside the new buffer
static void leaf_past_buffer_child(void) {
    struct ggml_context * ctx    = two_graph_ctx();
    ggml_gallocr_t        galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (!ggml_gallocr_reserve(galloc, leaf_graph(ctx, 16))) {
        fprintf(stderr, "reserve failed\n");
        _exit(1);
    }
    struct ggml_cgraph * grown = leaf_graph(ctx, 1 << 20);
    const struct ggml_tensor * leaf = grown->leafs[0];
    if (!ggml_gallocr_alloc_graph(galloc, grown) || leaf->buffer == NULL ||
        (const char *) leaf->data + ggml_nbytes(leaf) >
            (const char *) ggml_backend_buffer_get_base(leaf->buffer) + ggml_backend_buffer_get_size(leaf->buffer)) {
        fprintf(stderr, "the grown leaf was not placed inside a buffer\n");
        _exit(1);
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

static void leaf_fits_child(void) { // the same with a leaf of 16 floats again: placed, no abort
    struct ggml_context * ctx    = two_graph_ctx();
    ggml_gallocr_t        galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    struct ggml_cgraph *  gf     = leaf_graph(ctx, 16);
    if (!ggml_gallocr_reserve(galloc, gf) || !ggml_gallocr_alloc_graph(galloc, leaf_graph(ctx, 16))) {
        fprintf(stderr, "reserve or alloc_graph failed\n");
        _exit(1);
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

// ggml_backend_tensor_alloc itself still refuses an address past its buffer, as upstream's does
static void tensor_alloc_past_buffer_child(void) {
    struct ggml_context * ctx = two_graph_ctx();
    struct ggml_tensor *  t   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 128);
    ggml_backend_tensor_alloc(buf, t, (char *) ggml_backend_buffer_get_base(buf) + 64);
}

static void test_gallocr_leaf_past_buffer(void) {
    check_aborts(tensor_alloc_past_buffer_child, "tensor reaches past its buffer", "a tensor past its buffer");
    void (*const children[])(void) = { leaf_past_buffer_child, leaf_fits_child };
    const char * const what[] = { "a leaf grown past the buffer", "a leaf of the reserved size" };
    for (int i = 0; i < 2; i++) {
        char err[4096];
        const int status = child_run(children[i], err, sizeof(err));
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s: expected to be placed; stderr:\n%s\n", what[i], err);
            g_failures++;
        }
    }
}

static void test_cpy_and_set_rows_are_views(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * cache = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 2048);
    ggml_set_name(cache, "cache_k");
    struct ggml_tensor * k = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 8);
    ggml_set_name(k, "k");

    struct ggml_tensor * dst = ggml_view_1d(ctx, cache, 512, 1024);
    struct ggml_tensor * c = ggml_cpy(ctx, k, dst);
    CHECK(c->op == GGML_OP_CPY && c->src[0] == k && c->src[1] == dst);
    CHECK(c->view_src == cache && c->view_offs == 1024 && c->type == GGML_TYPE_F16);
    CHECK_STR(c->name, "cache_k (view) (copy of k)");

    struct ggml_tensor * unnamed = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 8);
    CHECK_STR(ggml_cpy(ctx, k, unnamed)->name, "k (copy)");

    struct ggml_tensor * cast = ggml_cast(ctx, k, GGML_TYPE_F16);
    CHECK(cast->op == GGML_OP_CPY && cast->type == GGML_TYPE_F16 && cast->view_src == NULL);
    CHECK(cast->src[0] == k && cast->src[1] == cast);
    CHECK_NE4(cast, 64, 8, 1, 1);

    struct ggml_tensor * rows = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 32);
    ggml_set_name(rows, "cache_v");
    struct ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 8);
    struct ggml_tensor * sr = ggml_set_rows(ctx, rows, k, idx);
    CHECK(sr->op == GGML_OP_SET_ROWS && sr->view_src == rows && sr->view_offs == 0);
    CHECK(sr->src[0] == k && sr->src[1] == idx && sr->src[2] == rows);
    CHECK(ggml_are_same_shape(sr, rows));
    CHECK_STR(sr->name, "cache_v (view)");
    ggml_free(ctx);
}

//
// cases: op shapes
//

static void test_op_shapes(void) {
    struct ggml_init_params params = { 128 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);

    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 96);
    struct ggml_tensor * x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 8, 2);
    struct ggml_tensor * mm = ggml_mul_mat(ctx, w, x);
    CHECK(mm->type == GGML_TYPE_F32 && mm->op == GGML_OP_MUL_MAT && mm->src[0] == w && mm->src[1] == x);
    CHECK_NE4(mm, 96, 8, 2, 1);
    ggml_mul_mat_set_prec(mm, GGML_PREC_F32);
    CHECK(mm->op_params[0] == GGML_PREC_F32);

    struct ggml_tensor * emb = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 256);
    struct ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 5);
    struct ggml_tensor * gr = ggml_get_rows(ctx, emb, ids);
    CHECK(gr->type == GGML_TYPE_F32 && gr->src[0] == emb && gr->src[1] == ids);
    CHECK_NE4(gr, 64, 5, 1, 1);
    CHECK(ggml_get_rows(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 10), ids)->type == GGML_TYPE_I32);

    struct ggml_tensor * q    = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 128, 7, 32, 1);
    struct ggml_tensor * kk   = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 128, 256, 8, 1);
    struct ggml_tensor * vv   = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 96, 256, 8, 1);
    struct ggml_tensor * mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 256, 8);
    struct ggml_tensor * fa = ggml_flash_attn_ext(ctx, q, kk, vv, mask, 0.125f, 0.0f, 0.0f);
    CHECK(fa->type == GGML_TYPE_F32 && fa->op == GGML_OP_FLASH_ATTN_EXT);
    CHECK_NE4(fa, 96, 32, 7, 1);
    CHECK(fa->src[0] == q && fa->src[1] == kk && fa->src[2] == vv && fa->src[3] == mask && fa->src[4] == NULL);
    float f;
    memcpy(&f, &fa->op_params[0], sizeof(f));
    CHECK(f == 0.125f);
    ggml_flash_attn_ext_set_prec(fa, GGML_PREC_F32);
    CHECK(fa->op_params[3] == GGML_PREC_F32);

    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 5);
    struct ggml_tensor * cc = ggml_concat(ctx, a, b, 1);
    CHECK_NE4(cc, 4, 8, 1, 1);
    CHECK(cc->op_params[0] == 1 && cc->src[0] == a && cc->src[1] == b);

    struct ggml_tensor * pd = ggml_pad(ctx, a, 2, 0, 1, 0);
    CHECK_NE4(pd, 6, 3, 2, 1);
    CHECK(pd->op == GGML_OP_PAD && pd->op_params[1] == 2 && pd->op_params[5] == 1);

    struct ggml_tensor * mean = ggml_mean(ctx, b);
    CHECK_NE4(mean, 1, 5, 1, 1);
    CHECK(mean->type == GGML_TYPE_F32 && mean->op == GGML_OP_MEAN);
    CHECK_NE4(ggml_sum_rows(ctx, b), 1, 5, 1, 1);
    CHECK_NE4(ggml_sum(ctx, b), 1, 1, 1, 1);
    CHECK_NE4(ggml_argmax(ctx, b), 5, 1, 1, 1);
    CHECK_NE4(ggml_repeat(ctx, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), b), 4, 5, 1, 1);

    struct ggml_tensor * up = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 344, 8);
    struct ggml_tensor * sw = ggml_swiglu(ctx, up);
    CHECK_NE4(sw, 172, 8, 1, 1);
    CHECK(sw->op == GGML_OP_GLU && ggml_get_glu_op(sw) == GGML_GLU_OP_SWIGLU && sw->src[1] == NULL);
    CHECK_STR(ggml_op_desc(sw), "SWIGLU");
    struct ggml_tensor * gate = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 172, 8);
    struct ggml_tensor * up2  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 172, 8);
    struct ggml_tensor * ss = ggml_swiglu_split(ctx, gate, up2);
    CHECK_NE4(ss, 172, 8, 1, 1);
    CHECK(ss->src[0] == gate && ss->src[1] == up2);
    struct ggml_tensor * gs = ggml_glu(ctx, up, GGML_GLU_OP_GEGLU, true);
    CHECK(gs->op_params[0] == GGML_GLU_OP_GEGLU && gs->op_params[1] == 1 && gs->ne[0] == 172);

    struct ggml_tensor * si = ggml_silu(ctx, b);
    CHECK(si->op == GGML_OP_UNARY && ggml_get_unary_op(si) == GGML_UNARY_OP_SILU && ggml_are_same_shape(si, b));
    CHECK(si->view_src == NULL);
    CHECK_STR(ggml_op_desc(si), "SILU");
    CHECK_STR(ggml_op_desc(mean), "MEAN");

    struct ggml_tensor * sc = ggml_scale(ctx, b, 0.5f);
    memcpy(&f, &sc->op_params[0], sizeof(f));
    CHECK(sc->op == GGML_OP_SCALE && f == 0.5f && sc->view_src == NULL);
    struct ggml_tensor * rn = ggml_rms_norm(ctx, b, 1e-5f);
    memcpy(&f, &rn->op_params[0], sizeof(f));
    CHECK(rn->op == GGML_OP_RMS_NORM && f == 1e-5f);
    CHECK(ggml_norm(ctx, b, 1e-6f)->op == GGML_OP_NORM);

    struct ggml_tensor * kq = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 32, 8, 4);
    struct ggml_tensor * kq_mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 8);
    struct ggml_tensor * sm = ggml_soft_max_ext(ctx, kq, kq_mask, 0.25f, 0.0f);
    CHECK(sm->op == GGML_OP_SOFT_MAX && sm->src[0] == kq && sm->src[1] == kq_mask && ggml_are_same_shape(sm, kq));
    memcpy(&f, &sm->op_params[0], sizeof(f));
    CHECK(f == 0.25f);
    CHECK(ggml_soft_max(ctx, kq)->src[1] == NULL);
    CHECK(ggml_diag_mask_inf(ctx, kq, 3)->op_params[0] == 3);

    struct ggml_tensor * heads = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 4, 8);
    struct ggml_tensor * pos   = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 8);
    struct ggml_tensor * freq  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * ro = ggml_rope_ext(ctx, heads, pos, freq, 16, GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    CHECK(ro->op == GGML_OP_ROPE && ro->src[0] == heads && ro->src[1] == pos && ro->src[2] == freq);
    CHECK(ro->op_params[1] == 16 && ro->op_params[2] == GGML_ROPE_TYPE_NEOX && ro->op_params[4] == 4096);
    memcpy(&f, &ro->op_params[5], sizeof(f));
    CHECK(f == 10000.0f && ggml_are_same_shape(ro, heads));
    CHECK(ggml_rope(ctx, heads, pos, 16, 0)->src[2] == NULL);
    // ggml_rope_set_offset: the offset in op_params[15] (0 until set), shape and sources unchanged
    CHECK(ro->op_params[15] == 0);
    CHECK(ggml_rope_set_offset(ro, 4) == ro && ro->op_params[15] == 4 && ro->op_params[1] == 16 && ggml_are_same_shape(ro, heads));
    // ggml_fill: a new tensor of a's shape (not a view), the value in op_params[0], a its source
    struct ggml_tensor * fl = ggml_fill(ctx, heads, -INFINITY);
    memcpy(&f, &fl->op_params[0], sizeof(f));
    CHECK(fl->op == GGML_OP_FILL && fl->src[0] == heads && fl->view_src == NULL && ggml_are_same_shape(fl, heads) && isinf(f) && f < 0);

    struct ggml_tensor * ct = ggml_cont(ctx, ggml_transpose(ctx, b));
    CHECK(ct->op == GGML_OP_CONT && ggml_is_contiguous(ct) && ct->view_src == NULL);
    CHECK_NE4(ct, 5, 4, 1, 1);
    CHECK_NE4(ggml_cont_2d(ctx, b, 10, 2), 10, 2, 1, 1);
    CHECK_NE4(ggml_cont_3d(ctx, b, 5, 2, 2), 5, 2, 2, 1);

    CHECK(ggml_dup(ctx, b)->op == GGML_OP_DUP);
    CHECK(ggml_sub(ctx, b, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4))->op == GGML_OP_SUB);
    CHECK(ggml_div(ctx, b, b)->op == GGML_OP_DIV);
    CHECK(ggml_add1(ctx, b, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1))->op == GGML_OP_ADD1);
    CHECK(ggml_sqr(ctx, b)->op == GGML_OP_SQR && ggml_sqrt(ctx, b)->op == GGML_OP_SQRT && ggml_log(ctx, b)->op == GGML_OP_LOG);
    ggml_free(ctx);
}

static void test_inplace_ops_are_views(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);

    struct ggml_tensor * add = ggml_add_inplace(ctx, a, b);
    CHECK(add->view_src == a && add->op == GGML_OP_ADD && add->src[0] == a && add->src[1] == b);
    struct ggml_tensor * mul = ggml_mul_inplace(ctx, add, b);
    CHECK(mul->view_src == a && mul->op == GGML_OP_MUL);
    struct ggml_tensor * sc = ggml_scale_inplace(ctx, mul, 2.0f);
    CHECK(sc->view_src == a && sc->op == GGML_OP_SCALE);
    struct ggml_tensor * un = ggml_unary_inplace(ctx, sc, GGML_UNARY_OP_RELU);
    CHECK(un->view_src == a && un->op == GGML_OP_UNARY && ggml_get_unary_op(un) == GGML_UNARY_OP_RELU);

    // out-of-place results own their memory
    CHECK(ggml_add(ctx, a, b)->view_src == NULL && ggml_mul(ctx, a, b)->view_src == NULL);
    ggml_free(ctx);
}

static void bad_broadcast_child(void) {
    struct ggml_context * ctx = ctx_new();
    ggml_add(ctx, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4), ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 3));
}

static void bad_mul_mat_child(void) {
    struct ggml_context * ctx = ctx_new();
    ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 2), ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 2));
}

// a type outside ggml's table (or removed from it: 4 was Q4_2) is refused where a tensor is
// made, and where a tensor's size or strides are computed after its type was set by hand: an
// abort with a message, not a division by a block size of zero (SIGFPE)
static void new_tensor_type_count_child(void) {
    ggml_new_tensor_1d(ctx_new(), GGML_TYPE_COUNT, 4);
}

static void new_tensor_removed_type_child(void) {
    ggml_new_tensor_1d(ctx_new(), (enum ggml_type) 4, 32);
}

static void nbytes_type_count_child(void) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx_new(), GGML_TYPE_Q4_0, 64);
    t->type = GGML_TYPE_COUNT;
    printf("%zu\n", ggml_nbytes(t));
}

static void nbytes_removed_type_child(void) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx_new(), GGML_TYPE_Q4_0, 64);
    t->type = (enum ggml_type) 4;
    printf("%zu\n", ggml_nbytes(t));
}

static void contiguous_removed_type_child(void) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx_new(), GGML_TYPE_Q4_0, 64);
    t->type = (enum ggml_type) 4;
    printf("%d\n", ggml_is_contiguous(t));
}

static void reshape_removed_type_child(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 2);
    t->type = (enum ggml_type) 4;
    ggml_reshape_1d(ctx, t, 128);
}

static void test_unknown_type_aborts(void) {
    const char * const msg = "unknown or removed tensor type";
    check_aborts(new_tensor_type_count_child, msg, "new tensor of type GGML_TYPE_COUNT");
    check_aborts(new_tensor_removed_type_child, msg, "new tensor of a removed type");
    check_aborts(nbytes_type_count_child, msg, "ggml_nbytes, type GGML_TYPE_COUNT set by hand");
    check_aborts(nbytes_removed_type_child, msg, "ggml_nbytes, a removed type set by hand");
    check_aborts(contiguous_removed_type_child, msg, "ggml_is_contiguous, a removed type set by hand");
    check_aborts(reshape_removed_type_child, msg, "ggml_reshape_1d, a removed type set by hand");
}

static void test_shape_misuse_aborts(void) {
    check_aborts(bad_broadcast_child, "ggml_can_repeat(b, a)", "add with a non-broadcastable b");
    check_aborts(bad_mul_mat_child, "GGML_ASSERT(", "mul_mat with mismatched rows");
}

//
// cases: graphs
//

static struct ggml_tensor * input_1d(struct ggml_context * ctx, int64_t n) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    ggml_set_input(t);
    return t;
}

static void names_assign(struct ggml_context * ctx, const char * prefix) {
    int i = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        ggml_format_name(t, "%s%d", prefix, i++);
    }
}

static void check_graph_names(struct ggml_tensor ** list, int n, const char * const * expected, int n_expected) {
    CHECK(n == n_expected);
    for (int i = 0; i < n && i < n_expected; i++) {
        CHECK_STR(list[i]->name, expected[i]);
    }
}

// the conformance test's test_view_inplace graph
static void test_graph_view_inplace(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    struct ggml_tensor * x[6];
    x[0] = input_1d(ctx, 4);
    x[1] = ggml_reshape_2d(ctx, x[0], 2, 2);
    x[2] = ggml_permute(ctx, x[1], 1, 0, 2, 3);
    x[3] = ggml_view_1d(ctx, x[2], 2, 4);
    x[4] = input_1d(ctx, 2);
    x[5] = ggml_add(ctx, x[3], x[4]);
    names_assign(ctx, "x");
    ggml_set_output(x[5]);
    ggml_build_forward_expand(g, x[5]);

    const char * const nodes[] = { "x1", "x2", "x3", "x5" };
    const char * const leafs[] = { "x0", "x4" };
    check_graph_names(g->nodes, g->n_nodes, nodes, 4);
    check_graph_names(g->leafs, g->n_leafs, leafs, 2);
    CHECK(x[3]->view_src == x[0] && x[3]->view_offs == 4);
    for (int i = 0; i < g->n_nodes; i++) {
        CHECK(g->nodes[i]->flags & GGML_TENSOR_FLAG_COMPUTE);
    }
    CHECK(!(x[0]->flags & GGML_TENSOR_FLAG_COMPUTE) && !(x[4]->flags & GGML_TENSOR_FLAG_COMPUTE));
    CHECK(ggml_graph_n_nodes(g) == 4 && ggml_graph_node(g, -1) == x[5] && ggml_graph_node(g, 0) == x[1]);
    CHECK(ggml_graph_nodes(g) == g->nodes);
    CHECK(ggml_graph_get_tensor(g, "x4") == x[4] && ggml_graph_get_tensor(g, "x3") == x[3]);

    // expanding again adds nothing
    ggml_build_forward_expand(g, x[5]);
    CHECK(g->n_nodes == 4 && g->n_leafs == 2);
    ggml_free(ctx);
}

// the conformance test's test_multiple_buffer_types graph, over three contexts
static void test_graph_multiple_contexts(void) {
    struct ggml_context * ctx_a = ctx_new();
    struct ggml_context * ctx_b = ctx_new();
    struct ggml_context * ctx   = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);

    struct ggml_tensor * a0 = input_1d(ctx_a, 4);
    struct ggml_tensor * a1 = input_1d(ctx_a, 4);
    names_assign(ctx_a, "a");
    struct ggml_tensor * b0 = input_1d(ctx_b, 6);
    struct ggml_tensor * b1 = input_1d(ctx_b, 1);
    names_assign(ctx_b, "b");

    struct ggml_tensor * x[9];
    x[0] = input_1d(ctx, 4);
    x[1] = ggml_mul(ctx, x[0], a0);
    x[2] = ggml_pad(ctx, x[1], 2, 0, 0, 0);
    x[3] = ggml_mul(ctx, x[2], b0);
    x[4] = ggml_mean(ctx, x[3]);
    x[5] = ggml_add(ctx, x[4], b1);
    x[6] = ggml_pad(ctx, x[5], 3, 0, 0, 0);
    x[7] = ggml_add(ctx, x[6], a1);
    x[8] = ggml_scale(ctx, x[7], 2.0f);
    names_assign(ctx, "x");
    ggml_set_output(x[8]);
    ggml_build_forward_expand(g, x[8]);

    const char * const leafs[] = { "x0", "a0", "b0", "b1", "a1" };
    const char * const nodes[] = { "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8" };
    check_graph_names(g->leafs, g->n_leafs, leafs, 5);
    check_graph_names(g->nodes, g->n_nodes, nodes, 8);
    CHECK_NE4(x[2], 6, 1, 1, 1);
    CHECK_NE4(x[4], 1, 1, 1, 1);
    CHECK_NE4(x[6], 4, 1, 1, 1);
    ggml_free(ctx);
    ggml_free(ctx_b);
    ggml_free(ctx_a);
}

// ggml_build_forward_select walks the branches it does not pick without the compute flag; a later
// expand that reaches such a branch again marks it, down through every source with an op
static void test_graph_select_then_compute(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    struct ggml_tensor * a = input_1d(ctx, 4);
    struct ggml_tensor * b = ggml_sqr(ctx, a);
    struct ggml_tensor * c = ggml_sqrt(ctx, b);
    struct ggml_tensor * e = ggml_scale(ctx, a, 2.0f);
    struct ggml_tensor * branches[2] = { c, e };
    CHECK(ggml_build_forward_select(g, branches, 2, 1) == e);
    CHECK((e->flags & GGML_TENSOR_FLAG_COMPUTE) && !(b->flags & GGML_TENSOR_FLAG_COMPUTE) && !(c->flags & GGML_TENSOR_FLAG_COMPUTE));
    struct ggml_tensor * d = ggml_add(ctx, e, b); // b met again, with compute: marked; c is not reached
    ggml_build_forward_expand(g, d);
    CHECK((b->flags & GGML_TENSOR_FLAG_COMPUTE) && !(c->flags & GGML_TENSOR_FLAG_COMPUTE));
    struct ggml_tensor * f = ggml_add(ctx, d, c); // c met again: marked (b is already)
    ggml_build_forward_expand(g, f);
    CHECK((c->flags & GGML_TENSOR_FLAG_COMPUTE) && !(a->flags & GGML_TENSOR_FLAG_COMPUTE));
    struct ggml_tensor * h = ggml_sqr(ctx, ggml_sqrt(ctx, ggml_sqr(ctx, a))); // a chain picked against
    struct ggml_tensor * pick[2] = { h, f };
    ggml_build_forward_select(g, pick, 2, 1);
    CHECK(!(h->flags & GGML_TENSOR_FLAG_COMPUTE) && !(h->src[0]->src[0]->flags & GGML_TENSOR_FLAG_COMPUTE));
    ggml_build_forward_expand(g, h); // h met again: the walk marks both below it
    CHECK((h->flags & GGML_TENSOR_FLAG_COMPUTE) && (h->src[0]->flags & GGML_TENSOR_FLAG_COMPUTE) &&
          (h->src[0]->src[0]->flags & GGML_TENSOR_FLAG_COMPUTE));
    ggml_free(ctx);
}

static bool has_compute(const struct ggml_tensor * t) {
    return (t->flags & GGML_TENSOR_FLAG_COMPUTE) != 0;
}

static void check_graph_list(struct ggml_tensor ** list, int n, struct ggml_tensor * const * expected, int n_expected) {
    CHECK(n == n_expected);
    for (int i = 0; i < n && i < n_expected; i++) {
        CHECK(list[i] == expected[i]);
    }
}

// An op-less tensor whose sources were set by hand: ggml's ggml_visit_parents_graph, on a tensor
// met again with compute, recurses into every source without the flag, op-less ones included,
// and visits in full a source not yet in the graph. Each expectation is that recursion worked
// through by hand (in the comments).
static void test_graph_revisit_opless_sources(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    struct ggml_tensor * a = input_1d(ctx, 4);
    struct ggml_tensor * b = ggml_sqr(ctx, a);
    struct ggml_tensor * l = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4); // op NONE: a leaf
    l->src[0] = b;
    struct ggml_tensor * c = ggml_sqrt(ctx, l);
    struct ggml_tensor * e = ggml_scale(ctx, a, 2.0f);

    // select: c without compute (c, l, b, a entered; a, b, l, c appended), then e with compute
    // (a met again: no sources; e flagged and appended)
    struct ggml_tensor * branches[2] = { c, e };
    ggml_build_forward_select(g, branches, 2, 1);
    struct ggml_tensor * const leafs1[] = { a, l };
    struct ggml_tensor * const nodes1[] = { b, c, e };
    check_graph_list(g->leafs, g->n_leafs, leafs1, 2);
    check_graph_list(g->nodes, g->n_nodes, nodes1, 3);
    CHECK(has_compute(e) && !has_compute(c) && !has_compute(b));

    // c met again with compute: c flagged; l lacks the flag: visit(l) -> met again -> b lacks it:
    // visit(b) flags b -> met again -> a lacks it (no sources). Nothing appended.
    ggml_build_forward_expand(g, c);
    CHECK(has_compute(c) && has_compute(b) && !has_compute(l) && !has_compute(a));
    check_graph_list(g->leafs, g->n_leafs, leafs1, 2);
    check_graph_list(g->nodes, g->n_nodes, nodes1, 3);

    // sources set by hand after l was visited: u (op-less) and v = sqr(a2), both new to the graph.
    // d = add(c, e) first visit: c met again -> l lacks the flag -> met again: b has the flag,
    // u is new: visited in full, appended as leaf_2; v new: flagged, a2 appended (leaf_3), v
    // appended (node_3); then e met again (a: nothing); d appended (node_4)
    struct ggml_tensor * u = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * a2 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * v = ggml_sqr(ctx, a2);
    l->src[1] = u;
    l->src[2] = v;
    struct ggml_tensor * d = ggml_add(ctx, c, e);
    ggml_build_forward_expand(g, d);
    struct ggml_tensor * const leafs2[] = { a, l, u, a2 };
    struct ggml_tensor * const nodes2[] = { b, c, e, v, d };
    check_graph_list(g->leafs, g->n_leafs, leafs2, 4);
    check_graph_list(g->nodes, g->n_nodes, nodes2, 5);
    CHECK_STR(u->name, "leaf_2");
    CHECK_STR(a2->name, "leaf_3");
    CHECK_STR(v->name, "node_3");
    CHECK(has_compute(v) && has_compute(d) && !has_compute(u) && !has_compute(a2));

    // a source new to the graph set by hand on d itself: d met again, w lacks the flag: visited
    // in full, appended as leaf_4
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    d->src[2] = w;
    ggml_build_forward_expand(g, d);
    struct ggml_tensor * const leafs3[] = { a, l, u, a2, w };
    check_graph_list(g->leafs, g->n_leafs, leafs3, 5);
    check_graph_list(g->nodes, g->n_nodes, nodes2, 5);
    CHECK_STR(w->name, "leaf_4");
    ggml_free(ctx);
}

// The walk below a tensor met again takes its sources in slot order, whatever the graph's eval
// order; a first visit takes them in eval order (right to left here)
static void test_graph_revisit_slot_order(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    g->order = GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT;
    struct ggml_tensor * a = input_1d(ctx, 4);
    struct ggml_tensor * l = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * c = ggml_sqr(ctx, l);
    ggml_build_forward_expand(g, c); // l appended (leaf), c flagged and appended
    struct ggml_tensor * u = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * v = ggml_sqr(ctx, a);
    l->src[0] = u;
    l->src[1] = v;
    // d = add(c, c), right to left: slot 1 c met again -> l lacks the flag -> met again, slot
    // order: u new (leaf), v new (flagged; a leaf; v node); slot 0 c met again: l's sources
    // u (no sources) and v (flagged) change nothing; d appended
    struct ggml_tensor * d = ggml_add(ctx, c, c);
    ggml_build_forward_expand(g, d);
    struct ggml_tensor * const leafs[] = { l, u, a };
    struct ggml_tensor * const nodes[] = { c, v, d };
    check_graph_list(g->leafs, g->n_leafs, leafs, 3);
    check_graph_list(g->nodes, g->n_nodes, nodes, 3);
    CHECK(has_compute(v) && has_compute(d));
    ggml_free(ctx);
}

// Op-less tensors whose hand-set sources make a cycle: ggml's recursion never ends there (each
// meets the other again with compute, neither ever gets the flag); this walk goes below each
// once per call and builds t's graph (l2 first appended: it is l1's source)
static void test_graph_opless_cycle_ends(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    struct ggml_tensor * l1 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * l2 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    l1->src[0] = l2;
    l2->src[0] = l1;
    struct ggml_tensor * t = ggml_sqr(ctx, l1);
    ggml_build_forward_expand(g, t);
    ggml_build_forward_expand(g, t);
    struct ggml_tensor * const leafs[] = { l2, l1 };
    struct ggml_tensor * const nodes[] = { t };
    check_graph_list(g->leafs, g->n_leafs, leafs, 2);
    check_graph_list(g->nodes, g->n_nodes, nodes, 1);
    CHECK(has_compute(t) && !g->out_of_memory);
    ggml_free(ctx);
}

static void test_graph_auto_names_and_order(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    struct ggml_tensor * p = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * q = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_name(q, "q");
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_param(w); // a parameter is a node even with op NONE
    struct ggml_tensor * s1 = ggml_mul(ctx, q, p);  // sources in slot order: q before p
    struct ggml_tensor * s2 = ggml_add(ctx, s1, w);
    struct ggml_tensor * s3 = ggml_add(ctx, s2, s1); // s1 already visited
    ggml_build_forward_expand(g, s3);

    CHECK(g->n_leafs == 2 && g->leafs[0] == q && g->leafs[1] == p);
    CHECK_STR(p->name, "leaf_1");
    CHECK_STR(q->name, "q");
    CHECK(g->n_nodes == 4 && g->nodes[0] == s1 && g->nodes[1] == w && g->nodes[2] == s2 && g->nodes[3] == s3);
    CHECK_STR(s1->name, "node_0");
    CHECK_STR(w->name, "node_1");
    CHECK_STR(s3->name, "node_3");
    CHECK(!(w->flags & GGML_TENSOR_FLAG_COMPUTE) && (s3->flags & GGML_TENSOR_FLAG_COMPUTE));

    // a second root appends after the first
    struct ggml_tensor * s4 = ggml_sqr(ctx, s2);
    ggml_build_forward_expand(g, s4);
    CHECK(g->n_nodes == 5 && ggml_graph_node(g, -1) == s4 && ggml_graph_node(g, -2) == s3);

    struct ggml_cgraph view = ggml_graph_view(g, 1, 3);
    CHECK(view.n_nodes == 2 && view.nodes[0] == w && view.nodes[1] == s2 && view.n_leafs == 0 && view.size == 0);

    ggml_graph_clear(g);
    CHECK(g->n_nodes == 0 && g->n_leafs == 0 && !ggml_hash_contains(&g->visited_hash_set, s1));
    ggml_graph_add_node(g, s4);
    CHECK(g->n_nodes == 1 && g->nodes[0] == s4);
    ggml_free(ctx);
}

// a chain far deeper than a recursive walk would like (the WASM stack is small)
static void test_graph_deep_chain(void) {
    const int n = 20000;
    struct ggml_init_params params = { (size_t) (n + 2) * ggml_tensor_overhead() + ggml_graph_overhead_custom((size_t) n + 1, false), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, (size_t) n + 1, false);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    for (int i = 0; i < n; i++) {
        t = ggml_scale(ctx, t, 1.0f);
    }
    ggml_build_forward_expand(g, t);
    CHECK(g->n_nodes == n && g->n_leafs == 1 && g->nodes[n - 1] == t);
    CHECK_STR(g->nodes[n - 1]->name, "node_19999");
    ggml_free(ctx);
}

static void graph_full_child(void) {
    struct ggml_context * ctx = ctx_new();
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 2, false);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    t = ggml_scale(ctx, t, 1.0f);
    t = ggml_scale(ctx, t, 1.0f);
    t = ggml_scale(ctx, t, 1.0f);
    ggml_build_forward_expand(g, t);
}

static void test_graph_full_aborts(void) {
    check_aborts(graph_full_child, "graph is full", "graph full");
}

//
// cases: hash set, logging
//

static void test_hash_set(void) {
    CHECK(ggml_hash_size(0) == 2 && ggml_hash_size(4096) == 4099 && ggml_hash_size(7) == 7 && ggml_hash_size(8) == 11);

    struct ggml_context * ctx = ctx_new();
    struct ggml_tensor * t[20];
    for (int i = 0; i < 20; i++) {
        t[i] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    }
    struct ggml_hash_set set = ggml_hash_set_new(20);
    CHECK(set.size >= 20);
    for (int i = 0; i < 20; i++) {
        CHECK(!ggml_hash_contains(&set, t[i]));
        const size_t slot = ggml_hash_insert(&set, t[i]);
        CHECK(slot < set.size && set.keys[slot] == t[i]);
    }
    for (int i = 0; i < 20; i++) {
        CHECK(ggml_hash_contains(&set, t[i]));
        CHECK(ggml_hash_insert(&set, t[i]) == GGML_HASHSET_ALREADY_EXISTS);
        const size_t slot = ggml_hash_find(&set, t[i]);
        CHECK(ggml_hash_find_or_insert(&set, t[i]) == slot && set.keys[slot] == t[i]);
    }
    ggml_hash_set_reset(&set);
    CHECK(!ggml_hash_contains(&set, t[3]));
    const size_t slot = ggml_hash_find_or_insert(&set, t[3]);
    CHECK(ggml_hash_contains(&set, t[3]) && set.keys[slot] == t[3]);

    // full: a set of 2 slots holding 2 keys finds no room for a third
    struct ggml_hash_set tiny = ggml_hash_set_new(2);
    CHECK(tiny.size == 2);
    ggml_hash_insert(&tiny, t[0]);
    ggml_hash_insert(&tiny, t[1]);
    CHECK(ggml_hash_find(&tiny, t[2]) == GGML_HASHSET_FULL && !ggml_hash_contains(&tiny, t[2]));
    ggml_hash_set_free(&tiny);
    ggml_hash_set_free(&set);
    ggml_free(ctx);
}

static void log_child(void) {
    GGML_LOG_INFO("info-hidden\n");
    GGML_LOG_DEBUG("debug-hidden\n");
    ggml_log_internal(GGML_LOG_LEVEL_CONT, "cont-hidden\n");
    GGML_LOG_WARN("warn-shown %d\n", 1);
    ggml_log_internal(GGML_LOG_LEVEL_CONT, "cont-shown\n");
    GGML_LOG_ERROR("error-shown\n");
    ggml_log_set_verbose(true);
    GGML_LOG_INFO("info-verbose\n");
}

static void abort_child(void) {
    GGML_ABORT("custom failure %d", 42);
}

static void test_logging_and_abort(void) {
    char err[1024];
    const int status = child_run(log_child, err, sizeof(err));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(strstr(err, "hidden") == NULL);
    CHECK(strstr(err, "warn-shown 1\n") != NULL && strstr(err, "cont-shown") != NULL);
    CHECK(strstr(err, "error-shown") != NULL && strstr(err, "info-verbose") != NULL);
    check_aborts(abort_child, "test-ggml.c:", "GGML_ABORT location");
    check_aborts(abort_child, "custom failure 42", "GGML_ABORT message");
}

//
// main
//

int main(void) {
    struct { const char * name; void (*fn)(void); } cases[] = {
        { "tables_match_upstream",      test_tables_match_upstream },
        { "op_names",                   test_op_names },
        { "nbytes_and_strides",         test_nbytes_and_strides },
        { "pool_accounting",            test_pool_accounting },
        { "pool_overflow_aborts",       test_pool_overflow_aborts },
        { "user_buffer_and_reset",      test_user_buffer_and_reset },
        { "tensor_walk_and_names",      test_tensor_walk_and_names },
        { "output_view_marks_source",   test_output_view_marks_source },
        { "views_point_at_root",        test_views_point_at_root },
        { "view_out_of_bounds_aborts",  test_view_out_of_bounds_aborts },
        { "cpy_and_set_rows_are_views", test_cpy_and_set_rows_are_views },
        { "gallocr_leaf_past_buffer",   test_gallocr_leaf_past_buffer },
        { "op_shapes",                  test_op_shapes },
        { "inplace_ops_are_views",      test_inplace_ops_are_views },
        { "shape_misuse_aborts",        test_shape_misuse_aborts },
        { "unknown_type_aborts",        test_unknown_type_aborts },
        { "graph_view_inplace",         test_graph_view_inplace },
        { "graph_multiple_contexts",    test_graph_multiple_contexts },
        { "graph_auto_names_and_order", test_graph_auto_names_and_order },
        { "graph_select_then_compute",  test_graph_select_then_compute },
        { "graph_revisit_opless",       test_graph_revisit_opless_sources },
        { "graph_revisit_slot_order",   test_graph_revisit_slot_order },
        { "graph_opless_cycle_ends",    test_graph_opless_cycle_ends },
        { "graph_deep_chain",           test_graph_deep_chain },
        { "graph_full_aborts",          test_graph_full_aborts },
        { "hash_set",                   test_hash_set },
        { "logging_and_abort",          test_logging_and_abort },
    };
    const int n = (int) (sizeof(cases) / sizeof(cases[0]));
    int failed_cases = 0;
    for (int i = 0; i < n; i++) {
        const int before = g_failures;
        cases[i].fn();
        if (g_failures != before) {
            fprintf(stderr, "test-ggml: case %s FAILED\n", cases[i].name);
            failed_cases++;
        }
    }
    if (failed_cases > 0) {
        printf("test-ggml: %d of %d cases FAILED\n", failed_cases, n);
        return 1;
    }
    printf("test-ggml: %d cases passed\n", n);
    return 0;
}
