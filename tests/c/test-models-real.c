// test-models-real.c: the model graph builders against the graphs llama.cpp built (tests/models-real,
// and tests/models-captured: qwen2 and more settings, captured from a real llama.cpp run).
//
// For every row of tests/models-real/manifest.tsv the graph built from the row's GGUF file with
// the row's settings must equal llama.cpp's graph document tensor for tensor and in the same
// order, compared by an independent structural checker on the parsed JSON (name, op, sub-op,
// type, shape, strides, sources, view source and offset, flags, buffer types and ids, node and
// leaf lists); its plan must equal upstream ggml's plan (chunk sizes, every tensor's buffer,
// chunk and offset), and the reported compute buffer size must be llama.cpp's logged one.
// Then llama.cpp's context rules with hand-derived answers, bad settings, and every card.

#include "check.h"
#include "files.h"
#include "galloc-document.h"
#include "galloc-gguf.h"
#include "galloc-model.h"
#include "galloc-planner.h"
#include "galloc-status.h"
#include "model-compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODELS_DIR "tests/models-real"

//
// the manifest
//

// the columns both manifests share; tests/models-captured adds nodes, tensors and placement
enum { COL_FILE, COL_ARCH, COL_SIZE, COL_N_CTX, COL_N_UBATCH, COL_N_BATCH, COL_FA, COL_TYPE_K, COL_TYPE_V, COL_N_SEQ,
       COL_KIND, COL_MIB, COL_BYTES, COL_MODEL, COL_GGUF, COL_N_CTX_SEQ, COL_COUNT,
       COL_NODES = COL_COUNT, COL_TENSORS, COL_PLACEMENT, COL_CAPTURED_COUNT };

// a manifest: where, how many rows at least, and where each row's reference plan is
struct manifest {
    const char * dir;
    int          min_rows;
    bool         captured; // tests/models-captured: the placement column (or "-": the total only)
};

struct row {
    char cols[COL_CAPTURED_COUNT][160];
};

static int split_row(char * line, struct row * r) {
    int n = 0;
    for (char * p = line; n < COL_CAPTURED_COUNT; n++) {
        char * tab = strchr(p, '\t');
        size_t len = tab ? (size_t) (tab - p) : strcspn(p, "\r\n");
        snprintf(r->cols[n], sizeof(r->cols[n]), "%.*s", (int) len, p);
        if (!tab) {
            n++;
            break;
        }
        p = tab + 1;
    }
    return n;
}

static struct galloc_model * load_model(const char * path) {
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

static int n_rows;

static void check_row(const struct manifest * mf, const struct row * r) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", mf->dir, r->cols[COL_GGUF]);
    struct galloc_model * m = load_model(path);
    CHECK(m != NULL);
    if (!m) {
        return;
    }
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx      = atoll(r->cols[COL_N_CTX]);
    s.n_batch    = atoll(r->cols[COL_N_BATCH]);
    s.n_ubatch   = atoll(r->cols[COL_N_UBATCH]);
    s.flash_attn = atoi(r->cols[COL_FA]);
    s.n_seq      = atoi(r->cols[COL_N_SEQ]);
    s.graph      = strcmp(r->cols[COL_KIND], "decode") == 0 ? GALLOC_MODEL_GRAPH_DECODE : GALLOC_MODEL_GRAPH_PROMPT;
    CHECK(galloc_model_cache_type_from_name(r->cols[COL_TYPE_K], &s.type_k));
    CHECK(galloc_model_cache_type_from_name(r->cols[COL_TYPE_V], &s.type_v));

