// test-model-archs.c: every architecture of llama.cpp's test models is built exactly or refused.
//
// tests/model-archs/archs.tsv lists the 108 small models llama.cpp's test-llama-archs saves (every
// optional tensor and key set; headers in tests/model-archs/gguf) and what galloc must do with
// each at llama.cpp's `-c 256 -b 32 -ub 32 -fa off`:
//  - "built": the graph equals llama.cpp's (tests/model-archs/graphs/NAME.graph.json, captured
//    from llama.cpp 3f545bec) tensor for tensor, both plan to llama.cpp's compute buffer, and the
//    compute size and the memory galloc reports (KV cache + recurrent states) are llama.cpp's
//    breakdown (NAME.breakdown.tsv: compute, context);
//  - "refused": galloc_model_from_gguf or the graph build fails with a message that names the
//    architecture and points to the capture library.
// A model that builds where a refusal is expected, or builds without a reference graph, fails:
// nothing is silently different. A key value a builder does not build (NextN layers, a gating
// function llama.cpp aborts on, ...) is refused naming the key (test_key_refusals).

#include "check.h"
#include "files.h"
#include "galloc-document.h"
#include "galloc-gguf.h"
#include "galloc-model.h"
#include "galloc-model-impl.h"
#include "galloc-planner.h"
#include "galloc-status.h"
#include "model-compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARCHS_DIR "tests/model-archs"

// the breakdown's model, context and compute bytes of the CPU row
static bool read_breakdown(const char * name, uint64_t * model, uint64_t * context, uint64_t * compute) {
    char path[256];
    snprintf(path, sizeof(path), ARCHS_DIR "/graphs/%s.breakdown.tsv", name);
    size_t len;
    char * text = read_whole_file(path, &len);
    bool ok = false;
    char * row = text ? strstr(text, "\nCPU\t") : NULL;
    if (row) {
        char dev[32], host[32];
        unsigned long long m = 0, c = 0, k = 0;
        ok = sscanf(row + 1, "CPU\t%31s\t%31s\t%llu\t%llu\t%llu", dev, host, &m, &c, &k) == 5;
        *model = m, *context = c, *compute = k;
    }
    free(text);
    return ok;
}

static struct galloc_model * open_model(const char * name, struct galloc_error * err) {
    char path[256];
    snprintf(path, sizeof(path), ARCHS_DIR "/gguf/%s.meta.gguf", name);
    size_t len;
    char * bytes = read_whole_file(path, &len);
    if (!bytes) {
        snprintf(err->message, sizeof(err->message), "%s: unreadable", path);
        err->status = GALLOC_STATUS_IO;
        return NULL;
    }
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_model * m = NULL;
    if (galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, err) == GALLOC_GGUF_OK) {
        galloc_model_from_gguf(&g, &m, err);
        galloc_gguf_free(&g);
    }
    free(bytes);
    return m;
}

static void settings(struct galloc_model_settings * s) {
    galloc_model_settings_default(s);
    s->n_ctx      = 256;
    s->n_batch    = 32;
    s->n_ubatch   = 32;
    s->flash_attn = 0;
}

// the built graph against llama.cpp's, and both plans against llama.cpp's compute buffer
static void check_built(const char * name, const struct galloc_model * m, const char * built, size_t built_len) {
    char path[256];
    snprintf(path, sizeof(path), ARCHS_DIR "/graphs/%s.graph.json", name);
    size_t ref_len;
    char * ref = read_whole_file(path, &ref_len);
    uint64_t model = 0, context = 0, compute = 0;
    if (!ref || !read_breakdown(name, &model, &context, &compute)) {
        fprintf(stderr, "  %s: built, but no reference graph or breakdown of llama.cpp's to check it against\n", name);
        check_failures++;
        free(ref);
        return;
    }
    model_compare_reset();
    CHECK(model_same_graph(name, built, built_len, ref, ref_len));
    // each document planned by the project's planner (upstream's plan on every CPU graph)
    const char * docs[2]    = { built, ref };
    const size_t lens[2]    = { built_len, ref_len };
    for (int i = 0; i < 2; i++) {
        struct galloc_document doc;
        struct galloc_plan     plan;
        struct galloc_error    err;
        if (galloc_document_read(docs[i], lens[i], &doc, &err)) {
            if (galloc_plan_graph(&doc.graph, &plan, &err)) {
                CHECK_EQ_U64(plan.buffers[0].size, compute);
                galloc_plan_free(&plan);
            } else {
                fprintf(stderr, "  %s: plan: %s\n", name, err.message);
                check_failures++;
            }
            galloc_document_free(&doc);
        } else {
            fprintf(stderr, "  %s: document %d: %s\n", name, i, err.message);
            check_failures++;
        }
    }
    struct galloc_model_settings s;
    settings(&s);
    struct galloc_model_sizes sizes;
    struct galloc_error err;
    CHECK(galloc_model_compute_sizes(m, &s, &sizes, &err));
    CHECK_EQ_U64(sizes.compute[0], compute);
    CHECK_EQ_U64(sizes.kv_bytes + sizes.rs_bytes, context);
    free(ref);
}

