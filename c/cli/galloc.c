// galloc.c: the command-line tool: plan graph documents, compare plans, list presets.
//
//   galloc plan GRAPH.json [-o PLAN.json] [--table] [--draw] [--compare [--budget-ms N]]
//   galloc compare PROBLEM.csv [--capacity N] [--budget-ms N]
//   galloc diff PLAN_A.json PLAN_B.json
//   galloc explain GRAPH.json [GRAPH_B.json | --offline PLANNER [--budget-ms N]] [--top N] [--fold|--no-fold]
//   galloc presets | galloc preset NAME
//   galloc model MODEL.gguf | --card NAME | --cards [llama.cpp's context flags]
//
// Exit status (cli-exit.h): 0 success (plans equal), 1 plans differ, 2 usage error,
// 3 invalid input document, 4 file error, 5 out of memory.

#include "cli-compare.h"
#include "cli-diff.h"
#include "cli-draw.h"
#include "cli-exit.h"
#include "cli-explain.h"
#include "cli-io.h"
#include "cli-model.h"
#include "cli-table.h"
#include "galloc-document.h"
#include "galloc-planner.h"
#include "galloc-presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char * usage_main =
    "usage: galloc <command> [options]\n"
    "\n"
    "Plans ggml compute graphs exactly as ggml's graph allocator (ggml_gallocr) does.\n"
    "\n"
    "commands:\n"
    "  plan GRAPH.json [-o PLAN.json] [--table] [--draw]\n"
    "                                             plan a graph document, write the plan document\n"
    "  plan GRAPH.json --compare                  compare ggml's plan with offline planners and the lower bound\n"
    "  compare PROBLEM.csv [--capacity N]         the same for a MiniMalloc CSV problem\n"
    "  diff PLAN_A.json PLAN_B.json               compare two plans (exit 1 when they differ)\n"
    "  explain GRAPH.json [GRAPH_B.json]          why the buffer is this big: the peak, what is live there;\n"
    "                                             with two graphs, what accounts for the difference\n"
    "  explain GRAPH.json --offline PLANNER       ggml's plan against an offline planner's, the same way\n"
    "  presets                                    list the built-in graph documents\n"
    "  preset NAME                                print a built-in graph document\n"
    "  model MODEL.gguf [-c N] [-ub N] [-fa on|off] ...\n"
    "                                             llama.cpp's compute graph and buffer size for a model\n"
    "\n"
    "Use - for stdin/stdout. `galloc <command> --help` for details.\n"
    "exit status: 0 ok, 1 plans differ, 2 usage, 3 invalid document, 4 file error, 5 out of memory,\n"
    "6 the what-if analysis declines the input (too many items live at once)\n";

static const char * usage_plan =
    "usage: galloc plan GRAPH.json [-o PLAN.json] [--table] [--draw] [--compare [--budget-ms N]]\n"
    "\n"
    "Reads a galloc-graph document (GRAPH.json, - for stdin), plans it like\n"
    "ggml_gallocr_new_n + reserve_n + alloc_graph, and writes the galloc-plan\n"
    "document to PLAN.json (default stdout). With --table, prints instead one\n"
    "line per tensor (steps, buffer/chunk/offset/size, how it was placed), then\n"
    "per buffer type the chunk sizes, total, peak of live bytes and overhead.\n"
    "With --draw, prints each chunk as text: one row per step (at most 80),\n"
    "byte offsets across, every live tensor drawn with its own symbol.\n"
    "With --compare, prints instead per buffer type ggml's total, the totals and times\n"
    "of offline planners (greedy by size, greedy by breadth, an exact search of at most\n"
    "N ms in all, default 2000, shared by the buffer types), the lower bound and how far\n"
    "each is above it.\n"
    "Errors name the JSON path of the culprit, on stderr; exit 3.\n";

static const char * usage_compare =
    "usage: galloc compare PROBLEM.csv [--capacity N] [--budget-ms N]\n"
    "\n"
    "Reads a MiniMalloc problem (id,lower,upper,size per line; a row is live over\n"
    "[lower, upper)), runs ggml's allocator over it in time order and the offline\n"
    "planners (the exact search for at most N ms, default 2000), and prints the table of\n"
    "`galloc plan --compare`. The capacity defaults to the number in a file name like\n"
    "A.1048576.csv. Errors name the line, on stderr; exit 3.\n";

static const char * usage_diff =
    "usage: galloc diff PLAN_A.json PLAN_B.json\n"
    "\n"
    "Compares two galloc-plan documents: every buffer's chunk sizes and every\n"
    "tensor's buffer, chunk and offset. Prints the first differences; exit 0 when\n"
    "equal, 1 when they differ, 3 when a document cannot be read.\n";

