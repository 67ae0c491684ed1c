// galloc-model-arch-qwen3next.c: the `qwen3next` architecture (Qwen3-Next).
//
// As llama.cpp's src/models/qwen3next.cpp: Qwen3.5's layer plan (galloc-model-arch-qwen35.c) with
// NeoX RoPE instead of M-RoPE, a joint Q and gate projection split by views, the delta net's beta and
// alpha from one projection (ssm_ba), key heads repeated to the value heads, and the MoE FFN with a
// sigmoid-gated shared expert in every layer. Legacy files (ssm_in without attn_qkv) and MTP layers
// are not built.

#include "galloc-model-impl.h"

static bool qwen3next_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_model_delta_net_hparams(ml, hp)) {
        return false;
    }
    if (hp->n_expert == 0) {
        return galloc_model_loader_refuse(ml, "%s.expert_count: 0 (llama.cpp: the model cannot have zero experts)", ml->arch);
    }
    return true;
}

static bool qwen3next_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_ff = hp->n_ff[0], n_head = hp->n_head[0], n_expert = hp->n_expert;
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : n_ff / hp->n_expert_used;
    const int64_t head_k_dim = hp->ssm_d_state, head_v_dim = hp->ssm_d_state;
    const int64_t n_k_heads = hp->ssm_n_group, n_v_heads = hp->ssm_dt_rank;
    const int64_t key_dim = head_k_dim * n_k_heads, value_dim = head_v_dim * n_v_heads, conv_dim = key_dim * 2 + value_dim;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer - hp->n_layer_nextn; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff_shexp = hp->n_ff_shexp > 0 ? hp->n_ff_shexp : hp->n_ff[i];
        l->attn_norm      = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        if (!hp->is_recr[i]) {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head * 2, galloc_hp_n_embd_k_gqa(hp, 0),
                                     galloc_hp_n_embd_v_gqa(hp, 0));
            l->wo          = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
            l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        } else {
            l->ssm_in         = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, key_dim * 2 + value_dim * 2, "ssm_in.weight", il);
            l->wqkv           = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, key_dim * 2 + value_dim, "attn_qkv.weight", il);
            l->wqkv_gate      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, value_dim, "attn_gate.weight", il);
            l->ssm_conv1d     = galloc_model_weight_2d(g, 0, hp->ssm_d_conv, conv_dim, "ssm_conv1d.weight", il);
            l->ssm_dt_b       = galloc_model_weight_1d(g, 0, hp->ssm_dt_rank, "ssm_dt.bias", il);
            l->ssm_a          = galloc_model_weight_1d(g, 0, hp->ssm_dt_rank, "ssm_a", il);
            l->ssm_beta_alpha = galloc_model_weight_2d(g, 0, n_embd, n_v_heads * 2, "ssm_ba.weight", il);
            l->ssm_norm       = galloc_model_weight_1d(g, 0, head_v_dim, "ssm_norm.weight", il);
            l->ssm_out        = galloc_model_weight_2d(g, 0, value_dim, n_embd, "ssm_out.weight", il);
        }
        l->ffn_gate_inp     = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_down_exps    = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_gate_up_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_exp * 2, n_expert, "ffn_gate_up_exps.weight", il);
        if (!l->ffn_gate_up_exps) {
            l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        }
        l->ffn_gate_inp_shexp = galloc_model_weight_1d(g, 0, n_embd, "ffn_gate_inp_shexp.weight", il);
        l->ffn_gate_shexp     = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_up_shexp       = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
        l->ffn_down_shexp     = galloc_model_weight_2d(g, 0, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
    }
    return !g->failed;
}

