// galloc-model-context.c: llama.cpp's context creation, from the settings to the reserved graphs.
//
// galloc_model_cparams_init derives llama_cparams as llama_context's constructor does (context padded
// to 256 cells, cells per sequence stream, batch limited by the context, outputs per batch);
// the KV caches are sized as llama_kv_cache(_iswa) sizes them; a graph is built as
// llama_context::graph_reserve builds it (the full micro-batch, one stream per sequence,
// every token an output), with weights and caches on a dummy buffer as in no_alloc mode.
// The compute buffer size is what ggml_gallocr keeps after llama.cpp's three reserves.

#include "galloc-document.h"
#include "galloc-error.h"
#include "galloc-export.h"
#include "galloc-gallocr.h"
#include "galloc-model-impl.h"
#include "galloc-planner.h"
#include "galloc-virtual.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAX_SEQ    256 // LLAMA_MAX_SEQ
#define MODEL_CPU_ALIGN  32  // the CPU buffer type's alignment (TENSOR_ALIGNMENT)

//
// settings
//

void galloc_model_settings_default(struct galloc_model_settings * s) {
    memset(s, 0, sizeof(*s));
    s->n_ctx      = 0;
    s->n_batch    = 2048;
    s->n_ubatch   = 512;
    s->flash_attn = 1;
    s->type_k     = GGML_TYPE_F16;
    s->type_v     = GGML_TYPE_F16;
    s->n_seq      = 1;
    s->graph      = GALLOC_MODEL_GRAPH_PROMPT;
}

static const enum ggml_type model_cache_types[] = {
    GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
    GGML_TYPE_Q4_1, GGML_TYPE_IQ4_NL, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
};

bool galloc_model_cache_type_from_name(const char * name, enum ggml_type * type) {
    for (size_t i = 0; name && i < sizeof(model_cache_types) / sizeof(model_cache_types[0]); i++) {
        if (strcmp(ggml_type_name(model_cache_types[i]), name) == 0) {
            *type = model_cache_types[i];
            return true;
        }
    }
    return false;
}

static bool is_cache_type(enum ggml_type t) {
    for (size_t i = 0; i < sizeof(model_cache_types) / sizeof(model_cache_types[0]); i++) {
        if (model_cache_types[i] == t) {
            return true;
        }
    }
    return false;
}

static uint32_t pad256(uint64_t x) {
    return (uint32_t) ((x + 255) / 256 * 256);
}

// bytes of a tensor of this type and shape, in 64 bits whatever size_t is (as a double: no overflow)
static double tensor_bytes64(enum ggml_type type, const int64_t * ne) {
    return (double) ne[0] / (double) ggml_blck_size(type) * (double) ggml_type_size(type) * (double) ne[1] * (double) ne[2] *
           (double) ne[3];
}

// the tensor limits: 2^40 bytes (what a graph document holds: galloc plan refuses more), and where
// size_t has 32 bits (wasm32) SIZE_MAX / margin: 2 for what the graph computes (so that no size or
// offset the ggml layer derives from it wraps), 1 for weights (only read, whole or by views)
static bool bytes_fit(double bytes, double margin, const char * what, struct galloc_error * err) {
    if (bytes > (double) GALLOC_DOCUMENT_MAX_TENSOR_BYTES) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "-c/-ub: %s would take %.0f GiB, more than a graph document holds (1 TiB per tensor)",
                           what, bytes / 1073741824.0);
    }
    if (bytes * margin > (double) SIZE_MAX) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "-c/-ub: %s would take %.0f MiB, too large to plan with a 32-bit size_t (use the 64-bit CLI)",
                           what, bytes / 1048576.0);
    }
    return true;
}

