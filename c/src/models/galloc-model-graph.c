// galloc-model-graph.c: the shared blocks of llama.cpp's graph builder (llm_graph_context).
//
// Weights, inputs, norms, Q/K/V and the FFN (the MoE FFN is in galloc-model-moe.c, attention in
// galloc-model-attn.c), each built with the same ggml calls in the same order as llama-graph.cpp,
// so that names (set by the graph callback "name-il"), node order and views come out as
// llama.cpp's. Architecture files (galloc-model-arch-*.c) compose these blocks.

#include "galloc-error.h"
#include "galloc-model-impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

GALLOC_PRINTF(3, 0)
static void fail_v(struct model_graph * g, enum galloc_status status, const char * fmt, va_list args) {
    if (!g->failed) {
        const int n = vsnprintf(g->err->message, sizeof(g->err->message), fmt, args);
        g->err->status = status;
        galloc_error_one_line(g->err->message, n < 0 || (size_t) n >= sizeof(g->err->message));
        g->failed = true;
    }
}

void * galloc_model_fail(struct model_graph * g, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fail_v(g, GALLOC_STATUS_INVALID, fmt, args);
    va_end(args);
    return NULL;
}

void * galloc_model_fail_status(struct model_graph * g, enum galloc_status status, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fail_v(g, status, fmt, args);
    va_end(args);
    return NULL;
}

void galloc_model_cb(struct model_graph * g, struct ggml_tensor * t, const char * name, int il) {
    if (!t) {
        return; // after a refusal (g->failed)
    }
    if (il >= 0) {
        ggml_format_name(t, "%s-%d", name, il);
    } else {
        ggml_set_name(t, name);
    }
    if (g->on_cb) {
        g->on_cb(g, t, name, il, g->hook_ud);
    }
}

//
// weights (create_tensor)
//

