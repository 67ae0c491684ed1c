// test-model-place-archs.c: llama.cpp's placement over devices for every architecture galloc builds.
//
// 1. tests/devices-archs/manifest.tsv: llama.cpp 3f545bec over RPC devices on the small test
//    models: real runs (../shared/devices/placements): the graph the scheduler handed to
//    ggml_gallocr, whose every weight, KV cache and recurrent state tensor carries the buffer type
//    llama.cpp placed it in. galloc's scheduler graph must equal it tensor for tensor (buffer
//    types and node/leaf ids included); and no_alloc runs (llama-fit-params' way) of every built
//    architecture at 6 settings: llama_get_memory_breakdown in bytes (breakdowns.tsv), every
//    buffer type's model, context and compute equal, and for 16 of them the scheduler's graphs.
// 2. Every architecture tests/model-archs/archs.tsv marks built, at one and two devices, -ngl 99
//    and partial, -nkvo and an uneven -ts: placed (weights, memory and the scheduler's compute
//    buffers), with the model and context columns summing to llama.cpp's CPU breakdown of the
//    same model (tests/model-archs/graphs/NAME.breakdown.tsv: -c 256, the same cells), no memory
//    on a device with -nkvo, no weights but the output layer's on the device at -ngl 1.
// 3. Hand-derived: rope_freqs of layers on two devices is one tensor per device (TENSOR_DUPLICATED);
//    the recurrent states follow their layer's device; an op llvmpipe's test is not modelled for
//    is refused, naming it.

#include "check.h"
#include "files.h"
#include "galloc-gguf.h"
#include "galloc-model-place.h"
#include "galloc-model.h"
#include "galloc-status.h"
#include "model-compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLACE_DIR "tests/devices-archs"
#define ARCHS_DIR "tests/model-archs"

static struct galloc_model * load_model(const char * name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/gguf/%s.meta.gguf", ARCHS_DIR, name);
    size_t len;
    char * bytes = read_whole_file(path, &len);
    if (!bytes) {
        fprintf(stderr, "  %s: unreadable\n", path);
        return NULL;
    }
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err;
    struct galloc_model * m = NULL;
    if (galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, &err) != GALLOC_GGUF_OK) {
        fprintf(stderr, "  %s: %s\n", path, err.message);
    } else {
        if (!galloc_model_from_gguf(&g, &m, &err)) {
            fprintf(stderr, "  %s: %s\n", path, err.message);
        }
        galloc_gguf_free(&g);
    }
    free(bytes);
    return m;
}

static struct galloc_placement * place(const char * model, const char * flags, bool keep_graph, struct galloc_error * err) {
    struct galloc_model * m = load_model(model);
    if (!m) {
        err->status = GALLOC_STATUS_IO;
        snprintf(err->message, sizeof(err->message), "%s: no model", model);
        return NULL;
    }
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    struct galloc_placement * pl = NULL;
    if (galloc_model_parse_flags(flags, &s, &p, err)) {
        p.keep_graph = keep_graph;
        pl = galloc_model_place(m, &s, &p, err);
    }
    galloc_model_free(m);
    return pl;
}

// breakdowns.tsv's rows of this setting ("setting\tbuffer_type\tdevice\thost_or_device\tmodel\tcontext\tcompute")
// against the placement; false with *found 0 when none are recorded
static bool same_breakdown(const char * setting, const struct galloc_placement * pl, const char * text, int * found) {
    bool ok = true;
    int n_rows = 0;
    const size_t n = strlen(setting);
    for (const char * line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char name[128], dev[32], where[16];
        unsigned long long mb, cb, pb;
        if (strncmp(line, setting, n) != 0 || line[n] != '\t' ||
            sscanf(line + n + 1, "%127[^\t]\t%31[^\t]\t%15[^\t]\t%llu\t%llu\t%llu", name, dev, where, &mb, &cb, &pb) != 6) {
            continue;
        }
        n_rows++;
        const int32_t b = galloc_placement_buft_index(pl, name);
        if (b < 0 || pl->bufts[b].model != mb || pl->bufts[b].context != cb || pl->bufts[b].compute != pb ||
            pl->bufts[b].is_host != (strcmp(where, "host") == 0)) {
            fprintf(stderr, "  %s: %s: galloc %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", llama.cpp %llu/%llu/%llu\n", setting, name,
                    b >= 0 ? pl->bufts[b].model : 0, b >= 0 ? pl->bufts[b].context : 0, b >= 0 ? pl->bufts[b].compute : 0, mb, cb, pb);
            ok = false;
        }
    }
    *found = n_rows;
    if (n_rows > 0 && n_rows != pl->n_bufts) {
        fprintf(stderr, "  %s: %d buffer types, llama.cpp %d\n", setting, (int) pl->n_bufts, n_rows);
        ok = false;
    }
    return ok;
}