// the largest tensors a graph of these settings has (an upper bound of each kind, f32 activations),
// checked before building: past the limits, the ggml layer's sizes would wrap on wasm32
static bool sizes_fit(const struct galloc_model * m, const struct model_cparams * cp, struct galloc_error * err) {
    const struct model_hparams * hp = &m->hp;
    const double n_tokens = cp->n_ubatch < cp->n_ctx ? cp->n_ubatch : cp->n_ctx;
    const double n_used = hp->n_expert_used > 0 ? hp->n_expert_used : 1;
    double worst = 0.0;
    const char * what = "";
#define SIZES_CONSIDER(bytes, name) do { const double b_ = (bytes); if (b_ > worst) { worst = b_; what = (name); } } while (0)
    // the KQ mask: every cell of a sequence's cache for every token (f16 with flash attention)
    SIZES_CONSIDER((double) cp->n_ctx_seq * n_tokens * (cp->flash_attn ? 2.0 : 4.0), "the attention mask");
    SIZES_CONSIDER(n_tokens * hp->n_embd * n_used * 4.0, "the activations");
    SIZES_CONSIDER(n_tokens * (double) hp->n_ff_exp * n_used * 4.0, "the experts' activations");
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        const double heads = (double) hp->n_head[il] * (hp->n_embd_head_k_full > hp->n_embd_head_k_swa ? hp->n_embd_head_k_full
                                                                                                        : hp->n_embd_head_k_swa);
        SIZES_CONSIDER(cp->flash_attn ? 0.0 : (double) cp->n_ctx_seq * n_tokens * hp->n_head[il] * 4.0, "the attention scores");
        SIZES_CONSIDER((double) cp->n_ctx_seq * cp->n_seq_max * galloc_hp_n_embd_v_gqa_max(hp) * 4.0, "a layer's KV cache");
        SIZES_CONSIDER(n_tokens * heads * 4.0, "the attention heads");
        SIZES_CONSIDER(n_tokens * (double) hp->n_ff[il] * 4.0, "the FFN");
    }
    SIZES_CONSIDER((double) hp->n_vocab * n_tokens * 4.0, "the logits");
    // a layer's recurrent states, and the scan's output with them
    SIZES_CONSIDER(((double) galloc_hp_n_embd_r(hp) + galloc_hp_n_embd_s(hp)) * cp->n_seq_max * 4.0, "a layer's recurrent states");
    SIZES_CONSIDER(n_tokens * (double) hp->ssm_d_inner * 4.0 + (double) galloc_hp_n_embd_s(hp) * cp->n_seq_max * 4.0, "the scan");
#undef SIZES_CONSIDER
    if (!bytes_fit(worst, 2.0, what, err)) {
        return false;
    }
    // the weights: the file's, or a card's (f16 token embeddings and output, the largest)
    for (int64_t i = 0; i < m->n_tensors; i++) {
        if (!bytes_fit(tensor_bytes64(m->tensors[i].type, m->tensors[i].ne), 1.0, m->tensors[i].name, err)) {
            return false;
        }
    }
    return bytes_fit((double) hp->n_embd * hp->n_vocab * 2.0, 1.0, "the token embeddings", err);
}

// after building: every tensor of the graph within the limits (the estimate above is the guard that
// keeps the build from wrapping; this makes sure `galloc model` never writes what `galloc plan` refuses)
static bool graph_fits(const struct ggml_cgraph * gf, struct galloc_error * err) {
    char what[GGML_MAX_NAME + 16];
    for (int pass = 0; pass < 2; pass++) {
        const int n = pass == 0 ? gf->n_nodes : gf->n_leafs;
        for (int i = 0; i < n; i++) {
            const struct ggml_tensor * t = pass == 0 ? gf->nodes[i] : gf->leafs[i];
            for (int s = -1; s < GGML_MAX_SRC; s++) {
                const struct ggml_tensor * x = s < 0 ? t : t->src[s];
                const double bytes = x ? tensor_bytes64(x->type, x->ne) : 0.0;
                if (bytes > (double) GALLOC_DOCUMENT_MAX_TENSOR_BYTES || bytes > (double) SIZE_MAX) {
                    snprintf(what, sizeof(what), "tensor '%s'", x->name);
                    return bytes_fit(bytes, 1.0, what, err);
                }
            }
        }
    }
    return true;
}

