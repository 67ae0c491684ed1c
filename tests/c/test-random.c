// test-random.c: invariants of plans over thousands of seeded random graphs.
//
// Each graph mixes inputs, in-place ops, ops that never run in place, views
// of views, outputs and tensors allocated outside the allocator, spread over
// up to three buffer types with alignments 1..256 and small max sizes. After
// ggml_gallocr places it: every node is placed, no two live tensors share
// bytes, every chunk respects the max size unless it must not, and the
// planner's lifetimes agree with the placement.

#include "check.h"
#include "rng.h"
#include "fake-backend.h"
#include "galloc-planner.h"
#include "ggml-alloc.h"
#include "ggml.h"

#include <string.h>


#define MAX_TENSORS 48

struct random_graph {
    struct ggml_context * ctx;
    struct ggml_context * ext_ctx; // tensors allocated outside the graph allocator
    struct ggml_cgraph  * graph;
    struct ggml_tensor  * pool[MAX_TENSORS]; // candidates for sources
    int                   n_pool;
};

static struct ggml_tensor * pick(struct random_graph * rg) {
    return rg->pool[rng_below(rg->n_pool)];
}

// a random op over existing tensors; all results are f32 vectors or views of them
static struct ggml_tensor * random_op(struct random_graph * rg) {
    struct ggml_context * ctx = rg->ctx;
    struct ggml_tensor  * a   = pick(rg);
    switch (rng_below(10)) {
        case 0: {
            struct ggml_tensor * b = pick(rg);
            return ggml_nelements(b) == ggml_nelements(a) || ggml_nelements(b) == 1 ? ggml_add(ctx, a, b) : ggml_add(ctx, a, a);
        }
        case 1: return ggml_mul(ctx, a, a);
        case 2: return ggml_scale(ctx, a, 0.5f);
        case 3: return ggml_pad(ctx, ggml_cont(ctx, a), rng_below(8), 0, 0, 0);
        case 4: return ggml_mean(ctx, a);
        case 5: return ggml_concat(ctx, ggml_cont(ctx, a), ggml_cont(ctx, pick(rg)), 0);
        case 6: {
            int64_t n = ggml_nelements(a);
            int64_t k = 1 + rng_below((int) n);
            return ggml_view_1d(ctx, ggml_cont(ctx, a), k, (size_t) (n - k) * 4);
        }
        case 7: return ggml_reshape_1d(ctx, ggml_cont(ctx, a), ggml_nelements(a));
        case 8: return ggml_silu(ctx, a);
        default: return ggml_cont(ctx, a);
    }
}

