// bench-plan.c: planning time of ggml_gallocr on llama presets, large random graphs and golden documents.
//
// "plan" = ggml_gallocr_reserve_n + ggml_gallocr_alloc_graph on a fresh allocator over
// virtual buffer types (no memory), graph construction excluded, as in
// ../shared/bench/upstream-timings.md. Prints a table (median, min, ns per node) and
// writes the numbers as JSON to the path given (default build/bench-api.json).
// glibc is told to keep freed memory (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD) so that each run
// measures planning, not the kernel handing the same pages back zeroed: without it the
// medians of the larger graphs about double on this machine (llama-70b-pp512: 0.87 ms).

#include "bench-util.h"
#include "galloc-document-ggml.h"
#include "galloc-document.h"
#include "galloc-llama.h"
#include "galloc-virtual.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp_double(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

struct result {
    char   name[64];
    int    n_nodes;
    int    runs;
    double median_ms, min_ms;
    size_t bytes;
};

// forget every placement ggml_gallocr made, so a fresh allocator plans the graph again
static void reset_graph(struct ggml_cgraph * gf, const bool * leaf_external) {
    for (int i = 0; i < gf->n_nodes; i++) {
        gf->nodes[i]->data   = NULL;
        gf->nodes[i]->buffer = NULL;
    }
    for (int i = 0; i < gf->n_leafs; i++) {
        if (!leaf_external[i]) {
            gf->leafs[i]->data   = NULL;
            gf->leafs[i]->buffer = NULL;
        }
    }
}

static struct result time_plan(const char * name, struct ggml_cgraph * gf, ggml_backend_buffer_type_t * bufts, int n_bufts,
                               const int * node_ids, const int * leaf_ids, int runs) {
    struct result r = { { 0 }, gf->n_nodes, runs, 0, 0, 0 };
    snprintf(r.name, sizeof(r.name), "%s", name);
    bool   * leaf_external = malloc((size_t) gf->n_leafs + 1);
    double * t             = malloc(sizeof(double) * (size_t) runs);
    if (!leaf_external || !t) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int i = 0; i < gf->n_leafs; i++) {
        leaf_external[i] = gf->leafs[i]->data != NULL || gf->leafs[i]->buffer != NULL;
    }
    for (int k = 0; k < runs; k++) {
        reset_graph(gf, leaf_external);
        ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, n_bufts);
        double t0 = now_ms();
        bool ok = ggml_gallocr_reserve_n(galloc, gf, node_ids, leaf_ids) && ggml_gallocr_alloc_graph(galloc, gf);
        t[k] = now_ms() - t0;
        if (!ok) {
            fprintf(stderr, "%s: planning failed\n", name);
            exit(1);
        }
        r.bytes = 0;
        for (int b = 0; b < n_bufts; b++) {
            r.bytes += ggml_gallocr_get_buffer_size(galloc, b);
        }
        ggml_gallocr_free(galloc);
    }
    qsort(t, (size_t) runs, sizeof(double), cmp_double);
    r.median_ms = t[runs / 2];
    r.min_ms    = t[0];
    free(t);
    free(leaf_external);
    return r;
}

static struct result bench_llama(const char * preset, int runs) {
    struct galloc_llama_params p;
    if (!galloc_llama_preset_params(preset, &p)) {
        fprintf(stderr, "unknown preset %s\n", preset);
        exit(1);
    }
    struct galloc_llama_graph * g = galloc_llama_build(&p);
    if (!g) {
        fprintf(stderr, "%s: build failed\n", preset);
        exit(1);
    }
    struct result r = time_plan(preset, g->graph, g->bufts, g->n_bufts, g->node_buffer_ids, g->leaf_buffer_ids, runs);
    galloc_llama_free(g);
    return r;
}

//
// random graphs: chains of element-wise ops, broadcasts, pads, concats and views over 1-D tensors
//

static uint64_t rng_state;

static uint32_t rng_next(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t) (rng_state >> 33);
}

static int rng_below(int n) {
    return (int) (rng_next() % (uint32_t) n);
}