bool galloc_model_cparams_init(const struct galloc_model * m, const struct galloc_model_settings * s, struct model_cparams * cp,
                               struct galloc_error * err) {
    const struct model_hparams * hp = &m->hp;
    memset(cp, 0, sizeof(*cp));
    if (s->n_seq < 1 || s->n_seq > MODEL_MAX_SEQ) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-np: %d sequences (1 to %d)", (int) s->n_seq, MODEL_MAX_SEQ);
    }
    if (s->n_ctx < 0 || s->n_ctx > (1 << 24)) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-c: context %lld out of range (0 to %d)", (long long) s->n_ctx, 1 << 24);
    }
    if (s->n_batch < 0 || s->n_batch > (1 << 24) || s->n_ubatch < 0 || s->n_ubatch > (1 << 24)) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: batch %lld out of range (0 to %d)", s->n_batch < 0 || s->n_batch > (1 << 24) ? "-b" : "-ub",
                 (long long) (s->n_batch < 0 || s->n_batch > (1 << 24) ? s->n_batch : s->n_ubatch), 1 << 24);
    }
    if (s->n_batch == 0 && s->n_ubatch == 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-b/-ub: n_batch and n_ubatch cannot both be zero");
    }
    if (s->flash_attn != 0 && s->flash_attn != 1) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-fa: %d (0 off, 1 on)", (int) s->flash_attn);
    }
    if (!is_cache_type(s->type_k) || !is_cache_type(s->type_v)) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: unsupported cache type %d", is_cache_type(s->type_k) ? "-ctv" : "-ctk",
                 (int) (is_cache_type(s->type_k) ? s->type_v : s->type_k));
    }
    if (s->graph != GALLOC_MODEL_GRAPH_PROMPT && s->graph != GALLOC_MODEL_GRAPH_DECODE) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "--graph: unknown graph %d", (int) s->graph);
    }
    if (s->n_ctx == 0 && hp->n_ctx_train == 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-c: n_ctx and the model's context_length cannot both be zero");
    }
    cp->flash_attn = s->flash_attn != 0;
    cp->type_k     = s->type_k;
    cp->type_v     = s->type_v;
    if (ggml_is_quantized(s->type_v) && !cp->flash_attn) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ctv: quantized V cache (%s) requires flash attention (-fa on)", ggml_type_name(s->type_v));
    }
    // llama.cpp checks this with flash attention; without, ggml would assert on the cache's views
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (ggml_is_quantized(s->type_k) && galloc_hp_n_embd_head_k(hp, il) % ggml_blck_size(s->type_k) != 0) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ctk: K cache type %s with block size %lld does not divide n_embd_head_k=%u",
                     ggml_type_name(s->type_k), (long long) ggml_blck_size(s->type_k), galloc_hp_n_embd_head_k(hp, il));
        }
        if (ggml_is_quantized(s->type_v) && galloc_hp_n_embd_head_v(hp, il) % ggml_blck_size(s->type_v) != 0) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ctv: V cache type %s with block size %lld does not divide n_embd_head_v=%u",
                     ggml_type_name(s->type_v), (long long) ggml_blck_size(s->type_v), galloc_hp_n_embd_head_v(hp, il));
        }
    }
    // a decode context: one token per micro-batch
    const int64_t n_batch  = s->graph == GALLOC_MODEL_GRAPH_DECODE ? 1 : s->n_batch;
    const int64_t n_ubatch = s->graph == GALLOC_MODEL_GRAPH_DECODE ? 1 : s->n_ubatch;

    cp->n_seq_max   = (uint32_t) s->n_seq;
    cp->kv_unified  = false;
    cp->swa_full    = s->swa_full;
    cp->causal_attn = hp->causal_attn;
    cp->n_ctx       = s->n_ctx == 0 ? hp->n_ctx_train : (uint32_t) s->n_ctx;

    // rope and YaRN (llama_context's constructor)
    cp->rope_freq_base  = hp->rope_freq_base_train;
    cp->rope_freq_scale = hp->rope_freq_scale_train;
    cp->n_ctx_orig_yarn = hp->n_ctx_orig_yarn != 0 ? hp->n_ctx_orig_yarn : hp->n_ctx_train;
    cp->yarn_ext_factor  = hp->yarn_ext_factor;
    cp->yarn_attn_factor = hp->yarn_attn_factor;
    cp->yarn_beta_fast   = hp->yarn_beta_fast;
    cp->yarn_beta_slow   = hp->yarn_beta_slow;
    if (hp->rope_scaling_type_train == MODEL_ROPE_SCALING_NONE) {
        cp->rope_freq_scale = 1.0f;
    }
    if (cp->yarn_ext_factor < 0.0f) {
        cp->yarn_ext_factor = hp->rope_scaling_type_train == MODEL_ROPE_SCALING_YARN ? 1.0f : 0.0f;
    }
    if (cp->yarn_ext_factor != 0.0f) {
        const float factor = 1.0f / cp->rope_freq_scale;
        const float mscale = factor <= 1.0f ? 1.0f : 0.1f * galloc_model_logf(factor) + 1.0f;
        if (hp->rope_yarn_log_mul != 0.0f) {
            const float mscale_all = factor <= 1.0f ? 1.0f : 0.1f * hp->rope_yarn_log_mul * galloc_model_logf(factor) + 1.0f;
            cp->yarn_attn_factor = mscale / mscale_all;
        } else {
            cp->yarn_attn_factor = mscale;
        }
        cp->yarn_attn_factor *= 1.0f / (1.0f + 0.1f * galloc_model_logf(factor));
    }
    cp->yarn_attn_factor *= hp->rope_attn_factor;

    // batches: limited by the (unpadded) context with causal attention
    cp->n_batch = cp->causal_attn ? (uint32_t) (cp->n_ctx < n_batch ? cp->n_ctx : n_batch) : (uint32_t) n_batch;
    const uint32_t ub = n_ubatch == 0 ? (uint32_t) n_batch : (uint32_t) n_ubatch;
    cp->n_ubatch      = cp->n_batch < ub ? cp->n_batch : ub;
    cp->n_outputs_max = cp->n_batch;

    cp->n_ctx     = pad256(cp->n_ctx);
    cp->n_ctx_seq = pad256(cp->n_ctx / cp->n_seq_max);
    if (cp->n_ctx_seq == 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-c/-np: n_ctx_seq == 0");
    }
    if (cp->n_ctx != cp->n_ctx_seq * cp->n_seq_max) {
        cp->n_ctx = cp->n_ctx_seq * cp->n_seq_max; // rounded down to a multiple of the sequences
    }
    if (cp->n_ubatch == 0) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ub: the micro-batch is 0 tokens");
    }
    return sizes_fit(m, cp, err);
}

