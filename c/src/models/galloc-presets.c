// galloc-presets.c: the allocator test's scenarios as graph documents.
//
// The same graphs as ggml's allocator test (and tests/c/test-scenarios.c),
// built with the ggml API on virtual buffer types with the test's alignment
// and max sizes, then exported. Model presets live in their own files and are
// listed here: the tiny llama decoders that teach (galloc-llama.c), then
// llama.cpp's own graphs of well-known models (model cards, galloc-model.h).

#include "galloc-presets.h"
#include "galloc-export.h"
#include "galloc-llama.h"
#include "galloc-model.h"
#include "galloc-virtual.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdlib.h>
#include <string.h>

#define PRESET_MAX_TYPES 2

// what a builder sets up: a graph, its buffer types and ids
struct scenario {
    struct ggml_context        * ctx;      // graph tensors
    struct ggml_context        * ext_ctx;  // tensors allocated before the graph allocator runs
    struct ggml_cgraph         * graph;
    ggml_backend_buffer_type_t   bufts[PRESET_MAX_TYPES];
    int                          n_bufts;
    int                        * node_ids; // NULL: all 0
    int                        * leaf_ids;
};

static struct ggml_tensor * input_bytes(struct ggml_context * ctx, size_t bytes) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) (bytes / 4));
    ggml_set_input(t);
    return t;
}

static void name_all(struct ggml_context * ctx, const char * prefix) {
    int i = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        ggml_format_name(t, "%s%d", prefix, i++);
    }
}

static void finish(struct scenario * sc, struct ggml_tensor * out) {
    name_all(sc->ctx, "x");
    ggml_set_output(out);
    ggml_build_forward_expand(sc->graph, out);
}

static void build_max_size_too_many_tensors(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 8), * x1 = input_bytes(ctx, 8), * x2 = input_bytes(ctx, 8);
    struct ggml_tensor * x3 = ggml_mul(ctx, x0, x1);
    struct ggml_tensor * x4 = ggml_add(ctx, x1, x2);
    struct ggml_tensor * x5 = ggml_add(ctx, x3, x0);
    finish(sc, ggml_add(ctx, x4, x5));
}

static void build_max_size_tensor_too_large(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 16), * x1 = input_bytes(ctx, 8);
    finish(sc, ggml_concat(ctx, x0, x1, 0));
}

static void build_tensor_larger_than_max_size(struct scenario * sc) {
    finish(sc, ggml_scale(sc->ctx, input_bytes(sc->ctx, 24), 2.0f));
}

static void build_not_enough_chunks(struct scenario * sc) {
    struct ggml_tensor * x[17];
    for (int i = 0; i < 17; i++) {
        x[i] = input_bytes(sc->ctx, 8);
    }
    struct ggml_tensor * acc = x[0];
    for (int i = 0; i < 16; i++) {
        acc = ggml_add(sc->ctx, acc, x[i + 1]);
    }
    finish(sc, acc);
}

static void build_fill_leftover_space(struct scenario * sc) {
    struct ggml_tensor * x1 = ggml_pad(sc->ctx, input_bytes(sc->ctx, 8), 2, 0, 0, 0);
    finish(sc, ggml_mean(sc->ctx, x1));
}

static void build_view_inplace(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 16);
    struct ggml_tensor * x1 = ggml_reshape_2d(ctx, x0, 2, 2);
    struct ggml_tensor * x2 = ggml_permute(ctx, x1, 1, 0, 2, 3);
    struct ggml_tensor * x3 = ggml_view_1d(ctx, x2, 2, 4);
    struct ggml_tensor * x4 = input_bytes(ctx, 8);
    finish(sc, ggml_add(ctx, x3, x4));
}

static void build_reuse_and_free(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 24), * x1 = input_bytes(ctx, 8), * x2 = input_bytes(ctx, 8);
    struct ggml_tensor * x3 = ggml_add(ctx, x1, x2);
    struct ggml_tensor * x4 = ggml_pad(ctx, x0, 2, 0, 0, 0);
    struct ggml_tensor * x5 = ggml_scale(ctx, x4, 2.0f);
    struct ggml_tensor * x6 = ggml_add(ctx, x4, x5);
    struct ggml_tensor * x7 = ggml_view_1d(ctx, x6, 2, 8);
    finish(sc, ggml_add(ctx, x3, x7));
}

