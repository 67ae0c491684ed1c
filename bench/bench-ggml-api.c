// bench-ggml-api.c: ggml_gallocr through ggml's public API only, for side-by-side builds.
//
// One source (with bench-graphs.c) that compiles against this project's headers and library and,
// unchanged, against upstream ggml. Per graph of bench-graphs.c a plan is ggml_gallocr_new_n +
// reserve_n + alloc_graph + free on a fresh allocator (--hot: alloc_graph on one allocator reserved
// once, the path llama.cpp runs per token; --build: the graph built through the API, then planned
// fresh, then freed, the cost of getting the graph in and planned); it prints median/min/max time,
// minor page faults per plan and the buffer size, and under `valgrind --tool=callgrind
// --collect-atstart=no` callgrind counts only the calls measured. glibc runs as the environment
// sets it (GLIBC_TUNABLES is recorded in the JSON: none is glibc as a user's process has it).
//
//   bench-ggml-api [--only NAME] [--runs N] [--warmup N] [--hot | --build] [--json FILE]
//   --build: measured per run: bench_graph_build (ggml_init of the weight and graph contexts, every
//            tensor and op call, ggml_build_forward_expand, the weights placed in a buffer without
//            memory) + the fresh plan + bench_graph_free (ggml_free, the buffer freed)
//   --warmup: plans before the measured ones (default runs / 3 + 3; instruction counts need 1)
//   --json: one JSON line per graph appended to FILE
//   BENCH_DUMP=FILE: write every node's op, offset and size after the last plan, to compare two builds

#include "bench-graphs.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
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