//
// KV caches (llama_kv_cache / llama_kv_cache_iswa)
//

static bool cache_init(struct model_graph * g, struct model_kv_cache * kv, uint32_t size, bool swa_layers) {
    const bool hybrid = galloc_model_arch_memory(g->m->arch->name) == MODEL_MEMORY_HYBRID;
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    memset(kv, 0, sizeof(*kv));
    kv->used     = true;
    kv->size     = size;
    kv->n_stream = cp->kv_unified ? 1 : cp->n_seq_max;
    kv->v_trans  = !cp->flash_attn;
    const bool iswa = hp->swa_type != MODEL_SWA_NONE;
    const bool mla  = galloc_hp_is_mla(hp); // K only: V is a view of K
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if ((iswa && hp->is_swa[il] != swa_layers) || (hybrid && !galloc_model_layer_attn(g->m, il))) {
            continue; // another cache's layer, or a recurrent one (llama_memory_hybrid's attention filter)
        }
        const int32_t hk = (int32_t) galloc_hp_n_embd_head_k(hp, il), hv = (int32_t) galloc_hp_n_embd_head_v(hp, il);
        kv->n_embd_head_k_all = kv->n_embd_head_k_all == 0 ? hk : kv->n_embd_head_k_all != hk ? -1 : hk;
        if (!mla) {
            kv->n_embd_head_v_all = kv->n_embd_head_v_all == 0 ? hv : kv->n_embd_head_v_all != hv ? -1 : hv;
        }
        const int64_t n_embd_k_gqa = galloc_hp_n_embd_k_gqa(hp, il);
        const int64_t n_embd_v_gqa = kv->v_trans ? galloc_hp_n_embd_v_gqa_max(hp) : galloc_hp_n_embd_v_gqa(hp, il);
        if (n_embd_k_gqa % ggml_blck_size(cp->type_k) != 0 || n_embd_v_gqa % ggml_blck_size(cp->type_v) != 0) {
            galloc_model_fail(g, "%s: the cache rows of layer %u (%lld/%lld values) are not whole %s blocks",
                       n_embd_k_gqa % ggml_blck_size(cp->type_k) != 0 ? "-ctk" : "-ctv", il, (long long) n_embd_k_gqa,
                       (long long) n_embd_v_gqa,
                       ggml_type_name(n_embd_k_gqa % ggml_blck_size(cp->type_k) != 0 ? cp->type_k : cp->type_v));
            return false;
        }
        kv->k[il] = ggml_new_tensor_3d(g->wctx, cp->type_k, n_embd_k_gqa, size, kv->n_stream);
        kv->v[il] = mla ? NULL : ggml_new_tensor_3d(g->wctx, cp->type_v, n_embd_v_gqa, size, kv->n_stream);
        if (!kv->k[il] || (!mla && !kv->v[il])) {
            galloc_model_fail_status(g, GALLOC_STATUS_NO_MEMORY, "out of memory creating the KV cache");
            return false;
        }
        ggml_format_name(kv->k[il], "cache_k_l%u", il);
        kv->k[il]->buffer = g->wbuf;
        if (kv->v[il]) {
            ggml_format_name(kv->v[il], "cache_v_l%u", il);
            kv->v[il]->buffer = g->wbuf;
        }
    }
    // quantized caches rotate K and V (Hadamard) when heads are multiples of 64
    kv->attn_rot_k = kv->n_embd_head_k_all > 0 && ggml_is_quantized(cp->type_k) && galloc_hp_n_embd_head_k(hp, 0) % 64 == 0;
    kv->attn_rot_v = kv->n_embd_head_v_all > 0 && ggml_is_quantized(cp->type_v) && galloc_hp_n_embd_head_v(hp, 0) % 64 == 0;
    return true;
}