static void build_random_graph(struct random_graph * rg) {
    struct ggml_init_params params = { 512 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    rg->ctx     = ggml_init(params);
    rg->ext_ctx = ggml_init(params);
    rg->graph   = ggml_new_graph(rg->ctx);
    rg->n_pool  = 0;

    int n_inputs = 1 + rng_below(4);
    for (int i = 0; i < n_inputs; i++) {
        struct ggml_tensor * t = ggml_new_tensor_1d(rng_below(4) == 0 ? rg->ext_ctx : rg->ctx, GGML_TYPE_F32, 1 + rng_below(64));
        if (rng_below(2)) {
            ggml_set_input(t);
        }
        rg->pool[rg->n_pool++] = t;
    }
    int n_ops = 2 + rng_below(MAX_TENSORS - 8);
    struct ggml_tensor * last = NULL;
    for (int i = 0; i < n_ops && rg->n_pool < MAX_TENSORS; i++) {
        last = random_op(rg);
        if (last->view_src) {
            // upstream frees the root of a view that is an output once the view is consumed:
            // outputs here are computed tensors, as in real graphs
            last = rng_below(2) ? ggml_cont(rg->ctx, last) : last;
        }
        if (rng_below(12) == 0 && !last->view_src) {
            ggml_set_output(last);
            ggml_build_forward_expand(rg->graph, last);
        }
        rg->pool[rg->n_pool++] = last;
    }
    if (last->view_src) {
        last = ggml_cont(rg->ctx, last);
    }
    ggml_set_output(last);
    ggml_build_forward_expand(rg->graph, last);
}

// per chunk buffer: no larger than max size, unless one tensor alone needs more or it is the last possible chunk
static void check_chunk_sizes(const struct fake_backend * fb, struct ggml_cgraph * graph) {
    for (int c = 0; c < fb->n_buffers; c++) {
        size_t size = ggml_backend_buffer_get_size(fb->buffers[c]);
        if (size <= fb->max_size || c == GALLOC_MAX_CHUNKS - 1) {
            continue;
        }
        size_t largest = 0;
        for (int i = 0; i < graph->n_nodes; i++) {
            struct ggml_tensor * t = graph->nodes[i];
            if (t->buffer == fb->buffers[c] && !t->view_src) {
                size_t need = (ggml_nbytes(t) + fb->alignment - 1) & ~(fb->alignment - 1);
                largest = need > largest ? need : largest;
            }
        }
        for (int i = 0; i < graph->n_leafs; i++) {
            struct ggml_tensor * t = graph->leafs[i];
            if (t->buffer == fb->buffers[c]) {
                size_t need = (ggml_nbytes(t) + fb->alignment - 1) & ~(fb->alignment - 1);
                largest = need > largest ? need : largest;
            }
        }
        if (size > largest) {
            check_failures++;
            fprintf(stderr, "chunk %d is %zu bytes, over the max size %zu though its largest tensor needs %zu\n", c, size, fb->max_size, largest);
        }
    }
}

static void test_random_graphs(void) {
    const int n_graphs = 3000;
    for (int seed = 0; seed < n_graphs; seed++) {
        rng_seed((uint64_t) seed * 7919 + 1);
        struct random_graph rg;
        build_random_graph(&rg);

        int n_types = 1 + rng_below(3);
        struct fake_backend fbs[3];
        ggml_backend_buffer_type_t bufts[3];
        for (int b = 0; b < n_types; b++) {
            size_t alignment = (size_t) 1 << rng_below(9); // 1..256
            size_t max_size  = rng_below(3) == 0 ? SIZE_MAX : (size_t) (16 + rng_below(512));
            fake_backend_init(&fbs[b], max_size, alignment);
            bufts[b] = &fbs[b].buft;
        }
        struct fake_backend ext;
        fake_backend_init(&ext, SIZE_MAX, 32);
        ggml_backend_buffer_t ext_buf = ggml_backend_alloc_ctx_tensors_from_buft(rg.ext_ctx, &ext.buft);

        int node_ids[2048], leaf_ids[2048];
        for (int i = 0; i < rg.graph->n_nodes; i++) {
            node_ids[i] = rng_below(n_types);
        }
        for (int i = 0; i < rg.graph->n_leafs; i++) {
            leaf_ids[i] = rng_below(n_types);
        }
        ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, n_types);
        int before = check_failures;
        CHECK(ggml_gallocr_reserve_n(galloc, rg.graph, node_ids, leaf_ids));
        CHECK(ggml_gallocr_alloc_graph(galloc, rg.graph));
        check_all_placed(rg.graph);
        check_no_overlap(rg.graph);
        for (int b = 0; b < n_types; b++) {
            check_chunk_sizes(&fbs[b], rg.graph);
            CHECK_EQ_U64(ggml_gallocr_get_buffer_size(galloc, b), fake_backend_allocated_total(&fbs[b]));
        }
        if (check_failures != before) {
            fprintf(stderr, "  in random graph seed %d (%d nodes, %d buffer types)\n", seed, rg.graph->n_nodes, n_types);
        }
        ggml_gallocr_free(galloc);
        ggml_backend_buffer_free(ext_buf);
        ggml_free(rg.ext_ctx);
        ggml_free(rg.ctx);
    }
}