//
// measuring
//

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static int cmp_double(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

// what one measured run does: plan a graph built once (fresh or hot), or build, plan and free it
enum mode { MODE_FRESH, MODE_HOT, MODE_BUILD };
static const char * const mode_names[] = { "fresh", "hot", "build" };

// measure and print one graph (c, built into g); its JSON line goes to json (when not NULL)
static void measure(const struct bench_case * c, struct bench_graph * g, int runs, int warmup, enum mode mode, FILE * json) {
    const char * name = c->name;
    const bool   hot  = mode == MODE_HOT;
    ggml_backend_buffer_type_t buft = bench_nomem_buffer_type();
    double * t = malloc(sizeof(double) * (size_t) runs);
    size_t bytes = 0;
    long faults = 0;
    ggml_gallocr_t kept = NULL;
    if (hot) { // reserved once, outside the measurement
        bench_graph_reset(g);
        kept = ggml_gallocr_new_n(&buft, 1);
        if (!ggml_gallocr_reserve_n(kept, g->gf, NULL, NULL)) {
            fprintf(stderr, "%s: reserve failed\n", name);
            exit(1);
        }
    }
    for (int k = -(warmup >= 0 ? warmup : runs / 3 + 3); k < runs; k++) { // negative k: warm-up, not measured
        bench_graph_reset(g);
        long   f0 = minor_faults();
        double t0 = now_ms();
        if (k >= 0) {
            CALLGRIND_TOGGLE_COLLECT;
        }
        struct bench_graph built;
        if (mode == MODE_BUILD) {
            bench_graph_build(&built, c);
        }
        struct ggml_cgraph * gf = mode == MODE_BUILD ? built.gf : g->gf;
        ggml_gallocr_t galloc = hot ? kept : ggml_gallocr_new_n(&buft, 1);
        bool ok = (hot || ggml_gallocr_reserve_n(galloc, gf, NULL, NULL)) && ggml_gallocr_alloc_graph(galloc, gf);
        bytes = ggml_gallocr_get_buffer_size(galloc, 0);
        if (!hot && !(getenv("BENCH_DUMP") && k == runs - 1 && mode == MODE_FRESH)) {
            ggml_gallocr_free(galloc);
        }
        if (mode == MODE_BUILD) {
            bench_graph_free(&built);
        }
        if (k >= 0) {
            CALLGRIND_TOGGLE_COLLECT;
            t[k] = now_ms() - t0;
            faults += minor_faults() - f0;
        }
        if (!ok) {
            fprintf(stderr, "%s: planning failed\n", name);
            exit(1);
        }
    }
    if (kept) {
        ggml_gallocr_free(kept);
    }
    if (getenv("BENCH_DUMP")) { // offsets of the last plan's nodes, to compare two builds
        FILE * f = fopen(getenv("BENCH_DUMP"), "w");
        for (int i = 0; f && i < ggml_graph_n_nodes(g->gf); i++) {
            struct ggml_tensor * n = ggml_graph_node(g->gf, i);
            fprintf(f, "%d %s %lld %zu %d %d\n", i, ggml_op_desc(n), (long long) bench_nomem_offset(n), ggml_nbytes(n), n->view_src != NULL, (int) n->flags);
        }
        if (f) fclose(f);
    }
    qsort(t, (size_t) runs, sizeof(double), cmp_double);
    int n_nodes = ggml_graph_n_nodes(g->gf);
    printf("%-18s %8d %6d %11.3f %10.3f %10.3f %9.0f %12.1f %14zu\n", name, n_nodes, runs, t[runs / 2], t[0], t[runs - 1],
           t[runs / 2] * 1e6 / n_nodes, (double) faults / runs, bytes);
    fflush(stdout);
    if (json) {
        const char * tunables = getenv("GLIBC_TUNABLES");
        fprintf(json,
                "{\"graph\": \"%s\", \"plan\": \"%s\", \"nodes\": %d, \"runs\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"max_ms\": %.6f, \"faults_per_plan\": %.2f, \"bytes\": %zu, \"glibc_tunables\": \"%s\"}\n",
                name, mode_names[mode], n_nodes, runs, t[runs / 2], t[0], t[runs - 1], (double) faults / runs, bytes,
                tunables ? tunables : "");
        fflush(json);
    }
    free(t);
}

int main(int argc, char ** argv) {
    const char * only = NULL;
    const char * json_path = NULL;
    int runs_override = 0;
    int warmup = -1;
    enum mode mode = MODE_FRESH;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs_override = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--hot") == 0) {
            mode = MODE_HOT;
        } else if (strcmp(argv[i], "--build") == 0) {
            mode = MODE_BUILD;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json_path = argv[++i];
        } else {
            fprintf(stderr, "usage: bench-ggml-api [--only NAME] [--runs N] [--warmup N] [--hot | --build] [--json FILE]\n");
            return 2;
        }
    }
    FILE * json = json_path ? fopen(json_path, "a") : NULL;
    if (json_path && !json) {
        fprintf(stderr, "bench-ggml-api: cannot write %s\n", json_path);
        return 1;
    }
    const char * tunables = getenv("GLIBC_TUNABLES");
    static const char * const mode_what[] = {
        "ggml_gallocr_new_n + reserve_n + alloc_graph + free",
        "ggml_gallocr_alloc_graph on an allocator reserved for the graph",
        "the graph built (ggml_init, tensors, op calls, ggml_build_forward_expand) + new_n + reserve_n + alloc_graph + free + ggml_free",
    };
    printf("%s plan: %s; glibc: %s%s\n", mode_names[mode], mode_what[mode],
           tunables ? "GLIBC_TUNABLES=" : "stock (no GLIBC_TUNABLES)", tunables ? tunables : "");
    printf("%-18s %8s %6s %11s %10s %10s %9s %12s %14s\n", "graph", "nodes", "runs", "median (ms)", "min (ms)", "max (ms)", "ns/node",
           "faults/plan", "buffer bytes");
    int n_run = 0;
    for (int i = 0; i < bench_n_cases; i++) {
        const struct bench_case * c = &bench_cases[i];
        if (only && strcmp(only, c->name) != 0) {
            continue;
        }
        struct bench_graph g;
        bench_graph_build(&g, c);
        // a hot plan of a llama graph takes tens of microseconds: ten times the runs, for a stable median
        int runs = runs_override > 0 ? runs_override : c->runs * (mode == MODE_HOT && c->n_layer > 0 ? 10 : 1);
        measure(c, &g, runs, warmup, mode, json);
        bench_graph_free(&g);
        n_run++;
    }
    if (json) {
        fclose(json);
    }
    if (n_run == 0) {
        fprintf(stderr, "bench-ggml-api: no graph named %s\n", only ? only : "");
        return 2;
    }
    return 0;
}