    const char * row = r->cols[COL_FILE];
    struct galloc_error err;
    size_t built_len = 0;
    char * built = galloc_model_document(m, &s, &built_len, &err);
    if (!built) {
        fprintf(stderr, "  %s: %s\n", row, err.message);
    }
    CHECK(built != NULL);
    size_t ref_len = 0, ref_plan_len = 0;
    snprintf(path, sizeof(path), "%s/%s", mf->dir, row);
    char * ref = read_whole_file(path, &ref_len);
    // the reference plan: beside the graph (models-real), ggml's placement in a real run, or none
    // (a no_alloc reserve: the total alone)
    char plan_path[600] = "";
    if (!mf->captured) {
        snprintf(plan_path, sizeof(plan_path), "%.*s.plan.json", (int) (strlen(path) - strlen(".graph.json")), path);
    } else if (strcmp(r->cols[COL_PLACEMENT], "-") != 0) {
        snprintf(plan_path, sizeof(plan_path), "%s/%s", mf->dir, r->cols[COL_PLACEMENT]);
    }
    char * ref_plan = plan_path[0] ? read_whole_file(plan_path, &ref_plan_len) : NULL;
    CHECK(ref != NULL && (ref_plan != NULL || !plan_path[0]));

    if (built && ref && (ref_plan || !plan_path[0])) {
        model_compare_reset();
        CHECK(model_same_graph(row, built, built_len, ref, ref_len));
        // the built graph planned by the project's planner equals upstream's plan
        struct galloc_document doc;
        struct galloc_plan     plan;
        struct galloc_error derr;
        if (galloc_document_read(built, built_len, &doc, &derr)) {
            if (galloc_plan_graph(&doc.graph, &plan, &derr)) {
                size_t plan_len = 0;
                char * plan_json = galloc_document_write_plan(&doc, &plan, &plan_len);
                CHECK(plan_json != NULL && (!ref_plan || model_same_plan(row, plan_json, plan_len, ref_plan, ref_plan_len, mf->captured)));
                free(plan_json);
                // the one reserve llama.cpp made: its total is the planned graph's
                CHECK_EQ_U64(plan.buffers[0].size, strtoull(r->cols[COL_BYTES], NULL, 10));
                galloc_plan_free(&plan);
            } else {
                fprintf(stderr, "  %s: plan: %s\n", row, derr.message);
                check_failures++;
            }
            galloc_document_free(&doc);
        } else {
            fprintf(stderr, "  %s: document: %s\n", row, derr.message);
            check_failures++;
        }
        // the size llama.cpp logs (after its three reserves) and the context it made
        struct galloc_model_sizes sizes;
        CHECK(galloc_model_compute_sizes(m, &s, &sizes, &err));
        CHECK_EQ_U64(sizes.compute[0], strtoull(r->cols[COL_BYTES], NULL, 10));
        char mib[32];
        snprintf(mib, sizeof(mib), "%.2f", (double) sizes.compute[0] / 1024.0 / 1024.0);
        CHECK(strcmp(mib, r->cols[COL_MIB]) == 0);
        CHECK_EQ_U64(sizes.n_ctx_seq, strtoull(r->cols[COL_N_CTX_SEQ], NULL, 10));
        CHECK(strcmp(sizes.names[0], "CPU") == 0);
        if (mf->captured) {
            CHECK_EQ_U64((uint64_t) sizes.n_nodes, strtoull(r->cols[COL_NODES], NULL, 10));
        }
        // both from one build: the same document, byte for byte, and the same sizes
        struct galloc_model_sizes both;
        size_t both_len = 0;
        char * both_doc = galloc_model_document_sizes(m, &s, &both, &both_len, &err);
        CHECK(both_doc != NULL && both_len == built_len && memcmp(both_doc, built, built_len) == 0);
        CHECK(memcmp(&both, &sizes, sizeof(sizes)) == 0);
        free(both_doc);
    }
    free(built);
    free(ref);
    free(ref_plan);
    galloc_model_free(m);
    n_rows++;
}