// planner level: any two tensors holding bytes still to be read at a common step use disjoint bytes
// (check_plan_no_overlap: its own lifetimes and in-place rule, leafs included)
static void test_random_plan_lifetimes(void) {
    for (int seed = 0; seed < 2000; seed++) {
        rng_seed((uint64_t) seed * 104729 + 7);
        int n = 2 + rng_below(60);
        struct galloc_tensor tensors[64];
        int32_t nodes[64], leafs[64], node_ids[64], leaf_ids[64];
        int n_nodes = 0, n_leafs = 0;
        memset(tensors, 0, sizeof(tensors));
        for (int i = 0; i < n; i++) {
            struct galloc_tensor * t = &tensors[i];
            t->type = GGML_TYPE_F32;
            t->ne[0] = 1 + rng_below(32);
            t->ne[1] = t->ne[2] = t->ne[3] = 1;
            t->nb[0] = 4;
            for (int d = 1; d < 4; d++) t->nb[d] = t->nb[d - 1] * (uint64_t) t->ne[d - 1];
            t->nbytes = t->alloc_size = (uint64_t) t->ne[0] * 4 + (uint64_t) rng_below(3) * 4;
            for (int s = 0; s < GGML_MAX_SRC; s++) t->src[s] = -1;
            t->view_src = -1;
            if (i < 2 || rng_below(6) == 0) {
                t->op = GGML_OP_NONE;
                t->flags = rng_below(2) ? GGML_TENSOR_FLAG_INPUT : 0;
                leaf_ids[n_leafs] = 0;
                leafs[n_leafs++] = i;
                continue;
            }
            int kind = rng_below(4);
            t->op = kind == 0 ? GGML_OP_ADD : kind == 1 ? GGML_OP_SCALE : kind == 2 ? GGML_OP_CONCAT : GGML_OP_VIEW;
            t->src[0] = rng_below(i);
            if (kind == 0 || kind == 2) t->src[1] = rng_below(i);
            if (kind == 0) { // same layout as its first source so it may run in place
                const struct galloc_tensor * a = &tensors[t->src[0]];
                memcpy(t->ne, a->ne, sizeof(t->ne));
                memcpy(t->nb, a->nb, sizeof(t->nb));
                t->nbytes = a->nbytes;
                t->alloc_size = a->alloc_size;
            }
            if (kind == 3) {
                int32_t root = tensors[t->src[0]].view_src >= 0 ? tensors[t->src[0]].view_src : t->src[0];
                t->view_src = root;
                t->nbytes = t->alloc_size = 4;
                t->view_offs = (tensors[root].nbytes / 4 - 1) * 4;
            }
            t->flags = GGML_TENSOR_FLAG_COMPUTE | (rng_below(10) == 0 ? GGML_TENSOR_FLAG_OUTPUT : 0);
            node_ids[n_nodes] = rng_below(2);
            nodes[n_nodes++] = i;
        }
        struct galloc_buffer_type types[2] = {
            { (uint64_t) 1 << rng_below(9), rng_below(2) ? GALLOC_NO_MAX_SIZE : (uint64_t) (32 + rng_below(256)), 0 },
            { (uint64_t) 1 << rng_below(9), (uint64_t) (8 + rng_below(128)), 1 },
        };
        struct galloc_graph g = { n, tensors, n_nodes, nodes, node_ids, n_leafs, leafs, leaf_ids, 2, types, NULL, NULL, 0 };
        struct galloc_plan plan;
        struct galloc_error err;
        if (!galloc_plan_graph(&g, &plan, &err)) {
            check_failures++;
            fprintf(stderr, "seed %d: %s\n", seed, err.message);
            continue;
        }
        for (int i = 0; i < n; i++) {
            const struct galloc_place * a = &plan.places[i];
            if (a->buffer < 0 || a->how == GALLOC_HOW_VIEW) continue;
            CHECK(a->offset + a->size <= plan.buffers[types[a->buffer].allocator].chunk_sizes[a->chunk]);
        }
        // lifetimes derived from the graph by the checker itself, not the plan's first/last steps
        int overlaps = check_plan_no_overlap(&g, &plan);
        if (overlaps) {
            check_failures += overlaps;
            fprintf(stderr, "seed %d: %d pairs of tensors hold overlapping bytes together\n", seed, overlaps);
        }
        galloc_plan_free(&plan);
    }
}

int main(void) {
    RUN(test_random_graphs);
    RUN(test_random_plan_lifetimes);
    return check_report("test-random");
}