static void test_captured(void) {
    size_t len;
    char * text = read_whole_file(PLACE_DIR "/manifest.tsv", &len);
    char * breakdowns = read_whole_file(PLACE_DIR "/breakdowns.tsv", &len);
    CHECK(text != NULL && breakdowns != NULL);
    int n = 0, n_graphs = 0, n_equal = 0, n_breakdowns = 0, n_breakdowns_equal = 0;
    char * save = NULL;
    bool header = true;
    for (char * line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        if (header) {
            header = false;
            continue;
        }
        char * setting = line, * model = strchr(line, '\t');
        char * flags = model ? strchr(model + 1, '\t') : NULL;
        CHECK(model && flags);
        if (!model || !flags) {
            continue;
        }
        *model++ = '\0';
        *flags++ = '\0';
        n++;
        struct galloc_error err;
        struct galloc_placement * pl = place(model, flags, true, &err);
        if (!pl) {
            fprintf(stderr, "  %s: %s\n", setting, err.message);
            CHECK(false);
            continue;
        }
        char path[512];
        snprintf(path, sizeof(path), "%s/graphs/%s.graph.json", PLACE_DIR, setting);
        size_t rlen;
        char * ref = read_whole_file(path, &rlen);
        if (ref) {
            n_graphs++;
            model_compare_reset();
            const bool same = pl->graph && model_same_graph(setting, pl->graph, pl->graph_len, ref, rlen);
            n_equal += same;
            CHECK(same);
            free(ref);
        }
        int found = 0;
        const bool same = breakdowns && same_breakdown(setting, pl, breakdowns, &found);
        if (found > 0) {
            n_breakdowns++;
            n_breakdowns_equal += same;
            CHECK(same);
        }
        galloc_placement_free(pl);
    }
    free(text);
    free(breakdowns);
    fprintf(stderr, "  %d settings: %d of %d scheduler graphs and %d of %d breakdowns (bytes per buffer type) equal to llama.cpp's\n", n,
            n_equal, n_graphs, n_breakdowns_equal, n_breakdowns);
    CHECK(n_graphs == 107);
    CHECK(n_breakdowns == 312);
}

// llama.cpp's CPU breakdown of a test model: its model and context bytes
static bool cpu_breakdown(const char * name, uint64_t * model, uint64_t * context) {
    char path[512];
    snprintf(path, sizeof(path), "%s/graphs/%s.breakdown.tsv", ARCHS_DIR, name);
    size_t len;
    char * text = read_whole_file(path, &len);
    if (!text) {
        return false;
    }
    unsigned long long mb = 0, cb = 0, pb = 0;
    const char * row = strstr(text, "\nCPU\t");
    const bool ok = row && sscanf(row + 1, "CPU\t%*[^\t]\t%*[^\t]\t%llu\t%llu\t%llu", &mb, &cb, &pb) == 3;
    free(text);
    *model   = mb;
    *context = cb;
    return ok;
}

static void test_every_arch(void) {
    static const char * const settings[] = {
        "--device rpc -ngl 99", "--device rpc --device rpc -ngl 99", "--device rpc -ngl 1", "--device rpc -ngl 99 -nkvo",
        "--device rpc --device rpc -ngl 99 -ts 1,3",
    };
    size_t len;
    char * text = read_whole_file(ARCHS_DIR "/archs.tsv", &len);
    CHECK(text != NULL);
    int n_archs = 0, n_placed = 0, n_tried = 0;
    char * save = NULL;
    for (char * line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char name[128], arch[64], what[16];
        if (sscanf(line, "%127[^\t]\t%63[^\t]\t%15[^\t]", name, arch, what) != 3 || strcmp(what, "built") != 0) {
            continue;
        }
        uint64_t want_model = 0, want_context = 0;
        CHECK(cpu_breakdown(name, &want_model, &want_context));
        n_archs++;
        for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
            char flags[256];
            snprintf(flags, sizeof(flags), "%s -c 256 -b 32 -ub 32 -fa off", settings[i]);
            n_tried++;
            struct galloc_error err;
            struct galloc_placement * pl = place(name, flags, false, &err);
            if (!pl) {
                fprintf(stderr, "  %s [%s]: %s\n", name, flags, err.message);
                CHECK(false);
                continue;
            }
            // bytes of a weight held twice (rope_freqs on two devices, a tied output) come once more
            uint64_t model = 0, context = 0, device_context = 0, device_model = 0, extra = 0;
            for (int32_t w = 0; w < pl->n_weights; w++) {
                for (int32_t v = 0; v < w && pl->weights[w].bytes > 0; v++) {
                    if (strcmp(pl->weights[v].name, pl->weights[w].name) == 0 && pl->weights[v].bytes > 0) {
                        extra += pl->weights[w].bytes;
                        break;
                    }
                }
            }
            for (int32_t b = 0; b < pl->n_bufts; b++) {
                model += pl->bufts[b].model;
                context += pl->bufts[b].context;
                device_context += pl->bufts[b].device >= 0 ? pl->bufts[b].context : 0;
                device_model += pl->bufts[b].device >= 0 ? pl->bufts[b].model : 0;
                CHECK(pl->bufts[b].compute > 0 || pl->bufts[b].device < 0 || pl->n_bufts == 1);
            }
            bool ok = pl->has_compute && model == want_model + extra && context == want_context;
            if (strstr(flags, "-nkvo")) {
                ok = ok && device_context == 0;
            }
            if (strstr(flags, "-ngl 1 ")) {
                // only the output layer on the device: no memory there, only output-layer weights
                uint64_t output = 0;
                for (int32_t w = 0; w < pl->n_weights; w++) {
                    output += pl->weights[w].layer == pl->n_layer && pl->bufts[pl->weights[w].buft].device >= 0 ? pl->weights[w].bytes : 0;
                }
                ok = ok && device_context == 0 && device_model == output && output > 0;
            }
            if (!ok) {
                fprintf(stderr, "  %s [%s]: model %" PRIu64 " (+%" PRIu64 " held twice), context %" PRIu64 " (%" PRIu64
                        " on devices); llama.cpp on the CPU: %" PRIu64 ", %" PRIu64 "\n", name, flags, model, extra, context,
                        device_context, want_model, want_context);
            }
            n_placed += ok;
            CHECK(ok);
            galloc_placement_free(pl);
        }
    }
    free(text);
    fprintf(stderr, "  %d built architectures: %d of %d placements consistent with llama.cpp's CPU breakdown\n", n_archs, n_placed, n_tried);
    CHECK(n_archs >= 52);
}