// the file's tensor of that name (m->tensors is sorted by name), or NULL
static const struct model_tensor_info * file_tensor(const struct galloc_model * m, const char * name) {
    int64_t lo = 0, hi = m->n_tensors;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int     c   = strcmp(m->tensors[mid].name, name);
        if (c == 0) {
            return &m->tensors[mid];
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

// a card's optional tensor: listed by its name with the layer number removed ("blk.attn_q.bias": every
// layer's), or by its full name ("blk.0.attn_qkv.weight": that layer's)
static bool card_has(const struct model_card * card, const char * name) {
    char generic[GGML_MAX_NAME];
    const char * p = name;
    if (strncmp(name, "blk.", 4) == 0) {
        p = name + 4;
        while (*p >= '0' && *p <= '9') {
            p++;
        }
        snprintf(generic, sizeof(generic), "blk%s", p);
        p = generic;
    }
    for (int i = 0; card->optional && card->optional[i]; i++) {
        if (strcmp(card->optional[i], p) == 0 || strcmp(card->optional[i], name) == 0) {
            return true;
        }
    }
    return false;
}

// a card's tensor typed as convert_hf_to_gguf.py writes an F16 model (conversion/base.py): F32 for
// vectors, norms, what is not a ".weight" (biases, ssm_a, ssm_d), the routers, the convolutions of
// the recurrent layers and learned positions; F16 otherwise
static enum ggml_type card_weight_type(const char * name, int n_dims) {
    static const char * const f32_names[] = {
        "ffn_gate_inp", "ssm_conv1d", "shortconv.conv", "position_embd", "token_types",
    };
    const size_t n = strlen(name);
    if (n_dims <= 1 || (n >= 12 && strcmp(name + n - 12, "_norm.weight") == 0) || n < 7 || strcmp(name + n - 7, ".weight") != 0) {
        return GGML_TYPE_F32;
    }
    for (size_t i = 0; i < sizeof(f32_names) / sizeof(f32_names[0]); i++) {
        if (strstr(name, f32_names[i])) {
            return GGML_TYPE_F32;
        }
    }
    return GGML_TYPE_F16;
}

struct ggml_tensor * galloc_model_weight(struct model_graph * g, int flags, int n_dims, const int64_t * ne, const char * fmt, ...) {
    if (g->failed) {
        return NULL;
    }
    char name[GGML_MAX_NAME];
    va_list args;
    va_start(args, fmt);
    vsnprintf(name, sizeof(name), fmt, args);
    va_end(args);

    if (flags & MODEL_TENSOR_DUPLICATED) {
        struct ggml_tensor * t = ggml_get_tensor(g->wctx, name);
        if (t) {
            return t;
        }
    }
    enum ggml_type type = card_weight_type(name, n_dims);
    if (g->m->card) {
        if ((flags & MODEL_TENSOR_OPTIONAL) && !card_has(g->m->card, name)) {
            return NULL;
        }
    } else {
        const struct model_tensor_info * ti = file_tensor(g->m, name);
        if (!ti) {
            if (flags & MODEL_TENSOR_OPTIONAL) {
                return NULL;
            }
            return galloc_model_fail(g, "missing tensor '%s'", name);
        }
        for (int d = 0; d < 4; d++) {
            if (ti->ne[d] != (d < n_dims ? ne[d] : 1)) {
                return galloc_model_fail(g, "tensor '%s' has wrong shape; expected [%lld, %lld, %lld, %lld], got [%lld, %lld, %lld, %lld]",
                                  name, (long long) ne[0], (long long) (n_dims > 1 ? ne[1] : 1),
                                  (long long) (n_dims > 2 ? ne[2] : 1), (long long) (n_dims > 3 ? ne[3] : 1),
                                  (long long) ti->ne[0], (long long) ti->ne[1], (long long) ti->ne[2], (long long) ti->ne[3]);
            }
        }
        type = ti->type;
        if (type < 0 || type >= GGML_TYPE_COUNT || ggml_type_name(type) == NULL) {
            return galloc_model_fail(g, "tensor '%s': unknown type %d", name, (int) type);
        }
    }
    for (int d = 0; d < n_dims; d++) {
        if (ne[d] <= 0) {
            return galloc_model_fail(g, "tensor '%s': dimension %d is %lld", name, d, (long long) ne[d]);
        }
    }
    if (ne[0] % ggml_blck_size(type) != 0) {
        return galloc_model_fail(g, "tensor '%s': %lld columns are not a whole number of %s blocks", name, (long long) ne[0],
                          ggml_type_name(type));
    }
    struct ggml_tensor * t = ggml_new_tensor(g->wctx, type, n_dims, ne);
    if (!t) {
        return galloc_model_fail_status(g, GALLOC_STATUS_NO_MEMORY, "out of memory creating '%s'", name);
    }
    ggml_set_name(t, name);
    t->buffer = g->wbuf;
    return t;
}

static struct ggml_tensor * weight_nd(struct model_graph * g, int flags, int n_dims, const int64_t * ne, const char * name,
                                      int il) {
    return il >= 0 ? galloc_model_weight(g, flags, n_dims, ne, "blk.%d.%s", il, name) : galloc_model_weight(g, flags, n_dims, ne, "%s", name);
}

struct ggml_tensor * galloc_model_weight_1d(struct model_graph * g, int flags, int64_t ne0, const char * name, int il) {
    const int64_t ne[1] = { ne0 };
    return weight_nd(g, flags, 1, ne, name, il);
}

struct ggml_tensor * galloc_model_weight_2d(struct model_graph * g, int flags, int64_t ne0, int64_t ne1, const char * name, int il) {
    const int64_t ne[2] = { ne0, ne1 };
    return weight_nd(g, flags, 2, ne, name, il);
}

struct ggml_tensor * galloc_model_weight_3d(struct model_graph * g, int flags, int64_t ne0, int64_t ne1, int64_t ne2,
                                     const char * name, int il) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return weight_nd(g, flags, 3, ne, name, il);
}

void galloc_model_weights_qkv(struct model_graph * g, struct model_layer * l, int il, int64_t n_embd, int64_t n_embd_q,
                       int64_t n_embd_k, int64_t n_embd_v) {
    const int64_t n_embd_qkv = n_embd_q + n_embd_k + n_embd_v;
    l->wqkv = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_embd_qkv, "attn_qkv.weight", il);
    if (l->wqkv) {
        l->wqkv_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd_qkv, "attn_qkv.bias", il);
        return;
    }
    l->wq   = galloc_model_weight_2d(g, 0, n_embd, n_embd_q, "attn_q.weight", il);
    l->wk   = galloc_model_weight_2d(g, 0, n_embd, n_embd_k, "attn_k.weight", il);
    l->wv   = galloc_model_weight_2d(g, 0, n_embd, n_embd_v, "attn_v.weight", il);
    l->wq_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd_q, "attn_q.bias", il);
    l->wk_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd_k, "attn_k.bias", il);
    l->wv_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd_v, "attn_v.bias", il);
}