static struct ggml_tensor * attn_layer(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * cur,
                                       struct ggml_tensor * inp_pos, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0), n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0];
    const int64_t n_tokens = g->n_tokens;
    const int     n_rot = (int) galloc_hp_n_rot(hp, 0);
    if (!l->wq) {
        return galloc_model_fail(g, "%s: layer %d has a fused attn_qkv; llama.cpp's gated attention reads attn_q (it would crash); %s",
                                 g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
    }
    struct ggml_tensor * q_full = galloc_model_mm(g, l->wq, cur, l->wq_s);
    galloc_model_cb(g, q_full, "Qcur_full", il);
    q_full = ggml_reshape_4d(ctx, q_full, n_embd_head * 2, n_head, n_tokens, 1);
    struct ggml_tensor * q = ggml_view_4d(ctx, q_full, n_embd_head, n_head, n_tokens, 1, q_full->nb[1], q_full->nb[2], q_full->nb[3], 0);
    galloc_model_cb(g, q, "Qcur_view", il);
    struct ggml_tensor * gate = ggml_view_4d(ctx, q_full, n_embd_head, n_head, n_tokens, 1, q_full->nb[1], q_full->nb[2], q_full->nb[3],
                                             (size_t) n_embd_head * ggml_element_size(q_full));
    galloc_model_cb(g, gate, "gate", il);
    struct ggml_tensor * k = galloc_model_mm(g, l->wk, cur, l->wk_s);
    galloc_model_cb(g, k, "Kcur", il);
    struct ggml_tensor * v = galloc_model_mm(g, l->wv, cur, l->wv_s);
    galloc_model_cb(g, v, "Vcur", il);
    if (k->ne[0] != n_embd_head * n_head_kv || v->ne[0] != n_embd_head * n_head_kv) {
        return galloc_model_fail(g, "%s.attention.head_count_kv: layer %d: K/V of %lld/%lld values for %lld heads of %lld (llama.cpp's "
                                 "reshape would abort); %s", g->m->arch->name, il, (long long) k->ne[0], (long long) v->ne[0],
                                 (long long) n_head_kv, (long long) n_embd_head, GALLOC_MODEL_CAPTURE_HINT);
    }
    k = ggml_reshape_3d(ctx, k, n_embd_head, n_head_kv, n_tokens);
    v = ggml_reshape_3d(ctx, v, n_embd_head, n_head_kv, n_tokens);
    q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, q, "Qcur_normed", il);
    k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, k, "Kcur_normed", il);
    q = ggml_rope_ext(ctx, q, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    k = ggml_rope_ext(ctx, k, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    galloc_model_cb(g, q, "Qcur", il);
    galloc_model_cb(g, k, "Kcur", il);
    galloc_model_cb(g, v, "Vcur", il);
    const float kq_scale = hp->f_attention_scale == 0.0f ? 1.0f / galloc_model_sqrtf((float) n_embd_head) : hp->f_attention_scale;
    cur = galloc_model_attn(g, inp, NULL, NULL, NULL, q, k, v, NULL, kq_scale, il);
    if (!cur) {
        return NULL;
    }
    galloc_model_cb(g, cur, "attn_pregate", il);
    gate = ggml_cont_2d(ctx, gate, n_embd_head * n_head, n_tokens);
    gate = ggml_sigmoid(ctx, gate);
    galloc_model_cb(g, gate, "gate_sigmoid", il);
    cur = ggml_mul(ctx, cur, gate);
    galloc_model_cb(g, cur, "attn_gated", il);
    cur = galloc_model_mm(g, l->wo, cur, l->wo_s);
    galloc_model_cb(g, cur, "attn_output", il);
    return cur;
}

static struct ggml_tensor * linear_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t d_inner = hp->ssm_d_inner, n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs;
    const int64_t head_k_dim = hp->ssm_d_state, num_k_heads = hp->ssm_n_group, num_v_heads = hp->ssm_dt_rank;
    const int64_t head_v_dim = d_inner / num_v_heads;
    if (!l->wqkv || !l->wqkv_gate) {
        return galloc_model_fail(g, "%s: layer %d: no attn_qkv and attn_gate (a legacy file with ssm_in: galloc builds only "
                                 "llama.cpp's optimized path); %s", g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
    }
    struct ggml_tensor * qkv_mixed = galloc_model_mm(g, l->wqkv, cur, NULL);
    qkv_mixed = ggml_reshape_3d(ctx, qkv_mixed, qkv_mixed->ne[0], n_seq_tokens, n_seqs);
    galloc_model_cb(g, qkv_mixed, "linear_attn_qkv_mixed", il);
    struct ggml_tensor * z = galloc_model_mm(g, l->wqkv_gate, cur, NULL);
    galloc_model_cb(g, z, "z", il);

    struct ggml_tensor * mixed_ba = galloc_model_mm(g, l->ssm_beta_alpha, cur, NULL);
    galloc_model_cb(g, mixed_ba, "linear_attn_mixed_ba", il);
    const int64_t per = num_v_heads / num_k_heads;
    struct ggml_tensor * ba = ggml_reshape_4d(ctx, mixed_ba, 2 * per, num_k_heads, n_seq_tokens, n_seqs);
    struct ggml_tensor * b = ggml_view_4d(ctx, ba, per, num_k_heads, n_seq_tokens, n_seqs, ba->nb[1], ba->nb[2], ba->nb[3], 0);
    galloc_model_cb(g, b, "b", il);
    struct ggml_tensor * a = ggml_view_4d(ctx, ba, per, num_k_heads, n_seq_tokens, n_seqs, ba->nb[1], ba->nb[2], ba->nb[3],
                                          (size_t) per * ggml_element_size(ba));
    galloc_model_cb(g, a, "a", il);
    b = ggml_cont(ctx, b);
    struct ggml_tensor * beta  = ggml_sigmoid(ctx, b);
    struct ggml_tensor * alpha = ggml_cont_3d(ctx, a, num_v_heads, n_seq_tokens, n_seqs);
    struct ggml_tensor * alpha_softplus = ggml_softplus(ctx, ggml_add(ctx, alpha, l->ssm_dt_b));
    galloc_model_cb(g, alpha_softplus, "a_softplus", il);
    struct ggml_tensor * gate = ggml_mul(ctx, alpha_softplus, l->ssm_a); // -exp(A_log) * softplus
    galloc_model_cb(g, gate, "gate", il);
    beta = ggml_reshape_4d(ctx, beta, 1, num_v_heads, n_seq_tokens, n_seqs);
    gate = ggml_reshape_4d(ctx, gate, 1, num_v_heads, n_seq_tokens, n_seqs);

    struct ggml_tensor * q_conv, * k_conv, * v_conv, * state;
    if (!galloc_model_delta_net_qkv(g, inp, qkv_mixed, il, &q_conv, &k_conv, &v_conv, &state)) {
        return NULL;
    }
    struct ggml_tensor * ssm_states_all = g->rs->s[il];
    if (num_k_heads != num_v_heads) {
        // each key head repeated for the value heads it serves (repeat-interleave)
        struct ggml_tensor * q_r = ggml_reshape_4d(ctx, q_conv, head_k_dim, 1, num_k_heads, n_seq_tokens * n_seqs);
        struct ggml_tensor * k_r = ggml_reshape_4d(ctx, k_conv, head_k_dim, 1, num_k_heads, n_seq_tokens * n_seqs);
        q_r = ggml_repeat_4d(ctx, q_r, head_k_dim, per, num_k_heads, n_seq_tokens * n_seqs);
        k_r = ggml_repeat_4d(ctx, k_r, head_k_dim, per, num_k_heads, n_seq_tokens * n_seqs);
        q_conv = ggml_reshape_4d(ctx, q_r, head_k_dim, num_k_heads * per, n_seq_tokens, n_seqs);
        k_conv = ggml_reshape_4d(ctx, k_r, head_k_dim, num_k_heads * per, n_seq_tokens, n_seqs);
    }
    galloc_model_cb(g, q_conv, "q_conv_predelta", il);
    galloc_model_cb(g, k_conv, "k_conv_predelta", il);
    galloc_model_cb(g, v_conv, "v_conv_predelta", il);
    struct ggml_tensor * output = galloc_model_recurrent_attn(g, ssm_states_all, q_conv, k_conv, v_conv, gate, beta, state, il);
    if (!output) {
        return NULL;
    }
    struct ggml_tensor * z_2d = ggml_reshape_4d(ctx, z, head_v_dim, num_v_heads, n_seq_tokens, n_seqs);
    struct ggml_tensor * normalized = galloc_model_norm(g, output, l->ssm_norm, NULL, MODEL_NORM_RMS, il);
    struct ggml_tensor * attn_out_norm = ggml_mul(ctx, normalized, ggml_silu(ctx, z_2d));
    struct ggml_tensor * final_output = ggml_reshape_3d(ctx, attn_out_norm, head_v_dim * num_v_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, final_output, "final_output", il);
    cur = galloc_model_mm(g, l->ssm_out, final_output, NULL);
    galloc_model_cb(g, cur, "linear_attn_out", il);
    return ggml_reshape_2d(ctx, cur, hp->n_embd, n_seq_tokens * n_seqs);
}

static bool qwen3next_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    if (galloc_hp_n_embd_head_v(hp, 0) != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "%s: key and value heads differ (%u, %u); %s", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          galloc_hp_n_embd_head_v(hp, 0), GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    galloc_model_cb(g, inpL, "model.embed_tokens", -1);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_pos     = galloc_model_inp_pos(g);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) (hp->n_layer - hp->n_layer_nextn) && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        ggml_build_forward_expand(g->gf, cur);
        cur = hp->is_recr[il] ? linear_layer(g, &rs_inp, cur, il) : attn_layer(g, &attn, cur, inp_pos, il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, cur, "attn_residual", il);
        struct ggml_tensor * ffn_residual = cur;
        struct ggml_tensor * post = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, post, "attn_post_norm", il);
        cur = galloc_model_qwen35_moe_ffn(g, post, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_residual);
        galloc_model_cb(g, cur, "post_moe", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "h_nextn", -1);
    ggml_set_output(cur);
    if (inp_out_ids) {
        cur = ggml_get_rows(ctx, cur, inp_out_ids);
    }
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_qwen3next = {
    "qwen3next", MODEL_ROPE_NEOX, qwen3next_hparams, qwen3next_tensors, qwen3next_graph,
};
