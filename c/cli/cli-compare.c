// cli-compare.c: prints what-if comparisons (see cli-compare.h).
//
// One table per problem: a line per planner (total, MiB, bytes and % above the lower
// bound, chunks, time, proof), then the best. `galloc compare` reads a MiniMalloc CSV;
// without --capacity it takes the capacity from a file name like A.1048576.csv.

#include "cli-compare.h"
#include "galloc-decimal.h"
#include "cli-exit.h"
#include "cli-io.h"

#include <stdlib.h>
#include <string.h>

#define CSV_MAX_BYTES ((size_t) 256 << 20)

static double mib(uint64_t bytes) {
    return (double) bytes / (1024.0 * 1024.0);
}

void cli_print_whatif(FILE * out, const char * title, const struct galloc_whatif_result * r) {
    const struct galloc_whatif_problem * p = &r->problem;
    fprintf(out, "%s: %d items, lower bound %llu bytes (%.1f MiB), alignment %llu", title, p->n_items,
            (unsigned long long) r->lower_bound, mib(r->lower_bound), (unsigned long long) p->alignment);
    if (p->max_size != GALLOC_NO_MAX_SIZE) {
        fprintf(out, ", max size %llu", (unsigned long long) p->max_size);
    }
    if (p->capacity) {
        fprintf(out, ", capacity %llu", (unsigned long long) p->capacity);
    }
    fprintf(out, "\n");
    if (r->n_shrinking) {
        fprintf(out, "  note: %d in-place chain%s shrink; merged items keep their largest size (ggml peak_live %llu)\n",
                r->n_shrinking, r->n_shrinking == 1 ? "" : "s", (unsigned long long) r->peak_live);
    }
    fprintf(out, "  %-18s %16s %10s %16s %9s %6s %10s  %s\n", "planner", "total", "MiB", "above bound", "%", "chunks", "time ms", "");
    for (int k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        const struct galloc_whatif_plan * pl = &r->plans[k];
        if (!pl->valid) {
            fprintf(out, "  %-18s %16s  %s\n", pl->name ? pl->name : "?", "-", pl->note ? pl->note : "");
            continue;
        }
        double   pct   = 0;
        uint64_t above = galloc_whatif_above_bound(r, pl, &pct);
        char     extra[160];
        extra[0] = '\0';
        if (k == GALLOC_WHATIF_EXACT) {
            if (pl->proved_optimal) {
                snprintf(extra, sizeof(extra), "proved optimal (%llu nodes)", (unsigned long long) pl->nodes);
            } else {
                snprintf(extra, sizeof(extra), "not proved: nothing below %llu (%llu nodes)", (unsigned long long) pl->bound,
                         (unsigned long long) pl->nodes);
            }
        } else if (!pl->checked) {
            snprintf(extra, sizeof(extra), "fails the checker (shrinking in-place chains)");
        }
        if (p->capacity) {
            size_t used = strlen(extra);
            snprintf(extra + used, sizeof(extra) - used, "%s%s", used ? ", " : "", pl->total <= p->capacity ? "fits" : "exceeds capacity");
        }
        char time[32];
        if (k == GALLOC_WHATIF_GGML && r->buffer_type >= 0) {
            snprintf(time, sizeof(time), "-"); // ggml's own plan, made before
        } else {
            snprintf(time, sizeof(time), "%.1f", pl->time_ms);
        }
        fprintf(out, "  %-18s %16llu %10.1f %16llu %8.2f%% %6d %10s  %s\n", pl->name, (unsigned long long) pl->total, mib(pl->total),
                (unsigned long long) above, pct, pl->n_chunks, time, extra);
    }
    const struct galloc_whatif_plan * best = &r->plans[r->best];
    const struct galloc_whatif_plan * ggml = &r->plans[GALLOC_WHATIF_GGML];
    fprintf(out, "  best: %s, %llu bytes", best->name, (unsigned long long) best->total);
    if (best->total < ggml->total) {
        fprintf(out, ", %llu bytes (%.2f %%) less than ggml", (unsigned long long) (ggml->total - best->total),
                100.0 * (double) (ggml->total - best->total) / (double) ggml->total);
    }
    fprintf(out, "\n");
}

