// cli-explain.c: `galloc explain`: prints galloc-explain.h's analysis as plain-text tables.
//
// One graph: per buffer type its size, the peak of live bytes and its step, the tensors live
// at the peak largest first (folded per layer when names carry layers), and the tensor that
// last raised each chunk. Two graphs: both sizes, the difference, and the names whose bytes
// at the peak account for it. --offline PLANNER: ggml's plan of the graph against an offline
// planner's (galloc-whatif.h) of every allocator, the same comparison. Every number comes from
// the analyses; this file only formats.

#include "cli-exit.h"
#include "cli-explain.h"
#include "cli-io.h"
#include "galloc-document.h"
#include "galloc-explain.h"
#include "galloc-planner.h"
#include "galloc-whatif.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 20

// a name from a document made safe for the terminal (cli_safe_text: control characters as '?'), in
// one of eight buffers used in turn, so that one printf may show several (the CLI has one thread)
static const char * safe(const char * s) {
    static char bufs[8][1024];
    static int  next;
    next = (next + 1) % 8;
    return cli_safe_text(bufs[next], sizeof(bufs[next]), s, 0, 0);
}

// "1.05 GiB", "512 B": binary units, for the eye (exact bytes are printed beside)
static const char * human_bytes(uint64_t bytes, char * buf, size_t size) {
    static const char * units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double v = (double) bytes;
    int    u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0) {
        snprintf(buf, size, "%" PRIu64 " B", bytes);
    } else {
        snprintf(buf, size, "%.2f %s", v, units[u]);
    }
    return buf;
}

static const char * human_diff(int64_t diff, char * buf, size_t size) {
    char h[24]; // "18446744073709551615 B" fits; with the sign, the callers' 32 bytes hold it
    uint64_t mag = diff < 0 ? (uint64_t) 0 - (uint64_t) diff : (uint64_t) diff;
    snprintf(buf, size, "%s%s", diff < 0 ? "-" : diff > 0 ? "+" : "", human_bytes(mag, h, sizeof(h)));
    return buf;
}

static const char * step_text(int32_t step, char * buf, size_t size) {
    if (step < 0) {
        snprintf(buf, size, "step -1 (before the first node)");
    } else {
        snprintf(buf, size, "step %d", step);
    }
    return buf;
}

// "[4096, 512]": trailing 1s dropped, as ggml developers write shapes
static void shape_text(const struct galloc_tensor * t, char * buf, size_t size) {
    int dims = GGML_MAX_DIMS;
    while (dims > 1 && t->ne[dims - 1] == 1) {
        dims--;
    }
    size_t at = (size_t) snprintf(buf, size, "[");
    for (int d = 0; d < dims && at < size; d++) {
        at += (size_t) snprintf(buf + at, size - at, "%s%" PRId64, d ? ", " : "", t->ne[d]);
    }
    if (at < size) {
        snprintf(buf + at, size - at, "]");
    }
}

static void layers_text(const struct galloc_explain_group * g, int32_t n_layers, char * buf, size_t size) {
    if (g->first_layer < 0) {
        snprintf(buf, size, "-");
    } else if (g->first_layer == g->last_layer) {
        snprintf(buf, size, "%d of %d", g->first_layer, n_layers);
    } else {
        snprintf(buf, size, "%d-%d of %d", g->first_layer, g->last_layer, n_layers);
    }
}

