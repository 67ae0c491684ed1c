// cli-model.c: `galloc model` (see cli-model.h).
//
// Reads only the header of a GGUF file (a growing prefix, never the tensor data) or takes a
// built-in card, applies llama.cpp's flags (galloc_model_parse_flag: context and placement) and
// writes the graph document llama.cpp reserves (stdout or -o) and, on stderr, the compute buffer
// size per buffer type as llama.cpp logs it and llama.cpp's memory breakdown table. With
// --device (virtual devices, llama.cpp's order) the breakdown table goes to stdout: weights and
// KV cache per buffer type as llama.cpp places them, compute buffers from the scheduler; -o the
// scheduler's graph. --json prints the breakdown as galloc-memory JSON instead. Bad flags and values are usage errors naming the flag.

#include "cli-model.h"
#include "cli-model-fit.h"
#include "cli-exit.h"
#include "cli-io.h"
#include "galloc-gguf.h"
#include "galloc-model-place.h"
#include "galloc-model.h"
#include "galloc-status.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char * usage_model =
    "usage: galloc model MODEL.gguf [-c N] [-b N] [-ub N] [-fa on|off|auto] [-ctk T] [-ctv T] [-np N]\n"
    "                   [--graph prompt|decode] [-o GRAPH.json]\n"
    "                   [--device KIND[:MEMORY] ...] [-ngl N] [-sm layer|none] [-ts N0,N1] [-mg I]\n"
    "                   [-ot PATTERN=BUFT,...] [-cmoe] [-ncmoe N] [-nkvo] [--no-op-offload] [--swa-full] [--json]\n"
    "       galloc model --card NAME [same options]\n"
    "       galloc model --cards\n"
    "\n"
    "Builds the compute graph llama.cpp (3f545bec) reserves for the model with these context\n"
    "settings, writes its graph document (stdout, or GRAPH.json) and prints on stderr the\n"
    "compute buffer size per buffer type as llama.cpp logs it (CPU backend). Only the GGUF\n"
    "header is read. A model whose graph galloc cannot build exactly (another architecture, a\n"
    "tensor or key value its builder does not handle) is refused, naming what.\n"
    "\n"
    "  -c, --ctx-size N        context length (default 0: the model's training context)\n"
    "  -b, --batch-size N      logical batch (default 2048)\n"
    "  -ub, --ubatch-size N    micro-batch: tokens per graph (default 512)\n"
    "  -fa, --flash-attn X     on, off or auto (default auto: on for the CPU backend)\n"
    "  -ctk, --cache-type-k T  K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1 (default f16)\n"
    "  -ctv, --cache-type-v T  V cache type (default f16; quantized needs flash attention)\n"
    "  -np, --parallel N       sequences, each with its own KV stream (default 1)\n"
    "  --graph prompt|decode   the full micro-batch reserved at context creation (default), or\n"
    "                          the graph of a one-token context (-b 1 -ub 1)\n"
    "  --card NAME, --cards    a built-in model card instead of a file; list the cards\n"
    "  --swa-full              the sliding-window cache as large as the context\n"
    "\n"
    "Devices and placement (llama.cpp's memory breakdown, as llama-fit-params computes it):\n"
    "  --device KIND[:MEMORY]  a device, in llama.cpp's order (RPC devices first): rpc, llvmpipe\n"
    "                          (both verified against real runs), cuda, vulkan, metal, rocm (read from\n"
    "                          their code); MEMORY like 24GiB or 12000MiB (default: the kind's)\n"
    "  -ngl, --gpu-layers N    layers on the devices, the output layer counted (default: all)\n"
    "  -sm, --split-mode X     layer (default) or none (only -mg's device); row is not modelled\n"
    "  -ts, --tensor-split L   proportions per device, e.g. 3,1 (default: by the devices' memory)\n"
    "  -mg, --main-gpu I       the device of -sm none\n"
    "  -ot, --override-tensor PATTERN=BUFT,...  weights whose name matches (ECMAScript) to BUFT\n"
    "  -cmoe, -ncmoe N         the experts of all (of the first N) layers in the CPU\n"
    "  -nkvo                   the KV cache in the CPU buffer type\n"
    "  --no-op-offload, --no-host, --no-mmap  as llama.cpp (the breakdown is measured with load mode none)\n"
    "  --json                  print the breakdown as {\"format\": \"galloc-memory\", ...} on stdout\n"
    "\n"
    "llama.cpp's --fit (common/fit.cpp: the flags llama-fit-params would print, found as it finds them):\n"
    "  --fit                   lower -c (unless given), choose -ngl, -ts and the -ot overrides of MoE\n"
    "                          experts so that every device keeps --fit-target free; prints llama.cpp's\n"
    "                          messages, the flags and the breakdown with them (--json: galloc-fit JSON).\n"
    "                          Flags given (-ngl, -ts, -ot, -cmoe) make it fail as llama.cpp's does (exit 1)\n"
    "  --fit-target MiB[,MiB]  the margin each device keeps (default 1024), one value for all or per device\n"
    "  --fit-ctx N             the smallest context --fit lowers to (default 4096)\n"
    "  --host-memory MEMORY    the host's memory (llama.cpp: the machine's); --fit without --device needs it\n"
    "\n"
    "Does it fit (each device keeps --fit-target free, as llama.cpp's --fit; the host when --host-memory\n"
    "is given). Not llama.cpp's --fit search: every point is a whole placement with one flag changed.\n"
    "  --sweep ngl|c           the memory per device at every -ngl (0 to all), or -c 1024, 2048, ... up\n"
    "                          to the training context, and whether it fits\n"
    "  --max-ctx               the largest -c (a multiple of 256) that fits at these flags\n"
    "  --host-memory MEMORY    the host's memory, checked too (default: not checked)\n"
    "With --device, -o GRAPH.json writes the graph the scheduler hands to ggml_gallocr (its buffer\n"
    "types and ids; --graph decode: a one-token context's), for plan, explain and diff.\n"
    "exit status: 0 ok, 2 usage or settings llama.cpp refuses, 3 invalid model file (or a graph past the\n"
    "library's limits), 4 file error, 5 out of memory\n"
    "architectures built: ";