static void build_merge_free_block(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 16), * x1 = input_bytes(ctx, 16), * x2 = input_bytes(ctx, 16);
    struct ggml_tensor * x3 = ggml_mean(ctx, x0);
    struct ggml_tensor * x4 = ggml_mean(ctx, x1);
    struct ggml_tensor * x5 = ggml_pad(ctx, x2, 2, 0, 0, 0);
    struct ggml_tensor * x6 = ggml_add(ctx, x3, x4);
    struct ggml_tensor * x7 = ggml_pad(ctx, x6, 5, 0, 0, 0);
    finish(sc, ggml_add(ctx, x5, x7));
}

static void build_prefer_already_allocated_memory(struct scenario * sc) {
    struct ggml_tensor * x1 = ggml_mean(sc->ctx, input_bytes(sc->ctx, 24));
    finish(sc, ggml_mean(sc->ctx, x1));
}

static void build_multiple_buffer_types(struct scenario * sc) {
    static int leaf_ids[5] = { 0, 0, 1, 1, 0 }; // x0 a0 b0 b1 a1
    static int node_ids[8] = { 0, 0, 1, 1, 1, 1, 0, 0 };
    struct ggml_context * ctx = sc->ctx, * ext = sc->ext_ctx;
    struct ggml_tensor * a0 = input_bytes(ext, 16), * a1 = input_bytes(ext, 16);
    struct ggml_tensor * b0 = input_bytes(ext, 24), * b1 = input_bytes(ext, 4);
    ggml_set_name(a0, "a0");
    ggml_set_name(a1, "a1");
    ggml_set_name(b0, "b0");
    ggml_set_name(b1, "b1");
    struct ggml_tensor * x0 = input_bytes(ctx, 16);
    struct ggml_tensor * x1 = ggml_mul(ctx, x0, a0);
    struct ggml_tensor * x2 = ggml_pad(ctx, x1, 2, 0, 0, 0);
    struct ggml_tensor * x3 = ggml_mul(ctx, x2, b0);
    struct ggml_tensor * x4 = ggml_mean(ctx, x3);
    struct ggml_tensor * x5 = ggml_add(ctx, x4, b1);
    struct ggml_tensor * x6 = ggml_pad(ctx, x5, 3, 0, 0, 0);
    struct ggml_tensor * x7 = ggml_add(ctx, x6, a1);
    finish(sc, ggml_scale(ctx, x7, 2.0f));
    sc->leaf_ids = leaf_ids;
    sc->node_ids = node_ids;
}

static void build_buffer_size_zero(struct scenario * sc) {
    finish(sc, ggml_scale(sc->ctx, input_bytes(sc->ctx, 16), 2.0f));
}

static void build_realloc_a(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 24), * x1 = input_bytes(ctx, 16);
    struct ggml_tensor * x2 = ggml_view_1d(ctx, x0, 4, 0);
    finish(sc, ggml_add(ctx, x2, x1));
}

static void build_realloc_b(struct scenario * sc) {
    struct ggml_context * ctx = sc->ctx;
    struct ggml_tensor * x0 = input_bytes(ctx, 20), * x1 = input_bytes(ctx, 20);
    finish(sc, ggml_add(ctx, x0, x1));
}

struct preset {
    const char * name;
    const char * description;
    void (*build)(struct scenario * sc);
    size_t       alignment;             // of every buffer type
    size_t       max_size[PRESET_MAX_TYPES]; // 0: no second type
    bool         external_a_b;          // a[] in type 0 and b[] in type 1 are allocated beforehand
};

#define NO_LIMIT SIZE_MAX

