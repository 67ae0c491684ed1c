// test-model-place.c: llama.cpp's placement over devices and its memory breakdown (galloc-model-place.h).
//
// Every row of tests/devices/manifest.tsv (llama.cpp 3f545bec over one or two RPC devices, and over
// ggml-vulkan on llvmpipe; copied from ../shared/devices) is placed from its GGUF header and flags,
// and each buffer type's model, context and compute bytes (the scheduler's reserve) must equal
// llama_get_memory_breakdown's (SETTING.breakdown.tsv), with the same buffer types; the context's
// sizes equal context.txt's. Where tests/devices/graphs has the graph llama.cpp's scheduler
// handed to ggml_gallocr for a setting, the scheduler's graph must equal it tensor for tensor
// (name, op, type, shape, strides, sources, view, flags, buffer types, node and leaf ids, order).
// Then hand-derived cases: -ot's regular expressions, flags llama.cpp refuses, the layer split,
// the tied output matrix, the CPU alone, and the table's layout.

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

#define DEVICES_DIR "tests/devices"
#define GGUF_DIR    "tests/models-real/gguf"

static struct galloc_model * load_model(const char * name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.meta.gguf", GGUF_DIR, name);
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

static int n_settings, n_model_equal, n_context_equal, n_compute_equal, n_compute_llvmpipe, n_graphs, n_graphs_equal;

// the scheduler's graph against the captured one, when tests/devices/graphs has it
static void check_graph(const char * setting, const struct galloc_placement * pl) {
    char path[512];
    snprintf(path, sizeof(path), "%s/graphs/%s.graph.json", DEVICES_DIR, setting);
    size_t len;
    char * ref = read_whole_file(path, &len);
    if (!ref) {
        return;
    }
    n_graphs++;
    model_compare_reset();
    const bool same = pl->graph && model_same_graph(setting, pl->graph, pl->graph_len, ref, len);
    n_graphs_equal += same;
    CHECK(same);
    free(ref);
}

// one setting: its breakdown.tsv rows against the placement
static void check_setting(const char * setting, const char * model, const char * flags) {
    struct galloc_model * m = load_model(model);
    CHECK(m != NULL);
    if (!m) {
        return;
    }
    n_settings++;
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    struct galloc_error err;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    struct galloc_placement * pl = NULL;
    bool parsed = galloc_model_parse_flags(flags, &s, &p, &err);
    p.keep_graph = true;
    if (!parsed || !(pl = galloc_model_place(m, &s, &p, &err))) {
        fprintf(stderr, "  %s: %s\n", setting, err.message);
        CHECK(false);
        galloc_model_free(m);
        return;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.breakdown.tsv", DEVICES_DIR, setting);
    size_t len;
    char * text = read_whole_file(path, &len);
    CHECK(text != NULL);
    bool model_ok = true, context_ok = true, compute_ok = pl->has_compute;
    const bool llvmpipe = strstr(flags, "llvmpipe") != NULL;
    int n_rows = 0;
    for (char * line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        char name[128], dev[32], where[16];
        unsigned long long model_b, context_b, compute_b;
        if (sscanf(line, "%127[^\t]\t%31[^\t]\t%15[^\t]\t%llu\t%llu\t%llu", name, dev, where, &model_b, &context_b, &compute_b) != 6) {
            continue; // the header
        }
        n_rows++;
        const int32_t b = galloc_placement_buft_index(pl, name);
        if (b < 0) {
            fprintf(stderr, "  %s: no buffer type %s\n", setting, name);
            model_ok = context_ok = compute_ok = false;
            continue;
        }
        CHECK(pl->bufts[b].is_host == (strcmp(where, "host") == 0));
        if (pl->bufts[b].model != model_b) {
            fprintf(stderr, "  %s: %s model %" PRIu64 ", llama.cpp %llu\n", setting, name, pl->bufts[b].model, model_b);
            model_ok = false;
        }
        if (pl->bufts[b].compute != compute_b) {
            fprintf(stderr, "  %s: %s compute %" PRIu64 ", llama.cpp %llu\n", setting, name, pl->bufts[b].compute, compute_b);
            compute_ok = false;
        }
        if (pl->bufts[b].context != context_b) {
            fprintf(stderr, "  %s: %s context %" PRIu64 ", llama.cpp %llu\n", setting, name, pl->bufts[b].context, context_b);
            context_ok = false;
        }
    }
    if (n_rows != pl->n_bufts) {
        fprintf(stderr, "  %s: %d buffer types, llama.cpp %d\n", setting, (int) pl->n_bufts, n_rows);
        model_ok = false;
    }
    free(text);
    n_model_equal += model_ok;
    n_context_equal += context_ok;
    n_compute_equal += compute_ok;
    n_compute_llvmpipe += compute_ok && llvmpipe;
    CHECK(model_ok);
    CHECK(context_ok);
    CHECK(compute_ok);
    check_graph(setting, pl);
    // the context's sizes
    snprintf(path, sizeof(path), "%s/%s.context.txt", DEVICES_DIR, setting);
    text = read_whole_file(path, &len);
    long long n_ctx = 0, n_ubatch = 0, n_batch = 0, n_seq = 0;
    CHECK(text && sscanf(text, "n_ctx=%lld n_ubatch=%lld n_batch=%lld n_seq=%lld", &n_ctx, &n_ubatch, &n_batch, &n_seq) == 4);
    CHECK_EQ_U64(pl->n_ctx, n_ctx);
    CHECK_EQ_U64(pl->n_ubatch, n_ubatch);
    CHECK_EQ_U64(pl->n_batch, n_batch);
    CHECK_EQ_U64(pl->n_seq, n_seq);
    free(text);
    galloc_placement_free(pl);
    galloc_model_free(m);
}

static void test_breakdowns(void) {
    size_t len;
    char * text = read_whole_file(DEVICES_DIR "/manifest.tsv", &len);
    CHECK(text != NULL);
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
        check_setting(setting, model, flags);
    }
    free(text);
    fprintf(stderr, "  %d settings: model column equal in %d, context column equal in %d, compute column equal in %d (%d of them llvmpipe);"
            " scheduler graphs equal in %d of %d\n",
            n_settings, n_model_equal, n_context_equal, n_compute_equal, n_compute_llvmpipe, n_graphs_equal, n_graphs);
    CHECK(n_settings == 53);
    CHECK(n_graphs == 5);
}

// places llama3-8b with these flags (NULL on failure, err filled)
static struct galloc_placement * place(const char * model, const char * flags, struct galloc_error * err) {
    struct galloc_model * m = load_model(model);
    if (!m) {
        err->status = GALLOC_STATUS_IO;
        return NULL;
    }
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    struct galloc_placement * pl = NULL;
    if (galloc_model_parse_flags(flags, &s, &p, err)) {
        pl = galloc_model_place(m, &s, &p, err);
    }
    galloc_model_free(m);
    return pl;
}

static bool fails_with(const char * model, const char * flags, enum galloc_status status, const char * start) {
    struct galloc_error err = { 0 };
    struct galloc_placement * pl = place(model, flags, &err);
    galloc_placement_free(pl);
    const bool ok = !pl && err.status == status && strncmp(err.message, start, strlen(start)) == 0;
    if (!ok) {
        fprintf(stderr, "  '%s': got status %d '%s', expected %d '%s...'\n", flags, (int) err.status, err.message, (int) status, start);
    }
    return ok;
}

static void test_refused_flags(void) {
    CHECK(fails_with("llama3-8b", "--device rpc -ot blk=RPC9", GALLOC_STATUS_ARGUMENT, "-ot: unknown buffer type 'RPC9'"));
    CHECK(fails_with("llama3-8b", "--device rpc -ot blk", GALLOC_STATUS_ARGUMENT, "-ot: invalid value"));
    // llama.cpp splits -ot's value at every ',', an interval's too
    CHECK(fails_with("llama3-8b", "--device rpc -ot blk\\.[0-9]{1,2}=CPU", GALLOC_STATUS_ARGUMENT, "-ot: invalid value 'blk\\.[0-9]{1'"));
    CHECK(fails_with("llama3-8b", "--device rpc -ot (blk=CPU", GALLOC_STATUS_ARGUMENT, "-ot: pattern '(blk'"));
    CHECK(fails_with("llama3-8b", "--device rpc -ot \\bblk=CPU", GALLOC_STATUS_DECLINED, "-ot: pattern"));
    CHECK(fails_with("llama3-8b", "--device rpc -sm none -mg 1", GALLOC_STATUS_ARGUMENT, "-mg: invalid value for main_gpu: 1"));
    CHECK(fails_with("llama3-8b", "--device rpc -sm row", GALLOC_STATUS_ARGUMENT, "-sm row: device RPC0 does not support split"));
    CHECK(fails_with("llama3-8b", "--device cuda -sm row", GALLOC_STATUS_DECLINED, "-sm row:"));
    CHECK(fails_with("llama3-8b", "-sm tensor", GALLOC_STATUS_DECLINED, "-sm:"));
    CHECK(fails_with("llama3-8b", "--device cuda --device rpc", GALLOC_STATUS_ARGUMENT, "--device: llama.cpp puts RPC devices"));
    CHECK(fails_with("llama3-8b", "--device gpu", GALLOC_STATUS_ARGUMENT, "--device: unknown device kind 'gpu'"));
    CHECK(fails_with("llama3-8b", "--device cuda:12XB", GALLOC_STATUS_ARGUMENT, "--device: '12XB' is not a memory size"));
    CHECK(fails_with("llama3-8b", "-ngl x", GALLOC_STATUS_ARGUMENT, "-ngl: 'x'"));
    CHECK(fails_with("llama3-8b", "-ncmoe -1", GALLOC_STATUS_ARGUMENT, "-ncmoe: invalid value"));
    CHECK(fails_with("llama3-8b", "-ts 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", GALLOC_STATUS_ARGUMENT, "-ts: got 16"));
    CHECK(fails_with("llama3-8b", "-c 4096 --bogus", GALLOC_STATUS_ARGUMENT, "unknown option '--bogus'"));
    CHECK(fails_with("llama3-8b", "-fa off -ctv q8_0", GALLOC_STATUS_ARGUMENT, "-ctv: quantized V cache"));
}

// -ot patterns as std::regex_search reads them, on tensor names (hand-derived)
static void test_override_patterns(void) {
    struct galloc_error err;
    // llama3-8b: 32 layers of 436,240,384 bytes (F16), token_embd and output 1,050,673,152 each, output_norm 16,384
    const uint64_t layer = 436240384, emb = 1050673152;
    struct galloc_placement * pl = place("llama3-8b", "--device rpc -ngl 99 -ot blk\\.(1[0-9]|2[0-9])\\.=CPU -c 512", &err);
    CHECK(pl != NULL);
    if (pl) {
        const int32_t cpu = galloc_placement_buft_index(pl, "CPU"), dev = galloc_placement_buft_index(pl, "RPC0[127.0.0.1:50052]");
        CHECK(cpu >= 0 && dev >= 0);
        CHECK_EQ_U64(pl->bufts[cpu].model, emb + 20 * layer);
        CHECK_EQ_U64(pl->bufts[dev].model, 12 * layer + emb + 16384);
        // the KV cache stays with the layer's device: -ot moves weights only
        CHECK_EQ_U64(pl->bufts[cpu].context, 0);
        galloc_placement_free(pl);
    }
    // \d, a class, a lazy quantifier and an interval: layers 0-9's FFN matrices and ffn_norm to the CPU
    pl = place("llama3-8b", "--device rpc -ngl 99 -ot ^blk\\.\\d\\.ffn_[a-z]+?\\.we{1}ight$=CPU -c 512", &err);
    CHECK(pl != NULL);
    if (pl) {
        const int32_t cpu = galloc_placement_buft_index(pl, "CPU");
        CHECK_EQ_U64(pl->bufts[cpu].model, emb + 10 * (3 * 4096ull * 14336 * 2 + 4096 * 4));
        galloc_placement_free(pl);
    }
    // the first matching override wins; an override to a device ("output\\.weight" alone would also
    // find blk.N.attn_output.weight: a search, not a whole match)
    pl = place("llama3-8b", "--device rpc -ngl 0 -ot ^output\\.weight=RPC0[127.0.0.1:50052],output=CPU -c 512", &err);
    CHECK(pl != NULL);
    if (pl) {
        const int32_t dev = galloc_placement_buft_index(pl, "RPC0[127.0.0.1:50052]");
        CHECK_EQ_U64(pl->bufts[dev].model, emb);
        galloc_placement_free(pl);
    }
}

// load_tensors' split by free memory and -ts (hand-derived from llama.cpp's upper_bound)
static void test_layer_split(void) {
    struct galloc_error err;
    // two devices of 24 and 12 GiB, every layer: splits 2/3, 1; layer il on device 0 while il/33 < 2/3: 0..21
    struct galloc_placement * pl = place("llama3-8b", "--device cuda:24GiB --device cuda:12GiB -c 512", &err);
    CHECK(pl != NULL);
    if (pl) {
        for (int32_t il = 0; il <= 32; il++) {
            CHECK(pl->layer_device[il] == (il < 22 ? 0 : 1));
        }
        galloc_placement_free(pl);
    }
    // -ngl 10: i_gpu_start 23, layers 23..32 on devices; -ts 1,1: 23..27 on 0 (0/10..4/10 < 0.5), 28.. on 1
    pl = place("llama3-8b", "--device cuda --device cuda -ngl 10 -ts 1,1 -c 512", &err);
    CHECK(pl != NULL);
    if (pl) {
        for (int32_t il = 0; il <= 32; il++) {
            CHECK(pl->layer_device[il] == (il < 23 ? -1 : il < 28 ? 0 : 1));
        }
        // CUDA_Host holds the CPU layers' weights (load mode none), the CPU the token embeddings
        const int32_t host = galloc_placement_buft_index(pl, "CUDA_Host"), cpu = galloc_placement_buft_index(pl, "CPU");
        CHECK(host >= 0 && cpu >= 0);
        CHECK_EQ_U64(pl->bufts[host].model, 23 * 436240384ull + 1050673152ull);
        CHECK_EQ_U64(pl->bufts[cpu].model, 0);
        CHECK(pl->bufts[host].is_host && pl->bufts[host].device == -1);
        galloc_placement_free(pl);
    }
}

// the CPU alone: the breakdown is the model, the KV cache and galloc_model_compute_sizes' buffer
static void test_cpu_only(void) {
    struct galloc_error err;
    struct galloc_placement * pl = place("llama3-tiny", "-c 4096 -b 512 -ub 512 -fa off", &err);
    CHECK(pl != NULL);
    if (pl) {
        CHECK(pl->n_bufts == 1 && strcmp(pl->bufts[0].name, "CPU") == 0);
        CHECK(pl->has_compute);
        // llama.cpp logs 43.01 MiB (tests/models-real/manifest.tsv); test-models-real checks the bytes
        CHECK((pl->bufts[0].compute * 100 + (1 << 19)) / (1 << 20) == 4301);
        char * json = galloc_placement_json(pl);
        CHECK(json && strstr(json, "{\"format\": \"galloc-memory\", \"version\": 1, \"buffer_types\": [\n  {\"name\": \"CPU\", \"device\": -1, "));
        free(json);
        galloc_placement_free(pl);
    }
}

// the table's layout: llama.cpp's columns, from a setting's numbers (hand-derived)
static void test_table(void) {
    struct galloc_error err;
    struct galloc_placement * pl = place("llama3-8b", "--device rpc:16GiB -ngl 8 -c 32768 -ub 512 -fa off", &err);
    CHECK(pl != NULL);
    if (!pl) {
        return;
    }
    char * table = galloc_placement_table(pl);
    // llama.cpp's bytes (tests/devices/llama3-8b-rpc1-ngl8-c32768-faoff): RPC0 model 4,104,372,224 = 3914 MiB,
    // context 939,524,096 = 896 MiB, compute 2,252,349,440 = 2148 MiB; Host 11402, 3200 and 2156 MiB
    const char * want =
        "common_memory_breakdown_print: | memory breakdown [MiB]     | total   free     self   model   context   compute    unaccounted |\n"
        "common_memory_breakdown_print: |   - RPC0 (127.0.0.1:50052) | 16384 = 9425 + ( 6958 =  3914 +     896 +    2148) +           0 |\n"
        "common_memory_breakdown_print: |   - Host                   |                 16758 = 11402 +    3200 +    2156                |\n";
    CHECK(table && strcmp(table, want) == 0);
    if (table && strcmp(table, want) != 0) {
        fprintf(stderr, "%s", table);
    }
    free(table);
    galloc_placement_free(pl);
}

int main(void) {
    RUN(test_breakdowns);
    RUN(test_refused_flags);
    RUN(test_override_patterns);
    RUN(test_layer_split);
    RUN(test_cpu_only);
    RUN(test_table);
    return check_report("test-model-place");
}