// a refusal names the architecture and where llama.cpp's own graph comes from
static void check_refused(const char * name, const char * arch, const struct galloc_error * err) {
    const bool names_arch = strstr(err->message, arch) != NULL;
    const bool capture    = strstr(err->message, "capture library") != NULL;
    if (!names_arch || !capture || err->status == GALLOC_STATUS_OK) {
        fprintf(stderr, "  %s: refusal without the architecture or the capture library: %s\n", name, err->message);
        check_failures++;
    }
}

static void test_archs(void) {
    size_t len;
    char * text = read_whole_file(ARCHS_DIR "/archs.tsv", &len);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    int n = 0, n_built = 0, n_refused = 0;
    char * line = strchr(text, '\n'); // skip the header
    while (line && *++line) {
        char * end = strchr(line, '\n');
        if (end) {
            *end = '\0';
        }
        char name[64], arch[64], expect[16];
        if (sscanf(line, "%63s %63s %15s", name, arch, expect) != 3) {
            line = end;
            continue;
        }
        n++;
        const int before = check_failures;
        struct galloc_error err = { 0 };
        struct galloc_model * m = open_model(name, &err);
        char * built = NULL;
        size_t built_len = 0;
        if (m) {
            struct galloc_model_settings s;
            settings(&s);
            built = galloc_model_document(m, &s, &built_len, &err);
        }
        if (built) {
            n_built++;
            if (strcmp(expect, "built") != 0) {
                fprintf(stderr, "  %s: built, but archs.tsv expects a refusal\n", name);
                check_failures++;
            }
            check_built(name, m, built, built_len);
        } else {
            n_refused++;
            if (strcmp(expect, "refused") != 0) {
                fprintf(stderr, "  %s: refused, but archs.tsv expects it built: %s\n", name, err.message);
                check_failures++;
            }
            check_refused(name, arch, &err);
        }
        if (check_failures != before) {
            fprintf(stderr, "  row FAILED: %s\n", name);
        }
        free(built);
        galloc_model_free(m);
        line = end;
    }
    free(text);
    CHECK(n == 108);
    printf("model-archs: %d architectures' test models: %d built equal to llama.cpp, %d refused\n", n, n_built, n_refused);
}

// llama.cpp's test model of llama with one tensor renamed to one no builder knows: refused, naming it
static void test_unknown_tensor(void) {
    size_t len;
    char * bytes = read_whole_file(ARCHS_DIR "/gguf/llama-dense.meta.gguf", &len);
    CHECK(bytes != NULL);
    if (!bytes) {
        return;
    }
    static const char from[] = "blk.1.ffn_up.input_scale", to[] = "blk.1.ffn_up.extra_scale";
    bool renamed = false;
    for (size_t i = 0; i + sizeof(from) - 1 <= len && !renamed; i++) {
        if (memcmp(bytes + i, from, sizeof(from) - 1) == 0) {
            memcpy(bytes + i, to, sizeof(to) - 1);
            renamed = true;
        }
    }
    CHECK(renamed);
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err = { 0 };
    struct galloc_model * m = NULL;
    CHECK(galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, &err) == GALLOC_GGUF_OK);
    CHECK(galloc_model_from_gguf(&g, &m, &err));
    galloc_gguf_free(&g);
    free(bytes);
    struct galloc_model_settings s;
    settings(&s);
    size_t doc_len = 0;
    char * doc = m ? galloc_model_document(m, &s, &doc_len, &err) : NULL;
    CHECK(doc == NULL);
    CHECK(err.status == GALLOC_STATUS_INVALID);
    CHECK(strstr(err.message, "'blk.1.ffn_up.extra_scale'") != NULL);
    CHECK(strstr(err.message, "capture library") != NULL);
    struct galloc_model_sizes sizes;
    CHECK(m && !galloc_model_compute_sizes(m, &s, &sizes, &err));
    free(doc);
    galloc_model_free(m);
}

