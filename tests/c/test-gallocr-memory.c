// test-gallocr-memory.c: the graph allocator and the planner reuse their memory across reserves.
//
// The program is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free (see
// the Makefile), so every call the library makes to them goes through the counting wrappers
// below. The cases check what issue 16 asks: reserving the same graph again allocates and
// frees nothing, nor does the per-token alloc_graph; a fresh allocator takes its per-reserve
// arrays in one block (as many allocations for a graph of 20,000 nodes as for one of 100), and
// a smaller graph after a larger one reuses the larger block. Plans themselves are checked
// against upstream's elsewhere; here they are only checked placed and free of overlaps.

#include "check.h"
#include "fake-backend.h"
#include "galloc-planner.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

//
// counting wrappers (the linker sends the library's calls here)
//

void * __real_malloc(size_t size);
void * __real_calloc(size_t n, size_t size);
void * __real_realloc(void * p, size_t size);
void   __real_free(void * p);
void * __wrap_malloc(size_t size);
void * __wrap_calloc(size_t n, size_t size);
void * __wrap_realloc(void * p, size_t size);
void   __wrap_free(void * p);

static bool counting;
static long n_allocs; // malloc, calloc and realloc calls while counting
static long n_frees;  // free calls with a block while counting

void * __wrap_malloc(size_t size) {
    n_allocs += counting;
    return __real_malloc(size);
}

void * __wrap_calloc(size_t n, size_t size) {
    n_allocs += counting;
    return __real_calloc(n, size);
}

void * __wrap_realloc(void * p, size_t size) {
    n_allocs += counting;
    return __real_realloc(p, size);
}

void __wrap_free(void * p) {
    n_frees += counting && p != NULL;
    __real_free(p);
}

static void count_begin(void) {
    n_allocs = 0;
    n_frees  = 0;
    counting = true;
}

static void count_end(void) {
    counting = false;
}

// the wrappers are in place: a malloc made by the library is seen (a failing link flag would
// otherwise let every case below pass)
static void test_wrappers_count_the_library(void) {
    count_begin();
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    ggml_gallocr_t galloc = ggml_gallocr_new(&fb.buft);
    ggml_gallocr_free(galloc);
    count_end();
    CHECK(n_allocs >= 1);
    CHECK(n_frees == n_allocs);
}

//
// graphs
//

// a ladder of n element-wise nodes over inputs of several sizes, with in-place ops, views
// and a few outputs: each node consumes the last one or two, so few blocks are free at once
static struct ggml_cgraph * build_ladder(struct ggml_context ** ctx, int n) {
    struct ggml_init_params params = { (size_t) (n + 16) * ggml_tensor_overhead() + ggml_graph_overhead_custom((size_t) n + 16, false), NULL, true };
    *ctx = ggml_init(params);
    struct ggml_cgraph * graph = ggml_new_graph_custom(*ctx, (size_t) n + 16, false);
    struct ggml_tensor * a = ggml_new_tensor_1d(*ctx, GGML_TYPE_F32, 1024);
    struct ggml_tensor * b = ggml_new_tensor_1d(*ctx, GGML_TYPE_F32, 1024);
    ggml_set_input(a);
    ggml_set_input(b);
    while (ggml_graph_n_nodes(graph) < n) {
        struct ggml_tensor * c;
        switch (ggml_graph_n_nodes(graph) % 5) {
            case 0:  c = ggml_add(*ctx, a, b); break;
            case 1:  c = ggml_scale(*ctx, a, 0.5f); break;
            case 2:  c = ggml_view_1d(*ctx, a, 512, 0); c = ggml_add(*ctx, ggml_cont(*ctx, c), ggml_view_1d(*ctx, b, 512, 0)); break;
            case 3:  c = ggml_concat(*ctx, a, a, 0); break;
            default: c = ggml_silu(*ctx, ggml_view_1d(*ctx, a, 1024, 0)); break;
        }
        if (c->ne[0] < 1024) {
            c = ggml_concat(*ctx, c, c, 0);
        } else if (c->ne[0] > 1024) {
            c = ggml_scale(*ctx, ggml_view_1d(*ctx, c, 1024, 0), 2.0f);
        }
        if (ggml_graph_n_nodes(graph) % 97 == 0) {
            ggml_set_output(c);
        }
        ggml_build_forward_expand(graph, c);
        b = a;
        a = c;
    }
    return graph;
}

// forget the placements, as a graph built anew has none
static void forget_placements(struct ggml_context * ctx) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        t->data   = NULL;
        t->buffer = NULL;
    }
}

