// bench-planner-path.c: the planner path, document in and plan out, on the graphs of bench-ggml-api.
//
// Each graph of bench-graphs.c is written as a graph document (galloc_export_graph, not measured);
// then a plan is what the CLI and the WASM module do with a document: galloc_planned_read (JSON
// read and checked, graph planned) + galloc_document_write_plan (the plan document's JSON) + free.
// Prints median/min/max time and minor page faults per plan, and the document's tensor count, so
// that under `valgrind --tool=callgrind --collect-atstart=no` (collection toggled around the path
// only) bench/instructions.mjs reports instructions per tensor beside upstream's ggml_gallocr plan
// of the same graph. The plan's buffer size is printed to compare with bench-ggml-api's.
//
//   bench-planner-path [--only NAME] [--runs N] [--warmup N] [--phase all|read|plan|write|binary] [--json FILE]
//   --phase: what callgrind counts: the whole path (all), or galloc_document_read + free (read),
//            galloc_plan_graph + free (plan), galloc_document_write_plan (write), or the WASM module's
//            binary plan instead, galloc_binary_write_plan (binary, written in that phase only); timed: always all

#include "bench-graphs.h"
#include "bench-util.h"
#include "galloc-clock.h"
#include "galloc-binary.h"
#include "galloc-document.h"
#include "galloc-export.h"
#include "galloc-planner.h"
#include "galloc-status.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// what is counted: the whole path, or one of its phases (the others run outside the count)
enum phase { PHASE_ALL, PHASE_READ, PHASE_PLAN, PHASE_WRITE, PHASE_BINARY };
static const char * const phase_names[] = { "all", "read", "plan", "write", "binary" };

// one pass of the path; under callgrind, collection is toggled around the phase counted (counted:
// a measured pass). False (with a message) when the document is refused or memory runs out
static bool plan_document(const char * text, size_t len, enum phase phase, bool counted, int32_t * n_tensors, uint64_t * bytes,
                          size_t * plan_len) {
#define COUNT_IF(ph) do { if (counted && phase == (ph)) { CALLGRIND_TOGGLE_COLLECT; } } while (0)
    struct galloc_planned p;
    struct galloc_error   err;
    bool                  ok;
    COUNT_IF(PHASE_ALL);
    if (phase == PHASE_ALL) {
        ok = galloc_planned_read(text, len, &p, &err); // the one read-and-plan path of the CLI and WASM
    } else {
        COUNT_IF(PHASE_READ);
        ok = galloc_document_read(text, len, &p.doc, &err);
        COUNT_IF(PHASE_READ);
        COUNT_IF(PHASE_PLAN);
        ok = ok && galloc_plan_graph(&p.doc.graph, &p.plan, &err);
        COUNT_IF(PHASE_PLAN);
        if (!ok) {
            galloc_document_free(&p.doc);
        }
    }
    if (!ok) {
        COUNT_IF(PHASE_ALL);
        fprintf(stderr, "bench-planner-path: %s\n", err.message);
        return false;
    }
    COUNT_IF(PHASE_WRITE);
    char * json = galloc_document_write_plan(&p.doc, &p.plan, plan_len);
    free(json);
    COUNT_IF(PHASE_WRITE);
    if (phase == PHASE_BINARY) {
        size_t binary_len = 0;
        COUNT_IF(PHASE_BINARY);
        uint8_t * binary = galloc_binary_write_plan(&p.doc, &p.plan, &binary_len);
        free(binary);
        COUNT_IF(PHASE_BINARY);
        if (!binary) {
            json = NULL; // out of memory: the pass failed
        }
    }
    *n_tensors = p.doc.n_tensors;
    *bytes     = p.plan.n_buffer_types > 0 ? p.plan.buffers[0].size : 0;
    COUNT_IF(PHASE_PLAN);
    galloc_plan_free(&p.plan);
    COUNT_IF(PHASE_PLAN);
    COUNT_IF(PHASE_READ);
    galloc_document_free(&p.doc);
    COUNT_IF(PHASE_READ);
    COUNT_IF(PHASE_ALL);
#undef COUNT_IF
    return json != NULL;
}