// cells of the caches: the non-SWA cache n_ctx_seq, the SWA cache the window (per sequence when
// unified) plus a micro-batch, padded to 256 and at most the base
void galloc_model_cache_sizes(const struct model_hparams * hp, const struct model_cparams * cp, uint32_t * base, uint32_t * swa) {
    *base = cp->n_ctx_seq;
    *swa  = 0;
    if (hp->swa_type != MODEL_SWA_NONE) {
        const uint64_t want = (uint64_t) hp->n_swa * (cp->kv_unified ? cp->n_seq_max : 1) + cp->n_ubatch;
        *swa = cp->swa_full ? *base : pad256(want < *base ? want : *base);
    }
}

//
// one reserved graph
//

struct model_build {
    struct model_graph     g;
    struct model_cparams   cp;
    struct model_kv_cache  caches[2];
    struct model_rs_cache  rs;
    ggml_backend_buffer_type_t buft;
    struct galloc_error    err;    // the builders' first failure
};

static void build_free(struct model_build * b) {
    if (!b) {
        return;
    }
    ggml_backend_buffer_free(b->g.wbuf);
    ggml_free(b->g.wctx);
    ggml_free(b->g.ctx);
    free(b->g.layers);
    free(b);
}

// the graph of a micro-batch of n_tokens tokens in n_seqs sequences with n_outputs outputs
struct hooks {
    void (*on_weights)(struct model_graph * g, void * ud);
    void (*on_cb)(struct model_graph * g, struct ggml_tensor * t, const char * name, int il, void * ud);
    void * ud;
    bool no_graph; // stop after the weights and the memory
};

