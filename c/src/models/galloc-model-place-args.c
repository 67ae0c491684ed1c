// galloc-model-place-args.c: llama.cpp's command-line flags for the context and the placement.
//
// One parser for the CLI, the WASM module and the tests: -c -b -ub -fa -ctk -ctv -np --graph
// --swa-full, -ngl -sm -ts -mg -ot -cmoe -ncmoe -nkvo --no-op-offload --no-mmap --no-host and
// --device KIND[:MEMORY]. Values are read as llama.cpp's argument parser reads them; a bad one is
// an error whose message starts with the flag.

#include "galloc-error.h"
#include "galloc-model-place.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is(const char * a, const char * s1, const char * s2) {
    return strcmp(a, s1) == 0 || (s2 && strcmp(a, s2) == 0);
}

static bool parse_count(const char * text, long long max, long long * out) {
    if (!text || text[0] < '0' || text[0] > '9') {
        return false;
    }
    errno = 0;
    char * end = NULL;
    const long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v > max) {
        return false;
    }
    *out = v;
    return true;
}

// an integer as std::stoi reads it: optional sign and digits, trailing text ignored
static bool parse_stoi(const char * text, long long * out) {
    if (!text) {
        return false;
    }
    errno = 0;
    char * end = NULL;
    const long long v = strtoll(text, &end, 10);
    if (end == text || errno != 0 || v < -2147483648LL || v > 2147483647LL) {
        return false;
    }
    *out = v;
    return true;
}

