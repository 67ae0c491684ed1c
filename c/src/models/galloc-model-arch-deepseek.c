// galloc-model-arch-deepseek.c: the `deepseek` architecture (DeepSeek-MoE 16B, DeepSeek LLM).
//
// As llama.cpp's src/models/deepseek.cpp: llama's attention, the first leading_dense_block_count
// layers with a SwiGLU FFN, the others a softmax-gated MoE (weights not renormalised, scaled by
// expert_weights_scale) plus expert_shared_count shared experts as one SwiGLU FFN. No per-tensor
// scales reach the FFNs (llama.cpp loads them, its deepseek graph passes none).

#include "galloc-model-impl.h"

static bool deepseek_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) &&
           galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) &&
           galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) &&
           galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false);
}

static bool deepseek_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
    const int64_t n_ff_shexp = n_ff_exp * hp->n_expert_shared;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        l->wo       = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (i < hp->n_layer_dense_lead) {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
            continue;
        }
        l->ffn_gate_inp = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        if (n_expert == 0 || hp->n_expert_used == 0) {
            galloc_model_fail(g, "deepseek: %s must be > 0", n_expert == 0 ? "n_expert" : "n_expert_used");
            return false;
        }
        l->ffn_gate_exps  = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps  = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps    = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_down_shexp = galloc_model_weight_2d(g, 0, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
    }
    return !g->failed;
}

static bool deepseek_graph(struct model_graph * g) {
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
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head); // deepseek reads no attention.scale
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

        if ((uint32_t) il < hp->n_layer_dense_lead) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
                .op = MODEL_FFN_SILU, .norm_w = false, .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX,
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            if (!moe_out || !shexp) {
                break;
            }
            galloc_model_cb(g, shexp, "ffn_shexp", il);
            cur = ggml_add(ctx, moe_out, shexp);
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

const struct model_arch_def galloc_model_arch_deepseek = {
    "deepseek", MODEL_ROPE_NORM, deepseek_hparams, deepseek_tensors, deepseek_graph,
};