static void test_manifest(const struct manifest * mf) {
    size_t len;
    char path[256];
    snprintf(path, sizeof(path), "%s/manifest.tsv", mf->dir);
    char * text = read_whole_file(path, &len);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    int before = check_failures;
    n_rows = 0;
    char * line = strchr(text, '\n'); // skip the header
    while (line && *++line) {
        struct row r;
        char * end = strchr(line, '\n');
        if (end) {
            *end = '\0';
        }
        if (split_row(line, &r) >= (mf->captured ? COL_CAPTURED_COUNT : COL_COUNT)) {
            int row_before = check_failures;
            check_row(mf, &r);
            if (check_failures != row_before) {
                fprintf(stderr, "  row FAILED: %s\n", r.cols[COL_FILE]);
            }
        }
        line = end;
    }
    free(text);
    CHECK(n_rows >= mf->min_rows); // every row
    printf("%s: %d manifest rows, %s\n", mf->dir, n_rows, check_failures == before ? "all equal to llama.cpp" : "DIFFERENCES");
}

static void test_models_real(void) {
    static const struct manifest published = { MODELS_DIR, 76, false };
    test_manifest(&published);
}

static void test_models_captured(void) {
    static const struct manifest captured = { "tests/models-captured", 49, true };
    test_manifest(&captured);
}

//
// llama.cpp's context rules, answers derived by hand from llama_context and llama_kv_cache_iswa
//

static bool sizes_of(const char * gguf, int64_t n_ctx, int64_t n_ubatch, int n_seq, int fa, struct galloc_model_sizes * out) {
    char path[256];
    snprintf(path, sizeof(path), MODELS_DIR "/gguf/%s", gguf);
    struct galloc_model * m = load_model(path);
    if (!m) {
        return false;
    }
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx      = n_ctx;
    s.n_batch    = n_ubatch;
    s.n_ubatch   = n_ubatch;
    s.n_seq      = n_seq;
    s.flash_attn = fa;
    struct galloc_error err;
    bool ok = galloc_model_compute_sizes(m, &s, out, &err);
    if (!ok) {
        fprintf(stderr, "  %s: %s\n", gguf, err.message);
    }
    galloc_model_free(m);
    return ok;
}