static const char * usage_explain =
    "usage: galloc explain GRAPH.json [GRAPH_B.json] [--top N] [--fold|--no-fold]\n"
    "       galloc explain GRAPH.json --offline PLANNER [--budget-ms N] [--top N]\n"
    "\n"
    "Plans the graph document (- for stdin) and prints, per buffer type, the allocator's\n"
    "size, the peak of live bytes and the step where it is reached, the tensors live\n"
    "there largest first (name, op, type, shape, bytes, % of the buffer), and for each\n"
    "chunk the tensor whose placement last raised its size. Names carrying a layer\n"
    "(attn_norm-12, blk.12.*, cache_k_l12) are folded into one row per name with the\n"
    "layers they span (--no-fold: one row per tensor).\n"
    "With two documents (e.g. flash attention off and on), prints per buffer type both\n"
    "sizes, the difference, how much of it is the peak and how much packing, and the\n"
    "names whose bytes at the peaks differ, largest difference first. B minus A.\n"
    "Each side's tensors placed above the other's size of their chunk are listed too.\n"
    "--offline PLANNER: A is ggml's plan of the graph, B the same graph packed by an\n"
    "offline planner (best, greedy-by-size, greedy-by-breadth, exact; the exact search\n"
    "for at most --budget-ms, default 1000, over all buffer types); the peak is the same,\n"
    "the difference is packing, and the tensors above say where.\n"
    "--top N: at most N rows per table (default 20).\n"
    "Errors name the JSON path of the culprit, on stderr; exit 3.\n";

static const char * usage_presets =
    "usage: galloc presets\n"
    "       galloc preset NAME\n"
    "\n"
    "`presets` lists the built-in graphs (name and what each shows); `preset NAME`\n"
    "prints that graph document, ready for `galloc plan -`.\n";

static bool wants_help(int argc, char ** argv) {
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return true;
        }
    }
    return false;
}

static int usage_error(const char * usage, const char * msg) {
    fprintf(stderr, "galloc: %s\n%s", msg, usage);
    return EXIT_USAGE;
}

static int cmd_plan(int argc, char ** argv) {
    if (wants_help(argc, argv)) {
        fputs(usage_plan, stdout);
        return EXIT_OK;
    }
    const char * input = NULL, * output = NULL;
    bool table = false, compare = false, draw = false;
    long budget_ms = CLI_COMPARE_BUDGET_MS;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--table") == 0) {
            table = true;
        } else if (strcmp(argv[i], "--draw") == 0) {
            draw = true;
        } else if (strcmp(argv[i], "--compare") == 0) {
            compare = true;
        } else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc) {
            char * end = NULL;
            budget_ms  = strtol(argv[++i], &end, 10);
            if (*end != '\0' || budget_ms < 0 || budget_ms > 86400000) {
                return usage_error(usage_plan, "--budget-ms needs a number of milliseconds");
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error(usage_plan, "unknown option");
        } else if (!input) {
            input = argv[i];
        } else {
            return usage_error(usage_plan, "more than one graph document");
        }
    }
    if (!input) {
        return usage_error(usage_plan, "no graph document");
    }

    struct galloc_planned planned;
    int                   code = cli_read_planned(input, &planned);
    if (code != EXIT_OK) {
        return code;
    }
    struct galloc_error            err;
    const struct galloc_document * doc  = &planned.doc;
    const struct galloc_plan *     plan = &planned.plan;
    char warning[1024];
    if (galloc_document_warning(doc, warning, sizeof(warning))) {
        fprintf(stderr, "galloc: %s: warning: %s\n", input, warning);
    }
    if (compare) {
        if (!cli_compare_plan(stdout, doc, plan, (uint32_t) budget_ms, &err)) {
            fprintf(stderr, "galloc: %s: %s\n", input, err.message);
            code = cli_exit_code(err.status);
        }
        galloc_planned_free(&planned);
        return code;
    }
    if (table) {
        cli_print_table(stdout, doc, plan);
    }
    if (draw) {
        cli_draw_plan(stdout, doc, plan, 64, 80);
    }
    if (!(table || draw) || output) {
        size_t out_len = 0;
        char * json    = galloc_document_write_plan(doc, plan, &out_len);
        if (!json) {
            fprintf(stderr, "galloc: out of memory writing the plan\n");
            code = EXIT_MEMORY;
        } else if (!cli_write_file(output, json, out_len, &err)) {
            fprintf(stderr, "galloc: %s\n", err.message);
            code = cli_exit_code(err.status);
        }
        free(json);
    }
    galloc_planned_free(&planned);
    return code;
}