static const struct preset presets[] = {
    { "test_max_size_too_many_tensors",
      "A 16-byte max buffer size splits the graph over two chunks; in-place adds keep it small.",
      build_max_size_too_many_tensors, 8, { 16, 0 }, false },
    { "test_max_size_tensor_too_large",
      "A tensor that does not fit in what is left of a chunk opens a new chunk.",
      build_max_size_tensor_too_large, 8, { 32, 0 }, false },
    { "test_tensor_larger_than_max_size",
      "A tensor larger than the max buffer size still gets one chunk of its own size.",
      build_tensor_larger_than_max_size, 8, { 16, 0 }, false },
    { "test_not_enough_chunks",
      "After 15 chunks the 16th and last chunk grows to take everything else.",
      build_not_enough_chunks, 8, { 8, 0 }, false },
    { "test_fill_leftover_space",
      "Memory freed in an earlier chunk is filled before any chunk grows.",
      build_fill_leftover_space, 8, { 16, 0 }, false },
    { "test_view_inplace",
      "Reshape, permute and view alias their source's memory and cost nothing.",
      build_view_inplace, 8, { 32, 0 }, false },
    { "test_reuse_and_free",
      "Freed neighbours merge into one block that a larger tensor can reuse.",
      build_reuse_and_free, 8, { 40, 0 }, false },
    { "test_merge_free_block_32",
      "Merging free blocks under a 32-byte max buffer size, over three chunks.",
      build_merge_free_block, 8, { 32, 0 }, false },
    { "test_merge_free_block_SIZE_MAX",
      "The same graph without a size limit: one chunk, blocks merged and reused.",
      build_merge_free_block, 8, { NO_LIMIT, 0 }, false },
    { "test_prefer_already_allocated_memory",
      "Freed memory inside a chunk is preferred over its unused tail, even when the tail fits better.",
      build_prefer_already_allocated_memory, 4, { 32, 0 }, false },
    { "test_multiple_buffer_types",
      "Two buffer types with inputs allocated beforehand; a tensor computed in place lives in its source's buffer type.",
      build_multiple_buffer_types, 8, { 32, NO_LIMIT }, true },
    { "test_buffer_size_zero",
      "A buffer type that no tensor uses needs no buffer at all.",
      build_buffer_size_zero, 8, { NO_LIMIT, NO_LIMIT }, false },
    { "realloc_a",
      "First graph of the reallocation scenario: a 24-byte and a 16-byte chunk.",
      build_realloc_a, 4, { 32, 0 }, false },
    { "realloc_b",
      "Second graph of the reallocation scenario: same total, but a chunk must grow to 20 bytes.",
      build_realloc_b, 4, { 32, 0 }, false },
};

#define N_SCENARIOS ((int) (sizeof(presets) / sizeof(presets[0])))

// llama.cpp's graphs of model cards at a context setting
struct model_preset {
    const char * name;
    const char * card;
    const char * description;
    int64_t      n_ctx;
    enum galloc_model_graph graph;
};