// a key whose value changes llama.cpp's graph in a way galloc does not build: refused, naming the key.
// The test model's header with one value rewritten in place: the uint32 after the key's type, or
// (for an array) its first element.
static void test_key_refusals(void) {
    static const struct {
        const char * model, * key;
        uint32_t     value;
        bool         array;
        const char * named;
    } cases[] = {
        { "glm4-dense", "glm4.nextn_predict_layers", 1, false, "glm4.nextn_predict_layers" },
        { "exaone4-dense", "exaone4.nextn_predict_layers", 1, false, "exaone4.nextn_predict_layers" },
        { "bailingmoe2-moe", "bailingmoe2.nextn_predict_layers", 1, false, "bailingmoe2.nextn_predict_layers" },
        { "dots1-moe", "dots1.expert_gating_func", 0, false, "dots1.expert_gating_func" },
        { "minimax-m2-moe", "minimax-m2.expert_gating_func", 4, false, "minimax-m2.expert_gating_func" },
        { "ernie4_5-moe-moe", "ernie4_5-moe.interleave_moe_layer_step", 0, false, "interleave_moe_layer_step" },
        { "glm4moe-moe", "glm4moe.expert_shared_count", 0, false, "glm4moe.expert_shared_count" },
        { "granite-dense", "granite.deepstack_mapping", 0, true, "granite.deepstack_mapping" },
        { "deepseek2-moe", "deepseek2.attention.key_length_mla", 0, false, "deepseek2.attention.key_length_mla" },
        { "mistral4-moe", "mistral4.nextn_predict_layers", 1, false, "mistral4.nextn_predict_layers" },
        // recurrent and hybrid models with a key llama.cpp's graph cannot take (it throws or asserts)
        { "mamba-dense", "mamba.ssm.inner_size", 511, false, "mamba.ssm.inner_size" },           // expansion factor not 2
        { "mamba2-dense", "mamba2.ssm.group_count", 3, false, "mamba2.ssm.group_count" },        // groups not dividing inner_size
        { "granitehybrid-dense", "granitehybrid.ssm.time_step_rank", 3, false, "time_step_rank" }, // heads not dividing it
        { "lfm2-dense", "lfm2.shortconv.l_cache", 1, false, "lfm2.shortconv.l_cache" },         // no convolution state
        { "qwen35-dense", "qwen35.ssm.state_size", 64, false, "qwen35.ssm" },                    // value heads not state_size wide
        { "plamo2-dense", "plamo2.ssm.group_count", 1, false, "plamo2.ssm.group_count" },        // PLaMo-2 takes no groups
        // classic architectures: llama.cpp's loader throws, or the graph has layers galloc does not build
        { "falcon-dense", "falcon.rope.dimension_count", 64, false, "falcon.rope.dimension_count" }, // partial RoPE: invalid n_rot
        { "deci-dense", "deci.feed_forward_length", 0, false, "deci.feed_forward_length" },          // FFN-free layers
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char path[256];
        snprintf(path, sizeof(path), ARCHS_DIR "/gguf/%s.meta.gguf", cases[c].model);
        size_t len;
        char * bytes = read_whole_file(path, &len);
        CHECK(bytes != NULL);
        if (!bytes) {
            continue;
        }
        const size_t key_len = strlen(cases[c].key);
        bool patched = false;
        for (size_t i = 8; i + key_len + 24 <= len && !patched; i++) {
            uint64_t n;
            memcpy(&n, bytes + i - 8, sizeof(n));
            if (n == key_len && memcmp(bytes + i, cases[c].key, key_len) == 0) {
                const size_t at = i + key_len + 4 + (cases[c].array ? 12 : 0); // the type, and an array's element type and count
                memcpy(bytes + at, &cases[c].value, sizeof(cases[c].value));
                patched = true;
            }
        }
        CHECK(patched);
        struct galloc_gguf g;
        uint64_t need = 0;
        struct galloc_error err = { 0 };
        struct galloc_model * m = NULL;
        char * doc = NULL;
        if (galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, &err) == GALLOC_GGUF_OK) {
            if (galloc_model_from_gguf(&g, &m, &err)) {
                struct galloc_model_settings s;
                settings(&s);
                size_t doc_len = 0;
                doc = galloc_model_document(m, &s, &doc_len, &err);
            }
            galloc_gguf_free(&g);
        }
        CHECK(doc == NULL);
        if (doc != NULL || strstr(err.message, cases[c].named) == NULL || err.status != GALLOC_STATUS_INVALID) {
            fprintf(stderr, "  %s with %s = %u: %s\n", cases[c].model, cases[c].key, cases[c].value, doc ? "built" : err.message);
            check_failures++;
        }
        free(doc);
        galloc_model_free(m);
        free(bytes);
    }
}