static void print_live(FILE * out, const struct galloc_document * doc, const struct galloc_explain * ex,
                       const struct galloc_explain_buffer * b, int32_t top) {
    char h[32], shape[96], step[40];
    fprintf(out, "  live at the peak (%s), largest first:\n", step_text(b->peak_step, step, sizeof(step)));
    fprintf(out, "  %14s %10s %7s  %-40s %-12s %-5s %-24s %s\n", "bytes", "", "%", "tensor", "op", "type", "shape", "layer");
    int32_t shown = b->n_live < top ? b->n_live : top;
    for (int32_t i = 0; i < shown; i++) {
        int32_t t = b->live[i].tensor;
        char    name[GGML_MAX_NAME + 16], layer[32];
        snprintf(name, sizeof(name), "#%d %s", t, safe(doc->tensor_names[t]));
        shape_text(&doc->tensors[t], shape, sizeof(shape));
        if (ex->layer[t] >= 0) {
            snprintf(layer, sizeof(layer), "%d of %d", ex->layer[t], ex->n_layers);
        } else {
            snprintf(layer, sizeof(layer), "-");
        }
        fprintf(out, "  %14" PRIu64 " %10s %6.2f%%  %-40s %-12s %-5s %-24s %s\n", b->live[i].bytes,
                human_bytes(b->live[i].bytes, h, sizeof(h)), galloc_explain_percent(b->live[i].bytes, b->size), name,
                galloc_document_op_desc(doc, t), ggml_type_name((enum ggml_type) doc->tensors[t].type), shape, layer);
    }
    if (shown < b->n_live) {
        uint64_t rest = 0;
        for (int32_t i = shown; i < b->n_live; i++) {
            rest += b->live[i].bytes;
        }
        fprintf(out, "  %14" PRIu64 " %10s %6.2f%%  ... and %d more tensors (--top N shows more)\n", rest,
                human_bytes(rest, h, sizeof(h)), galloc_explain_percent(rest, b->size), b->n_live - shown);
    }
}

static void print_groups(FILE * out, const struct galloc_document * doc, const struct galloc_explain * ex,
                         const struct galloc_explain_buffer * b, int32_t top) {
    char h[32], step[40];
    fprintf(out, "  live at the peak (%s), folded by layer, largest first:\n", step_text(b->peak_step, step, sizeof(step)));
    fprintf(out, "  %14s %10s %7s  %-32s %7s  %-12s %-12s %-5s %-20s %s\n", "bytes", "", "%", "name", "tensors", "layers", "op", "type",
            "shape", "largest");
    int32_t shown = b->n_groups < top ? b->n_groups : top;
    for (int32_t i = 0; i < shown; i++) {
        const struct galloc_explain_group * g = &b->groups[i];
        char layers[48], shape[96];
        layers_text(g, ex->n_layers, layers, sizeof(layers));
        shape_text(&doc->tensors[g->tensor], shape, sizeof(shape));
        fprintf(out, "  %14" PRIu64 " %10s %6.2f%%  %-32s %7d  %-12s %-12s %-5s %-20s #%d %s\n", g->bytes, human_bytes(g->bytes, h, sizeof(h)),
                galloc_explain_percent(g->bytes, b->size), safe(g->name), g->count, layers, galloc_document_op_desc(doc, g->tensor),
                ggml_type_name((enum ggml_type) doc->tensors[g->tensor].type), shape, g->tensor, safe(doc->tensor_names[g->tensor]));
    }
    if (shown < b->n_groups) {
        fprintf(out, "  ... and %d more names (--top N shows more)\n", b->n_groups - shown);
    }
}

static void print_chunks(FILE * out, const struct galloc_document * doc, const struct galloc_explain_buffer * b) {
    char h[32], step[40];
    fprintf(out, "  chunks, and the tensor whose placement last raised each one's size:\n");
    for (int32_t c = 0; c < b->n_chunks; c++) {
        int32_t t = b->chunk_raiser[c];
        fprintf(out, "    chunk %d: %" PRIu64 " bytes (%s)", c, b->chunk_sizes[c], human_bytes(b->chunk_sizes[c], h, sizeof(h)));
        if (t >= 0) {
            fprintf(out, ", raised last by #%d %s (%s, %" PRIu64 " bytes at offset %" PRIu64 ") at %s\n", t, safe(doc->tensor_names[t]),
                    galloc_document_op_desc(doc, t), b->chunk_raiser_bytes[c], b->chunk_raiser_offset[c],
                    step_text(b->chunk_raiser_step[c], step, sizeof(step)));
        } else {
            fprintf(out, ", holds nothing\n");
        }
    }
}