// allocations of a fresh allocator's first reserve of graph (the allocator is then freed)
static long first_reserve_allocs(struct ggml_cgraph * graph, struct fake_backend * fb) {
    ggml_gallocr_t galloc = ggml_gallocr_new(&fb->buft);
    count_begin();
    CHECK(ggml_gallocr_reserve(galloc, graph));
    count_end();
    ggml_gallocr_free(galloc);
    return n_allocs;
}

//
// cases
//

static void test_same_graph_again_allocates_nothing(void) {
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    struct ggml_context * ctx;
    struct ggml_cgraph  * graph  = build_ladder(&ctx, 3000);
    ggml_gallocr_t        galloc = ggml_gallocr_new(&fb.buft);
    CHECK(ggml_gallocr_reserve(galloc, graph));

    count_begin();
    CHECK(ggml_gallocr_reserve(galloc, graph));
    count_end();
    CHECK_EQ_U64(n_allocs, 0);
    CHECK_EQ_U64(n_frees, 0);

    // the per-token path: alloc_graph on the allocator reserved for this graph
    for (int run = 0; run < 2; run++) {
        forget_placements(ctx);
        count_begin();
        CHECK(ggml_gallocr_alloc_graph(galloc, graph));
        count_end();
        CHECK_EQ_U64(n_allocs, 0);
        CHECK_EQ_U64(n_frees, 0);
        check_all_placed(graph);
        check_no_overlap(graph);
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

// one block for the per-reserve arrays: a graph 200 times larger needs no more allocations
static void test_fresh_allocator_allocations_do_not_grow_with_the_graph(void) {
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    struct ggml_context * small_ctx, * large_ctx;
    struct ggml_cgraph  * small = build_ladder(&small_ctx, 100);
    struct ggml_cgraph  * large = build_ladder(&large_ctx, 20000);
    long n_small = first_reserve_allocs(small, &fb);
    long n_large = first_reserve_allocs(large, &fb);
    CHECK(n_small >= 1);
    CHECK_EQ_U64(n_large, n_small);
    ggml_free(small_ctx);
    ggml_free(large_ctx);
}

// the block never shrinks: a smaller graph after a larger one, and the larger one again, reuse it
static void test_smaller_graph_reuses_the_block(void) {
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    struct ggml_context * small_ctx, * large_ctx;
    struct ggml_cgraph  * small  = build_ladder(&small_ctx, 200);
    struct ggml_cgraph  * large  = build_ladder(&large_ctx, 5000);
    ggml_gallocr_t        galloc = ggml_gallocr_new(&fb.buft);
    CHECK(ggml_gallocr_reserve(galloc, large));
    for (int round = 0; round < 2; round++) {
        count_begin();
        CHECK(ggml_gallocr_reserve(galloc, small));
        CHECK(ggml_gallocr_reserve(galloc, large));
        count_end();
        CHECK_EQ_U64(n_allocs, 0);
        CHECK_EQ_U64(n_frees, 0);
    }
    // and a larger graph after a smaller one does allocate (the check above can fail)
    ggml_gallocr_t fresh = ggml_gallocr_new(&fb.buft);
    CHECK(ggml_gallocr_reserve(fresh, small));
    count_begin();
    CHECK(ggml_gallocr_reserve(fresh, large));
    count_end();
    CHECK(n_allocs >= 1);
    ggml_gallocr_free(fresh);
    ggml_gallocr_free(galloc);
    ggml_free(small_ctx);
    ggml_free(large_ctx);
}

// a graph whose leafs are left out of its leaf list (as upstream's ggml_graph_view leaves them
// out of a range of nodes) has sources that are neither its nodes nor its leafs, more tensors
// than the allocator first makes room for: it is indexed again with more room, placed, and
// reserved again without allocating
static void test_sources_outside_the_graph(void) {
    enum { N = 600 };
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    struct ggml_init_params params = { (2 * N + 16) * ggml_tensor_overhead() + ggml_graph_overhead_custom(2 * N, false), NULL, true };
    struct ggml_context   * ctx    = ggml_init(params);
    struct ggml_cgraph    * graph  = ggml_new_graph_custom(ctx, 2 * N, false);
    struct ggml_tensor    * sum    = NULL;
    for (int i = 0; i < N; i++) {
        struct ggml_tensor * in = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64 + 32 * ((i / 2) % 5));
        ggml_set_input(in);
        sum = i % 2 ? ggml_add(ctx, sum, in) : ggml_scale(ctx, in, 1.0f);
        ggml_build_forward_expand(graph, sum);
    }
    CHECK(graph->n_leafs == N);
    // the places with the leafs listed (inputs are allocated first either way, in the same order)
    static size_t expected[2 * N];
    int           n_expected = 0;
    ggml_gallocr_t full = ggml_gallocr_new(&fb.buft);
    CHECK(ggml_gallocr_alloc_graph(full, graph));
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t && n_expected < 2 * N; t = ggml_get_next_tensor(ctx, t)) {
        expected[n_expected++] = fake_backend_offset(t);
    }
    ggml_gallocr_free(full);
    forget_placements(ctx);

    struct ggml_cgraph view = *graph;
    view.n_leafs = 0;
    ggml_gallocr_t galloc = ggml_gallocr_new(&fb.buft);
    CHECK(ggml_gallocr_alloc_graph(galloc, &view));
    int n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t && n < n_expected; t = ggml_get_next_tensor(ctx, t), n++) {
        CHECK(t->data != NULL);
        if (t->data != NULL && fake_backend_offset(t) != expected[n]) {
            CHECK_EQ_U64(fake_backend_offset(t), expected[n]);
            break;
        }
    }
    CHECK(n == n_expected && n_expected == 2 * N); // every input and node
    // (no check_no_overlap here: its rule keeps leafs alive to the end, and these inputs are freed
    // after their last use as upstream frees them; the places equal the listed-leaf plan's above)
    forget_placements(ctx);
    count_begin();
    CHECK(ggml_gallocr_reserve(galloc, &view));
    count_end();
    CHECK_EQ_U64(n_allocs, 0);
    CHECK_EQ_U64(n_frees, 0);
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

