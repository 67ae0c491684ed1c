// galloc-model-arch-gemma.c: the `gemma` and `gemma2` architectures (Gemma 1 and Gemma 2).
//
// As llama.cpp's src/models/gemma.cpp and gemma2.cpp: embeddings scaled by sqrt(n_embd), Q
// scaled before attention, a GeGLU FFN and the output head tied to the embeddings. Gemma 2 adds
// norms after attention and after the FFN, sliding-window layers (every other one by default,
// window 4096) on their own KV cache, soft-capped attention logits and final logits.

#include "galloc-model-impl.h"

static bool gemma_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool gemma2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->swa_type = MODEL_SWA_STANDARD;
    hp->n_swa    = 4096;
    uint32_t swa_period = 2;
    if (!galloc_ml_get_u32_scalar(ml, ".attention.sliding_window_pattern", &swa_period)) {
        return false;
    }
    galloc_hp_set_swa_pattern(hp, swa_period);
    hp->attn_soft_cap             = true;
    hp->f_attn_logit_softcapping  = 50.0f;
    hp->rope_freq_base_train_swa  = hp->rope_freq_base_train;
    hp->rope_freq_scale_train_swa = hp->rope_freq_scale_train;
    if (!galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false) ||
        !galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, false) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_f32(ml, ".attn_logit_softcapping", &hp->f_attn_logit_softcapping, false) ||
        !galloc_ml_get_f32(ml, ".final_logit_softcapping", &hp->f_final_logit_softcapping, false)) {
        return false;
    }
    // the 27B (46 layers) scales queries by 1/sqrt(n_embd / n_head), the others by 1/sqrt(head size)
    hp->f_attention_scale = hp->n_layer == 46 ? 1.0f / galloc_model_sqrtf((float) (hp->n_embd / hp->n_head[0]))
                                              : 1.0f / galloc_model_sqrtf((float) hp->n_embd_head_k_full);
    return true;
}

static bool gemma_tensors_post(struct model_graph * g, bool post_norms) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_head = hp->n_head[0];
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, n_vocab, "token_embd.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        l->wo = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
        if (post_norms) {
            l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        }
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_gate.weight", il);
        l->ffn_up   = galloc_model_weight_2d(g, 0, n_embd, n_ff, "ffn_up.weight", il);
        l->ffn_down = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
        if (post_norms) {
            l->ffn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm.weight", il);
        }
    }
    return !g->failed;
}

static bool gemma_tensors(struct model_graph * g) {
    return gemma_tensors_post(g, false);
}

static bool gemma2_tensors(struct model_graph * g) {
    return gemma_tensors_post(g, true);
}

// gemma (gemma2 = false) and gemma2: they differ in the post norms, the Q scale and the soft caps
static bool gemma_graph_v(struct model_graph * g, bool gemma2) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = gemma2 ? galloc_hp_n_embd_head_k(hp, 0) : galloc_hp_n_embd_head_v(hp, 0);
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    if (!inpL) {
        return false;
    }
    inpL = ggml_scale(ctx, inpL, galloc_model_sqrtf((float) hp->n_embd));
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
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        if (gemma2) {
            q = ggml_scale(ctx, q, hp->f_attention_scale);
        } else {
            q = ggml_scale(ctx, q, 1.0f / galloc_model_sqrtf((float) n_embd_head));
            galloc_model_cb(g, q, "Qcur_scaled", il);
        }
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx, cur, inp_out_ids);
            inpL = ggml_get_rows(ctx, inpL, inp_out_ids);
        }
        if (gemma2) {
            cur = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, cur, "attn_post_norm", il);
        }
        struct ggml_tensor * sa_out = ggml_add(ctx, cur, inpL);
        galloc_model_cb(g, sa_out, "sa_out", il);
        cur = galloc_model_norm(g, sa_out, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_GELU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (gemma2) {
            cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, -1);
            galloc_model_cb(g, cur, "ffn_post_norm", -1);
        }
        cur = ggml_add(ctx, cur, sa_out);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, gemma2 ? hp->f_final_logit_softcapping : 0.0f);
}

static bool gemma_graph(struct model_graph * g) {
    return gemma_graph_v(g, false);
}

static bool gemma2_graph(struct model_graph * g) {
    return gemma_graph_v(g, true);
}

const struct model_arch_def galloc_model_arch_gemma = {
    "gemma", MODEL_ROPE_NEOX, gemma_hparams, gemma_tensors, gemma_graph,
};

const struct model_arch_def galloc_model_arch_gemma2 = {
    "gemma2", MODEL_ROPE_NEOX, gemma2_hparams, gemma2_tensors, gemma2_graph,
};
