// galloc-model-arch-grok.c: the `grok` architecture (Grok-1, Grok-2).
//
// As llama.cpp's src/models/grok.cpp: the input embeddings scaled (embedding_scale), attention
// with Q/K/V biases whose logits are soft-capped as 30 * tanh(kq * attention.output_scale / 30)
// (llama.cpp's LLM_ARCH_GROK branch of build_attn_mha) and an RMS norm after it, then GELU experts
// (softmax routing, renormalised weights) averaged with a dense GELU FFN when the layer has one
// (scaled by sqrt(2) / 2), an RMS norm after the FFN; the logits scaled by logit_scale and soft-capped
// at final_logit_softcapping when not 0.

#include "galloc-model-impl.h"

static bool grok_hparams(struct model_loader * ml, struct model_hparams * hp) {
    // llama.cpp's defaults for old files
    hp->yarn_beta_fast            = 8.0f;
    hp->f_logit_scale             = 0.5773502691896257f;
    hp->f_embedding_scale         = 78.38367176906169f;
    hp->f_attn_out_scale          = 0.08838834764831845f;
    hp->f_attn_logit_softcapping  = 30.0f;
    hp->f_final_logit_softcapping = 0.0f;
    hp->attn_grok                 = true;
    float router_softcap = 30.0f;
    uint32_t temp_length = 0;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) ||
        !galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, false) ||
        !galloc_ml_get_f32(ml, ".embedding_scale", &hp->f_embedding_scale, false) ||
        !galloc_ml_get_f32(ml, ".attention.output_scale", &hp->f_attn_out_scale, false) ||
        !galloc_ml_get_f32(ml, ".attn_logit_softcapping", &hp->f_attn_logit_softcapping, false) ||
        !galloc_ml_get_f32(ml, ".router_logit_softcapping", &router_softcap, false) || // read, unused by the graph
        !galloc_ml_get_f32(ml, ".final_logit_softcapping", &hp->f_final_logit_softcapping, false) ||
        !galloc_ml_get_u32(ml, ".attention.temperature_length", &temp_length, false) || // read, unused by the graph
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_ext_factor", &hp->yarn_ext_factor, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_attn_factor", &hp->yarn_attn_factor, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_beta_fast", &hp->yarn_beta_fast, false) ||
        !galloc_ml_get_f32(ml, ".rope.scaling.yarn_beta_slow", &hp->yarn_beta_slow, false)) {
        return false;
    }
    if (hp->n_expert == 0) {
        return galloc_model_loader_refuse(ml, "%s.expert_count: 0 (llama.cpp: the model cannot have zero experts)", ml->arch);
    }
    return true;
}

static bool grok_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i], n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : n_ff;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo            = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->attn_out_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_output_norm.weight", il);
        l->ffn_norm      = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff, "ffn_gate.weight", il);
        l->ffn_down      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_ff, n_embd, "ffn_down.weight", il);
        l->ffn_up        = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff, "ffn_up.weight", il);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        l->ffn_post_norm = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "layer_output_norm.weight", il);
        if (!l->ffn_post_norm) {
            l->ffn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm.weight", il);
        }
    }
    return !g->failed;
}

static bool grok_graph(struct model_graph * g) {
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
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        cur = galloc_model_norm(g, cur, l->attn_out_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_out_norm", il);
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        struct ggml_tensor * moe_out = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL,
                                                            l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_GELU, true,
                                                            hp->expert_weights_scale, MODEL_GATING_SOFTMAX, NULL, il);
        galloc_model_cb(g, moe_out, "ffn_moe_out", il);
        if (moe_out && l->ffn_up) {
            struct ggml_tensor * ffn_out = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                                            MODEL_FFN_GELU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, ffn_out, "ffn_out", il);
            cur = ffn_out ? ggml_scale(ctx, ggml_add(ctx, ffn_out, moe_out), 0.70710678118654752f) : NULL; // sqrt(2) / 2
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            cur = moe_out;
        }
        if (!cur) {
            break;
        }
        cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_post_norm", il);
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "ffn_out", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    cur = ggml_scale(ctx, cur, hp->f_logit_scale);
    if (hp->f_final_logit_softcapping != 0.0f) {
        cur = ggml_scale(ctx, cur, 1.0f / hp->f_final_logit_softcapping);
        cur = ggml_tanh(ctx, cur);
        cur = ggml_scale(ctx, cur, hp->f_final_logit_softcapping);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_grok = {
    "grok", MODEL_ROPE_NEOX, grok_hparams, grok_tensors, grok_graph,
};