static struct model_build * build_graph_hooked(const struct galloc_model * m, const struct model_cparams * cp,
                                               ggml_backend_buffer_type_t buft, uint32_t n_tokens, uint32_t n_seqs,
                                               uint32_t n_outputs, const struct hooks * hooks, struct galloc_error * err) {
    struct model_build * b = calloc(1, sizeof(*b));
    if (!b) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    b->cp   = *cp;
    b->buft = buft;
    struct model_graph * g = &b->g;
    g->m        = m;
    g->hp       = &m->hp;
    g->cp       = &b->cp;
    g->caches   = b->caches;
    g->rs       = &b->rs;
    g->err      = &b->err;
    if (n_tokens % n_seqs != 0) {
        n_tokens = (n_tokens + n_seqs - 1) / n_seqs * n_seqs; // a multiple of the sequences
    }
    g->n_tokens      = n_tokens;
    g->n_seqs        = n_seqs;
    g->n_outputs     = n_outputs;
    g->n_expert_used = m->hp.n_expert_used;
    if (hooks) {
        g->on_weights = hooks->on_weights;
        g->on_cb      = hooks->on_cb;
        g->hook_ud    = hooks->ud;
    }

    const uint32_t n_layer   = m->hp.n_layer;
    const size_t   n_weights = (size_t) (m->n_tensors > 0 ? m->n_tensors : 0) + 64 * (size_t) n_layer + 64;
    const size_t   n_wctx    = n_weights + 4 * (size_t) n_layer + 16;
    struct ggml_init_params wp = { n_wctx * ggml_tensor_overhead(), NULL, true };
    g->wctx   = ggml_init(wp);
    g->wbuf   = ggml_backend_buft_alloc_buffer(buft, 0); // the weights' and caches' dummy buffer (no_alloc)
    g->layers = calloc(n_layer, sizeof(*g->layers));
    // llama.cpp's graph_max_nodes is max(1024, 8 * n_tensors); a layer adds at most ~70 nodes, and
    // two per expert used (a view and an add)
    const size_t n_graph = 1024 + (size_t) n_layer * (96 + 2 * (size_t) m->hp.n_expert_used);
    struct ggml_init_params cp0 = { 2 * n_graph * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_graph, false), NULL, true };
    g->ctx = ggml_init(cp0);
    if (!g->wctx || !g->wbuf || !g->layers || !g->ctx) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        build_free(b);
        return NULL;
    }
    g->gf = ggml_new_graph_custom(g->ctx, n_graph, false);

    uint32_t size_base, size_swa;
    galloc_model_cache_sizes(&m->hp, cp, &size_base, &size_swa);
    bool ok = m->arch->load_tensors(g) && !g->failed;
    if (ok) {
        galloc_model_weights_scales(g);
        ok = !g->failed && (m->card || galloc_model_weights_all_used(g));
    }
    // the memory (llama_model::create_memory): a KV cache, recurrent states, both, or none (diffusion models)
    const enum model_memory memory = galloc_model_arch_memory(m->arch->name);
    const bool kv = memory == MODEL_MEMORY_KV || memory == MODEL_MEMORY_HYBRID;
    ok = ok && (!kv || cache_init(g, &b->caches[0], size_base, false));
    if (ok && kv && m->hp.swa_type != MODEL_SWA_NONE) {
        ok = cache_init(g, &b->caches[1], size_swa, true);
    }
    ok = ok && ((memory != MODEL_MEMORY_RECURRENT && memory != MODEL_MEMORY_HYBRID) || galloc_model_rs_init(g, &b->rs));
    if (ok && g->on_weights) {
        g->on_weights(g, g->hook_ud);
        ok = !g->failed;
    }
    if (ok && hooks && hooks->no_graph) {
        return b;
    }
    ok = ok && m->arch->build_graph(g) && !g->failed;
    if (ok && !g->gf->out_of_memory && !graph_fits(g->gf, err)) {
        build_free(b);
        return NULL;
    }
    if (!ok || g->gf->out_of_memory) {
        if (g->failed) {
            *err = b->err;
        } else if (g->gf->out_of_memory) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory building the graph");
        } else {
            galloc_fail(err, GALLOC_STATUS_INVALID, "the graph could not be built");
        }
        build_free(b);
        return NULL;
    }
    return b;
}

static struct model_build * build_graph(const struct galloc_model * m, const struct model_cparams * cp,
                                        ggml_backend_buffer_type_t buft, uint32_t n_tokens, uint32_t n_seqs,
                                        uint32_t n_outputs, struct galloc_error * err) {
    return build_graph_hooked(m, cp, buft, n_tokens, n_seqs, n_outputs, NULL, err);
}

struct model_build * galloc_model_build_prompt_hooked(const struct galloc_model * m, const struct model_cparams * cp,
                                                      ggml_backend_buffer_type_t buft,
                                                      void (*on_weights)(struct model_graph * g, void * ud),
                                                      void (*on_cb)(struct model_graph * g, struct ggml_tensor * t, const char * name, int il, void * ud),
                                                      void * ud, struct galloc_error * err) {
    const struct hooks h = { on_weights, on_cb, ud, false };
    const uint32_t n_tokens  = cp->n_ctx < cp->n_ubatch ? cp->n_ctx : cp->n_ubatch;
    const uint32_t n_outputs = n_tokens < cp->n_outputs_max ? n_tokens : cp->n_outputs_max;
    return build_graph_hooked(m, cp, buft, n_tokens, cp->n_seq_max, n_outputs, &h, err);
}

