// test-export.c: export -> read -> plan gives the plan ggml_gallocr made, and upstream's on golden graphs.
//
// Random graphs are built with the ggml API and placed by ggml_gallocr on
// recording fake backends; the same graph exported with galloc_export_graph,
// read back with galloc_document_read and planned with galloc_plan_graph must
// put every tensor in the same buffer type, chunk and offset. ggml_gallocr is
// built on galloc_plan_graph, so for these graphs (no golden twin) this checks
// the exporter and the reader against the ggml API path: self-consistency only.
// The golden graphs (tests/golden) give the truth: each is rebuilt as ggml
// objects, exported, read back and planned, and every tensor must land where
// upstream's golden plan puts it, every chunk with upstream's size.

#include "check.h"
#include "rng.h"
#include "fake-backend.h"
#include "galloc-document.h"
#include "galloc-export.h"
#include "files.h"
#include "galloc-document-ggml.h"
#include "galloc-planner.h"
#include "golden-compare.h"
#include "ggml-alloc.h"
#include "ggml.h"

#include <stdlib.h>
#include <string.h>


static struct ggml_tensor * random_node(struct ggml_context * ctx, struct ggml_tensor ** pool, int n_pool) {
    struct ggml_tensor * a = pool[rng_below(n_pool)];
    struct ggml_tensor * b = pool[rng_below(n_pool)];
    switch (rng_below(8)) {
        case 0:  return ggml_add(ctx, a, ggml_nelements(b) == ggml_nelements(a) ? b : a);
        case 1:  return ggml_scale(ctx, a, 2.0f);
        case 2:  return ggml_concat(ctx, ggml_cont(ctx, a), ggml_cont(ctx, b), 0);
        case 3:  return ggml_pad(ctx, ggml_cont(ctx, a), 1 + rng_below(4), 0, 0, 0);
        case 4:  return ggml_mean(ctx, a);
        case 5:  return ggml_view_1d(ctx, ggml_cont(ctx, a), 1, 0);
        case 6: {
            struct ggml_tensor * t = ggml_transpose(ctx, ggml_reshape_2d(ctx, ggml_cont(ctx, a), 1, ggml_nelements(a)));
            return ggml_reshape_1d(ctx, ggml_cont(ctx, t), ggml_nelements(a));
        }
        default: return ggml_silu(ctx, a);
    }
}