void galloc_model_weights_io(struct model_graph * g, bool output_bias) {
    const int64_t n_embd = g->hp->n_embd, n_vocab = g->hp->n_vocab;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_vocab, "output.weight", -1);
    if (output_bias) {
        g->output_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_vocab, "output.bias", -1);
    }
    if (g->output == NULL) {
        g->output = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, n_vocab, "token_embd.weight", -1);
    }
}

void galloc_model_weights_scales(struct model_graph * g) {
    const int64_t n_expert = g->hp->n_expert;
    for (uint32_t i = 0; i < g->hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        // weight, its scale, its name; experts' scales have one entry per expert
        const struct { struct ggml_tensor * w; struct ggml_tensor ** s; const char * name; bool exps; } proj[] = {
            { l->wq, &l->wq_s, "attn_q", false },           { l->wk, &l->wk_s, "attn_k", false },
            { l->wv, &l->wv_s, "attn_v", false },           { l->wo, &l->wo_s, "attn_output", false },
            { l->wqkv, &l->wqkv_s, "attn_qkv", false },     { l->ffn_gate, &l->ffn_gate_s, "ffn_gate", false },
            { l->ffn_down, &l->ffn_down_s, "ffn_down", false }, { l->ffn_up, &l->ffn_up_s, "ffn_up", false },
            { l->ffn_gate_shexp, &l->ffn_gate_shexp_s, "ffn_gate_shexp", false },
            { l->ffn_down_shexp, &l->ffn_down_shexp_s, "ffn_down_shexp", false },
            { l->ffn_up_shexp, &l->ffn_up_shexp_s, "ffn_up_shexp", false },
            { l->ffn_gate_exps, &l->ffn_gate_exps_s, "ffn_gate_exps", true },
            { l->ffn_down_exps, &l->ffn_down_exps_s, "ffn_down_exps", true },
            { l->ffn_up_exps, &l->ffn_up_exps_s, "ffn_up_exps", true },
            { l->ssm_in, &l->ssm_in_s, "ssm_in", false },   { l->ssm_out, &l->ssm_out_s, "ssm_out", false },
            { l->wqkv_gate, &l->wqkv_gate_s, "attn_gate", false }, { l->ssm_alpha, &l->ssm_alpha_s, "ssm_alpha", false },
            { l->ssm_beta, &l->ssm_beta_s, "ssm_beta", false },
        };
        const size_t n_proj = sizeof(proj) / sizeof(proj[0]);
        _Static_assert(sizeof(proj) / sizeof(proj[0]) <= sizeof(l->in_s) / sizeof(l->in_s[0]), "an input scale per projection");
        char name[GGML_MAX_NAME];
        for (size_t p = 0; p < n_proj; p++) {
            if (proj[p].w && !*proj[p].s) {
                snprintf(name, sizeof(name), "%s.scale", proj[p].name);
                *proj[p].s = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, proj[p].exps ? n_expert : 1, name, il);
            }
        }
        // input scales: loaded, used by no graph (the llama.cpp snapshot's CPU path)
        for (size_t p = 0; p < n_proj; p++) {
            if (proj[p].w) {
                snprintf(name, sizeof(name), "%s.input_scale", proj[p].name);
                l->in_s[p] = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, proj[p].exps ? n_expert : 1, name, il);
            }
        }
    }
    if (g->output && g->output->type == GGML_TYPE_NVFP4) {
        g->output_s    = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, 1, "output.scale", -1);
        g->output_in_s = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, 1, "output.input_scale", -1);
    }
}