struct model_build * galloc_model_build_memory(const struct galloc_model * m, const struct model_cparams * cp,
                                               ggml_backend_buffer_type_t buft, struct galloc_error * err) {
    const struct hooks h = { NULL, NULL, NULL, true };
    const uint32_t n_tokens  = cp->n_ctx < cp->n_ubatch ? cp->n_ctx : cp->n_ubatch;
    const uint32_t n_outputs = n_tokens < cp->n_outputs_max ? n_tokens : cp->n_outputs_max;
    return build_graph_hooked(m, cp, buft, n_tokens, cp->n_seq_max, n_outputs, &h, err);
}

struct model_graph * galloc_model_build_graph_of(struct model_build * b) {
    return b ? &b->g : NULL;
}

void galloc_model_build_free(struct model_build * b) {
    build_free(b);
}

// llama_context::sched_reserve's worst case: the full micro-batch, one stream per sequence,
// every token an output (n_outputs_max = n_batch)
static struct model_build * build_prompt(const struct galloc_model * m, const struct model_cparams * cp,
                                         ggml_backend_buffer_type_t buft, struct galloc_error * err) {
    const uint32_t n_tokens  = cp->n_ctx < cp->n_ubatch ? cp->n_ctx : cp->n_ubatch;
    const uint32_t n_outputs = n_tokens < cp->n_outputs_max ? n_tokens : cp->n_outputs_max;
    return build_graph(m, cp, buft, n_tokens, cp->n_seq_max, n_outputs, err);
}

static void doc_name(const struct galloc_model * m, const struct model_cparams * cp, const struct galloc_model_settings * s,
                     char * out, size_t size) {
    snprintf(out, size, "%s %s n_ctx=%u n_ubatch=%u fa=%s ctk=%s ctv=%s np=%u", m->name,
             s->graph == GALLOC_MODEL_GRAPH_DECODE ? "decode" : "prompt", cp->n_ctx, cp->n_ubatch, cp->flash_attn ? "on" : "off",
             ggml_type_name(cp->type_k), ggml_type_name(cp->type_v), cp->n_seq_max);
}

char * galloc_model_document(const struct galloc_model * m, const struct galloc_model_settings * s, size_t * len,
                             struct galloc_error * err) {
    return galloc_model_document_named(m, s, NULL, len, err);
}

char * galloc_model_document_named(const struct galloc_model * m, const struct galloc_model_settings * s, const char * doc_title,
                                   size_t * len, struct galloc_error * err) {
    struct model_cparams cp;
    galloc_error_clear(err);
    if (!m || !s) {
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "no model or settings");
        return NULL;
    }
    if (!galloc_model_cparams_init(m, s, &cp, err)) {
        return NULL;
    }
    ggml_backend_buffer_type_t buft = galloc_virtual_buft_new("CPU", MODEL_CPU_ALIGN, SIZE_MAX);
    if (!buft) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    struct model_build * b = build_prompt(m, &cp, buft, err);
    char * doc = NULL;
    if (b) {
        char name[256];
        doc_name(m, &cp, s, name, sizeof(name));
        doc = galloc_export_graph(b->g.gf, doc_title ? doc_title : name, &buft, 1, NULL, NULL, len);
        if (!doc) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory writing the graph document");
        }
    }
    build_free(b);
    galloc_virtual_buft_free(buft);
    return doc;
}

// one reserve of llama.cpp's scheduler (ggml_gallocr_reserve_n): the built graph planned by
// ggml_gallocr, and the buffer reallocated to the new plan's chunks when any chunk must grow
// (chunk sizes in 64 bits: a wasm32 size_t cannot hold every compute buffer)
struct reserved_buffer {
    bool     allocated;
    int32_t  n_chunks;
    uint64_t chunks[GALLOC_MAX_CHUNKS];
};

static bool reserve(ggml_gallocr_t galloc, struct ggml_cgraph * gf, struct reserved_buffer * buf, struct galloc_error * err) {
    struct galloc_error inner;
    const struct galloc_plan * plan = galloc_gallocr_plan(galloc, gf, NULL, NULL, &inner);
    if (!plan) {
        return galloc_fail(err, inner.status, "planning the graph: %.200s", inner.message);
    }
    const struct galloc_buffer_plan * bp = &plan->buffers[0];
    bool grow = !buf->allocated;
    for (int32_t c = 0; c < bp->n_chunks; c++) {
        grow = grow || bp->chunk_sizes[c] > (c < buf->n_chunks ? buf->chunks[c] : 0);
    }
    if (grow) {
        buf->allocated = true;
        buf->n_chunks  = bp->n_chunks;
        memcpy(buf->chunks, bp->chunk_sizes, sizeof(buf->chunks));
    }
    return true;
}

