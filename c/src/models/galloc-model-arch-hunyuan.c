// galloc-model-arch-hunyuan.c: the `hunyuan-dense`, `hunyuan_vl` and `hunyuan-moe` architectures (Hunyuan 0.5B-7B,
// HunyuanOCR; Hunyuan-A13B).
//
// As llama.cpp's src/models/hunyuan-vl.cpp (hunyuan-dense builds its graph) and hunyuan-moe.cpp:
// llama's attention with NEOX RoPE (the dense model's multimodal sections change no shape: its
// rope type is NEOX), then Q and K RMS-normalised per head after RoPE; a SwiGLU FFN, or
// softmax-gated experts (weights renormalised) added to a shared SwiGLU FFN. XDRoPE's
// rope.scaling.alpha (a frequency base raised to a power) is not built: refused.

#include "galloc-model-impl.h"

static bool hunyuan_common_hparams(struct model_loader * ml, struct model_hparams * hp) {
    float alpha = 0.0f;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.alpha", &alpha, false)) {
        return false;
    }
    if (alpha > 0.0f) {
        return galloc_model_loader_refuse(ml, "%s.rope.scaling.alpha: %g (XDRoPE's frequency base) is not built by galloc", ml->arch,
                                          (double) alpha);
    }
    return true;
}

static bool hunyuan_dense_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t sections[4] = { 0 };
    if (hp->n_expert <= 1) { // llama.cpp: a dense model has no experts
        hp->n_expert      = 0;
        hp->n_expert_used = 0;
    }
    return hunyuan_common_hparams(ml, hp) && galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", sections, 4, false);
}

// hunyuan_vl: hunyuan-dense with its RoPE sections used (multimodal RoPE, four positions per token, when they are set)
static bool hunyuan_vl_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (hp->n_expert <= 1) {
        hp->n_expert      = 0;
        hp->n_expert_used = 0;
    }
    if (!hunyuan_common_hparams(ml, hp) || !galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, false)) {
        return false;
    }
    if (galloc_hp_use_mrope(hp)) {
        hp->rope_type = MODEL_ROPE_MROPE;
    }
    return true;
}

static bool hunyuan_moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return hunyuan_common_hparams(ml, hp) && galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) &&
           galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false);
}

static bool hunyuan_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const bool moe = g->m->arch == &galloc_model_arch_hunyuan_moe;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_expert = hp->n_expert;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[0], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo          = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[0], n_embd, "attn_output.weight", il);
        l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->ffn_norm    = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (!moe) {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
            continue;
        }
        l->ffn_gate_inp   = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps  = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps  = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps    = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_up_shexp.weight", il);
        l->ffn_down_shexp = galloc_model_weight_2d(g, 0, hp->n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
    }
    return !g->failed;
}

static bool hunyuan_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const bool moe = g->m->arch == &galloc_model_arch_hunyuan_moe;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
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
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * factors = galloc_model_rope_factors(g, il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, factors, il);
        if (!moe) {
            k = galloc_model_rope(g, k, inp_pos, factors, il);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        if (moe) {
            k = galloc_model_rope(g, k, inp_pos, factors, il); // named before its RoPE, as llama.cpp does
        }
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, k, "Kcur_norm", il);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "Qcur_norm", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
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
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (!moe) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            struct ggml_tensor * mlp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                        l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, mlp, "ffn_mlp", il);
            const struct model_moe p = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
                .op = MODEL_FFN_SILU, .norm_w = true, .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX,
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &p, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            cur = moe_out && mlp ? ggml_add(ctx, moe_out, mlp) : NULL;
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_hunyuan_dense = {
    "hunyuan-dense", MODEL_ROPE_NEOX, hunyuan_dense_hparams, hunyuan_tensors, hunyuan_graph,
};

const struct model_arch_def galloc_model_arch_hunyuan_moe = {
    "hunyuan-moe", MODEL_ROPE_NEOX, hunyuan_moe_hparams, hunyuan_tensors, hunyuan_graph,
};

const struct model_arch_def galloc_model_arch_hunyuan_vl = {
    "hunyuan_vl", MODEL_ROPE_NEOX, hunyuan_vl_hparams, hunyuan_tensors, hunyuan_graph,
};