static int cmd_diff(int argc, char ** argv) {
    if (wants_help(argc, argv)) {
        fputs(usage_diff, stdout);
        return EXIT_OK;
    }
    if (argc != 2) {
        return usage_error(usage_diff, "diff needs two plan documents");
    }
    // one text at a time: each is read into a compact plan and dropped before the next
    struct galloc_plan_document plans[2];
    static const char *         which[2] = { "first plan", "second plan" };
    for (int k = 0; k < 2; k++) {
        struct galloc_error err;
        size_t len  = 0;
        char * text = cli_read_file(argv[k], GALLOC_PLAN_DOCUMENT_MAX_BYTES, &len, &err);
        if (!text) {
            fprintf(stderr, "galloc: %s\n", err.message);
            if (k == 1) {
                galloc_plan_document_free(&plans[0]);
            }
            return cli_exit_code(err.status);
        }
        bool ok = galloc_plan_document_read(text, len, &plans[k], &err);
        free(text);
        if (!ok) {
            fprintf(stderr, "galloc: %s: %s: %s\n", argv[k], which[k], err.message);
            if (k == 1) {
                galloc_plan_document_free(&plans[0]);
            }
            return cli_exit_code(err.status);
        }
    }
    int result = cli_diff_plans(&plans[0], &plans[1], stdout, 20);
    galloc_plan_document_free(&plans[0]);
    galloc_plan_document_free(&plans[1]);
    return result ? EXIT_DIFFER : EXIT_OK;
}

static int cmd_presets(int argc, char ** argv) {
    if (wants_help(argc, argv)) {
        fputs(usage_presets, stdout);
        return EXIT_OK;
    }
    if (argc != 0) {
        return usage_error(usage_presets, "presets takes no arguments");
    }
    for (int i = 0; i < galloc_preset_count(); i++) {
        printf("%-40s %s\n", galloc_preset_name(i), galloc_preset_description(i));
    }
    return EXIT_OK;
}

static int cmd_preset(int argc, char ** argv) {
    if (wants_help(argc, argv)) {
        fputs(usage_presets, stdout);
        return EXIT_OK;
    }
    if (argc != 1) {
        return usage_error(usage_presets, "preset needs one NAME (see `galloc presets`)");
    }
    if (!galloc_preset_exists(argv[0])) {
        fprintf(stderr, "galloc: no preset named '%s' (see `galloc presets`)\n", argv[0]);
        return EXIT_USAGE;
    }
    size_t len  = 0;
    char * json = galloc_preset_document(argv[0], &len);
    if (!json) {
        fprintf(stderr, "galloc: out of memory building preset '%s'\n", argv[0]);
        return cli_exit_code(GALLOC_STATUS_NO_MEMORY);
    }
    struct galloc_error err;
    bool ok = cli_write_file(NULL, json, len, &err);
    free(json);
    if (!ok) {
        fprintf(stderr, "galloc: %s\n", err.message);
        return cli_exit_code(err.status);
    }
    return EXIT_OK;
}

static int run_command(int argc, char ** argv) {
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char * cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "plan") == 0) {
        return cmd_plan(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "compare") == 0) {
        if (wants_help(argc - 2, argv + 2)) {
            fputs(usage_compare, stdout);
            return EXIT_OK;
        }
        return cli_compare_command(argc - 2, argv + 2, usage_compare);
    }
    if (strcmp(cmd, "explain") == 0) {
        if (wants_help(argc - 2, argv + 2)) {
            fputs(usage_explain, stdout);
            return EXIT_OK;
        }
        return cli_explain_command(argc - 2, argv + 2, usage_explain);
    }
    if (strcmp(cmd, "diff") == 0) {
        return cmd_diff(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "presets") == 0) {
        return cmd_presets(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "preset") == 0) {
        return cmd_preset(argc - 2, argv + 2);
    }
    if (strcmp(cmd, "model") == 0) {
        return cli_model_command(argc - 2, argv + 2);
    }
    fprintf(stderr, "galloc: unknown command '%s'\n%s", cmd, usage_main);
    return EXIT_USAGE;
}

// every command: what it printed must have reached stdout (`> /dev/full` is a file error)
int main(int argc, char ** argv) {
    int code = run_command(argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && code != EXIT_FILE) {
        fprintf(stderr, "galloc: stdout: write error\n");
        code = EXIT_FILE;
    }
    return code;
}
