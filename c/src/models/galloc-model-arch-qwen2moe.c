// galloc-model-arch-qwen2moe.c: the `qwen2moe` architecture (Qwen1.5-MoE, Qwen2-57B-A14B).
//
// As llama.cpp's src/models/qwen2moe.cpp: qwen2's attention (Q/K/V biases, NEOX rope), then a
// softmax-gated MoE FFN without weight normalisation plus a shared expert, a SwiGLU FFN whose
// output is scaled by sigmoid(x . gate_inp_shexp) (written as silu(g) / g, as llama.cpp does).

#include "galloc-model-impl.h"

static bool qwen2moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) &&
           galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool qwen2moe_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_expert = hp->n_expert;
    if (n_expert == 0 || hp->n_expert_used == 0) {
        galloc_model_fail(g, "qwen2moe: %s must be > 0", n_expert == 0 ? "n_expert" : "n_expert_used");
        return false;
    }
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i), n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo           = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->ffn_norm     = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate_inp = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        const int64_t n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : n_ff / hp->n_expert_used;
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        const int64_t n_ff_shexp = hp->n_ff_shexp ? hp->n_ff_shexp : n_ff;
        l->ffn_gate_inp_shexp = galloc_model_weight_1d(g, 0, n_embd, "ffn_gate_inp_shexp.weight", il);
        l->ffn_gate_shexp     = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_down_shexp     = galloc_model_weight_2d(g, 0, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        l->ffn_up_shexp       = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
    }
    return !g->failed;
}

static bool qwen2moe_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_context * ctx = g->ctx;
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
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v); // layer 0's, as llama.cpp
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
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
                                                            false, hp->expert_weights_scale, MODEL_GATING_SOFTMAX, NULL, il);
        if (!moe_out) {
            break;
        }
        galloc_model_cb(g, moe_out, "ffn_moe_out", il);

        // the shared expert
        struct ggml_tensor * gate_inp = ggml_mul_mat(ctx, l->ffn_gate_inp_shexp, cur);
        galloc_model_cb(g, gate_inp, "ffn_shexp_gate_inp", il);
        struct ggml_tensor * gate = ggml_div(ctx, ggml_silu(ctx, gate_inp), gate_inp);
        galloc_model_cb(g, gate, "ffn_shexp_gate", il);
        struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                      l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, shexp, "ffn_shexp", il);
        struct ggml_tensor * shexp_out = ggml_mul(ctx, shexp, gate);
        galloc_model_cb(g, shexp_out, "ffn_shexp_out", il);
        moe_out = ggml_add(ctx, moe_out, shexp_out);
        galloc_model_cb(g, moe_out, "ffn_out", il);

        cur = ggml_add(ctx, moe_out, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_qwen2moe = {
    "qwen2moe", MODEL_ROPE_NEOX, qwen2moe_hparams, qwen2moe_tensors, qwen2moe_graph,
};
