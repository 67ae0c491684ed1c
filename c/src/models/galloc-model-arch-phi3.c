// galloc-model-arch-phi3.c: the `phi3` and `phimoe` architectures (Phi-3, Phi-3.5, Phi-4; Phi-3.5-MoE).
//
// As llama.cpp's src/models/phi3.cpp (phimoe builds the same graph): RMS norms (with biases in
// phimoe), fused or separate Q/K/V, NEOX RoPE with the long or short factors (long when a
// sequence's context is past the original one), Q scaled before attention, then a fused
// gate-and-up SwiGLU FFN, or softmax-gated experts; an optional output bias. Phi-3's sliding
// window is disabled by llama.cpp, so every layer shares one KV cache.

#include "galloc-model-impl.h"

static bool phi3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    if (galloc_ml_has_key(ml, ".attention.sliding_window")) {
        // llama.cpp reads the window and disables it: no SWA cache, no SWA layer
        uint32_t n_swa = 0;
        if (!galloc_ml_get_u32(ml, ".attention.sliding_window", &n_swa, false)) {
            return false;
        }
    }
    return true;
}

static bool phimoe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

// the long and short RoPE factors, one pair shared by every layer
static void rope_factor_weights(struct model_graph * g, struct model_layer * l, int64_t n, uint32_t i) {
    const int flags = MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0);
    l->rope_long  = galloc_model_weight_1d(g, flags, n, "rope_factors_long.weight", -1);
    l->rope_short = galloc_model_weight_1d(g, flags, n, "rope_factors_short.weight", -1);
}

static bool phi3_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo       = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_down = galloc_model_weight_2d(g, 0, hp->n_ff[i], n_embd, "ffn_down.weight", il);
        l->ffn_up   = galloc_model_weight_2d(g, 0, n_embd, 2 * (int64_t) hp->n_ff[i], "ffn_up.weight", il);
        rope_factor_weights(g, l, galloc_hp_n_rot(hp, 0) / 2, i);
    }
    return !g->failed;
}

static bool phimoe_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_expert = hp->n_expert;
    const int64_t n_embd_head = n_embd / hp->n_head[0];
    g->tok_embd      = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm   = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output_norm_b = galloc_model_weight_1d(g, 0, n_embd, "output_norm.bias", -1);
    g->output        = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "output.weight", -1);
    g->output_b      = galloc_model_weight_1d(g, 0, n_vocab, "output.bias", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i), n_ff = hp->n_ff[i];
        l->attn_norm   = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_norm_b = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.bias", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo            = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->wo_b          = galloc_model_weight_1d(g, 0, n_embd, "attn_output.bias", il);
        l->ffn_norm      = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_norm_b    = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.bias", il);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        rope_factor_weights(g, l, n_embd_head / 2, i);
    }
    return !g->failed;
}

static bool phi3_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "%s: head sizes differ (key %u, value %lld)", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          (long long) n_embd_head);
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * residual = inpL;
        struct ggml_tensor * factors = galloc_model_rope_factors(g, il);

        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, factors, il);
        k = galloc_model_rope(g, k, inp_pos, factors, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        if (g->failed) {
            break;
        }
        q = ggml_scale(ctx, q, 1.0f / galloc_model_sqrtf((float) n_embd_head));
        galloc_model_cb(g, q, "Qcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx, cur, inp_out_ids);
            residual = ggml_get_rows(ctx, residual, inp_out_ids);
        }
        cur      = ggml_add(ctx, cur, residual);
        residual = cur;
        cur = galloc_model_norm(g, cur, l->ffn_norm, l->ffn_norm_b, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (l->ffn_gate_inp == NULL) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, NULL, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SWIGLU,
                                   MODEL_FFN_SEQ, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
                .op = MODEL_FFN_SILU, .norm_w = true, .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX,
            };
            cur = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, cur, "ffn_moe_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, residual, cur);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, g->output_norm_b, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    if (g->output_b) {
        galloc_model_cb(g, cur, "result_output_no_bias", -1);
        cur = ggml_add(ctx, cur, g->output_b);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_phi3 = {
    "phi3", MODEL_ROPE_NEOX, phi3_hparams, phi3_tensors, phi3_graph,
};

const struct model_arch_def galloc_model_arch_phimoe = {
    "phimoe", MODEL_ROPE_NEOX, phimoe_hparams, phimoe_tensors, phi3_graph,
};