static struct result bench_random(int n_nodes, uint64_t seed, int runs) {
    rng_state = seed;
    const size_t size = (size_t) n_nodes * 2 + 64;
    struct ggml_init_params ip = { (size_t) n_nodes * 3 * ggml_tensor_overhead() + ggml_graph_overhead_custom(size, false), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_cgraph  * gf  = ctx ? ggml_new_graph_custom(ctx, size, false) : NULL;
    ggml_backend_buffer_type_t buft = galloc_virtual_buft_new("dev0", 32, SIZE_MAX);
    const int cap = n_nodes * 2 + 64;
    struct ggml_tensor ** pool = malloc(sizeof(*pool) * (size_t) cap);
    if (!gf || !buft || !pool) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    // every op is expanded into the graph (results nobody reads die at once)
    int n = 0;
    while (gf->n_nodes < n_nodes && n + 1 < cap) {
        if (n < 4 || rng_below(32) == 0) {
            struct ggml_tensor * in = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16 + rng_below(4096));
            ggml_set_input(in);
            pool[n++] = in;
            continue;
        }
        // sources mostly recent, sometimes far back
        struct ggml_tensor * a = pool[n - 1 - rng_below(n < 16 ? n : 16)];
        struct ggml_tensor * b = pool[rng_below(8) == 0 ? rng_below(n) : n - 1 - rng_below(n < 64 ? n : 64)];
        struct ggml_tensor * t;
        switch (rng_below(6)) {
            case 0:  t = ggml_scale(ctx, a, 0.5f); break;
            case 1:  t = ggml_add(ctx, a, ggml_mean(ctx, b)); break;
            case 2:  t = a->ne[0] < 8192 ? ggml_pad(ctx, a, 1 + rng_below(512), 0, 0, 0) : ggml_scale(ctx, a, 2.0f); break;
            case 3:  t = a->ne[0] + b->ne[0] < 16384 ? ggml_concat(ctx, a, b, 0) : ggml_mul(ctx, a, ggml_mean(ctx, b)); break;
            case 4:  t = ggml_view_1d(ctx, a, a->ne[0] / 2 + 1, 0); break;
            default: t = ggml_silu(ctx, a); break;
        }
        if (rng_below(64) == 0) {
            ggml_set_output(t);
        }
        pool[n++] = t;
        ggml_build_forward_expand(gf, t);
    }
    char name[64];
    snprintf(name, sizeof(name), "random-%dk", n_nodes / 1000);
    struct result r = time_plan(name, gf, &buft, 1, NULL, NULL, runs);
    free(pool);
    galloc_virtual_buft_free(buft);
    ggml_free(ctx);
    return r;
}

// a golden graph document rebuilt as a ggml graph: the graphs of ../shared/bench/upstream-timings.md
static struct result bench_golden(const char * name, int runs) {
    char path[256];
    snprintf(path, sizeof(path), "tests/golden/%s.graph.json", name);
    size_t len  = 0;
    char * text = bench_read_file(path, &len);
    struct galloc_error err;
    struct galloc_document   doc;
    struct galloc_ggml_graph g;
    if (!text || !galloc_document_read(text, len, &doc, &err) || !galloc_document_to_ggml(&doc, &g, &err)) {
        fprintf(stderr, "%s: cannot load (%s)\n", path, text ? err.message : "unreadable");
        exit(1);
    }
    free(text);
    char label[64];
    snprintf(label, sizeof(label), "golden %s", name);
    struct result r = time_plan(label, g.graph, g.bufts, g.n_bufts, g.node_buffer_ids, g.leaf_buffer_ids, runs);
    galloc_ggml_graph_free(&g);
    galloc_document_free(&doc);
    return r;
}

int main(int argc, char ** argv) {
    bench_keep_freed_memory();
    const char * out_path = argc > 1 ? argv[1] : "build/bench-api.json";
    struct result res[32];
    int n = 0;
    res[n++] = bench_llama("llama-tiny", 301);
    res[n++] = bench_llama("llama-7b-pp512", 301);
    res[n++] = bench_llama("llama-7b-decode", 301);
    res[n++] = bench_llama("llama-70b-pp512", 101);
    res[n++] = bench_random(1000, 1, 301);
    res[n++] = bench_random(10000, 2, 51);
    res[n++] = bench_random(100000, 3, 11);
    res[n++] = bench_random(1000000, 4, 3);
    const char * golden[] = { "llama-7b-like", "llama-7b-like-2buft", "llama-7b-decode",
                              "rand-n10000-lowleaf-s0-a8", "rand-n10000-lowleaf-s1-a32", "rand-n10000-lowleaf-s3-a8",
                              "rand-n10000-s0-a8", "rand-n10000-s1-a32", "rand-n10000-s0-a8-chunked", "rand-n10000-s1-a32-chunked" };
    for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
        res[n++] = bench_golden(golden[i], strncmp(golden[i], "llama", 5) == 0 ? 301 : 101);
    }

    printf("%-38s %8s %6s %12s %12s %10s %14s\n", "graph", "nodes", "runs", "median (ms)", "min (ms)", "ns/node", "buffer bytes");
    for (int i = 0; i < n; i++) {
        printf("%-38s %8d %6d %12.3f %12.3f %10.0f %14zu\n", res[i].name, res[i].n_nodes, res[i].runs, res[i].median_ms,
               res[i].min_ms, res[i].median_ms * 1e6 / res[i].n_nodes, res[i].bytes);
    }

    FILE * f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", out_path);
        return 1;
    }
    fprintf(f, "{\n  \"what\": \"ggml_gallocr_reserve_n + ggml_gallocr_alloc_graph on a fresh allocator, construction excluded\",\n");
    fprintf(f, "  \"results\": [\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "    { \"graph\": \"%s\", \"nodes\": %d, \"runs\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f, \"ns_per_node\": %.1f, \"bytes\": %zu }%s\n",
                res[i].name, res[i].n_nodes, res[i].runs, res[i].median_ms, res[i].min_ms, res[i].median_ms * 1e6 / res[i].n_nodes,
                res[i].bytes, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
    printf("wrote %s\n", out_path);
    return 0;
}
