// galloc-model-arch-olmoe.c: the `olmoe` and `minimax-m2` architectures (OLMoE-1B-7B; MiniMax-M2).
//
// As llama.cpp's src/models/olmoe.cpp and minimax-m2.cpp: Q, K and V projected without biases or
// scales (llama.cpp loads them and these graphs leave them aside), Q and K RMS-normalised over the
// whole projection before the heads are split, NEOX RoPE (minimax-m2: over rope.dimension_count of
// each head's values, 64 of 128 in MiniMax-M2), then experts: olmoe's softmax-gated
// without weight normalisation; minimax-m2's with the file's gating function, a selection bias
// and renormalised weights.

#include "galloc-model-impl.h"

static bool olmoe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool minimax_m2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) &&
           galloc_ml_get_expert_gating(ml, &hp->expert_gating_func);
}

static bool olmoe_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_expert = hp->n_expert;
    const bool minimax = g->m->arch == &galloc_model_arch_minimax_m2;
    const int64_t n_embd_q = minimax ? galloc_hp_n_embd_head_k(hp, 0) * hp->n_head[0] : n_embd;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i), n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_q, n_embd_gqa, n_embd_gqa);
        if (l->wqkv) {
            galloc_model_fail(g, "%s: tensor 'blk.%d.attn_qkv.weight': a fused QKV projection is not built by galloc "
                              "(llama.cpp's graph reads attn_q/k/v); %s", g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
            return false;
        }
        l->wo            = galloc_model_weight_2d(g, 0, n_embd_q, n_embd, "attn_output.weight", il);
        l->attn_q_norm   = galloc_model_weight_1d(g, 0, n_embd_q, "attn_q_norm.weight", il);
        l->attn_k_norm   = galloc_model_weight_1d(g, 0, minimax ? galloc_hp_n_embd_k_gqa(hp, i) : n_embd, "attn_k_norm.weight", il);
        l->ffn_norm      = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        if (minimax) {
            l->ffn_exp_probs_b = galloc_model_weight_1d(g, 0, n_expert, "exp_probs_b.bias", il);
        }
    }
    return !g->failed;
}

static bool olmoe_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0), n_tokens = g->n_tokens;
    const bool minimax = g->m->arch == &galloc_model_arch_minimax_m2;
    // llama.cpp's olmoe asserts equal key, value and RoPE sizes; minimax-m2 only key and value
    // (MiniMax-M2 rotates 64 of each head's 128 values)
    if (minimax ? n_embd_head != galloc_hp_n_embd_head_k(hp, 0) : !galloc_model_same_head_sizes(g)) {
        if (minimax) {
            galloc_model_fail(g, "minimax-m2: head sizes differ (key %u, value %lld)", galloc_hp_n_embd_head_k(hp, 0),
                              (long long) n_embd_head);
        }
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

        struct ggml_tensor * q = ggml_mul_mat(ctx, l->wq, cur);
        galloc_model_cb(g, q, "Qcur", il);
        struct ggml_tensor * k = ggml_mul_mat(ctx, l->wk, cur);
        galloc_model_cb(g, k, "Kcur", il);
        struct ggml_tensor * v = ggml_mul_mat(ctx, l->wv, cur);
        galloc_model_cb(g, v, "Vcur", il);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "Qcur_normed", il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, k, "Kcur_normed", il);
        if (q->ne[0] != n_embd_head * hp->n_head[0] || k->ne[0] != n_embd_head * hp->n_head_kv[0] ||
            v->ne[0] != n_embd_head * hp->n_head_kv[0]) {
            galloc_model_fail(g, "olmoe.attention.head_count/head_count_kv: Q/K/V widths %lld/%lld/%lld are not heads of %lld "
                              "(llama.cpp's reshape would abort)", (long long) q->ne[0], (long long) k->ne[0],
                              (long long) v->ne[0], (long long) n_embd_head);
            break;
        }
        q = ggml_reshape_3d(ctx, q, n_embd_head, hp->n_head[0], n_tokens);
        k = ggml_reshape_3d(ctx, k, n_embd_head, hp->n_head_kv[0], n_tokens);
        v = ggml_reshape_3d(ctx, v, n_embd_head, hp->n_head_kv[0], n_tokens);
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
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        const struct model_moe moe = {
            .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
            .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b, .n_expert = hp->n_expert,
            .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU, .norm_w = minimax, .w_scale = hp->expert_weights_scale,
            .gating = minimax ? galloc_model_gating_func(hp->expert_gating_func) : MODEL_GATING_SOFTMAX,
        };
        cur = galloc_model_moe(g, cur, &moe, il);
        galloc_model_cb(g, cur, "ffn_moe_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_olmoe = {
    "olmoe", MODEL_ROPE_NEOX, olmoe_hparams, olmoe_tensors, olmoe_graph,
};

const struct model_arch_def galloc_model_arch_minimax_m2 = {
    "minimax-m2", MODEL_ROPE_NEOX, minimax_m2_hparams, olmoe_tensors, olmoe_graph,
};
