// galloc-model-arch-bailingmoe.c: the `bailingmoe` architecture (Ling-lite, Ling-plus).
//
// As llama.cpp's src/models/bailingmoe.cpp: attention over heads of rope.dimension_count values
// (Q/K/V sized by n_rot, scaled by 1/sqrt(n_rot)), then in every layer softmax-routed SwiGLU
// experts (weights renormalised as expert_weights_norm says, scaled by expert_weights_scale) plus
// the shared experts, one SwiGLU FFN of expert_shared_count x expert_feed_forward_length.

#include "galloc-model-impl.h"

static bool bailingmoe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) && // read, no graph uses it
           galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) &&
           galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) &&
           galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) &&
           galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false);
}

static bool bailingmoe_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp, n_rot = galloc_hp_n_rot(hp, 0);
    const int64_t n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0], n_ff_shexp = n_ff_exp * hp->n_expert_shared;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_head * n_rot, n_head_kv * n_rot, n_head_kv * n_rot);
        l->wo           = galloc_model_weight_2d(g, 0, n_head * n_rot, n_embd, "attn_output.weight", il);
        l->ffn_norm     = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate_inp = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        if (n_expert == 0 || hp->n_expert_used == 0) {
            galloc_model_fail(g, "%s: %s must be > 0", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used");
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

static bool bailingmoe_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_rot = galloc_hp_n_rot(hp, 0);
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
        struct ggml_tensor * rope_factors = galloc_model_rope_factors(g, il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head_k, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, rope_factors, il);
        k = galloc_model_rope(g, k, inp_pos, rope_factors, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_rot), il);
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
        struct ggml_tensor * moe_out = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL,
                                                            l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_SILU,
                                                            hp->expert_weights_norm, hp->expert_weights_scale, MODEL_GATING_SOFTMAX,
                                                            NULL, il);
        galloc_model_cb(g, moe_out, "ffn_moe_out", il);
        struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                      l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, shexp, "ffn_shexp", il);
        if (!moe_out || !shexp) {
            break;
        }
        cur = ggml_add(ctx, moe_out, shexp);
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_bailingmoe = {
    "bailingmoe", MODEL_ROPE_NORM, bailingmoe_hparams, bailingmoe_tensors, bailingmoe_graph,
};
