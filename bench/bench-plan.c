// bench-plan.c: planning time of ggml_gallocr on llama presets, large random graphs and golden documents.
//
// "plan" = ggml_gallocr_new_n + ggml_gallocr_reserve_n + ggml_gallocr_alloc_graph + ggml_gallocr_free
// over virtual buffer types (no memory), graph construction excluded, as in
// ../shared/bench/upstream-timings.md. Per graph: median, min and max time, minor page faults
// per plan (getrusage, after warm-up), and, under `valgrind --tool=callgrind --collect-atstart=no`,
// instructions of the planning calls only (callgrind's "Collected" / runs).
// By default glibc runs as it comes, as in a user's process; --tuned keeps freed memory
// (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD) so a run measures planning without the kernel
// handing the same pages back zeroed.
//
//   bench-plan [--tuned] [--only NAME] [--runs N] [OUT.json]

#include "bench-util.h"
#include "files.h"
#include "galloc-clock.h"
#include "rng.h" // the tests' seeded generator (tests/c/support/rng.c)
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
#include <sys/resource.h>
#include <time.h>

#if defined(__has_include)
#    if __has_include(<valgrind/callgrind.h>)
#        include <valgrind/callgrind.h>
#    endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#    define CALLGRIND_TOGGLE_COLLECT
#endif

static int runs_override; // --runs N: every graph planned N times (0: each graph's default)

static int cmp_double(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

struct result {
    char   name[64];
    int    n_nodes;
    int    runs;
    double median_ms, min_ms, max_ms;
    double faults_per_plan; // minor page faults per measured plan
    size_t bytes;
};

static long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

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

// one plan on a fresh allocator; false when ggml_gallocr fails
static bool plan_once(struct ggml_cgraph * gf, ggml_backend_buffer_type_t * bufts, int n_bufts, const int * node_ids,
                      const int * leaf_ids, size_t * bytes) {
    CALLGRIND_TOGGLE_COLLECT;
    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, n_bufts);
    bool ok = galloc && ggml_gallocr_reserve_n(galloc, gf, node_ids, leaf_ids) && ggml_gallocr_alloc_graph(galloc, gf);
    CALLGRIND_TOGGLE_COLLECT;
    *bytes = 0;
    for (int b = 0; ok && b < n_bufts; b++) {
        *bytes += ggml_gallocr_get_buffer_size(galloc, b);
    }
    CALLGRIND_TOGGLE_COLLECT;
    ggml_gallocr_free(galloc);
    CALLGRIND_TOGGLE_COLLECT;
    return ok;
}