static void measure(const struct bench_case * c, int runs, int warmup, enum phase phase, FILE * out) {
    struct bench_graph g;
    bench_graph_build(&g, c);
    bench_graph_reset(&g);
    ggml_backend_buffer_type_t buft = bench_nomem_buffer_type();
    size_t len  = 0;
    char * text = galloc_export_graph(g.gf, c->name, &buft, 1, NULL, NULL, &len);
    if (!text) {
        fprintf(stderr, "%s: out of memory exporting the graph\n", c->name);
        exit(1);
    }
    int n_nodes = ggml_graph_n_nodes(g.gf);
    if (len > GALLOC_DOCUMENT_MAX_BYTES) { // the reader refuses it, as the CLI and the UI do
        printf("%-18s %8d %8s %10zu  skipped: over the reader's %zu-byte document limit\n", c->name, n_nodes, "-", len,
               GALLOC_DOCUMENT_MAX_BYTES);
        free(text);
        bench_graph_free(&g);
        return;
    }
    double * t       = malloc(sizeof(double) * (size_t) runs);
    int32_t  n_tensors = 0;
    uint64_t bytes     = 0;
    size_t   plan_len  = 0;
    long     faults    = 0;
    for (int k = -(warmup >= 0 ? warmup : runs / 3 + 3); k < runs; k++) { // negative k: warm-up, not measured
        long   f0 = bench_minor_faults();
        double t0 = galloc_now_ms();
        bool   ok = plan_document(text, len, phase, k >= 0, &n_tensors, &bytes, &plan_len);
        if (k >= 0) {
            t[k] = galloc_now_ms() - t0;
            faults += bench_minor_faults() - f0;
        }
        if (!ok) {
            exit(1);
        }
    }
    qsort(t, (size_t) runs, sizeof(double), bench_cmp_double);
    printf("%-18s %8d %8d %10zu %10zu %6d %11.3f %10.3f %10.3f %12.1f %14llu\n", c->name, n_nodes, n_tensors, len, plan_len, runs,
           t[runs / 2], t[0], t[runs - 1], (double) faults / runs, (unsigned long long) bytes);
    fflush(stdout);
    if (out) {
        fprintf(out,
                "{\"graph\": \"%s\", \"phase\": \"%s\", \"nodes\": %d, \"tensors\": %d, \"document_bytes\": %zu, \"plan_bytes\": %zu, \"runs\": %d, "
                "\"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"faults_per_plan\": %.2f, \"bytes\": %llu}\n",
                c->name, phase_names[phase], n_nodes, n_tensors, len, plan_len, runs, t[runs / 2], t[0], t[runs - 1], (double) faults / runs,
                (unsigned long long) bytes);
        fflush(out);
    }
    free(t);
    free(text);
    bench_graph_free(&g);
}

int main(int argc, char ** argv) {
    const char * only      = NULL;
    const char * json_path = NULL;
    int          runs      = 0;
    int          warmup    = -1;
    enum phase   phase     = PHASE_ALL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json_path = argv[++i];
        } else if (strcmp(argv[i], "--phase") == 0 && i + 1 < argc) {
            for (phase = PHASE_ALL; phase <= PHASE_BINARY && strcmp(argv[i + 1], phase_names[phase]) != 0; phase++) {
            }
            if (phase > PHASE_BINARY) {
                fprintf(stderr, "bench-planner-path: --phase %s: not all, read, plan, write or binary\n", argv[i + 1]);
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "usage: bench-planner-path [--only NAME] [--runs N] [--warmup N] [--phase all|read|plan|write|binary] [--json FILE]\n");
            return 2;
        }
    }
    FILE * out = json_path ? fopen(json_path, "a") : NULL;
    if (json_path && !out) {
        fprintf(stderr, "bench-planner-path: cannot write %s\n", json_path);
        return 1;
    }
    const char * tunables = getenv("GLIBC_TUNABLES");
    printf("planner path: galloc_planned_read + galloc_document_write_plan + free (JSON in, JSON out); glibc: %s%s\n",
           tunables ? "GLIBC_TUNABLES=" : "stock (no GLIBC_TUNABLES)", tunables ? tunables : "");
    printf("%-18s %8s %8s %10s %10s %6s %11s %10s %10s %12s %14s\n", "graph", "nodes", "tensors", "doc bytes", "plan bytes", "runs",
           "median (ms)", "min (ms)", "max (ms)", "faults/plan", "buffer bytes");
    int n_run = 0;
    for (int i = 0; i < bench_n_cases; i++) {
        if (only && strcmp(only, bench_cases[i].name) != 0) {
            continue;
        }
        measure(&bench_cases[i], runs > 0 ? runs : bench_cases[i].runs, warmup, phase, out);
        n_run++;
    }
    if (out) {
        fclose(out);
    }
    if (n_run == 0) {
        fprintf(stderr, "bench-planner-path: no graph named %s\n", only ? only : "");
        return 2;
    }
    return 0;
}