// the planner on its own (documents, the WASM module): planning the same graph again with
// galloc_plan_graph_reuse allocates nothing
static void test_planner_reuse_allocates_nothing(void) {
    enum { N = 4000 };
    struct galloc_tensor * tensors = calloc(N, sizeof(*tensors));
    int32_t              * nodes   = calloc(N, sizeof(*nodes));
    for (int i = 0; i < N; i++) {
        struct galloc_tensor * t = &tensors[i];
        t->op       = i < 2 ? GGML_OP_NONE : (i % 3 ? GGML_OP_ADD : GGML_OP_MUL_MAT);
        t->flags    = i < 2 ? GGML_TENSOR_FLAG_INPUT : 0;
        t->view_src = -1;
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            t->src[s] = -1;
        }
        if (i >= 2) {
            t->src[0] = i - 1;
            t->src[1] = i - 2;
        }
        t->type = GGML_TYPE_F32;
        t->ne[0] = 256 + 64 * (i % 7);
        t->ne[1] = t->ne[2] = t->ne[3] = 1;
        t->nb[0] = 4;
        for (int d = 1; d < GGML_MAX_DIMS; d++) {
            t->nb[d] = t->nb[d - 1] * (uint64_t) t->ne[d - 1];
        }
        t->nbytes = t->alloc_size = t->nb[3];
        nodes[i] = i;
    }
    struct galloc_buffer_type bt    = { .alignment = 32, .max_size = GALLOC_NO_MAX_SIZE, .allocator = 0 };
    struct galloc_graph       graph = { .n_tensors = N, .tensors = tensors, .n_nodes = N - 2, .nodes = nodes + 2,
                                        .n_leafs = 2, .leafs = nodes, .n_buffer_types = 1, .buffer_types = &bt };
    for (int placement_only = 0; placement_only < 2; placement_only++) {
        graph.placement_only = placement_only;
        struct galloc_plan  plan = { 0 };
        struct galloc_error err;
        CHECK(galloc_plan_graph_reuse(&graph, &plan, &err));
        uint64_t size = plan.buffers[0].size;
        count_begin();
        CHECK(galloc_plan_graph_reuse(&graph, &plan, &err));
        count_end();
        CHECK_EQ_U64(n_allocs, 0);
        CHECK_EQ_U64(n_frees, 0);
        CHECK_EQ_U64(plan.buffers[0].size, size);
        CHECK(plan.n_tensors == N && plan.places[N - 1].buffer == 0);
        galloc_plan_free(&plan);
    }
    free(tensors);
    free(nodes);
}

int main(void) {
    RUN(test_wrappers_count_the_library);
    RUN(test_same_graph_again_allocates_nothing);
    RUN(test_fresh_allocator_allocations_do_not_grow_with_the_graph);
    RUN(test_smaller_graph_reuses_the_block);
    RUN(test_sources_outside_the_graph);
    RUN(test_planner_reuse_allocates_nothing);
    return check_report("test-gallocr-memory");
}