static void print_explain(FILE * out, const char * path, const struct galloc_document * doc, const struct galloc_explain * ex,
                          int32_t top, bool fold) {
    char h1[32], h2[32], step[40];
    fprintf(out, "%s%s%s: %d tensors, %d steps", path, doc->name[0] ? " " : "", safe(doc->name), doc->n_tensors, ex->n_steps);
    if (ex->n_layers > 0) {
        fprintf(out, ", %d layers", ex->n_layers);
    }
    fprintf(out, "\n");
    for (int32_t i = 0; i < ex->n_buffers; i++) {
        const struct galloc_explain_buffer * b = &ex->buffers[i];
        fprintf(out, "\nbuffer %d (%s): ", i, safe(doc->buffer_type_names[i]));
        if (b->shared_with >= 0) {
            fprintf(out, "shares the allocator of buffer %d (%s)\n", b->shared_with, safe(doc->buffer_type_names[b->shared_with]));
            continue;
        }
        fprintf(out, "%s (%" PRIu64 " bytes) in %d chunk%s; peak of live bytes %s (%" PRIu64 " bytes) at %s; overhead %" PRIu64 " bytes (%.2f %%)\n",
                human_bytes(b->size, h1, sizeof(h1)), b->size, b->n_chunks, b->n_chunks == 1 ? "" : "s",
                human_bytes(b->peak_live, h2, sizeof(h2)), b->peak_live, step_text(b->peak_step, step, sizeof(step)),
                b->overhead, galloc_explain_percent(b->overhead, b->peak_live));
        if (b->n_live == 0) {
            fprintf(out, "  nothing is live in it\n");
            continue;
        }
        if (fold) {
            print_groups(out, doc, ex, b, top);
        } else {
            print_live(out, doc, ex, b, top);
        }
        print_chunks(out, doc, b);
    }
}

// one side's tensors placed above the other side's chunk sizes
static void print_above(FILE * out, const char * side, const char * other, const struct galloc_explain_above * rows, int32_t n, int32_t top) {
    if (n == 0) {
        return;
    }
    char h[32], s[40];
    fprintf(out, "  %s's tensors above %s's size of their chunk, most bytes above first:\n", side, other);
    fprintf(out, "  %14s %10s %5s %14s %14s  %-40s %s\n", "bytes above", "", "chunk", "offset", "bytes", "name", "from");
    int32_t shown = n < top ? n : top;
    for (int32_t r = 0; r < shown; r++) {
        const struct galloc_explain_above * a = &rows[r];
        fprintf(out, "  %14" PRIu64 " %10s %5d %14" PRIu64 " %14" PRIu64 "  %-40s %s\n", a->above, human_bytes(a->above, h, sizeof(h)),
                a->chunk, a->offset, a->bytes, safe(a->name), step_text(a->step, s, sizeof(s)));
    }
    if (shown < n) {
        fprintf(out, "  ... and %d more tensors (--top N shows more)\n", n - shown);
    }
}

// "A: PATH NAME" (NAME: the document's name, when it has one), then ", WHAT" when given
static void print_side(FILE * out, const char * side, const char * path, const struct galloc_document * doc, const char * what) {
    fprintf(out, "%s: %s%s%s%s%s\n", side, path, doc->name[0] ? " " : "", safe(doc->name), what ? ", " : "", what ? what : "");
}