static const struct model_preset model_presets[] = {
    { "llama-3.1-8b-c4096", "llama-3.1-8b", "llama.cpp's prompt graph of Llama 3.1 8B: -c 4096 -ub 512, flash attention.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "llama-3.1-8b-decode", "llama-3.1-8b", "llama.cpp's one-token graph of Llama 3.1 8B against a 4096-cell KV cache.",
      4096, GALLOC_MODEL_GRAPH_DECODE },
    { "llama-3.1-70b-c8192", "llama-3.1-70b", "llama.cpp's prompt graph of Llama 3.1 70B (64 heads sharing 8 KV heads): -c 8192.",
      8192, GALLOC_MODEL_GRAPH_PROMPT },
    { "qwen3-30b-a3b-c4096", "qwen3-30b-a3b", "llama.cpp's prompt graph of Qwen3-30B-A3B: 128 experts, 8 used per token.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "gemma-3-4b-c4096", "gemma-3-4b", "llama.cpp's prompt graph of gemma-3-4b: sliding-window layers on a 1536-cell cache.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "gpt-oss-20b-c4096", "gpt-oss-20b", "llama.cpp's prompt graph of gpt-oss-20b: attention sinks, biased experts.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
};

#define N_MODEL_PRESETS ((int) (sizeof(model_presets) / sizeof(model_presets[0])))

// the listed llama presets, by position in the list
static int listed_llama(int k) {
    for (int i = 0; i < galloc_llama_preset_count(); i++) {
        if (galloc_llama_preset_listed(i) && k-- == 0) {
            return i;
        }
    }
    return -1;
}

static int n_listed_llama(void) {
    int n = 0;
    for (int i = 0; i < galloc_llama_preset_count(); i++) {
        n += galloc_llama_preset_listed(i);
    }
    return n;
}

// the scenarios, the teaching llama presets, then the model presets
int galloc_preset_count(void) {
    return N_SCENARIOS + n_listed_llama() + N_MODEL_PRESETS;
}

const char * galloc_preset_name(int i) {
    if (i >= 0 && i < N_SCENARIOS) {
        return presets[i].name;
    }
    const int n_llama = n_listed_llama();
    if (i >= N_SCENARIOS && i < N_SCENARIOS + n_llama) {
        return galloc_llama_preset_name(listed_llama(i - N_SCENARIOS));
    }
    const int m = i - N_SCENARIOS - n_llama;
    return m >= 0 && m < N_MODEL_PRESETS ? model_presets[m].name : NULL;
}

const char * galloc_preset_description(int i) {
    if (i >= 0 && i < N_SCENARIOS) {
        return presets[i].description;
    }
    const int n_llama = n_listed_llama();
    if (i >= N_SCENARIOS && i < N_SCENARIOS + n_llama) {
        return galloc_llama_preset_description(listed_llama(i - N_SCENARIOS));
    }
    const int m = i - N_SCENARIOS - n_llama;
    return m >= 0 && m < N_MODEL_PRESETS ? model_presets[m].description : NULL;
}

static char * model_preset_document(const struct model_preset * p, size_t * len) {
    struct galloc_model * m = NULL;
    if (!galloc_model_from_card(p->card, &m, NULL)) {
        return NULL;
    }
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx = p->n_ctx;
    s.graph = p->graph;
    char * doc = galloc_model_document_named(m, &s, p->name, len, NULL);
    galloc_model_free(m);
    return doc;
}

static char * build_scenario(const struct preset * p, size_t * len) {
    struct ggml_init_params params = { 64 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct scenario sc = { 0 };
    sc.ctx     = ggml_init(params);
    sc.ext_ctx = ggml_init(params);
    if (!sc.ctx || !sc.ext_ctx) {
        ggml_free(sc.ctx);
        ggml_free(sc.ext_ctx);
        return NULL;
    }
    sc.graph = ggml_new_graph(sc.ctx);
    bool ok = true; // false: out of memory (NULL returned)
    for (int b = 0; b < PRESET_MAX_TYPES && p->max_size[b]; b++) {
        sc.bufts[b] = galloc_virtual_buft_new(sc.n_bufts ? "dummy_b" : (p->max_size[1] ? "dummy_a" : "dummy"), p->alignment, p->max_size[b]);
        ok = ok && sc.bufts[b];
        sc.n_bufts++;
    }
    if (ok) {
        p->build(&sc);
        ok = !sc.graph->out_of_memory;
    }

    // weights: a[] in the first type, b[] in the second, as the original test allocates them
    ggml_backend_buffer_t ext[2] = { NULL, NULL };
    if (ok && p->external_a_b) {
        // a0, a1 (16 bytes each) live in type 0, b0, b1 (24 and 4) in type 1
        ggml_backend_buffer_t buf_a = ext[0] = ggml_backend_buft_alloc_buffer(sc.bufts[0], 32);
        ggml_backend_buffer_t buf_b = ext[1] = ggml_backend_buft_alloc_buffer(sc.bufts[1], 32);
        ok = buf_a && buf_b;
    }
    if (ok && p->external_a_b) {
        ggml_backend_buffer_t buf_a = ext[0], buf_b = ext[1];
        char * base_a = ggml_backend_buffer_get_base(buf_a);
        char * base_b = ggml_backend_buffer_get_base(buf_b);
        size_t off_a = 0, off_b = 0;
        for (struct ggml_tensor * t = ggml_get_first_tensor(sc.ext_ctx); t; t = ggml_get_next_tensor(sc.ext_ctx, t)) {
            if (t->name[0] == 'a') {
                ggml_backend_tensor_alloc(buf_a, t, base_a + off_a);
                off_a += 16;
            } else {
                ggml_backend_tensor_alloc(buf_b, t, base_b + off_b);
                off_b += 24; // b0 first, then b1
            }
        }
    }

    char * doc = ok ? galloc_export_graph(sc.graph, p->name, sc.bufts, sc.n_bufts, sc.node_ids, sc.leaf_ids, len) : NULL;

    ggml_backend_buffer_free(ext[0]);
    ggml_backend_buffer_free(ext[1]);
    for (int b = 0; b < sc.n_bufts; b++) {
        galloc_virtual_buft_free(sc.bufts[b]);
    }
    ggml_free(sc.ctx);
    ggml_free(sc.ext_ctx);
    return doc;
}

bool galloc_preset_exists(const char * name) {
    for (int i = 0; name && i < N_SCENARIOS; i++) {
        if (strcmp(presets[i].name, name) == 0) {
            return true;
        }
    }
    for (int i = 0; name && i < N_MODEL_PRESETS; i++) {
        if (strcmp(model_presets[i].name, name) == 0) {
            return true;
        }
    }
    struct galloc_llama_params p;
    return name && galloc_llama_preset_params(name, &p);
}

char * galloc_preset_document(const char * name, size_t * len) {
    for (int i = 0; name && i < N_SCENARIOS; i++) {
        if (strcmp(presets[i].name, name) == 0) {
            return build_scenario(&presets[i], len);
        }
    }
    for (int i = 0; name && i < N_MODEL_PRESETS; i++) {
        if (strcmp(model_presets[i].name, name) == 0) {
            return model_preset_document(&model_presets[i], len);
        }
    }
    // the llama-like graphs by name too (listed or not: golden twins and benchmarks use them)
    return galloc_llama_preset_document(name, len);
}