static const struct galloc_place_buft * buft_named(const struct galloc_placement * pl, const char * name) {
    const int32_t b = galloc_placement_buft_index(pl, name);
    return b >= 0 ? &pl->bufts[b] : NULL;
}

// hand-derived from llama.cpp's create_tensor and llama_memory_recurrent
static void test_hand_derived(void) {
    struct galloc_error err;
    // llama-dense: 2 layers and the output layer; -ts 1,3: splits 0.25, 1; layer 0 (0/3) on RPC0,
    // layer 1 (1/3) and the output (2/3) on RPC1. rope_freqs (64 f32) is created by both layers:
    // once in each device's buffer type, 256 bytes each, and two tensors in the scheduler's graph
    struct galloc_placement * pl = place("llama-dense", "--device rpc --device rpc -ngl 99 -ts 1,3 -c 256 -b 32 -ub 32 -fa off", true, &err);
    CHECK(pl != NULL);
    if (pl) {
        CHECK(pl->layer_device[0] == 0 && pl->layer_device[1] == 1 && pl->layer_device[2] == 1);
        int counted[2] = { 0, 0 };
        for (int32_t w = 0; w < pl->n_weights; w++) {
            if (strcmp(pl->weights[w].name, "rope_freqs.weight") == 0) {
                const int32_t d = pl->bufts[pl->weights[w].buft].device;
                CHECK(d == pl->weights[w].layer && pl->weights[w].bytes == 256);
                counted[d & 1]++;
            }
        }
        CHECK(counted[0] == 1 && counted[1] == 1);
        const char * g = pl->graph;
        int n_rope = 0;
        for (const char * s = g; s && (s = strstr(s, "\"name\": \"rope_freqs.weight\"")) != NULL; s++) {
            n_rope++;
        }
        CHECK(n_rope == 2);
        galloc_placement_free(pl);
    }
    // mamba2-dense: its recurrent states (llama.cpp's CPU breakdown: 548,864 context bytes) on the
    // device of their layers at -ngl 99, on the CPU with -nkvo and at -ngl 1 (no repeating layer offloaded)
    static const struct { const char * flags; uint64_t dev, cpu; } rs[] = {
        { "--device rpc -ngl 99", 548864, 0 }, { "--device rpc -ngl 99 -nkvo", 0, 548864 }, { "--device rpc -ngl 1", 0, 548864 },
    };
    for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
        char flags[128];
        snprintf(flags, sizeof(flags), "%s -c 256 -b 32 -ub 32 -fa off", rs[i].flags);
        pl = place("mamba2-dense", flags, false, &err);
        CHECK(pl != NULL);
        if (pl) {
            const struct galloc_place_buft * dev = buft_named(pl, "RPC0[127.0.0.1:50052]"), * cpu = buft_named(pl, "CPU");
            CHECK(dev && cpu);
            if (dev && cpu) {
                CHECK_EQ_U64(dev->context, rs[i].dev);
                CHECK_EQ_U64(cpu->context, rs[i].cpu);
            }
            galloc_placement_free(pl);
        }
    }
    // llvmpipe's supports_op is modelled for the ops of attention and FFN weights only: a Mamba
    // convolution weight is refused, naming the op and the tensor
    pl = place("mamba2-dense", "--device llvmpipe -ngl 99 -c 256 -b 32 -ub 32 -fa off", false, &err);
    CHECK(pl == NULL && err.status == GALLOC_STATUS_DECLINED && strstr(err.message, "SSM_CONV") && strstr(err.message, "ssm_conv1d"));
    if (pl || !strstr(err.message, "SSM_CONV")) {
        fprintf(stderr, "  llvmpipe mamba2: %s\n", pl ? "placed" : err.message);
    }
    galloc_placement_free(pl);
}

int main(void) {
    RUN(test_captured);
    RUN(test_every_arch);
    RUN(test_hand_derived);
    return check_report("test-model-place-archs");
}
