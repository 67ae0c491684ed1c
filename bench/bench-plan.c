// bench-plan.c: planning time of ggml_gallocr on the golden documents, rebuilt as ggml graphs.
//
// "plan" = ggml_gallocr_new_n + ggml_gallocr_reserve_n + ggml_gallocr_alloc_graph + ggml_gallocr_free
// over virtual buffer types (no memory), graph construction excluded, as in
// ../shared/bench/upstream-timings.md. Per graph: median, min and max time, minor page faults
// per plan (getrusage, after warm-up), and, under `valgrind --tool=callgrind --collect-atstart=no`,
// instructions of the planning calls only (callgrind's "Collected" / runs).
// By default glibc runs as it comes, as in a user's process; --tuned keeps freed memory
// (bench_keep_freed_memory) so a run measures planning without the kernel handing the same
// pages back zeroed.
//
//   bench-plan [--tuned] [--only NAME] [--runs N] [OUT.json]

#include "bench-util.h"
#include "files.h"
#include "galloc-clock.h"
#include "galloc-document-ggml.h"
#include "galloc-document.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int runs_override; // --runs N: every graph planned N times (0: each graph's default)

struct result {
    char   name[64];
    int    n_nodes;
    int    runs;
    double median_ms, min_ms, max_ms;
    double faults_per_plan; // minor page faults per measured plan
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
        long   f0 = bench_minor_faults();
        double t0 = galloc_now_ms();
        bool   ok = plan_once(gf, bufts, n_bufts, node_ids, leaf_ids, &r.bytes);
        t[k]      = galloc_now_ms() - t0;
        faults += bench_minor_faults() - f0;
        if (!ok) {
            fprintf(stderr, "%s: planning failed\n", name);
            exit(1);
        }
    }
    qsort(t, (size_t) runs, sizeof(double), bench_cmp_double);
    r.median_ms       = t[runs / 2];
    r.min_ms          = t[0];
    r.max_ms          = t[runs - 1];
    r.faults_per_plan = (double) faults / runs;
    free(t);
    free(leaf_external);
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

// the golden documents benchmarked, in order, and their default runs (the llama-style and random
// graphs of bench-graphs.c are bench-ggml-api's)
struct bench_case {
    const char * name;
    int          runs;
};

static const struct bench_case bench_cases[] = {
    { "llama-7b-like", 301 },
    { "llama-7b-like-2buft", 301 },
    { "llama-7b-decode", 301 },
    { "rand-n10000-lowleaf-s0-a8", 101 },
    { "rand-n10000-lowleaf-s1-a32", 101 },
    { "rand-n10000-lowleaf-s3-a8", 101 },
    { "rand-n10000-s0-a8", 101 },
    { "rand-n10000-s1-a32", 101 },
    { "rand-n10000-s0-a8-chunked", 101 },
    { "rand-n10000-s1-a32-chunked", 101 },
};
#define N_BENCH_CASES ((int) (sizeof(bench_cases) / sizeof(bench_cases[0])))

static const char * case_label(const struct bench_case * c, char * buf, size_t size) {
    snprintf(buf, size, "golden %s", c->name);
    return buf;
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
        res[n++] = bench_golden(bench_cases[i].name, bench_cases[i].runs);
    }
    if (n == 0) {
        fprintf(stderr, "bench-plan: no graph named %s\n", only ? only : "");
        return 2;
    }

    printf("glibc: %s\n", tuned ? "tuned (freed memory kept: M_MMAP_MAX = 0, M_TRIM_THRESHOLD = SIZE_MAX)" : "stock (as a user's process runs)");
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