static int usage_error(const char * fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "galloc model: ");
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n(galloc model --help for usage)\n");
    va_end(args);
    return EXIT_USAGE;
}

static size_t file_source(void * ctx, uint64_t offset, uint8_t * dst, size_t n) {
    (void) offset; // read in order (galloc_gguf_read_source asks for each byte once, in order)
    return fread(dst, 1, n, (FILE *) ctx);
}

// reads the header of a GGUF file: a prefix, at least doubled until the reader has what it needs
static int read_gguf(const char * path, struct galloc_gguf * g) {
    FILE * f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "galloc model: %s: %s\n", path, strerror(errno));
        return EXIT_FILE;
    }
    uint64_t file_size = GALLOC_GGUF_SIZE_UNKNOWN;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        file_size = end >= 0 ? (uint64_t) end : GALLOC_GGUF_SIZE_UNKNOWN;
    }
    rewind(f);
    struct galloc_error err;
    enum galloc_gguf_status st = galloc_gguf_read_source(file_source, f, file_size, g, &err);
    int code = EXIT_OK;
    if (ferror(f)) {
        fprintf(stderr, "galloc model: %s: read error\n", path);
        code = EXIT_FILE;
        galloc_gguf_free(g);
    } else if (st != GALLOC_GGUF_OK) {
        fprintf(stderr, "galloc model: %s: %s\n", path, err.message);
        code = cli_exit_code(err.status);
    }
    fclose(f);
    return code;
}

static void list_cards(void) {
    for (int i = 0; i < galloc_model_card_count(); i++) {
        printf("%-22s %s (%s)\n", galloc_model_card_name(i), galloc_model_card_description(i), galloc_model_card_source(i));
    }
}