static void round_trip(int seed) {
    rng_seed((uint64_t) seed * 2654435761u + 3);
    struct ggml_init_params params = { 256 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx   = ggml_init(params);
    struct ggml_cgraph  * graph = ggml_new_graph(ctx);
    struct ggml_tensor  * pool[64];
    int n_pool = 0;
    for (int i = 0, n = 1 + rng_below(3); i < n; i++) {
        pool[n_pool] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1 + rng_below(40));
        ggml_set_input(pool[n_pool++]);
    }
    while (n_pool < 24 + rng_below(30)) {
        pool[n_pool] = random_node(ctx, pool, n_pool);
        n_pool++;
    }
    struct ggml_tensor * out = ggml_cont(ctx, pool[n_pool - 1]);
    ggml_set_output(out);
    ggml_build_forward_expand(graph, out);
    int i = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        ggml_format_name(t, "t%d", i++);
    }

    int n_types = 1 + rng_below(2);
    struct fake_backend fbs[2];
    ggml_backend_buffer_type_t bufts[2];
    for (int b = 0; b < n_types; b++) {
        fake_backend_init(&fbs[b], rng_below(2) ? SIZE_MAX : (size_t) (64 + rng_below(256)), (size_t) 1 << rng_below(7));
        bufts[b] = &fbs[b].buft;
    }
    int node_ids[2048], leaf_ids[2048];
    for (int k = 0; k < graph->n_nodes; k++) node_ids[k] = rng_below(n_types);
    for (int k = 0; k < graph->n_leafs; k++) leaf_ids[k] = rng_below(n_types);

    // export before placing: the document describes the graph as the allocator first sees it
    size_t len  = 0;
    char * json = galloc_export_graph(graph, "round-trip", bufts, n_types, node_ids, leaf_ids, &len);
    CHECK(json != NULL);

    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, n_types);
    CHECK(ggml_gallocr_reserve_n(galloc, graph, node_ids, leaf_ids));
    CHECK(ggml_gallocr_alloc_graph(galloc, graph));

    struct galloc_document doc;
    struct galloc_error err;
    if (!json || !galloc_document_read(json, len, &doc, &err)) {
        check_failures++;
        fprintf(stderr, "seed %d: exported document does not read back: %s\n", seed, json ? err.message : "no document");
    } else {
        struct galloc_plan plan;
        CHECK(galloc_plan_graph(&doc.graph, &plan, &err));
        for (int32_t t = 0; t < doc.n_tensors; t++) {
            struct ggml_tensor * tensor = ggml_get_tensor(ctx, doc.tensor_names[t]);
            const struct galloc_place * p = &plan.places[t];
            CHECK(tensor != NULL);
            if (!tensor || !tensor->buffer) {
                CHECK(p->buffer < 0);
                continue;
            }
            int b = p->buffer;
            CHECK(b >= 0 && b < n_types);
            if (b < 0 || b >= n_types) {
                continue;
            }
            int chunk = fake_backend_buffer_index(&fbs[b], tensor->buffer);
            if (chunk != p->chunk || fake_backend_offset(tensor) != p->offset) {
                check_failures++;
                fprintf(stderr, "seed %d: %s: ggml_gallocr chunk %d offset %zu, document plan chunk %d offset %llu\n", seed,
                        tensor->name, chunk, fake_backend_offset(tensor), p->chunk, (unsigned long long) p->offset);
            }
        }
        for (int b = 0; b < n_types; b++) {
            CHECK_EQ_U64(plan.buffers[b].size, ggml_gallocr_get_buffer_size(galloc, b));
        }
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    free(json);
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

// ggml_cast's result lists itself as src[1]: real graphs carry it, documents must take it
static void test_cast_round_trip(void) {
    struct ggml_init_params params = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx   = ggml_init(params);
    struct ggml_cgraph  * graph = ggml_new_graph(ctx);
    struct ggml_tensor  * x     = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_input(x);
    struct ggml_tensor * h   = ggml_cast(ctx, ggml_scale(ctx, x, 2.0f), GGML_TYPE_F16);
    struct ggml_tensor * out = ggml_cast(ctx, ggml_sqr(ctx, ggml_cast(ctx, h, GGML_TYPE_F32)), GGML_TYPE_F32);
    ggml_set_output(out);
    ggml_build_forward_expand(graph, out);
    CHECK(h->src[1] == h);

    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    ggml_backend_buffer_type_t buft = &fb.buft;
    size_t len  = 0;
    char * json = galloc_export_graph(graph, "cast", &buft, 1, NULL, NULL, &len);
    ggml_gallocr_t galloc = ggml_gallocr_new(buft);
    CHECK(ggml_gallocr_alloc_graph(galloc, graph));

    struct galloc_document doc;
    struct galloc_error err;
    bool read = json && galloc_document_read(json, len, &doc, &err);
    if (!read) {
        check_failures++;
        fprintf(stderr, "cast graph does not read back: %s\n", json ? err.message : "no document");
    } else {
        struct galloc_plan plan;
        CHECK(galloc_plan_graph(&doc.graph, &plan, &err));
        for (int i = 0; i < graph->n_nodes; i++) {
            const struct galloc_place * p = &plan.places[doc.nodes[i]];
            struct ggml_tensor * t = graph->nodes[i];
            CHECK(p->chunk == fake_backend_buffer_index(&fb, t->buffer));
            CHECK_EQ_U64(p->offset, fake_backend_offset(t));
        }
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    free(json);
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
}

// a UNARY or GLU tensor's document says which unary op or gated linear unit it computes
static void test_sub_ops_exported(void) {
    struct ggml_init_params params = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx   = ggml_init(params);
    struct ggml_cgraph  * graph = ggml_new_graph(ctx);
    struct ggml_tensor  * x     = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_input(x);
    struct ggml_tensor * out = ggml_gelu(ctx, ggml_swiglu(ctx, ggml_silu(ctx, x)));
    ggml_set_output(out);
    ggml_build_forward_expand(graph, out);

    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    ggml_backend_buffer_type_t buft = &fb.buft;
    size_t len  = 0;
    char * json = galloc_export_graph(graph, "sub-ops", &buft, 1, NULL, NULL, &len);
    CHECK(json != NULL);
    if (json) {
        CHECK(strstr(json, "\"op\": \"UNARY\", \"unary_op\": \"SILU\"") != NULL);
        CHECK(strstr(json, "\"op\": \"GLU\", \"glu_op\": \"SWIGLU\"") != NULL);
        CHECK(strstr(json, "\"op\": \"UNARY\", \"unary_op\": \"GELU\"") != NULL);
        struct galloc_document doc;
        struct galloc_error err;
        bool read = galloc_document_read(json, len, &doc, &err);
        CHECK(read);
        if (read) {
            CHECK(doc.tensor_sub_op[doc.nodes[0]] == GGML_UNARY_OP_SILU && doc.tensor_sub_op[doc.nodes[1]] == GGML_GLU_OP_SWIGLU &&
                  doc.tensor_sub_op[doc.nodes[2]] == GGML_UNARY_OP_GELU);
            galloc_document_free(&doc);
        }
    }
    free(json);
    ggml_free(ctx);
}

static void test_export_round_trips(void) {
    for (int seed = 0; seed < 500; seed++) {
        round_trip(seed);
    }
    printf("export: 500 random graphs: the exported document plans as ggml_gallocr placed them (self-consistency: no golden twin)\n");
}

// golden graph name rebuilt as ggml objects, exported, read, planned: upstream's plan? (the differences)
static int golden_export_differences(const char * name) {
    size_t len  = 0;
    char * text = golden_read(name, "graph", &len);
    struct galloc_error         err;
    struct galloc_document      doc, exported;
    struct galloc_plan_document golden;
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.plan.json", GOLDEN_DIR, name);
    if (!text || !galloc_document_read(text, len, &doc, &err)) {
        free(text);
        return 1;
    }
    free(text);
    int differ = 1;
    struct galloc_ggml_graph g;
    if (golden_plan_read(path, &golden)) {
        if (galloc_document_to_ggml(&doc, &g, &err)) {
            char * json = galloc_export_graph(g.graph, name, g.bufts, g.n_bufts, g.node_buffer_ids, g.leaf_buffer_ids, &len);
            int32_t               n     = 0;
            struct ggml_tensor ** order = galloc_export_tensor_order(g.graph, &n);
            struct galloc_plan    plan;
            if (json && order && galloc_document_read(json, len, &exported, &err)) {
                if (galloc_plan_graph(&exported.graph, &plan, &err)) {
                    differ = 0;
                    // exported index i is ggml tensor order[i], which is golden index j
                    for (int32_t i = 0; i < n; i++) {
                        int32_t j = 0;
                        while (j < doc.n_tensors && g.tensors[j] != order[i]) {
                            j++;
                        }
                        const struct galloc_place * p = &plan.places[i];
                        const struct galloc_plan_document_tensor * want = j < doc.n_tensors ? &golden.tensors[j] : NULL;
                        bool same = want && (want->buffer < 0 ? p->buffer < 0
                                                              : p->buffer == want->buffer && p->chunk == want->chunk && p->offset == want->offset);
                        if (!same && differ++ < 3) {
                            fprintf(stderr, "  %s: exported tensors[%d] (%s) planned at buffer %d chunk %d offset %llu, golden differs\n", name, i,
                                    order[i]->name, p->buffer, p->chunk, (unsigned long long) p->offset);
                        }
                    }
                    for (int b = 0; b < golden.n_buffers && b < plan.n_buffer_types; b++) {
                        bool chunks = plan.buffers[b].n_chunks == golden.buffers[b].n_chunks;
                        for (int c = 0; chunks && c < golden.buffers[b].n_chunks; c++) {
                            chunks = plan.buffers[b].chunk_sizes[c] == golden.buffers[b].chunk_sizes[c];
                        }
                        differ += !chunks;
                    }
                    galloc_plan_free(&plan);
                }
                galloc_document_free(&exported);
            }
            free(order);
            free(json);
            galloc_ggml_graph_free(&g);
        }
        galloc_plan_document_free(&golden);
    }
    galloc_document_free(&doc);
    return differ;
}

static void test_golden_graphs_exported(void) {
    int     n     = 0;
    char ** names = golden_names(&n);
    CHECK(names != NULL && n == 58);
    int equal = 0;
    for (int i = 0; i < n; i++) {
        int differ = golden_export_differences(names[i]);
        CHECK(differ == 0);
        equal += differ == 0;
    }
    printf("export: %d/%d golden graphs rebuilt in ggml, exported and planned as upstream planned them\n", equal, n);
    golden_names_free(names);
}

int main(void) {
    RUN(test_export_round_trips);
    RUN(test_golden_graphs_exported);
    RUN(test_cast_round_trip);
    RUN(test_sub_ops_exported);
    return check_report("test-export");
}
