// galloc-model-arch-seed-oss.c: the `seed_oss` architecture (Seed-OSS-36B).
//
// As llama.cpp's src/models/seed-oss.cpp: llama's attention (NEOX RoPE, Q/K/V with optional
// biases), the FFN's input normalised by post_attention_norm, a SwiGLU FFN without scales.

#include "galloc-model-impl.h"

static bool seed_oss_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool seed_oss_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, head_dim = galloc_hp_n_embd_head_k(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_qo_dim = hp->n_head[0] * head_dim, n_kv_dim = hp->n_head_kv[0] * head_dim;
        galloc_model_weights_qkv(g, l, il, n_embd, n_qo_dim, n_kv_dim, n_kv_dim);
        l->wo             = galloc_model_weight_2d(g, 0, n_qo_dim, n_embd, "attn_output.weight", il);
        l->attn_norm      = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        l->ffn_gate       = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff[i], "ffn_gate.weight", il);
        l->ffn_up         = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff[i], "ffn_up.weight", il);
        l->ffn_down       = galloc_model_weight_2d(g, 0, hp->n_ff[i], n_embd, "ffn_down.weight", il);
    }
    return !g->failed;
}

static bool seed_oss_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head); // seed_oss reads no attention.scale
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_post_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "ffn_out", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_seed_oss = {
    "seed_oss", MODEL_ROPE_NEOX, seed_oss_hparams, seed_oss_tensors, seed_oss_graph,
};