bool galloc_parse_memory(const char * text, uint64_t * out) {
    if (!text || text[0] < '0' || text[0] > '9') {
        return false;
    }
    errno = 0;
    char * end = NULL;
    const double v = strtod(text, &end);
    if (errno != 0 || end == text || v < 0) {
        return false;
    }
    static const struct { const char * unit; double scale; } units[] = {
        { "", 1.0 }, { "B", 1.0 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
        { "TiB", 1099511627776.0 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            const double bytes = v * units[i].scale;
            if (bytes >= 18446744073709551616.0) {
                return false;
            }
            *out = (uint64_t) bytes;
            return true;
        }
    }
    return false;
}

int galloc_model_parse_flag(int argc, char ** argv, int i, struct galloc_model_settings * s, struct galloc_place_settings * p,
                            struct galloc_error * err) {
    const char * a = argv[i];
    const char * v = i + 1 < argc ? argv[i + 1] : NULL;
    const char * vs = v ? v : "";
    long long n = 0;
    // flags without a value
    if (is(a, "-nkvo", "--no-kv-offload")) { p->no_kv_offload = true; return 1; }
    if (is(a, "-kvo", "--kv-offload")) { p->no_kv_offload = false; return 1; }
    if (is(a, "--no-op-offload", NULL)) { p->no_op_offload = true; return 1; }
    if (is(a, "--op-offload", NULL)) { p->no_op_offload = false; return 1; }
    if (is(a, "--no-mmap", NULL)) { return 1; } // the breakdown is measured with load mode none (see the header)
    if (is(a, "--no-host", NULL)) { p->no_host = true; return 1; }
    if (is(a, "--swa-full", NULL)) { s->swa_full = true; return 1; }
    if (is(a, "-cmoe", "--cpu-moe")) {
        return galloc_place_add_override(p, GALLOC_OVERRIDE_CPU_MOE, NULL, 0, err) ? 1 : -1;
    }
    // flags with a value
    if (is(a, "-c", "--ctx-size")) {
        if (!parse_count(v, 1 << 24, &n)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a context length (0 to 16777216)", a, vs);
            return -1;
        }
        s->n_ctx = n;
    } else if (is(a, "-b", "--batch-size")) {
        if (!parse_count(v, 1 << 24, &n)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a batch size (0 to 16777216)", a, vs);
            return -1;
        }
        s->n_batch = n;
    } else if (is(a, "-ub", "--ubatch-size")) {
        if (!parse_count(v, 1 << 24, &n)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a micro-batch size (0 to 16777216)", a, vs);
            return -1;
        }
        s->n_ubatch = n;
    } else if (is(a, "-np", "--parallel")) {
        if (!parse_count(v, 256, &n) || n < 1) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a number of sequences (1 to 256)", a, vs);
            return -1;
        }
        s->n_seq = (int32_t) n;
    } else if (is(a, "-fa", "--flash-attn")) {
        if (v && (strcmp(v, "on") == 0 || strcmp(v, "auto") == 0)) {
            s->flash_attn = 1;
        } else if (v && strcmp(v, "off") == 0) {
            s->flash_attn = 0;
        } else {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not on, off or auto", a, vs);
            return -1;
        }
    } else if (is(a, "-ctk", "--cache-type-k") || is(a, "-ctv", "--cache-type-v")) {
        const bool is_k = is(a, "-ctk", "--cache-type-k");
        if (!galloc_model_cache_type_from_name(v, is_k ? &s->type_k : &s->type_v)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: unsupported cache type '%s' (f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1)", a, vs);
            return -1;
        }
    } else if (is(a, "--graph", NULL)) {
        if (v && strcmp(v, "prompt") == 0) {
            s->graph = GALLOC_MODEL_GRAPH_PROMPT;
        } else if (v && strcmp(v, "decode") == 0) {
            s->graph = GALLOC_MODEL_GRAPH_DECODE;
        } else {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not prompt or decode", a, vs);
            return -1;
        }
    } else if (is(a, "-ngl", "--gpu-layers") || is(a, "--n-gpu-layers", NULL)) {
        // as llama.cpp keeps it: auto -1 (--fit's to choose), all -2; any negative places every layer
        if (v && strcmp(v, "auto") == 0) {
            p->n_gpu_layers = -1;
        } else if (v && strcmp(v, "all") == 0) {
            p->n_gpu_layers = -2;
        } else if (parse_stoi(v, &n)) {
            p->n_gpu_layers = (int32_t) n;
        } else {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a number of layers, 'auto' or 'all'", a, vs);
            return -1;
        }
    } else if (is(a, "-sm", "--split-mode")) {
        if (v && strcmp(v, "none") == 0) {
            p->split_mode = GALLOC_SPLIT_NONE;
        } else if (v && strcmp(v, "layer") == 0) {
            p->split_mode = GALLOC_SPLIT_LAYER;
        } else if (v && strcmp(v, "row") == 0) {
            p->split_mode = GALLOC_SPLIT_ROW;
        } else if (v && strcmp(v, "tensor") == 0) {
            galloc_fail(err, GALLOC_STATUS_DECLINED, "%s: tensor parallelism (-sm tensor) is not modelled", a);
            return -1;
        } else {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: invalid value '%s' (none, layer, row, tensor)", a, vs);
            return -1;
        }
    } else if (is(a, "-ts", "--tensor-split")) {
        // split at runs of ',' and '/'; llama.cpp refuses as many values as llama_max_devices (16)
        float vals[GALLOC_PLACE_MAX_DEVICES];
        int32_t k = 0;
        const char * q = v;
        if (!v) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: needs proportions, e.g. 3,1", a);
            return -1;
        }
        while (*q) {
            const size_t len = strcspn(q, ",/");
            if (k >= GALLOC_PLACE_MAX_DEVICES - 1) {
                galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: got %d input configs or more, but llama.cpp has at most %d devices", a,
                            (int) k + 1, GALLOC_PLACE_MAX_DEVICES);
                return -1;
            }
            char buf[64];
            if (len == 0 || len >= sizeof(buf)) {
                galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a list of proportions", a, v);
                return -1;
            }
            memcpy(buf, q, len);
            buf[len] = '\0';
            char * end = NULL;
            errno = 0;
            const float f = strtof(buf, &end);
            if (end == buf || errno != 0) {
                galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a number (std::stof)", a, buf);
                return -1;
            }
            vals[k++] = f;
            q += len;
            q += strspn(q, ",/");
        }
        p->n_tensor_split = k;
        for (int32_t j = 0; j < GALLOC_PLACE_MAX_DEVICES; j++) {
            p->tensor_split[j] = j < k ? vals[j] : 0.0f;
        }
    } else if (is(a, "-mg", "--main-gpu")) {
        if (!parse_stoi(v, &n)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a device index", a, vs);
            return -1;
        }
        p->main_gpu = (int32_t) n;
    } else if (is(a, "-ot", "--override-tensor")) {
        if (!v) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: needs PATTERN=BUFFER_TYPE,...", a);
            return -1;
        }
        if (!galloc_place_add_override(p, GALLOC_OVERRIDE_PATTERN, v, 0, err)) {
            return -1;
        }
    } else if (is(a, "-ncmoe", "--n-cpu-moe")) {
        if (!parse_stoi(v, &n) || n < 0) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: invalid value '%s'", a, vs);
            return -1;
        }
        if (!galloc_place_add_override(p, GALLOC_OVERRIDE_N_CPU_MOE, NULL, (int32_t) n, err)) {
            return -1;
        }
    } else if (is(a, "--device", NULL)) {
        // KIND or KIND:MEMORY
        char kind_name[32];
        const char * colon = v ? strchr(v, ':') : NULL;
        const size_t len = !v ? 0 : colon ? (size_t) (colon - v) : strlen(v);
        enum galloc_device_kind kind;
        uint64_t memory = 0;
        if (!v || len == 0 || len >= sizeof(kind_name)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not KIND[:MEMORY] (rpc, llvmpipe, cuda, vulkan, metal, rocm)", a, vs);
            return -1;
        }
        memcpy(kind_name, v, len);
        kind_name[len] = '\0';
        if (!galloc_device_kind_from_name(kind_name, &kind)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: unknown device kind '%s' (rpc, llvmpipe, cuda, vulkan, metal, rocm)", a, kind_name);
            return -1;
        }
        if (colon && (!galloc_parse_memory(colon + 1, &memory) || memory == 0)) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a memory size (24GiB, 12000MiB, 8GB, bytes)", a, colon + 1);
            return -1;
        }
        if (!galloc_place_add_device(p, kind, memory, err)) {
            return -1;
        }
    } else {
        return 0;
    }
    if (!v) {
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: needs a value", a);
        return -1;
    }
    return 2;
}

bool galloc_model_parse_flags(const char * line, struct galloc_model_settings * s, struct galloc_place_settings * p,
                              struct galloc_error * err) {
    // split at spaces (no quoting); at most 256 words
    char * copy = strdup(line ? line : "");
    char * words[256];
    int n = 0;
    if (!copy) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    for (char * t = strtok(copy, " \t\n"); t; t = strtok(NULL, " \t\n")) {
        if (n == 256) {
            free(copy);
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "more than 256 words of flags");
        }
        words[n++] = t;
    }
    for (int i = 0; i < n;) {
        const int k = galloc_model_parse_flag(n, words, i, s, p, err);
        if (k < 0) {
            free(copy);
            return false;
        }
        if (k == 0) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "unknown option '%.100s'", words[i]);
            free(copy);
            return false;
        }
        i += k;
    }
    free(copy);
    return true;
}