// the breakdown over devices: llama.cpp's table (or galloc-memory JSON) on stdout
static int print_placement(const struct galloc_model * m, const struct galloc_model_settings * s,
                           struct galloc_place_settings * p, bool json, const char * output) {
    struct galloc_error err;
    p->keep_graph = output != NULL;
    struct galloc_placement * pl = galloc_model_place(m, s, p, &err);
    if (!pl) {
        fprintf(stderr, "galloc model: %s\n", err.message);
        return err.status == GALLOC_STATUS_ARGUMENT ? EXIT_USAGE : cli_exit_code(err.status);
    }
    int code = EXIT_OK;
    if (output) {
        struct galloc_error werr;
        if (!pl->graph) {
            fprintf(stderr, "galloc model: -o: no scheduler graph without --device (the graph alone: leave out --json)\n");
            galloc_placement_free(pl);
            return EXIT_USAGE;
        }
        if (!cli_write_file(output, pl->graph, pl->graph_len, &werr)) {
            fprintf(stderr, "galloc model: %s\n", werr.message);
            galloc_placement_free(pl);
            return EXIT_FILE;
        }
    }
    char * text = json ? galloc_placement_json(pl) : galloc_placement_table(pl);
    if (!text) {
        fprintf(stderr, "galloc model: out of memory\n");
        code = EXIT_MEMORY;
    } else {
        fputs(text, stdout);
        if (!pl->has_compute) {
            fprintf(stderr, "galloc model: the compute column over devices is not modelled yet (the scheduler): %s\n",
                    json ? "null" : "shown as 0");
        }
    }
    free(text);
    galloc_placement_free(pl);
    return code;
}