static void test_context_rounding(void) {
    struct galloc_model_sizes z;
    // n_ctx padded to 256; the micro-batch is limited by the unpadded context
    CHECK(sizes_of("llama3-tiny.meta.gguf", 5000, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx, 5120);
    CHECK_EQ_U64(z.n_ctx_seq, 5120);
    CHECK(sizes_of("llama3-tiny.meta.gguf", 100, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx, 256);
    CHECK_EQ_U64(z.n_tokens, 100);
    // 3 sequences: 4096/3 = 1365 cells padded to 1536 per stream, n_ctx rounded to 3 * 1536
    CHECK(sizes_of("llama3-tiny.meta.gguf", 4096, 512, 3, 1, &z));
    CHECK_EQ_U64(z.n_ctx_seq, 1536);
    CHECK_EQ_U64(z.n_ctx, 4608);
    CHECK_EQ_U64(z.n_tokens, 513); // 512 tokens rounded up to a multiple of 3 sequences
    // -c 0: the training context (llama3-tiny: llama.context_length)
    CHECK(sizes_of("llama3-tiny.meta.gguf", 0, 512, 1, 1, &z));
    CHECK(z.n_ctx > 0 && z.n_ctx % 256 == 0);
    // K and V: 2 layers x 2 x n_embd_k_gqa 128 x cells x 2 bytes (f16)
    CHECK(sizes_of("llama3-tiny.meta.gguf", 4096, 512, 1, 1, &z));
    CHECK_EQ_U64(z.kv_bytes, 2ull * 2 * 128 * 4096 * 2);
}

// the total of one document's plan
static uint64_t plan_total(const struct galloc_model * m, const struct galloc_model_settings * s) {
    struct galloc_error err;
    size_t len = 0;
    char * json = galloc_model_document(m, s, &len, &err);
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_error    e;
    uint64_t total = 0;
    if (json && galloc_document_read(json, len, &doc, &e)) {
        if (galloc_plan_graph(&doc.graph, &plan, &e)) {
            total = plan.buffers[0].size;
            galloc_plan_free(&plan);
        }
        galloc_document_free(&doc);
    }
    free(json);
    return total;
}

// llama.cpp reserves the prompt graph, the one-token-per-sequence graph, then the prompt graph
// again, and keeps a buffer that is big enough: with 16 sequences a decode context's prompt graph
// (16 tokens, 1 output) is smaller than its token graph (16 tokens, 16 outputs), which sets the size
static void test_reserve_order(void) {
    struct galloc_model * m = load_model(MODELS_DIR "/gguf/llama3-tiny.meta.gguf");
    CHECK(m != NULL);
    if (!m) {
        return;
    }
    struct galloc_model_settings decode, tokens;
    galloc_model_settings_default(&decode);
    decode.n_ctx = 4096;
    decode.n_seq = 16;
    decode.graph = GALLOC_MODEL_GRAPH_DECODE;
    tokens          = decode;
    tokens.graph    = GALLOC_MODEL_GRAPH_PROMPT;
    tokens.n_batch  = 16;
    tokens.n_ubatch = 16; // 16 tokens, every one an output: the token graph
    const uint64_t pp = plan_total(m, &decode), tg = plan_total(m, &tokens);
    CHECK(pp > 0 && tg > pp);
    struct galloc_model_sizes z;
    struct galloc_error err;
    CHECK(galloc_model_compute_sizes(m, &decode, &z, &err));
    CHECK_EQ_U64(z.compute[0], tg);
    CHECK(galloc_model_compute_sizes(m, &tokens, &z, &err));
    CHECK_EQ_U64(z.compute[0], tg);
    galloc_model_free(m);
}

static void test_swa_cache_sizes(void) {
    struct galloc_model_sizes z;
    // gemma3-tiny: window 128; the SWA cache is pad256(min(n_ctx_seq, 128 + n_ubatch))
    CHECK(sizes_of("gemma3-tiny.meta.gguf", 4096, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx_swa, 768);
    CHECK(sizes_of("gemma3-tiny.meta.gguf", 4096, 100, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx_swa, 256); // 228 padded
    CHECK(sizes_of("gemma3-tiny.meta.gguf", 512, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx_swa, 512); // never more than the base cache
    // not unified: the window is per stream, not multiplied by the sequences
    CHECK(sizes_of("gemma3-tiny.meta.gguf", 8192, 512, 4, 1, &z));
    CHECK_EQ_U64(z.n_ctx_seq, 2048);
    CHECK_EQ_U64(z.n_ctx_swa, 768);
    // gpt-oss-20b: window 128 + 512 -> 640 padded to 768
    CHECK(sizes_of("gpt-oss-20b.meta.gguf", 32768, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx_swa, 768);
    CHECK(sizes_of("llama3-tiny.meta.gguf", 4096, 512, 1, 1, &z));
    CHECK_EQ_U64(z.n_ctx_swa, 0);
}

static void test_bad_settings(void) {
    struct galloc_model * m = load_model(MODELS_DIR "/gguf/llama3-tiny.meta.gguf");
    CHECK(m != NULL);
    if (!m) {
        return;
    }
    static const char * const flags[] = { "-ctv", "-np", "-c", "-b/-ub", "-fa" }; // the flag each error names
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        struct galloc_model_settings s;
        galloc_model_settings_default(&s);
        switch (i) {
            case 0: s.flash_attn = 0; s.type_v = GGML_TYPE_Q8_0; break; // quantized V needs flash attention
            case 1: s.n_seq = 0; break;
            case 2: s.n_ctx = -1; break;
            case 3: s.n_batch = 0; s.n_ubatch = 0; break;
            case 4: s.flash_attn = 2; break;
        }
        struct galloc_error err;
        size_t len;
        char * doc = galloc_model_document(m, &s, &len, &err);
        CHECK(doc == NULL);
        free(doc);
        CHECK(strncmp(err.message, flags[i], strlen(flags[i])) == 0);
        CHECK(err.status == GALLOC_STATUS_ARGUMENT); // settings llama.cpp refuses: the caller's bad argument
        struct galloc_model_sizes z;
        memset(&z, 0xff, sizeof(z));
        doc = galloc_model_document_sizes(m, &s, &z, &len, &err);
        CHECK(doc == NULL && err.status == GALLOC_STATUS_ARGUMENT && z.n_bufts == 0 && z.compute[0] == 0);
        free(doc);
    }
    enum ggml_type t;
    CHECK(!galloc_model_cache_type_from_name("q4_k", &t)); // not a cache type llama.cpp offers
    CHECK(galloc_model_cache_type_from_name("iq4_nl", &t) && t == GGML_TYPE_IQ4_NL);
    galloc_model_free(m);
}

// every card builds a graph at 4096 with flash attention off and on
static void test_cards(void) {
    CHECK(galloc_model_card_count() > 0);
    for (int i = 0; i < galloc_model_card_count(); i++) {
        struct galloc_model * m = NULL;
        struct galloc_error err;
        CHECK(galloc_model_from_card(galloc_model_card_name(i), &m, &err));
        CHECK(galloc_model_card_description(i) != NULL);
        for (int fa = 0; m && fa < 2; fa++) {
            struct galloc_model_settings s;
            galloc_model_settings_default(&s);
            s.n_ctx      = 4096;
            s.flash_attn = fa;
            struct galloc_model_sizes z;
            bool ok = galloc_model_compute_sizes(m, &s, &z, &err);
            if (!ok) {
                fprintf(stderr, "  card %s: %s\n", galloc_model_card_name(i), err.message);
            }
            CHECK(ok && z.compute[0] > 0);
        }
        galloc_model_free(m);
    }
    struct galloc_model * m = NULL;
    struct galloc_error err;
    CHECK(!galloc_model_from_card("no-such-model", &m, &err) && m == NULL);
    CHECK(strstr(err.message, "no-such-model") != NULL && err.status == GALLOC_STATUS_NOT_FOUND);
}

// the cards copied from the GGUF files build the same graphs as the files
static void test_cards_match_files(void) {
    static const char * const pairs[][2] = {
        { "llama-3-8b", "llama3-8b" }, { "qwen3-8b", "qwen3-8b" }, { "qwen3-30b-a3b", "qwen3moe-30b-a3b" },
        { "gemma-3-4b", "gemma3-4b" }, { "gpt-oss-20b", "gpt-oss-20b" }, { "qwen2.5-7b", "../../models-captured/gguf/qwen2.5-7b" },
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        char path[256];
        struct galloc_error err;
        snprintf(path, sizeof(path), MODELS_DIR "/gguf/%s.meta.gguf", pairs[i][1]);
        struct galloc_model * file = load_model(path), * card = NULL;
        CHECK(file != NULL && galloc_model_from_card(pairs[i][0], &card, &err));
        for (int fa = 0; file && card && fa < 2; fa++) {
            struct galloc_model_settings s;
            galloc_model_settings_default(&s);
            s.n_ctx      = 4096;
            s.n_batch    = 512;
            s.flash_attn = fa;
            size_t la = 0, lb = 0;
            char * a = galloc_model_document(file, &s, &la, &err);
            char * b = galloc_model_document(card, &s, &lb, &err);
            model_compare_reset();
            CHECK(a && b && model_same_graph(pairs[i][0], b, lb, a, la));
            free(a);
            free(b);
        }
        galloc_model_free(file);
        galloc_model_free(card);
    }
}

// a GGUF file whose KV value was changed: the u32 (or the type) after the key
static char * patched(const char * key, int field, uint32_t value, size_t * len) {
    char * bytes = read_whole_file(MODELS_DIR "/gguf/llama3-tiny.meta.gguf", len);
    if (!bytes) {
        return NULL;
    }
    const size_t klen = strlen(key);
    for (size_t i = 0; i + klen + 8 <= *len; i++) {
        uint32_t type;
        memcpy(&type, bytes + i + klen, 4);
        if (memcmp(bytes + i, key, klen) == 0 && type <= 12) {
            memcpy(bytes + i + klen + (field == 0 ? 4 : 0), &value, 4); // field 0: the value, 1: the type
            return bytes;
        }
    }
    free(bytes);
    return NULL;
}

// hostile or inconsistent metadata: an error naming the key or tensor, never an abort
static void test_bad_models(void) {
    static const struct { const char * key; int field; uint32_t value; const char * says; } cases[] = {
        { "llama.attention.head_count_kv", 0, 3,       "head_count_kv" },      // 4 heads: not a divisor
        { "llama.block_count",             0, 100000,  "block_count" },
        { "llama.block_count",             0, 3,       "missing tensor 'blk.2.attn_norm.weight'" },
        { "llama.embedding_length",        0, 300,     "invalid n_rot: 64, expected 75" },
        { "llama.feed_forward_length",     0, 600,     "tensor 'blk.0.ffn_gate.weight' has wrong shape" },
        { "llama.rope.dimension_count",    0, 62,      "invalid n_rot" },
        { "llama.block_count",             1, 5,       "wrong type" },          // INT32 where llama.cpp wants UINT32
        { "llama.attention.head_count",    0, 0,       "head_count" },
        { "llama.feed_forward_length",     0, 1u << 30, "feed_forward_length" },
        { "llama.vocab_size",              0, 0,       "vocabulary" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = 0;
        char * bytes = patched(cases[i].key, cases[i].field, cases[i].value, &len);
        CHECK(bytes != NULL);
        if (!bytes) {
            continue;
        }
        struct galloc_gguf g;
        uint64_t need = 0;
        struct galloc_error gerr, err;
        galloc_error_clear(&err);
        CHECK(galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, &gerr) == GALLOC_GGUF_OK);
        struct galloc_model * m = NULL;
        bool built = galloc_model_from_gguf(&g, &m, &err);
        if (built) {
            struct galloc_model_settings s;
            galloc_model_settings_default(&s);
            s.n_ctx = 4096;
            size_t doc_len;
            char * doc = galloc_model_document(m, &s, &doc_len, &err);
            built = doc != NULL;
            free(doc);
        }
        CHECK(!built);
        CHECK(err.status == GALLOC_STATUS_INVALID); // metadata llama.cpp's loader refuses
        if (strstr(err.message, cases[i].says) == NULL) {
            fprintf(stderr, "  %s = %u: '%s' does not say '%s'\n", cases[i].key, cases[i].value, err.message, cases[i].says);
            check_failures++;
        }
        galloc_model_free(m);
        galloc_gguf_free(&g);
        free(bytes);
    }
    // settings past what a document holds: an error naming the flags
    struct galloc_model * m = NULL;
    struct galloc_error err;
    CHECK(galloc_model_from_card("llama-3.1-70b", &m, &err));
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx = s.n_batch = s.n_ubatch = 1 << 24;
    s.flash_attn = 0;
    size_t len;
    char * doc = galloc_model_document(m, &s, &len, &err);
    CHECK(doc == NULL && strncmp(err.message, "-c/-ub", 6) == 0 && err.status == GALLOC_STATUS_LIMIT);
    free(doc);
    galloc_model_free(m);
}

int main(void) {
    RUN(test_models_real);
    RUN(test_models_captured);
    RUN(test_context_rounding);
    RUN(test_swa_cache_sizes);
    RUN(test_reserve_order);
    RUN(test_bad_settings);
    RUN(test_cards);
    RUN(test_cards_match_files);
    RUN(test_bad_models);
    return check_report("test-models-real");
}
