// bench-docs.c: native planning time on the documents of bench/documents.txt.
//
// Times the planner path the CLI and the WASM module use (galloc_time_plan:
// document read once, then planned on a fresh plan per run) and writes the
// results as JSON lines for bench/report.mjs to set beside the WASM figures.
// Each document is planned runs/3 + 3 times before the measured runs, as in bench-wasm.mjs.
// As in bench-plan.c, glibc keeps freed memory so that runs measure planning, not page faults
// (WebAssembly memory is never handed back either).
// `synthetic NAME` documents come from the llama-style generator of the tests (llama-synthetic.c);
// `bench-docs --print NAME` writes one to stdout (bench-wasm.mjs takes it from there).

#include "bench-util.h"
#include "files.h"
#include "galloc-presets.h"
#include "galloc-timing.h"
#include "llama-synthetic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static char * load_document(const char * kind, const char * name, size_t * len) {
    if (strcmp(kind, "preset") == 0) {
        return galloc_preset_document(name, len);
    }
    return strcmp(kind, "synthetic") == 0 ? galloc_llama_preset_document(name, len) : read_whole_file(name, len);
}

int main(int argc, char ** argv) {
    if (argc == 3 && strcmp(argv[1], "--print") == 0) {
        size_t len  = 0;
        char * text = galloc_llama_preset_document(argv[2], &len);
        if (!text) {
            fprintf(stderr, "bench-docs: no synthetic graph named %s\n", argv[2]);
            return 1;
        }
        const bool ok = fwrite(text, 1, len, stdout) == len;
        free(text);
        return ok ? 0 : 1;
    }
    bench_keep_freed_memory();
    const char * list = argc > 1 ? argv[1] : "bench/documents.txt";
    FILE *       out  = argc > 2 ? fopen(argv[2], "w") : stdout;
    FILE *       in   = fopen(list, "r");
    if (!in || !out) {
        fprintf(stderr, "bench-docs: cannot open %s or the output\n", list);
        return 1;
    }
    char line[512];
    while (fgets(line, sizeof(line), in)) {
        char kind[16], name[400];
        int  runs = 0;
        if (line[0] == '#' || sscanf(line, "%15s %399s %d", kind, name, &runs) != 3) {
            continue;
        }
        size_t len  = 0;
        char * text = load_document(kind, name, &len);
        if (!text) {
            fprintf(stderr, "bench-docs: cannot load %s %s\n", kind, name);
            return 1;
        }
        struct galloc_timing t;
        struct galloc_error err;
        // the same warm-up as bench-wasm.mjs (there it lets the engine optimise the code)
        if (!galloc_time_plan(text, len, runs / 3 + 3, &t, &err) || !galloc_time_plan(text, len, runs, &t, &err)) {
            fprintf(stderr, "bench-docs: %s: %s\n", name, err.message);
            return 1;
        }
        free(text);
        const char * base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        fprintf(out, "{\"graph\": \"%.*s\", \"nodes\": %d, \"tensors\": %d, \"runs\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"heap_bytes\": %.0f}\n",
                (int) (strstr(base, ".graph.json") ? strstr(base, ".graph.json") - base : (long) strlen(base)), base, t.n_nodes,
                t.n_tensors, t.runs, t.median_ms, t.min_ms, t.heap_bytes);
    }
    fclose(in);
    if (out != stdout) {
        fclose(out);
    }
    return 0;
}