int cli_model_command(int argc, char ** argv) {
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    const char * file = NULL, * card = NULL, * output = NULL;
    bool json = false;
    struct cli_fit_options fit = { CLI_FIT_NONE, (uint64_t) 1024 << 20, 0, { { 0 }, 0, 0 } };
    galloc_fit_settings_default(&fit.llama);
    for (int i = 0; i < argc; i++) {
        const char * a = argv[i];
        const char * v = i + 1 < argc ? argv[i + 1] : NULL;
        struct galloc_error ferr;
        int took = galloc_fit_parse_flag(argc, argv, i, &fit.llama, &ferr); // --fit-target, --fit-ctx, --host-memory, -c 0
        if (took == 0) {
            took = galloc_model_parse_flag(argc, argv, i, &s, &p, &ferr);
        }
        if (took < 0) {
            if (ferr.status != GALLOC_STATUS_ARGUMENT) {
                fprintf(stderr, "galloc model: %s\n", ferr.message);
                return cli_exit_code(ferr.status);
            }
            return usage_error("%s", ferr.message);
        }
        if (took > 0) {
            i += took - 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            char archs[2048];
            galloc_model_arch_list(archs, sizeof(archs));
            printf("%s%s\n", usage_model, archs);
            return EXIT_OK;
        } else if (strcmp(a, "--cards") == 0) {
            list_cards();
            return EXIT_OK;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        } else if (strcmp(a, "--max-ctx") == 0) {
            fit.mode = CLI_FIT_MAX_CTX;
            continue;
        } else if (strcmp(a, "--sweep") == 0) {
            if (v && strcmp(v, "ngl") == 0) {
                fit.mode = CLI_FIT_SWEEP_NGL;
            } else if (v && strcmp(v, "c") == 0) {
                fit.mode = CLI_FIT_SWEEP_CTX;
            } else {
                return usage_error("%s: '%s' is not ngl or c", a, v ? v : "");
            }
        } else if (strcmp(a, "--fit") == 0 || strcmp(a, "-fit") == 0) {
            // llama.cpp's --fit on|off takes a value; galloc's --fit alone runs it (on also accepted)
            if (v && strcmp(v, "on") == 0) {
                i++;
            } else if (v && strcmp(v, "off") == 0) {
                i++;
                fit.mode = fit.mode == CLI_FIT_LLAMA ? CLI_FIT_NONE : fit.mode;
                continue;
            }
            fit.mode = CLI_FIT_LLAMA;
            continue;
        } else if (strcmp(a, "--card") == 0) {
            if (!v) {
                return usage_error("%s: needs a card name (galloc model --cards lists them)", a);
            }
            card = v;
        } else if (strcmp(a, "-o") == 0) {
            if (!v) {
                return usage_error("%s: needs a file name", a);
            }
            output = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (!file) {
            file = a;
            continue;
        } else {
            return usage_error("more than one model file ('%s', '%s')", file, a);
        }
        i++; // the option's value
    }
    fit.margin      = fit.llama.margins[0]; // --sweep and --max-ctx: the first device's margin, the host's memory
    fit.host_memory = fit.llama.host_memory;
    if (!file == !card) {
        return usage_error("%s", file ? "give a model file or --card NAME, not both" : "no model file (or --card NAME)");
    }

    struct galloc_error err;
    struct galloc_model * m = NULL;
    int code = EXIT_OK;
    if (card) {
        if (!galloc_model_from_card(card, &m, &err)) {
            fprintf(stderr, "galloc model: %s\n", err.message);
            return cli_exit_code(err.status);
        }
    } else {
        struct galloc_gguf g;
        const int read = read_gguf(file, &g);
        if (read != EXIT_OK) {
            return read;
        }
        bool ok = galloc_model_from_gguf(&g, &m, &err);
        galloc_gguf_free(&g);
        if (!ok) {
            fprintf(stderr, "galloc model: %s: %s\n", file, err.message);
            return cli_exit_code(err.status);
        }
    }

    if (fit.mode == CLI_FIT_LLAMA) {
        code = output ? usage_error("--fit prints the flags and the breakdown (no -o)") : cli_model_llama_fit(m, &s, &p, &fit, json);
        galloc_model_free(m);
        return code;
    }
    if (fit.mode != CLI_FIT_NONE) {
        struct galloc_placement * pl = NULL;
        struct galloc_place_settings q = p;
        q.skip_compute = true;
        if (output || json) {
            code = usage_error("--sweep and --max-ctx print a table (no -o, no --json)");
        } else if (!(pl = galloc_model_place(m, &s, &q, &err))) {
            fprintf(stderr, "galloc model: %s\n", err.message);
            code = err.status == GALLOC_STATUS_ARGUMENT ? EXIT_USAGE : cli_exit_code(err.status);
        } else {
            code = cli_model_fit(m, &s, &p, &fit, pl->n_layer, pl->n_ctx_train);
        }
        galloc_placement_free(pl);
        galloc_model_free(m);
        return code;
    }
    if (p.n_devices > 0 || json) {
        code = print_placement(m, &s, &p, json, output);
        galloc_model_free(m);
        return code;
    }
    struct galloc_error werr;
    size_t len = 0;
    struct galloc_model_sizes z;
    char * doc = galloc_model_document_sizes(m, &s, &z, &len, &err);
    if (!doc) {
        fprintf(stderr, "galloc model: %s\n", err.message);
        code = cli_exit_code(err.status); // settings llama.cpp refuses (GALLOC_STATUS_ARGUMENT): a usage error
    } else if (!cli_write_file(output, doc, len, &werr)) {
        fprintf(stderr, "galloc model: %s\n", werr.message);
        code = EXIT_FILE;
    } else {
        char name[256]; // general.name, from the file: control characters (terminal escapes) as '?'
        fprintf(stderr, "%s (%s): n_ctx = %lld, n_ctx_seq = %lld", cli_safe_text(name, sizeof(name), galloc_model_name(m), 0, 0),
                galloc_model_arch_name(m),
                (long long) z.n_ctx, (long long) z.n_ctx_seq);
        if (z.n_ctx_swa > 0) {
            fprintf(stderr, ", SWA cache = %lld cells", (long long) z.n_ctx_swa);
        }
        fprintf(stderr, ", %lld tokens, graph nodes = %d\n", (long long) z.n_tokens, z.n_nodes);
        fprintf(stderr, "KV cache = %.2f MiB\n", (double) z.kv_bytes / 1024.0 / 1024.0);
        if (z.rs_bytes > 0) {
            fprintf(stderr, "recurrent states = %.2f MiB\n", (double) z.rs_bytes / 1024.0 / 1024.0);
        }
        for (int b = 0; b < z.n_bufts; b++) {
            fprintf(stderr, "%s compute buffer size = %.2f MiB\n", z.names[b], (double) z.compute[b] / 1024.0 / 1024.0);
        }
        // the CPU's breakdown (weights, KV cache, the compute buffer just planned), as llama.cpp prints it
        p.skip_compute = true;
        struct galloc_placement * pl = galloc_model_place(m, &s, &p, &err);
        const int32_t cpu = galloc_placement_buft_index(pl, "CPU");
        if (cpu >= 0 && z.n_bufts == 1) {
            pl->bufts[cpu].compute = z.compute[0];
        }
        char * table = pl ? galloc_placement_table(pl) : NULL;
        if (table) {
            fputs(table, stderr);
        }
        free(table);
        galloc_placement_free(pl);
    }
    free(doc);
    galloc_model_free(m);
    return code;
}