bool galloc_model_weights_all_used(struct model_graph * g) {
    const uint32_t n_layer = g->hp->n_layer - g->hp->n_layer_nextn;
    for (int64_t i = 0; i < g->m->n_tensors && !g->failed; i++) {
        const char * name = g->m->tensors[i].name;
        unsigned il = 0;
        int      n  = 0;
        if (g->hp->n_layer_nextn > 0 && sscanf(name, "blk.%u.%n", &il, &n) == 1 && n > 0 && il >= n_layer && il < g->hp->n_layer) {
            continue; // a NextN block's tensor: skipped, as llama.cpp's TENSOR_SKIP
        }
        if (ggml_get_tensor(g->wctx, name) == NULL) {
            galloc_model_fail(g, "%s: tensor '%s' is not handled by galloc's %s graph (llama.cpp's graph would differ); "
                              "%s", g->m->arch->name, name, g->m->arch->name, GALLOC_MODEL_CAPTURE_HINT);
        }
    }
    return !g->failed;
}

void galloc_model_weights_ffn(struct model_graph * g, struct model_layer * l, int il, int64_t n_embd, int64_t n_ff) {
    l->ffn_gate = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_gate.weight", il);
    l->ffn_down = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
    l->ffn_up   = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_up.weight", il);
}

bool galloc_model_same_head_sizes(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const uint32_t k = galloc_hp_n_embd_head_k(hp, 0), v = galloc_hp_n_embd_head_v(hp, 0), rot = galloc_hp_n_rot(hp, 0);
    if (k != v || k != rot) {
        galloc_model_fail(g, "%s: head sizes differ (key %u, value %u, rope %u)", g->m->arch->name, k, v, rot);
        return false;
    }
    return true;
}

bool galloc_model_logits(struct model_graph * g, struct ggml_tensor * inpL, float softcap) {
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    if (g->output_b) {
        cur = ggml_add(g->ctx, cur, g->output_b);
    }
    if (softcap != 0.0f) {
        cur = ggml_scale(g->ctx, cur, 1.0f / softcap);
        cur = ggml_tanh(g->ctx, cur);
        cur = ggml_scale(g->ctx, cur, softcap);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

//
// inputs
//

struct ggml_tensor * galloc_model_inp_embd(struct model_graph * g, struct ggml_tensor * tok_embd) {
    if (g->failed) {
        return NULL;
    }
    const int64_t n_embd = g->hp->n_embd;
    // deepstack models take wider embeddings: the text's, padded, then a slice per deepstack layer
    const int64_t n_embd_inp = n_embd * (1 + (int64_t) g->hp->n_deepstack_layers);
    struct ggml_tensor * tokens = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, g->n_tokens);
    galloc_model_cb(g, tokens, "inp_tokens", -1);
    ggml_set_input(tokens);
    struct ggml_tensor * embd = ggml_new_tensor_2d(g->ctx, GGML_TYPE_F32, n_embd_inp, g->n_tokens);
    galloc_model_cb(g, embd, "inp_embd", -1);
    ggml_set_input(embd);

    // llama.cpp builds both the token path and the embeddings path and selects one (tokens here)
    struct ggml_tensor * inps[2] = { ggml_get_rows(g->ctx, tok_embd, tokens), embd };
    if (n_embd_inp != n_embd) {
        inps[0] = ggml_pad(g->ctx, inps[0], (int) (n_embd_inp - n_embd), 0, 0, 0);
    }
    struct ggml_tensor * cur = ggml_build_forward_select(g->gf, inps, 2, 0);
    if (n_embd_inp != n_embd) {
        cur = ggml_view_2d(g->ctx, cur, n_embd, g->n_tokens, cur->nb[1], 0);
    }
    g->t_inp_embd = cur;
    // granite's embedding multiplier (on token inputs, or on any without deepstack)
    if (g->hp->f_embedding_scale != 0.0f) {
        if (!ggml_is_contiguous(cur)) {
            cur = ggml_cont(g->ctx, cur);
        }
        cur = ggml_scale(g->ctx, cur, g->hp->f_embedding_scale);
    }
    galloc_model_cb(g, cur, "embd", -1);
    ggml_build_forward_expand(g->gf, cur);
    return cur;
}

struct ggml_tensor * galloc_model_inp_pos(struct model_graph * g) {
    // one position per embedding; four with multimodal RoPE (llama_hparams::n_pos_per_embd)
    const int64_t n_pos = g->hp->rope_type == MODEL_ROPE_MROPE || g->hp->rope_type == MODEL_ROPE_IMROPE ? 4 : 1;
    struct ggml_tensor * cur = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, g->n_tokens * n_pos);
    ggml_set_input(cur);
    return cur;
}

