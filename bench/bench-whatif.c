// bench-whatif.c: offline planners against ggml and the lower bound, with their times.
//
// Per llama preset, as built and with a 1 GiB max size, per MiniMalloc CSV (capacity from
// the file name), and per generated tight problem of the same kind (tests/c/support/
// tight-problems.h: a 1 MiB x 1024-step square cut into 200-500 items, full or with holes,
// capacity 1 MiB, which the cut meets; not published anywhere, so the search cannot be tuned
// to them): each
// planner's total above the lower bound and its time, and when the exact search fit the
// capacity. Tables on stdout, rows as JSON (build/bench-whatif.json).
//   bench-whatif [--budget-ms N] [--csv-budget-ms N] [--gen-budget-ms N] [--gen-seeds N] [MINIMALLOC_DIR] [OUT.json]

#include "bench-util.h"
#include "files.h" // read_whole_file (tests/c/support)
#include "galloc-document.h"
#include "llama-synthetic.h"
#include "galloc-planner.h"
#include "galloc-whatif.h"
#include "json.h"
#include "tight-problems.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB ((uint64_t) 1 << 30)

static double pct_above(uint64_t total, uint64_t bound) {
    return bound ? 100.0 * ((double) total - (double) bound) / (double) bound : 0.0;
}

static void print_header(void) {
    printf("%-34s %14s %10s", "problem", "bound bytes", "ggml %");
    for (int k = GALLOC_WHATIF_GREEDY_SIZE; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        static const char * short_names[] = { "", "by-size", "by-breadth", "exact" };
        printf(" %10s %9s", short_names[k], "ms");
    }
    printf("  %-6s %s\n", "best %", "exact");
}

// one row of the table and of the JSON
static void report(struct galloc_json_writer * w, const char * name, const struct galloc_whatif_result * r) {
    const struct galloc_whatif_plan * exact = &r->plans[GALLOC_WHATIF_EXACT];
    printf("%-34.34s %14llu %9.2f%%", name, (unsigned long long) r->lower_bound, pct_above(r->plans[GALLOC_WHATIF_GGML].total, r->lower_bound));
    for (int k = GALLOC_WHATIF_GREEDY_SIZE; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        printf(" %9.2f%% %9.1f", pct_above(r->plans[k].total, r->lower_bound), r->plans[k].time_ms);
    }
    printf("  %5.2f%% %s", pct_above(r->plans[r->best].total, r->lower_bound), exact->proved_optimal ? "proved" : "not proved");
    if (!exact->proved_optimal && exact->bound > r->lower_bound) {
        printf(" (bound %.2f%% above the max load)", pct_above(exact->bound, r->lower_bound));
    }
    if (r->problem.capacity) {
        if (exact->fit_ms >= 0) {
            printf(", fits the capacity (at %.0f ms)", exact->fit_ms);
        } else {
            printf(", does not fit the capacity");
        }
    }
    printf("\n");

    galloc_json_write_newline(w, 2);
    galloc_json_write_begin_object(w);
    galloc_json_write_key(w, "problem");
    galloc_json_write_cstr(w, name);
    galloc_json_write_key(w, "lower_bound");
    galloc_json_write_u64(w, r->lower_bound);
    galloc_json_write_key(w, "capacity");
    galloc_json_write_u64(w, r->problem.capacity);
    for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        galloc_json_write_key(w, r->plans[k].name);
        galloc_json_write_begin_object(w);
        galloc_json_write_key(w, "total");
        galloc_json_write_u64(w, r->plans[k].total);
        galloc_json_write_key(w, "time_us");
        galloc_json_write_u64(w, (uint64_t) (r->plans[k].time_ms * 1000.0));
        galloc_json_write_end_object(w);
    }
    galloc_json_write_key(w, "best");
    galloc_json_write_cstr(w, r->plans[r->best].name);
    galloc_json_write_key(w, "proved_optimal");
    galloc_json_write_bool(w, exact->proved_optimal);
    galloc_json_write_key(w, "exact_bound");
    galloc_json_write_u64(w, exact->bound);
    galloc_json_write_key(w, "found_us");
    galloc_json_write_u64(w, (uint64_t) (exact->found_ms * 1000.0));
    galloc_json_write_key(w, "fit_us");
    if (exact->fit_ms >= 0) {
        galloc_json_write_u64(w, (uint64_t) (exact->fit_ms * 1000.0));
    } else {
        galloc_json_write_null(w);
    }
    galloc_json_write_end_object(w);
}

