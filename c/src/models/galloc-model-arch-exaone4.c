// galloc-model-arch-exaone4.c: the `exaone4` architecture (EXAONE 4.0 1.2B and 32B).
//
// As llama.cpp's src/models/exaone4.cpp: no norm before attention; Q and K RMS-normalised per
// head, RoPE (with the optional rope_freqs) only on sliding-window layers, or on every layer of a
// model without them (llama.cpp gives the 64-layer 32B a window: 3 of every 4 layers by default);
// RMS norms after attention and after the SwiGLU FFN, each added to the residual. NextN (MTP)
// layers are not built: refused.

#include "galloc-model-impl.h"

static bool exaone4_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (n_nextn != 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u NextN layers are not built by galloc", ml->arch, n_nextn);
    }
    if (hp->n_layer == 64) { // the 32B
        hp->swa_type = MODEL_SWA_STANDARD;
        hp->n_swa    = 4096;
        uint32_t swa_period = 4;
        if (!galloc_ml_get_u32_scalar(ml, ".attention.sliding_window_pattern", &swa_period)) {
            return false;
        }
        galloc_hp_set_swa_pattern(hp, swa_period);
        hp->rope_freq_base_train_swa  = hp->rope_freq_base_train;
        hp->rope_freq_scale_train_swa = hp->rope_freq_scale_train;
        if (!galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false)) {
            return false;
        }
    }
    return galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool exaone4_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_rot = galloc_hp_n_rot(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[0], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo             = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->rope_freqs     = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                                   "rope_freqs.weight", -1);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        l->attn_q_norm    = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->attn_k_norm    = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
        l->ffn_post_norm  = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm.weight", il);
    }
    return !g->failed;
}

static bool exaone4_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_k(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        const bool use_rope = hp->is_swa[il] || hp->swa_type == MODEL_SWA_NONE;
        struct ggml_tensor * factors = galloc_model_rope_factors(g, il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, inpL, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "Qcur_normed", il);
        galloc_model_cb(g, k, "Kcur_normed", il);
        if (use_rope) {
            q = galloc_model_rope(g, q, inp_pos, factors, il);
            k = galloc_model_rope(g, k, inp_pos, factors, il);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        struct ggml_tensor * cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL,
                                                     1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        cur = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_post_norm", il);
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_ffn(g, ffn_inp, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                               MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, -1); // llama.cpp names it without the layer
        galloc_model_cb(g, cur, "ffn_post_norm", -1);
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_exaone4 = {
    "exaone4", MODEL_ROPE_NEOX, exaone4_hparams, exaone4_tensors, exaone4_graph,
};