// what the graph document does not hold: the parameters of ops that change the values, not the memory.
// ALiBi (the softmax's max_bias: llama.cpp's constant 8 for bloom and refact, the header's
// attention.max_alibi_bias for mpt and jais) and MPT's KQV clamp (attention.clamp_kqv, 1 in its
// test header), checked on every SOFT_MAX and CLAMP node of the built graph.
static void test_op_params(void) {
    static const struct {
        const char * model;
        float        max_bias;  // every SOFT_MAX's
        float        clamp;     // every CLAMP's [-clamp, clamp] (0: no CLAMP node)
        int          n_clamp;   // CLAMP nodes: one per layer (on the fused QKV)
    } cases[] = {
        { "bloom-dense", 8.0f, 0.0f, 0 }, { "refact-dense", 8.0f, 0.0f, 0 }, { "jais-dense", 8.0f, 0.0f, 0 },
        { "mpt-dense", 8.0f, 1.0f, 2 },   { "gpt2-dense", 0.0f, 0.0f, 0 },   { "llama-dense", 0.0f, 0.0f, 0 },
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct galloc_error err = { 0 };
        struct galloc_model * m = open_model(cases[c].model, &err);
        CHECK(m != NULL);
        struct galloc_model_settings s;
        settings(&s);
        struct model_cparams cp;
        struct model_build * b = NULL;
        if (m && galloc_model_cparams_init(m, &s, &cp, &err)) {
            b = galloc_model_build_prompt_hooked(m, &cp, ggml_backend_cpu_buffer_type(), NULL, NULL, NULL, &err);
        }
        CHECK(b != NULL);
        int n_soft_max = 0, n_clamp = 0;
        struct ggml_cgraph * gf = b ? galloc_model_build_graph_of(b)->gf : NULL;
        for (int i = 0; gf && i < ggml_graph_n_nodes(gf); i++) {
            const struct ggml_tensor * t = ggml_graph_node(gf, i);
            float p[2];
            memcpy(p, t->op_params, sizeof(p));
            if (t->op == GGML_OP_SOFT_MAX) {
                n_soft_max++;
                CHECK(p[1] == cases[c].max_bias);
            } else if (t->op == GGML_OP_CLAMP) {
                n_clamp++;
                CHECK(p[0] == -cases[c].clamp && p[1] == cases[c].clamp);
            }
        }
        CHECK(n_soft_max == 2); // the test models have two layers
        CHECK(n_clamp == cases[c].n_clamp);
        if (n_soft_max != 2 || n_clamp != cases[c].n_clamp) {
            fprintf(stderr, "  %s: %d SOFT_MAX, %d CLAMP nodes\n", cases[c].model, n_soft_max, n_clamp);
        }
        galloc_model_build_free(b);
        galloc_model_free(m);
    }
}

int main(void) {
    RUN(test_archs);
    RUN(test_unknown_tensor);
    RUN(test_key_refusals);
    RUN(test_op_params);
    return check_report("test-model-archs");
}