static void bench_preset(struct galloc_json_writer * w, const char * preset, uint32_t budget_ms) {
    size_t len  = 0;
    char * text = galloc_llama_preset_document(preset, &len);
    if (!text) {
        fprintf(stderr, "%s: cannot build the preset\n", preset);
        exit(1);
    }
    struct galloc_document doc;
    struct galloc_error err;
    if (!galloc_document_read(text, len, &doc, &err)) {
        fprintf(stderr, "%s: %s\n", preset, err.message);
        exit(1);
    }
    free(text);
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 1) {
            for (int32_t b = 0; b < doc.n_buffer_types; b++) {
                doc.buffer_types[b].max_size = GIB;
            }
        }
        struct galloc_plan plan;
        if (!galloc_plan_graph(&doc.graph, &plan, &err)) {
            fprintf(stderr, "%s: %s\n", preset, err.message);
            exit(1);
        }
        for (int32_t b = 0; b < doc.n_buffer_types; b++) {
            if (doc.buffer_types[b].allocator != b || plan.buffers[b].size == 0) {
                continue;
            }
            struct galloc_whatif_result r;
            if (!galloc_whatif_from_plan(&doc.graph, &plan, b, budget_ms, &r, &err)) {
                fprintf(stderr, "%s: %s\n", preset, err.message);
                exit(1);
            }
            char name[96];
            snprintf(name, sizeof(name), "%s%s%s", preset, variant ? " 1GiB" : "", doc.n_buffer_types > 1 ? (b ? " b1" : " b0") : "");
            report(w, name, &r);
            galloc_whatif_free(&r);
        }
        galloc_plan_free(&plan);
    }
    galloc_document_free(&doc);
}

static int cmp_str(const void * a, const void * b) {
    return strcmp(*(char * const *) a, *(char * const *) b);
}

// NAME.<digits>.csv -> digits
static uint64_t capacity_of(const char * name) {
    const char * dot = strrchr(name, '.');
    if (!dot || strcmp(dot, ".csv") != 0) {
        return 0;
    }
    const char * start = dot;
    while (start > name && start[-1] >= '0' && start[-1] <= '9') {
        start--;
    }
    return start < dot && start > name && start[-1] == '.' ? strtoull(start, NULL, 10) : 0;
}

static void bench_csv_dir(struct galloc_json_writer * w, const char * dir, uint32_t budget_ms) {
    DIR * d = opendir(dir);
    if (!d) {
        printf("(no MiniMalloc problems: %s is not a directory)\n", dir);
        return;
    }
    char *  names[256];
    int     n = 0;
    for (struct dirent * ent; (ent = readdir(d)) != NULL && n < 256;) {
        size_t len = strlen(ent->d_name);
        if (len > 4 && strcmp(ent->d_name + len - 4, ".csv") == 0) {
            names[n++] = strdup(ent->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t) n, sizeof(char *), cmp_str);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        size_t size = 0;
        char * text = read_whole_file(path, &size);
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", path);
            exit(1);
        }
        struct galloc_whatif_result r;
        struct galloc_error err;
        if (!galloc_whatif_from_csv(text, size, capacity_of(names[i]), budget_ms, &r, &err)) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            exit(1);
        }
        report(w, names[i], &r);
        galloc_whatif_free(&r);
        free(text);
        free(names[i]);
    }
}