struct ggml_tensor * galloc_model_inp_out_ids(struct model_graph * g) {
    // built even when every token is an output, so that the graph keeps one topology
    struct ggml_tensor * cur = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, g->n_outputs);
    ggml_set_input(cur);
    return cur;
}

struct ggml_tensor * galloc_model_inp_attn_scale(struct model_graph * g) {
    struct ggml_tensor * cur = ggml_new_tensor_3d(g->ctx, GGML_TYPE_F32, 1, 1, g->n_tokens); // 1x1xN, broadcast over Q
    ggml_set_input(cur);
    ggml_set_name(cur, "attn_scale");
    return cur;
}

//
// blocks
//

struct ggml_tensor * galloc_model_norm(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * mw,
                                struct ggml_tensor * mb, enum model_norm_type type, int il) {
    if (g->failed) {
        return cur; // unchanged: the caller goes on to its next check of g->failed, the graph is discarded
    }
    cur = type == MODEL_NORM_RMS ? ggml_rms_norm(g->ctx, cur, g->hp->f_norm_rms_eps) : ggml_norm(g->ctx, cur, g->hp->f_norm_eps);
    if (mw || mb) {
        galloc_model_cb(g, cur, "norm", il);
    }
    if (mw) {
        cur = ggml_mul(g->ctx, cur, mw);
        if (mb) {
            galloc_model_cb(g, cur, "norm_w", il);
        }
    }
    if (mb) {
        cur = ggml_add(g->ctx, cur, mb);
    }
    return cur;
}

// after a refusal in galloc_model_qkv: Q, K and V of the shapes the caller expects, so that what it
// builds on them before checking g->failed (norms, rope, scale) builds; the graph is then discarded
static void qkv_placeholders(struct model_graph * g, int64_t n_embd_head, int64_t n_head, int64_t n_head_kv,
                             struct ggml_tensor ** q, struct ggml_tensor ** k, struct ggml_tensor ** v) {
    *q = ggml_new_tensor_3d(g->ctx, GGML_TYPE_F32, n_embd_head, n_head, g->n_tokens);
    *k = ggml_new_tensor_3d(g->ctx, GGML_TYPE_F32, n_embd_head, n_head_kv, g->n_tokens);
    *v = ggml_new_tensor_3d(g->ctx, GGML_TYPE_F32, n_embd_head, n_head_kv, g->n_tokens);
}

