// galloc-model-arch-glm4.c: the `glm4` architecture (GLM-4 9B/32B, GLM-4-0414).
//
// As llama.cpp's src/models/glm4.cpp: RMS norms before and after attention and the FFN, Q/K/V
// with optional biases, RoPE (multimodal sections when the file has them), and a fused
// gate-and-up projection through SwiGLU. NextN (MTP) layers are not built: refused.

#include "galloc-model-impl.h"

static bool glm4_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, false) ||
        !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (n_nextn != 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u NextN layers are not built by galloc", ml->arch, n_nextn);
    }
    if (galloc_hp_use_mrope(hp)) {
        hp->rope_type = MODEL_ROPE_MROPE;
    }
    return true;
}

static bool glm4_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo             = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        l->ffn_norm       = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_down       = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
        l->ffn_up         = galloc_model_weight_2d(g, 0, n_embd, n_ff * 2, "ffn_up.weight", il);
        l->ffn_post_norm  = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm.weight", il);
    }
    return !g->failed;
}

static bool glm4_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "glm4: head sizes differ (key %u, value %lld)", galloc_hp_n_embd_head_k(hp, 0), (long long) n_embd_head);
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
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        cur = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "post_attn_norm", il);
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);

        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, NULL, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SWIGLU,
                               MODEL_FFN_SEQ, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "post_mlp_norm", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_glm4 = {
    "glm4", MODEL_ROPE_NORM, glm4_hparams, glm4_tensors, glm4_graph,
};