bool cli_compare_plan(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, uint32_t budget_ms, struct galloc_error * err) {
    int32_t n_allocators = 0;
    for (int32_t b = 0; b < doc->n_buffer_types; b++) {
        n_allocators += doc->buffer_types[b].allocator == b;
    }
    struct galloc_whatif_tensors tensors; // the tensors by allocator, once: each problem walks its own only
    if (!galloc_whatif_tensors_build(&doc->graph, plan, &tensors, err)) {
        return false;
    }
    struct galloc_whatif_budget budget; // for the whole analysis, not per allocator
    galloc_whatif_budget_start(&budget, budget_ms, n_allocators);
    for (int32_t b = 0; b < doc->n_buffer_types; b++) {
        if (doc->buffer_types[b].allocator != b) {
            char name[4 * 64 + 1];
            fprintf(out, "buffer %d (%s): shares the allocator of buffer %d\n", b, cli_safe_text(name, sizeof(name), doc->buffer_type_names[b], 64, 0),
                    doc->buffer_types[b].allocator);
            continue;
        }
        struct galloc_whatif_result r;
        if (!galloc_whatif_from_plan_tensors(&doc->graph, plan, &tensors, b, galloc_whatif_budget_next(&budget), &r, err)) {
            galloc_whatif_tensors_free(&tensors);
            return false;
        }
        char title[320];
        char name[4 * 64 + 1];
        snprintf(title, sizeof(title), "buffer %d (%s)", b, cli_safe_text(name, sizeof(name), doc->buffer_type_names[b], 64, 0));
        cli_print_whatif(out, title, &r);
        galloc_whatif_free(&r);
    }
    galloc_whatif_tensors_free(&tensors);
    return true;
}

// a decimal number for an option; false on anything else
static bool parse_option_u64(const char * s, uint64_t max, uint64_t * out) {
    return s != NULL && galloc_decimal_scan_u64(s, strlen(s), max, out);
}

// NAME.<digits>.csv -> digits (MiniMalloc's benchmark files carry their capacity so)
static uint64_t capacity_from_name(const char * path) {
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 4, ".csv") != 0) {
        return EXIT_OK;
    }
    size_t end = n - 4, start = end;
    while (start > 0 && path[start - 1] >= '0' && path[start - 1] <= '9') {
        start--;
    }
    if (start == end || start == 0 || path[start - 1] != '.' || end - start > 18) {
        return EXIT_OK;
    }
    uint64_t v = 0;
    return galloc_decimal_scan_u64(path + start, end - start, UINT64_MAX, &v) ? v : EXIT_OK;
}

int cli_compare_command(int argc, char ** argv, const char * usage) {
    const char * input    = NULL;
    uint64_t     capacity = 0, budget = CLI_COMPARE_BUDGET_MS;
    bool         have_capacity = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--capacity") == 0 && i + 1 < argc) {
            if (!parse_option_u64(argv[++i], UINT64_MAX, &capacity)) {
                fprintf(stderr, "galloc: --capacity: '%s' is not a number\n%s", argv[i], usage);
                return EXIT_USAGE;
            }
            have_capacity = true;
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            if (!parse_option_u64(argv[++i], UINT32_MAX, &budget)) {
                fprintf(stderr, "galloc: --budget-ms: '%s' is not a number up to %u\n%s", argv[i], UINT32_MAX, usage);
                return EXIT_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "galloc: unknown option %s\n%s", argv[i], usage);
            return EXIT_USAGE;
        } else if (!input) {
            input = argv[i];
        } else {
            fprintf(stderr, "galloc: more than one problem\n%s", usage);
            return EXIT_USAGE;
        }
    }
    if (!input) {
        fprintf(stderr, "galloc: no problem file\n%s", usage);
        return EXIT_USAGE;
    }
    if (!have_capacity) {
        capacity = capacity_from_name(input);
    }
    struct galloc_error err;
    size_t len  = 0;
    char * text = cli_read_file(input, CSV_MAX_BYTES, &len, &err);
    if (!text) {
        fprintf(stderr, "galloc: %s\n", err.message);
        return cli_exit_code(err.status);
    }
    struct galloc_whatif_result r;
    bool ok = galloc_whatif_from_csv(text, len, capacity, (uint32_t) budget, &r, &err);
    free(text);
    if (!ok) {
        fprintf(stderr, "galloc: %s: %s\n", input, err.message);
        return cli_exit_code(err.status);
    }
    cli_print_whatif(stdout, input, &r);
    galloc_whatif_free(&r);
    return EXIT_OK;
}