static struct result time_plan(const char * name, struct ggml_cgraph * gf, ggml_backend_buffer_type_t * bufts, int n_bufts,
                               const int * node_ids, const int * leaf_ids, int runs) {
    runs = runs_override > 0 ? runs_override : runs;
    struct result r = { { 0 }, gf->n_nodes, runs, 0, 0, 0, 0, 0 };
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
    // warm-up (not measured, not counted by callgrind): caches, and glibc's heap settled
    int warm = runs_override > 0 ? 0 : runs / 3 + 3;
    for (int k = 0; k < warm; k++) {
        reset_graph(gf, leaf_external);
        CALLGRIND_TOGGLE_COLLECT; // plan_once toggles collection on and off again: keep warm-up out
        bool ok = plan_once(gf, bufts, n_bufts, node_ids, leaf_ids, &r.bytes);
        CALLGRIND_TOGGLE_COLLECT;
        if (!ok) {
            fprintf(stderr, "%s: planning failed\n", name);
            exit(1);
        }
    }
    long faults = 0;
    for (int k = 0; k < runs; k++) {
        reset_graph(gf, leaf_external);
        long   f0 = minor_faults();
        double t0 = galloc_now_ms();
        bool   ok = plan_once(gf, bufts, n_bufts, node_ids, leaf_ids, &r.bytes);
        t[k]      = galloc_now_ms() - t0;
        faults += minor_faults() - f0;
        if (!ok) {
            fprintf(stderr, "%s: planning failed\n", name);
            exit(1);
        }
    }
    qsort(t, (size_t) runs, sizeof(double), cmp_double);
    r.median_ms       = t[runs / 2];
    r.min_ms          = t[0];
    r.max_ms          = t[runs - 1];
    r.faults_per_plan = (double) faults / runs;
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

static struct result bench_random(int n_nodes, uint64_t seed, int runs) {
    rng_seed(seed);
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
    char * text = read_whole_file(path, &len);
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

// the graphs benchmarked, in order: kind, name (or preset / golden document), size, seed, default runs
enum bench_kind { BENCH_LLAMA, BENCH_RANDOM, BENCH_GOLDEN };
struct bench_case {
    enum bench_kind kind;
    const char *    name;
    int             n_nodes; // random graphs
    uint64_t        seed;
    int             runs;
};

static const struct bench_case bench_cases[] = {
    { BENCH_LLAMA, "llama-tiny", 0, 0, 301 },
    { BENCH_LLAMA, "llama-7b-pp512", 0, 0, 301 },
    { BENCH_LLAMA, "llama-7b-decode", 0, 0, 301 },
    { BENCH_LLAMA, "llama-70b-pp512", 0, 0, 101 },
    { BENCH_RANDOM, "random-1k", 1000, 1, 301 },
    { BENCH_RANDOM, "random-10k", 10000, 2, 51 },
    { BENCH_RANDOM, "random-100k", 100000, 3, 11 },
    { BENCH_RANDOM, "random-1000k", 1000000, 4, 3 },
    { BENCH_GOLDEN, "llama-7b-like", 0, 0, 301 },
    { BENCH_GOLDEN, "llama-7b-like-2buft", 0, 0, 301 },
    { BENCH_GOLDEN, "llama-7b-decode", 0, 0, 301 },
    { BENCH_GOLDEN, "rand-n10000-lowleaf-s0-a8", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-lowleaf-s1-a32", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-lowleaf-s3-a8", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-s0-a8", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-s1-a32", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-s0-a8-chunked", 0, 0, 101 },
    { BENCH_GOLDEN, "rand-n10000-s1-a32-chunked", 0, 0, 101 },
};
#define N_BENCH_CASES ((int) (sizeof(bench_cases) / sizeof(bench_cases[0])))

static const char * case_label(const struct bench_case * c, char * buf, size_t size) {
    if (c->kind == BENCH_GOLDEN) {
        snprintf(buf, size, "golden %s", c->name);
        return buf;
    }
    return c->name;
}

static struct result run_case(const struct bench_case * c) {
    switch (c->kind) {
        case BENCH_LLAMA:  return bench_llama(c->name, c->runs);
        case BENCH_RANDOM: return bench_random(c->n_nodes, c->seed, c->runs);
        case BENCH_GOLDEN: return bench_golden(c->name, c->runs);
    }
    abort();
}

int main(int argc, char ** argv) {
    const char * out_path = "build/bench-api.json";
    const char * only     = NULL;
    bool         tuned    = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tuned") == 0) {
            tuned = true;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs_override = atoi(argv[++i]);
        } else if (argv[i][0] != '-') {
            out_path = argv[i];
        } else {
            fprintf(stderr, "usage: bench-plan [--tuned] [--only NAME] [--runs N] [OUT.json]\n");
            return 2;
        }
    }
    if (tuned) {
        bench_keep_freed_memory();
    }
    struct result res[N_BENCH_CASES];
    int n = 0;
    for (int i = 0; i < N_BENCH_CASES; i++) {
        char label[96];
        if (only && strcmp(only, case_label(&bench_cases[i], label, sizeof(label))) != 0) {
            continue;
        }
        res[n++] = run_case(&bench_cases[i]);
    }
    if (n == 0) {
        fprintf(stderr, "bench-plan: no graph named %s\n", only ? only : "");
        return 2;
    }

    printf("glibc: %s\n", tuned ? "tuned (freed memory kept: M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = 1 GiB)" : "stock (as a user's process runs)");
    printf("%-38s %8s %6s %11s %10s %10s %9s %12s %14s\n", "graph", "nodes", "runs", "median (ms)", "min (ms)", "max (ms)", "ns/node",
           "faults/plan", "buffer bytes");
    for (int i = 0; i < n; i++) {
        printf("%-38s %8d %6d %11.3f %10.3f %10.3f %9.0f %12.1f %14zu\n", res[i].name, res[i].n_nodes, res[i].runs, res[i].median_ms,
               res[i].min_ms, res[i].max_ms, res[i].median_ms * 1e6 / res[i].n_nodes, res[i].faults_per_plan, res[i].bytes);
    }

    FILE * f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", out_path);
        return 1;
    }
    fprintf(f, "{\n  \"what\": \"ggml_gallocr new_n + reserve_n + alloc_graph + free, construction excluded\",\n");
    fprintf(f, "  \"glibc\": \"%s\",\n  \"results\": [\n", tuned ? "tuned" : "stock");
    for (int i = 0; i < n; i++) {
        fprintf(f,
                "    { \"graph\": \"%s\", \"nodes\": %d, \"runs\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, "
                "\"ns_per_node\": %.1f, \"faults_per_plan\": %.2f, \"bytes\": %zu }%s\n",
                res[i].name, res[i].n_nodes, res[i].runs, res[i].median_ms, res[i].min_ms, res[i].max_ms,
                res[i].median_ms * 1e6 / res[i].n_nodes, res[i].faults_per_plan, res[i].bytes, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
    printf("wrote %s\n", out_path);
    return 0;
}