// what_a, what_b: which plan of the document each side is (NULL: its ggml plan, said by nothing)
static void print_compare(FILE * out, const char * path_a, const char * what_a, const char * path_b, const char * what_b,
                          const struct galloc_document * doc_a, const struct galloc_document * doc_b, const struct galloc_explain_diff * d,
                          int32_t top) {
    char h1[32], h2[32], h3[32], s1[40], s2[40];
    print_side(out, "A", path_a, doc_a, what_a);
    print_side(out, "B", path_b, doc_b, what_b);
    for (int32_t i = 0; i < d->n_buffers; i++) {
        const struct galloc_explain_diff_buffer * b = &d->buffers[i];
        fprintf(out, "\nbuffer %s: A %s (%" PRIu64 " bytes), B %s (%" PRIu64 " bytes), difference %s (%+" PRId64 " bytes)\n", safe(b->name),
                b->buffer_a >= 0 ? human_bytes(b->size_a, h1, sizeof(h1)) : "absent", b->size_a,
                b->buffer_b >= 0 ? human_bytes(b->size_b, h2, sizeof(h2)) : "absent", b->size_b,
                human_diff(b->size_diff, h3, sizeof(h3)), b->size_diff);
        fprintf(out, "  peak of live bytes: A %" PRIu64 " at %s, B %" PRIu64 " at %s: %+" PRId64 " bytes\n", b->peak_a,
                step_text(b->peak_step_a, s1, sizeof(s1)), b->peak_b, step_text(b->peak_step_b, s2, sizeof(s2)), b->peak_diff);
        fprintf(out, "  overhead above the peak (packing): %+" PRId64 " bytes\n", b->overhead_diff);
        print_above(out, "A", "B", b->above_a, b->n_above_a, top);
        print_above(out, "B", "A", b->above_b, b->n_above_b, top);
        if (b->n_rows == 0) {
            fprintf(out, "  the same tensors are live at both peaks\n");
            continue;
        }
        fprintf(out, "  live at the peaks%s, largest difference first:\n", d->folded ? " (folded by layer)" : "");
        fprintf(out, "  %14s %14s %15s %10s  %-40s %s\n", "A bytes", "B bytes", "difference", "", "name", "tensors A/B");
        int32_t shown = b->n_rows < top ? b->n_rows : top;
        for (int32_t r = 0; r < shown; r++) {
            const struct galloc_explain_diff_row * row = &b->rows[r];
            int64_t diff = (int64_t) (row->bytes_b - row->bytes_a);
            fprintf(out, "  %14" PRIu64 " %14" PRIu64 " %+15" PRId64 " %10s  %-40s %d/%d\n", row->bytes_a, row->bytes_b, diff,
                    human_diff(diff, h1, sizeof(h1)), safe(row->name), row->count_a, row->count_b);
        }
        if (shown < b->n_rows) {
            fprintf(out, "  ... and %d more names (--top N shows more)\n", b->n_rows - shown);
        }
    }
    int64_t total = (int64_t) (d->total_b - d->total_a);
    fprintf(out, "\ntotal: A %" PRIu64 " bytes (%s), B %" PRIu64 " bytes (%s), difference %+" PRId64 " bytes (%s)\n", d->total_a,
            human_bytes(d->total_a, h1, sizeof(h1)), d->total_b, human_bytes(d->total_b, h2, sizeof(h2)), total,
            human_diff(total, h3, sizeof(h3)));
}

struct loaded {
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_explain  ex;
};

static void loaded_free(struct loaded * l) {
    galloc_explain_free(&l->ex);
    galloc_plan_free(&l->plan);
    galloc_document_free(&l->doc);
}

// read, plan and explain path; on failure prints the error and returns the exit status
static int load(const char * path, struct loaded * l) {
    memset(l, 0, sizeof(*l));
    struct galloc_planned planned;
    int                   code = cli_read_planned(path, &planned);
    if (code != EXIT_OK) {
        return code;
    }
    l->doc  = planned.doc;
    l->plan = planned.plan;
    struct galloc_error err;
    if (!galloc_explain_plan(&l->doc, &l->plan, &l->ex, &err)) {
        fprintf(stderr, "galloc: %s: %s\n", path, err.message);
        loaded_free(l);
        return cli_exit_code(err.status);
    }
    return EXIT_OK;
}