// generated tight problems: per size and style, seeds problems; a row each, then a summary line
static void bench_generated(struct galloc_json_writer * w, uint32_t budget_ms, int seeds) {
    static const int32_t sizes[] = { 200, 300, 400, 500 };
    // the square full, cut evenly or skewed; with 40 % holes, cut evenly (as MiniMalloc's F, G,
    // H, 57-66 % full); with 10 % holes, skewed (as A, I, K, 90-95 % full)
    static const struct {
        const char * name;
        int          style, holes;
    } kinds[] = { { "even", TIGHT_EVEN, 0 }, { "skewed", TIGHT_SKEWED, 0 }, { "even-holes40", TIGHT_EVEN, 40 }, { "skewed-holes10", TIGHT_SKEWED, 10 } };
    struct galloc_whatif_item items[1024];
    uint64_t                  offsets[1024];
    for (int si = 0; si < 4; si++) {
        for (int style = 0; style < 4; style++) {
            double fits[64], nodes[64]; // nodes: of the whole search (to the proof) when it fit
            int    n_fit = 0, n_in_1s = 0, n_run = 0;
            for (int seed = 0; seed < seeds && seed < 64; seed++) {
                int32_t n = tight_problem((uint64_t) (seed + 1000 * si + 100 * style), sizes[si], 1024, 1024, (enum tight_style) kinds[style].style,
                                          kinds[style].holes, items, offsets);
                struct galloc_whatif_problem p = { n, items, 1, GALLOC_NO_MAX_SIZE, (uint64_t) 1 << 20 };
                struct galloc_whatif_result  r;
                struct galloc_error          err;
                if (!galloc_whatif_from_problem(&p, budget_ms, &r, &err)) {
                    fprintf(stderr, "generated %d: %s\n", n, err.message);
                    exit(1);
                }
                char name[64];
                snprintf(name, sizeof(name), "tight-%d-%s-%d", sizes[si], kinds[style].name, seed);
                report(w, name, &r);
                const struct galloc_whatif_plan * exact = &r.plans[GALLOC_WHATIF_EXACT];
                double fit = exact->fit_ms >= 0 ? exact->fit_ms : 1e30;
                nodes[n_run] = exact->fit_ms >= 0 ? (double) exact->nodes : 1e30;
                fits[n_run++] = fit;
                n_fit += exact->fit_ms >= 0;
                n_in_1s += exact->fit_ms >= 0 && exact->fit_ms <= 1000;
                galloc_whatif_free(&r);
            }
            qsort(fits, (size_t) n_run, sizeof(double), bench_cmp_double);
            qsort(nodes, (size_t) n_run, sizeof(double), bench_cmp_double);
            double median = n_run ? fits[n_run / 2] : 0, median_nodes = n_run ? nodes[n_run / 2] : 0;
            char median_text[64];
            snprintf(median_text, sizeof(median_text), median >= 1e30 ? "never" : "%.0f ms (%.0f nodes)", median, median_nodes);
            printf("  tight %d %s: %d of %d fit the capacity, %d within 1 s; median time to fit %s\n", sizes[si], kinds[style].name, n_fit, n_run,
                   n_in_1s, median_text);
        }
    }
}

int main(int argc, char ** argv) {
    uint32_t     budget_ms = 2000, csv_budget_ms = 10000, gen_budget_ms = 2000;
    int          gen_seeds = 3;
    const char * dir = "../shared/bench/minimalloc", * out = "build/bench-whatif.json";
    int          positional = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            budget_ms = (uint32_t) strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--csv-budget-ms") == 0 && i + 1 < argc) {
            csv_budget_ms = (uint32_t) strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--gen-budget-ms") == 0 && i + 1 < argc) {
            gen_budget_ms = (uint32_t) strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--gen-seeds") == 0 && i + 1 < argc) {
            gen_seeds = (int) strtol(argv[++i], NULL, 10);
        } else if (positional == 0) {
            dir = argv[i];
            positional++;
        } else {
            out = argv[i];
        }
    }
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_array(&w);

    printf("llama presets (exact search budget %u ms; %% = above the lower bound)\n", budget_ms);
    print_header();
    for (int i = 0; i < galloc_llama_preset_count(); i++) {
        bench_preset(&w, galloc_llama_preset_name(i), budget_ms);
    }
    printf("\nMiniMalloc problems in %s (exact search budget %u ms)\n", dir, csv_budget_ms);
    print_header();
    bench_csv_dir(&w, dir, csv_budget_ms);
    printf("\ngenerated tight problems of the MiniMalloc kind, capacity 1 MiB (a known packing) (exact search budget %u ms, %d seeds per size)\n",
           gen_budget_ms, gen_seeds);
    print_header();
    bench_generated(&w, gen_budget_ms, gen_seeds);

    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 0);
    size_t len  = 0;
    char * json = galloc_json_writer_finish(&w, &len);
    FILE * f    = json ? fopen(out, "wb") : NULL;
    if (!f || fwrite(json, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", out);
        free(json);
        return 1;
    }
    fclose(f);
    free(json);
    printf("\nwrote %s\n", out);
    return 0;
}
