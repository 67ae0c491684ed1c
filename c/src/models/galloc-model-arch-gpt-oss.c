// galloc-model-arch-gpt-oss.c: the `gpt-oss` architecture (OpenAI's MoE, llama.cpp's openai-moe).
//
// As llama.cpp's src/models/openai-moe.cpp: biased Q/K/V and output projections, attention
// sinks (one learned logit per head), sliding-window layers (every other layer by default)
// on their own KV cache, a post-attention norm, and experts gated by a softmax over the chosen
// experts' logits with biased SwiGLU-OAI experts. The last layer's output is marked as an
// output (the next-token head's input) and its rows are selected before the final norm.

#include "galloc-model-impl.h"


static bool gpt_oss_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, true)) {
        return false;
    }
    hp->swa_type = MODEL_SWA_STANDARD;
    uint32_t swa_period = 2;
    if (!galloc_ml_get_u32_scalar(ml, ".attention.sliding_window_pattern", &swa_period)) {
        return false;
    }
    galloc_hp_set_swa_pattern(hp, swa_period);
    hp->rope_freq_base_train_swa  = hp->rope_freq_base_train;
    hp->rope_freq_scale_train_swa = hp->rope_freq_scale_train;
    return galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false);
}

static bool gpt_oss_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0];
    const int64_t n_rot = galloc_hp_n_rot(hp, 0), n_ff_exp = hp->n_ff_exp, n_expert = hp->n_expert;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm      = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_head * n_rot, n_head_kv * n_rot, n_head_kv * n_rot);
        l->wo              = galloc_model_weight_2d(g, 0, n_head * n_rot, n_embd, "attn_output.weight", il);
        l->attn_sinks      = galloc_model_weight_1d(g, 0, n_head, "attn_sinks.weight", il);
        l->ffn_gate_inp    = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps   = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps     = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        l->wo_b            = galloc_model_weight_1d(g, 0, n_embd, "attn_output.bias", il);
        l->ffn_gate_inp_b  = galloc_model_weight_1d(g, 0, n_expert, "ffn_gate_inp.bias", il);
        l->ffn_gate_exps_b = galloc_model_weight_2d(g, 0, n_ff_exp, n_expert, "ffn_gate_exps.bias", il);
        l->ffn_down_exps_b = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_down_exps.bias", il);
        l->ffn_up_exps_b   = galloc_model_weight_2d(g, 0, n_ff_exp, n_expert, "ffn_up_exps.bias", il);
    }
    return !g->failed;
}

static bool gpt_oss_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        const int64_t n_rot = galloc_hp_n_rot(hp, (uint32_t) il);
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_rot, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v); // layer 0's, as llama.cpp
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, l->attn_sinks, 1.0f / galloc_model_sqrtf((float) n_rot), il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "attn_out", il);
        struct ggml_tensor * ffn_inp = ggml_add(g->ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);

        cur = galloc_model_norm(g, ffn_inp, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_post_norm", il);
        cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, l->ffn_gate_inp_b, l->ffn_up_exps, l->ffn_up_exps_b,
                            l->ffn_gate_exps, l->ffn_gate_exps_b, l->ffn_down_exps, l->ffn_down_exps_b, hp->n_expert,
                            g->n_expert_used, MODEL_FFN_SWIGLU_OAI_MOE, false, hp->expert_weights_scale,
                            MODEL_GATING_SOFTMAX_WEIGHT, NULL, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "ffn_moe_out", il);
        cur = ggml_add(g->ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = inpL;
    ggml_set_output(cur); // the last hidden state (the next-token head's input) is an output
    if (inp_out_ids) {
        cur = ggml_get_rows(g->ctx, cur, inp_out_ids);
    }
    cur = galloc_model_norm(g, cur, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = ggml_mul_mat(g->ctx, g->output, cur);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return true;
}

const struct model_arch_def galloc_model_arch_openai_moe = {
    "gpt-oss", MODEL_ROPE_NEOX, gpt_oss_hparams, gpt_oss_tensors, gpt_oss_graph,
};