// the planner of that name in r ("best": r's best), or -1
static int32_t find_planner(const struct galloc_whatif_result * r, const char * name) {
    if (strcmp(name, "best") == 0) {
        return r->best;
    }
    for (int32_t k = 0; k < GALLOC_WHATIF_N_PLANNERS; k++) {
        if (r->plans[k].name && strcmp(r->plans[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
}

// l's plan with every allocator packed by planner (the budget shared by the exact searches):
// explained into *ex; on failure prints why and returns the exit status. Each allocator's problem
// comes from ggml's plan through one tensor index, and goes into one copy of that plan: linear in
// the tensors, however many buffer types there are.
static int explain_offline(const struct loaded * l, const char * planner, uint32_t budget_ms, struct galloc_plan * plan,
                           struct galloc_explain * ex) {
    struct galloc_error err;
    int32_t n_alloc = 0;
    for (int32_t b = 0; b < l->doc.n_buffer_types; b++) {
        n_alloc += l->doc.buffer_types[b].allocator == b;
    }
    if (n_alloc == 0) { // nothing to pack: the same plan
        fprintf(stderr, "galloc: the graph has no buffer type to pack\n");
        return EXIT_USAGE;
    }
    struct galloc_whatif_tensors tensors;
    if (!galloc_whatif_tensors_build(&l->doc.graph, &l->plan, &tensors, &err)) {
        fprintf(stderr, "galloc: %s\n", err.message);
        return cli_exit_code(err.status);
    }
    if (!galloc_whatif_plan_copy(&l->plan, plan, &err)) {
        fprintf(stderr, "galloc: %s\n", err.message);
        galloc_whatif_tensors_free(&tensors);
        return cli_exit_code(err.status);
    }
    struct galloc_whatif_budget budget;
    galloc_whatif_budget_start(&budget, budget_ms, n_alloc);
    int code = EXIT_OK;
    for (int32_t b = 0; b < l->doc.n_buffer_types && code == EXIT_OK; b++) {
        if (l->doc.buffer_types[b].allocator != b) {
            continue;
        }
        struct galloc_whatif_result r;
        if (!galloc_whatif_from_plan_tensors(&l->doc.graph, &l->plan, &tensors, b, galloc_whatif_budget_next(&budget), &r, &err)) {
            fprintf(stderr, "galloc: buffer type %s: %s\n", safe(l->doc.buffer_type_names[b]), err.message);
            code = cli_exit_code(err.status);
            break;
        }
        int32_t k = find_planner(&r, planner);
        if (k < 0) {
            fprintf(stderr, "galloc: --offline: no planner named %s (best", planner);
            for (int32_t j = 1; j < GALLOC_WHATIF_N_PLANNERS; j++) {
                fprintf(stderr, ", %s", r.plans[j].name);
            }
            fprintf(stderr, ")\n");
            code = EXIT_USAGE;
        } else if (!r.plans[k].valid || !r.plans[k].checked) {
            fprintf(stderr, "galloc: buffer type %s: %s has no checked plan%s%s\n", safe(l->doc.buffer_type_names[b]), planner,
                    r.plans[k].note && r.plans[k].note[0] ? ": " : "", r.plans[k].note ? r.plans[k].note : "");
            code = EXIT_USAGE;
        } else if (!galloc_whatif_apply_indexed(&l->doc.graph, &tensors, &r, r.plans[k].chunks, r.plans[k].offsets, r.problem.n_items, plan, &err)) {
            fprintf(stderr, "galloc: buffer type %s: %s\n", safe(l->doc.buffer_type_names[b]), err.message);
            code = cli_exit_code(err.status);
        }
        galloc_whatif_free(&r);
    }
    galloc_whatif_tensors_free(&tensors);
    if (code == EXIT_OK && !galloc_explain_plan(&l->doc, plan, ex, &err)) {
        fprintf(stderr, "galloc: %s\n", err.message);
        code = cli_exit_code(err.status);
    }
    if (code != EXIT_OK) {
        galloc_plan_free(plan);
    }
    return code;
}

// galloc explain GRAPH.json --offline PLANNER: ggml's plan (A) against the offline one (B)
static int compare_offline(const char * path, const char * planner, uint32_t budget_ms, int fold, int32_t top) {
    struct loaded a;
    int code = load(path, &a);
    if (code != EXIT_OK) {
        return code;
    }
    struct galloc_plan    plan;
    struct galloc_explain ex;
    code = explain_offline(&a, planner, budget_ms, &plan, &ex);
    if (code == EXIT_OK) {
        struct galloc_explain_diff d;
        struct galloc_error        err;
        if (!galloc_explain_compare(&a.doc, &a.ex, &a.doc, &ex, fold < 0 ? a.ex.n_layers > 0 : fold == 1, &d, &err)) {
            fprintf(stderr, "galloc: %s\n", err.message);
            code = cli_exit_code(err.status);
        } else {
            char packed[96]; // a planner's name is short: find_planner found it among the planners
            if (strcmp(planner, "best") == 0) {
                snprintf(packed, sizeof(packed), "packed by the best offline planner");
            } else {
                snprintf(packed, sizeof(packed), "packed by the offline planner %s", planner);
            }
            print_compare(stdout, path, "ggml's plan", path, packed, &a.doc, &a.doc, &d, top);
            galloc_explain_diff_free(&d);
        }
        galloc_explain_free(&ex);
        galloc_plan_free(&plan);
    }
    loaded_free(&a);
    return code;
}

int cli_explain_command(int argc, char ** argv, const char * usage) {
    const char * paths[2] = { NULL, NULL };
    int          n_paths  = 0;
    long         top      = DEFAULT_TOP;
    int          fold     = -1; // -1: when names carry layers
    const char * offline  = NULL;
    unsigned long budget  = 1000;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--offline") == 0 && i + 1 < argc) {
            offline = argv[++i];
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            char * end = NULL;
            budget     = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || argv[i][0] == '-' || budget > UINT32_MAX) {
                fprintf(stderr, "galloc: --budget-ms needs a number of milliseconds\n%s", usage);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
            char * end = NULL;
            top        = strtol(argv[++i], &end, 10);
            if (*end != '\0' || top < 1 || top > 100000000) {
                fprintf(stderr, "galloc: --top needs a number of rows (1 or more)\n%s", usage);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--no-fold") == 0) {
            fold = 0;
        } else if (strcmp(argv[i], "--fold") == 0) {
            fold = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "galloc: unknown option\n%s", usage);
            return EXIT_USAGE;
        } else if (n_paths < 2) {
            paths[n_paths++] = argv[i];
        } else {
            fprintf(stderr, "galloc: explain takes one graph document, or two to compare\n%s", usage);
            return EXIT_USAGE;
        }
    }
    if (n_paths == 0) {
        fprintf(stderr, "galloc: no graph document\n%s", usage);
        return EXIT_USAGE;
    }
    if (offline) {
        if (n_paths != 1) {
            fprintf(stderr, "galloc: --offline compares one graph document's plans\n%s", usage);
            return EXIT_USAGE;
        }
        return compare_offline(paths[0], offline, (uint32_t) budget, fold, (int32_t) top);
    }
    if (n_paths == 2 && strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0) {
        fprintf(stderr, "galloc: only one of the two documents can be stdin (-)\n%s", usage);
        return EXIT_USAGE;
    }
    struct loaded a, b;
    int code = load(paths[0], &a);
    if (code != EXIT_OK) {
        return code;
    }
    if (n_paths == 1) {
        print_explain(stdout, paths[0], &a.doc, &a.ex, (int32_t) top, fold < 0 ? a.ex.n_layers > 0 : fold == 1);
        loaded_free(&a);
        return EXIT_OK;
    }
    code = load(paths[1], &b);
    if (code != EXIT_OK) {
        loaded_free(&a);
        return code;
    }
    struct galloc_explain_diff d;
    struct galloc_error        err;
    bool use_fold = fold < 0 ? (a.ex.n_layers > 0 || b.ex.n_layers > 0) : fold == 1;
    if (!galloc_explain_compare(&a.doc, &a.ex, &b.doc, &b.ex, use_fold, &d, &err)) {
        fprintf(stderr, "galloc: %s\n", err.message);
        code = cli_exit_code(err.status);
    } else {
        print_compare(stdout, paths[0], NULL, paths[1], NULL, &a.doc, &b.doc, &d, (int32_t) top);
        galloc_explain_diff_free(&d);
    }
    loaded_free(&a);
    loaded_free(&b);
    return code;
}
