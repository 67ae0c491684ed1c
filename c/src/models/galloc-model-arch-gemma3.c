// galloc-model-arch-gemma3.c: the `gemma3` architecture (Gemma 3 text decoders).
//
// As llama.cpp's src/models/gemma3.cpp: embeddings scaled by sqrt(n_embd), Q/K RMS norms,
// Q scaled before attention, norms after attention and after the GeGLU FFN, a tied output
// head, and sliding-window layers (5 of every 6 by default) on their own smaller KV cache
// when the file has a sliding window; the final logit soft-capping only when the file sets it.

#include "galloc-model-impl.h"


static bool gemma3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    const bool found_swa = galloc_ml_has_key(ml, ".attention.sliding_window");
    if (!galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, false)) {
        return false;
    }
    if (found_swa && hp->n_swa > 0) {
        hp->swa_type = MODEL_SWA_STANDARD;
        uint32_t swa_period = 6;
        if (!galloc_ml_get_u32_scalar(ml, ".attention.sliding_window_pattern", &swa_period)) {
            return false;
        }
        galloc_hp_set_swa_pattern(hp, swa_period);
        if (!galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false)) {
            return false;
        }
    } else {
        hp->swa_type = MODEL_SWA_NONE;
    }
    hp->f_final_logit_softcapping = 0.0f;
    if (!galloc_ml_get_f32(ml, ".final_logit_softcapping", &hp->f_final_logit_softcapping, false) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    // the 27B scales queries by 1/sqrt(n_embd / n_head), the others by 1/sqrt(head size)
    hp->f_attention_scale = hp->n_layer == 62 ? 1.0f / galloc_model_sqrtf((float) (hp->n_embd / hp->n_head[0]))
                                              : 1.0f / galloc_model_sqrtf((float) hp->n_embd_head_k_full);
    return true;
}

static bool gemma3_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0];
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        l->wo             = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        l->attn_k_norm    = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        l->attn_q_norm    = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->ffn_norm       = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate       = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_gate.weight", il);
        l->ffn_up         = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_up.weight", il);
        l->ffn_down       = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
        l->ffn_post_norm  = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm.weight", il);
    }
    return !g->failed;
}

static bool gemma3_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_k(hp, 0);

    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    inpL = ggml_scale(g->ctx, inpL, galloc_model_sqrtf((float) hp->n_embd)); // token embeddings (not raw ones) are scaled
    galloc_model_cb(g, inpL, "inp_scaled", -1);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v); // layer 0's, as llama.cpp
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "Qcur_normed", il);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, k, "Kcur_normed", il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        q = ggml_scale(g->ctx, q, hp->f_attention_scale);
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(g->ctx, cur, inp_out_ids);
            inpL = ggml_get_rows(g->ctx, inpL, inp_out_ids);
        }
        cur = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_post_norm", il);
        struct ggml_tensor * sa_out = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, sa_out, "sa_out", il);

        cur = galloc_model_norm(g, sa_out, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_GELU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, -1);
        galloc_model_cb(g, cur, "ffn_post_norm", il);
        cur = ggml_add(g->ctx, cur, sa_out);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, hp->f_final_logit_softcapping);
}

const struct model_arch_def galloc_model_arch_gemma3 = {
    "gemma3", MODEL_ROPE_NEOX, gemma3_hparams, gemma3_tensors, gemma3_graph,
};
