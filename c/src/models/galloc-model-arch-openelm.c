// galloc-model-arch-openelm.c: the `openelm` architecture (Apple OpenELM).
//
// As llama.cpp's src/models/openelm.cpp: per-layer head counts; one fused QKV projection
// reshaped to heads and viewed as Q, K and V (no bias); per-head RMS norms on Q and K before
// NEOX RoPE; then a SiLU-gated FFN; output tied to the embeddings. llama.cpp names the roped Q
// "Vcur" last (its graph callback is called with Q under that name): kept, so names match.

#include "galloc-model-impl.h"

static bool openelm_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool openelm_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, hp->n_vocab, "token_embd.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, i);
        const int64_t n_head_qkv = 2 * (int64_t) hp->n_head_kv[i] + hp->n_head[i];
        l->attn_norm   = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->wqkv        = galloc_model_weight_2d(g, 0, n_embd, n_head_qkv * n_embd_head_k, "attn_qkv.weight", il);
        l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        l->wo          = galloc_model_weight_2d(g, 0, hp->n_head[i] * n_embd_head_k, n_embd, "attn_output.weight", il);
        l->ffn_norm    = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
    }
    return !g->failed;
}

static bool openelm_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "openelm: head sizes differ (key %u, value %lld): llama.cpp's graph asserts they agree",
                          galloc_hp_n_embd_head_k(hp, 0), (long long) n_embd_head);
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        const int64_t n_head = hp->n_head[il], n_head_kv = hp->n_head_kv[il];
        struct ggml_tensor * residual = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        cur = galloc_model_mm(g, l->wqkv, cur, NULL);
        galloc_model_cb(g, cur, "wqkv", il);
        cur = ggml_reshape_3d(ctx, cur, galloc_hp_n_embd_head_k(hp, (uint32_t) il), 2 * n_head_kv + n_head, g->n_tokens);
        struct ggml_tensor * q = ggml_view_3d(ctx, cur, n_embd_head, n_head, g->n_tokens, cur->nb[1], cur->nb[2], 0);
        galloc_model_cb(g, q, "Qcur", il);
        struct ggml_tensor * k = ggml_view_3d(ctx, cur, n_embd_head, n_head_kv, g->n_tokens, cur->nb[1], cur->nb[2],
                                              cur->nb[1] * (size_t) n_head);
        galloc_model_cb(g, k, "Kcur", il);
        struct ggml_tensor * v = ggml_view_3d(ctx, cur, n_embd_head, n_head_kv, g->n_tokens, cur->nb[1], cur->nb[2],
                                              cur->nb[1] * (size_t) (n_head + n_head_kv));
        galloc_model_cb(g, v, "Vcur", il);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "Qcur", il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, k, "Kcur", il);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, q, "Vcur", il); // llama.cpp's cb(Qcur, "Vcur", il)
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            residual = ggml_get_rows(ctx, residual, inp_out_ids);
            cur      = ggml_get_rows(ctx, cur, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, residual, cur);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_openelm = {
    "openelm", MODEL_ROPE_NEOX, openelm_hparams, openelm_tensors, openelm_graph,
};