void galloc_model_qkv(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur, int64_t n_embd_head,
               int64_t n_head, int64_t n_head_kv, int il, struct ggml_tensor ** q, struct ggml_tensor ** k,
               struct ggml_tensor ** v) {
    if (g->failed) {
        qkv_placeholders(g, n_embd_head, n_head, n_head_kv, q, k, v);
        return;
    }
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_q  = n_embd_head * n_head;
    const int64_t n_embd_kv = n_embd_head * n_head_kv;
    struct ggml_tensor * qc, * kc, * vc;
    if (l->wqkv) {
        struct ggml_tensor * qkv = galloc_model_mm(g, l->wqkv, cur, l->wqkv_s);
        galloc_model_cb(g, qkv, "wqkv", il);
        if (l->wqkv_b) {
            qkv = ggml_add(ctx, qkv, l->wqkv_b);
            galloc_model_cb(g, qkv, "wqkv_b", il);
        }
        if (g->hp->f_clamp_kqv > 0.0f) {
            qkv = ggml_clamp(ctx, qkv, -g->hp->f_clamp_kqv, g->hp->f_clamp_kqv);
            galloc_model_cb(g, qkv, "wqkv_clamped", il);
        }
        if (qkv->ne[0] < n_embd_q + 2 * n_embd_kv) {
            galloc_model_fail(g, "%s.attention.head_count/head_count_kv: layer %d: the fused QKV projection has %lld values per "
                              "token, fewer than %lld + 2 x %lld (llama.cpp's views would reach past it)", g->m->arch->name, il,
                              (long long) qkv->ne[0], (long long) n_embd_q, (long long) n_embd_kv);
            qkv_placeholders(g, n_embd_head, n_head, n_head_kv, q, k, v);
            return;
        }
        qc = ggml_view_3d(ctx, qkv, n_embd_head, n_head, g->n_tokens, ggml_row_size(qkv->type, n_embd_head), qkv->nb[1], 0);
        kc = ggml_view_3d(ctx, qkv, n_embd_head, n_head_kv, g->n_tokens, ggml_row_size(qkv->type, n_embd_head), qkv->nb[1],
                          ggml_row_size(qkv->type, n_embd_q));
        vc = ggml_view_3d(ctx, qkv, n_embd_head, n_head_kv, g->n_tokens, ggml_row_size(qkv->type, n_embd_head), qkv->nb[1],
                          ggml_row_size(qkv->type, n_embd_q + n_embd_kv));
    } else {
        qc = galloc_model_mm(g, l->wq, cur, l->wq_s);
        galloc_model_cb(g, qc, "Qcur", il);
        if (l->wq_b) {
            qc = ggml_add(ctx, qc, l->wq_b);
            galloc_model_cb(g, qc, "Qcur", il);
        }
        if (g->hp->f_clamp_kqv > 0.0f) {
            qc = ggml_clamp(ctx, qc, -g->hp->f_clamp_kqv, g->hp->f_clamp_kqv);
            galloc_model_cb(g, qc, "Qcur_clamped", il);
        }
        kc = galloc_model_mm(g, l->wk, cur, l->wk_s);
        galloc_model_cb(g, kc, "Kcur", il);
        if (l->wk_b) {
            kc = ggml_add(ctx, kc, l->wk_b);
            galloc_model_cb(g, kc, "Kcur", il);
        }
        if (g->hp->f_clamp_kqv > 0.0f) {
            kc = ggml_clamp(ctx, kc, -g->hp->f_clamp_kqv, g->hp->f_clamp_kqv);
            galloc_model_cb(g, kc, "Kcur_clamped", il);
        }
        vc = galloc_model_mm(g, l->wv, cur, l->wv_s);
        galloc_model_cb(g, vc, "Vcur", il);
        if (l->wv_b) {
            vc = ggml_add(ctx, vc, l->wv_b);
            galloc_model_cb(g, vc, "Vcur", il);
        }
        if (g->hp->f_clamp_kqv > 0.0f) {
            vc = ggml_clamp(ctx, vc, -g->hp->f_clamp_kqv, g->hp->f_clamp_kqv);
            galloc_model_cb(g, vc, "Vcur_clamped", il);
        }
        // llama.cpp reshapes without checking (GGML_ASSERT): Q to n_head heads, K and V to n_head_kv
        // heads of n_embd_head values; a header whose projections are another width is refused
        const struct { struct ggml_tensor * t; int64_t want; const char * what, * keys; } parts[3] = {
            { qc, n_embd_q, "Q", "attention.head_count" },
            { kc, n_embd_kv, "K", "attention.head_count_kv/key_length" },
            { vc, n_embd_kv, "V", "attention.head_count_kv/value_length" },
        };
        for (int i = 0; i < 3; i++) {
            if (parts[i].t->ne[0] != parts[i].want) {
                galloc_model_fail(g, "%s.%s: layer %d: %s has %lld values per token where llama.cpp's graph takes %lld heads of "
                                  "%lld (its reshape would abort)", g->m->arch->name, parts[i].keys, il, parts[i].what,
                                  (long long) parts[i].t->ne[0], (long long) (i == 0 ? n_head : n_head_kv), (long long) n_embd_head);
                qkv_placeholders(g, n_embd_head, n_head, n_head_kv, q, k, v);
                return;
            }
        }
        qc = ggml_reshape_3d(ctx, qc, n_embd_head, n_head, g->n_tokens);
        kc = ggml_reshape_3d(ctx, kc, n_embd_head, n_head_kv, g->n_tokens);
        vc = ggml_reshape_3d(ctx, vc, n_embd_head, n_head_kv, g->n_tokens);
    }
    galloc_model_cb(g, qc, "Qcur", il);
    galloc_model_cb(g, kc, "Kcur", il);
    galloc_model_cb(g, vc, "Vcur", il);
    *q = qc;
    *k = kc;
    *v = vc;
}