// llama.cpp's three reserves and the sizes it logs; with doc, also the prompt graph's document (the
// graph planned first and last, written once the sizes are known)
static bool compute_sizes(const struct galloc_model * m, const struct galloc_model_settings * s, struct galloc_model_sizes * out,
                          char ** doc, size_t * doc_len, struct galloc_error * err) {
    struct model_cparams cp;
    memset(out, 0, sizeof(*out));
    galloc_error_clear(err);
    if (!m || !s) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "no model or settings");
    }
    if (!galloc_model_cparams_init(m, s, &cp, err)) {
        return false;
    }
    ggml_backend_buffer_type_t buft = galloc_virtual_buft_new("CPU", MODEL_CPU_ALIGN, SIZE_MAX);
    if (!buft) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    // prompt, then one token per sequence, then the prompt again: the buffer is kept when it is big enough
    ggml_gallocr_t galloc = ggml_gallocr_new(buft);
    struct reserved_buffer buf = { 0 };
    struct model_build * pp = galloc ? build_prompt(m, &cp, buft, err) : NULL;
    if (!galloc) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    bool ok = pp && reserve(galloc, pp->g.gf, &buf, err);
    if (ok) {
        struct model_build * tg = build_graph(m, &cp, buft, cp.n_seq_max, cp.n_seq_max, cp.n_seq_max, err);
        ok = tg && reserve(galloc, tg->g.gf, &buf, err) && reserve(galloc, pp->g.gf, &buf, err);
        build_free(tg);
    }
    ggml_gallocr_free(galloc);
    if (ok) {
        uint64_t total = 0;
        for (int32_t c = 0; c < buf.n_chunks; c++) {
            total += buf.chunks[c];
        }
        out->n_bufts    = 1;
        snprintf(out->names[0], sizeof(out->names[0]), "%s", ggml_backend_buft_name(buft));
        out->compute[0] = total;
        out->n_ctx      = cp.n_ctx;
        out->n_ctx_seq  = cp.n_ctx_seq;
        out->n_ctx_swa  = pp->caches[1].used ? pp->caches[1].size : 0;
        out->n_tokens   = pp->g.n_tokens;
        out->n_nodes    = ggml_graph_n_nodes(pp->g.gf);
        out->n_leafs    = pp->g.gf->n_leafs;
        for (int c = 0; c < 2; c++) {
            for (uint32_t il = 0; pp->caches[c].used && il < m->hp.n_layer; il++) {
                out->kv_bytes += pp->caches[c].k[il] ? (uint64_t) ggml_nbytes(pp->caches[c].k[il]) : 0;
                out->kv_bytes += pp->caches[c].v[il] ? (uint64_t) ggml_nbytes(pp->caches[c].v[il]) : 0;
            }
        }
        out->rs_bytes = galloc_model_rs_bytes(&pp->rs, MODEL_CPU_ALIGN);
    }
    if (ok && doc) {
        char name[256];
        doc_name(m, &cp, s, name, sizeof(name));
        *doc = galloc_export_graph(pp->g.gf, name, &buft, 1, NULL, NULL, doc_len);
        if (!*doc) {
            ok = galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory writing the graph document");
        }
    }
    build_free(pp);
    galloc_virtual_buft_free(buft);
    if (!ok) {
        memset(out, 0, sizeof(*out));
    }
    return ok;
}

bool galloc_model_compute_sizes(const struct galloc_model * m, const struct galloc_model_settings * s,
                                struct galloc_model_sizes * out, struct galloc_error * err) {
    return compute_sizes(m, s, out, NULL, NULL, err);
}

char * galloc_model_document_sizes(const struct galloc_model * m, const struct galloc_model_settings * s,
                                   struct galloc_model_sizes * out, size_t * len, struct galloc_error * err) {
    char * doc = NULL;
    return compute_sizes(m, s, out, &doc, len, err) ? doc : NULL;
}