float galloc_model_rope_freq_base(const struct model_graph * g, int il) {
    return g->hp->is_swa[il] ? g->hp->rope_freq_base_train_swa : g->cp->rope_freq_base;
}

float galloc_model_rope_freq_scale(const struct model_graph * g, int il) {
    return g->hp->is_swa[il] ? g->hp->rope_freq_scale_train_swa : g->cp->rope_freq_scale;
}

struct ggml_tensor * galloc_model_rope(struct model_graph * g, struct ggml_tensor * x, struct ggml_tensor * pos,
                                struct ggml_tensor * factors, int il) {
    if (g->failed) {
        return x; // unchanged, as galloc_model_norm
    }
    const struct model_cparams * cp = g->cp;
    const int n_rot = (int) galloc_hp_n_rot(g->hp, (uint32_t) il);
    if (g->hp->rope_type & MODEL_ROPE_MROPE) {
        int sections[4];
        for (int i = 0; i < 4; i++) {
            sections[i] = (int) g->hp->rope_sections[i];
        }
        return ggml_rope_multi(g->ctx, x, pos, factors, n_rot, sections, (int) g->hp->rope_type, (int) cp->n_ctx_orig_yarn,
                               galloc_model_rope_freq_base(g, il), galloc_model_rope_freq_scale(g, il), cp->yarn_ext_factor,
                               cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    }
    return ggml_rope_ext(g->ctx, x, pos, factors, n_rot, (int) g->hp->rope_type,
                         (int) cp->n_ctx_orig_yarn, galloc_model_rope_freq_base(g, il), galloc_model_rope_freq_scale(g, il),
                         cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
}

struct ggml_tensor * galloc_model_rope_factors(const struct model_graph * g, int il) {
    const struct model_layer * l = &g->layers[il];
    if (l->rope_freqs) {
        return l->rope_freqs;
    }
    return g->cp->n_ctx_seq > g->hp->n_ctx_orig_yarn ? l->rope_long : l->rope_short;
}

struct ggml_tensor * galloc_model_mm(struct model_graph * g, struct ggml_tensor * w, struct ggml_tensor * cur, struct ggml_tensor * w_s) {
    struct ggml_tensor * res = ggml_mul_mat(g->ctx, w, cur);
    return w_s ? ggml_mul(g->ctx, res, w_s) : res;
}

struct ggml_tensor * galloc_model_ffn(struct model_graph * g, struct ggml_tensor * cur,
                               struct ggml_tensor * up, struct ggml_tensor * up_b, struct ggml_tensor * up_s,
                               struct ggml_tensor * gate, struct ggml_tensor * gate_b, struct ggml_tensor * gate_s,
                               struct ggml_tensor * down, struct ggml_tensor * down_b, struct ggml_tensor * down_s,
                               enum model_ffn_op op, enum model_ffn_gate gate_type, int il) {
    return galloc_model_ffn_act(g, cur, up, up_b, up_s, gate, gate_b, gate_s, down, down_b, down_s, NULL, op, gate_type, il);
}

struct ggml_tensor * galloc_model_ffn_act(struct model_graph * g, struct ggml_tensor * cur,
                                          struct ggml_tensor * up, struct ggml_tensor * up_b, struct ggml_tensor * up_s,
                                          struct ggml_tensor * gate, struct ggml_tensor * gate_b, struct ggml_tensor * gate_s,
                                          struct ggml_tensor * down, struct ggml_tensor * down_b, struct ggml_tensor * down_s,
                                          struct ggml_tensor * act_scales, enum model_ffn_op op, enum model_ffn_gate gate_type,
                                          int il) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * tmp = up ? ggml_mul_mat(ctx, up, cur) : cur;
    galloc_model_cb(g, tmp, "ffn_up", il);
    if (up_b) {
        tmp = ggml_add(ctx, tmp, up_b);
        galloc_model_cb(g, tmp, "ffn_up_b", il);
    }
    if (up_s) {
        tmp = ggml_mul(ctx, tmp, up_s);
        galloc_model_cb(g, tmp, "ffn_up_s", il);
    }
    if (gate) {
        cur = ggml_mul_mat(ctx, gate, gate_type == MODEL_FFN_SEQ ? tmp : cur);
        galloc_model_cb(g, cur, "ffn_gate", il);
        if (gate_b) {
            cur = ggml_add(ctx, cur, gate_b);
            galloc_model_cb(g, cur, "ffn_gate_b", il);
        }
        if (gate_s) {
            cur = ggml_mul(ctx, cur, gate_s);
            galloc_model_cb(g, cur, "ffn_gate_s", il);
        }
    } else {
        cur = tmp;
    }
    const bool par = gate && gate_type == MODEL_FFN_PAR;
    switch (op) {
        case MODEL_FFN_SILU:
            if (par) {
                cur = ggml_swiglu_split(ctx, cur, tmp);
                galloc_model_cb(g, cur, "ffn_swiglu", il);
            } else {
                cur = ggml_silu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_silu", il);
            }
            break;
        case MODEL_FFN_GELU:
            if (par) {
                cur = ggml_geglu_split(ctx, cur, tmp);
                galloc_model_cb(g, cur, "ffn_geglu", il);
            } else {
                cur = ggml_gelu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_gelu", il);
                if (act_scales) {
                    cur = ggml_div(ctx, cur, act_scales);
                    galloc_model_cb(g, cur, "ffn_act", il);
                }
            }
            break;
        case MODEL_FFN_SWIGLU:
            cur = ggml_swiglu(ctx, cur); // one projection: gate and up halves
            galloc_model_cb(g, cur, "ffn_swiglu", il);
            break;
        case MODEL_FFN_SWIGLU_OAI_MOE:
            if (!par) {
                return galloc_model_fail(g, "layer %d: SwiGLU-OAI needs a parallel gate", il);
            }
            cur = ggml_swiglu_oai(ctx, cur, tmp, 1.702f, 7.0f);
            galloc_model_cb(g, cur, "ffn_swiglu_oai", il);
            break;
        case MODEL_FFN_RELU:
            if (par) {
                cur = ggml_glu_split(ctx, cur, tmp, GGML_GLU_OP_REGLU);
                galloc_model_cb(g, cur, "ffn_reglu", il);
            } else {
                cur = ggml_relu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_relu", il);
            }
            break;
        case MODEL_FFN_RELU_SQR:
            cur = ggml_relu(ctx, cur);
            galloc_model_cb(g, cur, "ffn_relu", il);
            cur = ggml_sqr(ctx, cur);
            galloc_model_cb(g, cur, "ffn_sqr(relu)", il);
            break;
    }
    // a parallel gate is consumed by the gated activation above (llama.cpp: type_gate = SEQ)
    if (down) {
        cur = ggml_mul_mat(ctx, down, cur);
    }
    if (down_b) {
        galloc_model_cb(g, cur, "ffn_down", il);
        cur = ggml_add(ctx, cur, down_b);
    }
    if (down_s) {
        cur = ggml_mul(ctx, cur, down_s);
        galloc_model_cb(g, cur, "ffn_down_s", il);
    }
    return cur;
}
