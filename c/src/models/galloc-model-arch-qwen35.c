// galloc-model-arch-qwen35.c: the `qwen35` and `qwen35moe` architectures (Qwen3.5 dense and MoE).
//
// As llama.cpp's src/models/qwen35.cpp: recurrent layers (attention.recurrent_layers, else all but
// every full_attention_interval-th) are gated delta nets (galloc-model-delta-net.c) over a short
// convolution; the others gated attention: a joint Q and gate projection, Q/K RMS norms,
// interleaved M-RoPE, the output gated by the sigmoid of the gate. Both are followed by a
// post-attention norm and a SwiGLU FFN, or (qwen35moe) softmax-routed experts plus a shared expert
// gated by a sigmoid. The output rows are selected after the final norm. The MTP blocks
// (nextn_predict_layers, after the others) are skipped as llama.cpp's main context skips them: their
// tensors not loaded, no memory for them, the graph over the blocks before them. Fused gate_up
// experts are not built.

#include "galloc-model-impl.h"

bool galloc_model_delta_net_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0, interval = 4;
    uint32_t recr[MODEL_MAX_LAYERS];
    if (!galloc_model_ssm_hparams(ml, hp, true) || !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (n_nextn >= hp->n_layer) { // llama.cpp asserts
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u of %u blocks", ml->arch, n_nextn, hp->n_layer);
    }
    hp->n_layer_nextn = n_nextn;
    if (galloc_ml_has_key(ml, ".attention.recurrent_layers")) {
        if (!galloc_ml_get_u32_or_arr(ml, ".attention.recurrent_layers", recr, hp->n_layer, false)) {
            return false;
        }
        for (uint32_t il = 0; il < hp->n_layer; il++) {
            hp->is_recr[il] = recr[il] != 0;
        }
    } else {
        if (!galloc_ml_get_u32(ml, ".full_attention_interval", &interval, false)) {
            return false;
        }
        if (interval == 0) {
            return galloc_model_loader_refuse(ml, "%s.full_attention_interval: 0 (llama.cpp would divide by zero)", ml->arch);
        }
        for (uint32_t il = 0; il < hp->n_layer; il++) {
            hp->is_recr[il] = il < hp->n_layer - n_nextn && (il + 1) % interval != 0;
        }
    }
    // the delta net's heads: value heads of inner_size / time_step_rank = state_size values (the
    // state's reshape), key heads (group_count) dividing them
    if ((uint64_t) hp->ssm_d_state * hp->ssm_dt_rank != hp->ssm_d_inner || hp->ssm_dt_rank % hp->ssm_n_group != 0) {
        return galloc_model_loader_refuse(ml, "%s.ssm: inner_size %u is not time_step_rank %u x state_size %u, or group_count %u does "
                                          "not divide time_step_rank (llama.cpp would abort)", ml->arch, hp->ssm_d_inner,
                                          hp->ssm_dt_rank, hp->ssm_d_state, hp->ssm_n_group);
    }
    return true;
}

static bool qwen35_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, true) &&
           galloc_model_delta_net_hparams(ml, hp);
}

static bool qwen35moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) || !qwen35_hparams(ml, hp)) {
        return false;
    }
    if (hp->n_expert == 0) {
        return galloc_model_loader_refuse(ml, "%s.expert_count: 0 (llama.cpp's MoE layers need experts)", ml->arch);
    }
    return true;
}

static bool qwen35_tensors_of(struct model_graph * g, bool moe) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_ff = hp->n_ff[0], n_head = hp->n_head[0];
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t head_k_dim = hp->ssm_d_state, head_v_dim = hp->ssm_d_state;
    const int64_t n_k_heads = hp->ssm_n_group, n_v_heads = hp->ssm_dt_rank;
    const int64_t key_dim = head_k_dim * n_k_heads, value_dim = head_v_dim * n_v_heads, conv_dim = key_dim * 2 + value_dim;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer - hp->n_layer_nextn; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm      = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        if (!hp->is_recr[i]) {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head * 2, galloc_hp_n_embd_k_gqa(hp, 0),
                                     galloc_hp_n_embd_v_gqa(hp, 0));
            l->wo          = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
            l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        } else {
            l->wqkv       = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, key_dim * 2 + value_dim, "attn_qkv.weight", il);
            l->wqkv_gate  = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, value_dim, "attn_gate.weight", il);
            l->ssm_conv1d = galloc_model_weight_2d(g, 0, hp->ssm_d_conv, conv_dim, "ssm_conv1d.weight", il);
            l->ssm_dt_b   = galloc_model_weight_1d(g, 0, hp->ssm_dt_rank, "ssm_dt.bias", il);
            l->ssm_a      = galloc_model_weight_1d(g, 0, hp->ssm_dt_rank, "ssm_a", il);
            l->ssm_beta   = galloc_model_weight_2d(g, 0, n_embd, n_v_heads, "ssm_beta.weight", il);
            l->ssm_alpha  = galloc_model_weight_2d(g, 0, n_embd, n_v_heads, "ssm_alpha.weight", il);
            l->ssm_norm   = galloc_model_weight_1d(g, 0, head_v_dim, "ssm_norm.weight", il);
            l->ssm_out    = galloc_model_weight_2d(g, 0, value_dim, n_embd, "ssm_out.weight", il);
        }
        if (!moe) {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
            continue;
        }
        const int64_t n_expert = hp->n_expert;
        const int64_t n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : n_ff / hp->n_expert_used;
        const int64_t n_ff_shexp = hp->n_ff_shexp ? hp->n_ff_shexp : n_ff;
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        // create_tensor_gate_up_exps: the fused gate and up experts, else both
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

static bool qwen35_tensors(struct model_graph * g) {
    return qwen35_tensors_of(g, false);
}

static bool qwen35moe_tensors(struct model_graph * g) {
    return qwen35_tensors_of(g, true);
}

// the routed experts and the sigmoid-gated shared expert (llama_model_qwen35moe::build_layer_ffn, qwen3next's)
struct ggml_tensor * galloc_model_qwen35_moe_ffn(struct model_graph * g, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const struct model_moe p = {
        .gate_inp = l->ffn_gate_inp, .gate_up_exps = l->ffn_gate_up_exps, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
        .down_exps = l->ffn_down_exps, .up_s = l->ffn_up_exps_s, .gate_s = l->ffn_gate_exps_s, .down_s = l->ffn_down_exps_s,
        .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU, .norm_w = true,
        .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX,
    };
    struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &p, il);
    galloc_model_cb(g, moe_out, "ffn_moe_out", il);
    struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, l->ffn_up_shexp_s, l->ffn_gate_shexp, NULL,
                                                  l->ffn_gate_shexp_s, l->ffn_down_shexp, NULL, l->ffn_down_shexp_s, MODEL_FFN_SILU,
                                                  MODEL_FFN_PAR, il);
    galloc_model_cb(g, shexp, "ffn_shexp", il);
    if (!moe_out || !shexp) {
        return NULL;
    }
    struct ggml_tensor * shared_gate = galloc_model_mm(g, l->ffn_gate_inp_shexp, cur, NULL);
    galloc_model_cb(g, shared_gate, "shared_expert_gate", il);
    shared_gate = ggml_sigmoid(ctx, shared_gate);
    galloc_model_cb(g, shared_gate, "shared_expert_gate_sigmoid", il);
    shexp = ggml_mul(ctx, shexp, shared_gate);
    galloc_model_cb(g, shexp, "ffn_shexp_gated", il);
    cur = ggml_add(ctx, moe_out, shexp);
    galloc_model_cb(g, cur, "ffn_out", il);
    return cur;
}

static struct ggml_tensor * attn_layer(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * cur,
                                       struct ggml_tensor * inp_pos, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0), n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0];
    const int64_t n_tokens = g->n_tokens;
    if (!l->wq) {
        return galloc_model_fail(g, "%s: layer %d has a fused attn_qkv; llama.cpp's gated attention reads attn_q (it would crash); %s",
                                 g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
    }
    struct ggml_tensor * q_full = galloc_model_mm(g, l->wq, cur, l->wq_s);
    galloc_model_cb(g, q_full, "Qcur_full", il);
    const size_t es = ggml_element_size(q_full);
    struct ggml_tensor * q = ggml_view_3d(ctx, q_full, n_embd_head, n_head, n_tokens, es * (size_t) n_embd_head * 2,
                                          es * (size_t) (n_embd_head * 2 * n_head), 0);
    galloc_model_cb(g, q, "Qcur_reshaped", il);
    q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, q, "Qcur_normed", il);
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
    k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, k, "Kcur_normed", il);
    struct ggml_tensor * gate = ggml_view_3d(ctx, q_full, n_embd_head, n_head, n_tokens, es * (size_t) n_embd_head * 2,
                                             es * (size_t) (n_embd_head * 2 * n_head), es * (size_t) n_embd_head);
    gate = ggml_cont_2d(ctx, gate, n_embd_head * n_head, n_tokens);
    galloc_model_cb(g, gate, "gate_reshaped", il);
    v = ggml_reshape_3d(ctx, v, n_embd_head, n_head_kv, n_tokens);
    int sections[4];
    for (int i = 0; i < 4; i++) {
        sections[i] = (int) hp->rope_sections[i];
    }
    const int n_rot = (int) galloc_hp_n_rot(hp, 0);
    q = ggml_rope_multi(ctx, q, inp_pos, NULL, n_rot, sections, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                        cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    k = ggml_rope_multi(ctx, k, inp_pos, NULL, n_rot, sections, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
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
    struct ggml_tensor * gate_sigmoid = ggml_sigmoid(ctx, gate);
    galloc_model_cb(g, gate_sigmoid, "gate_sigmoid", il);
    cur = ggml_mul(ctx, cur, gate_sigmoid);
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
    const int64_t num_v_heads = hp->ssm_dt_rank;
    const int64_t head_v_dim = d_inner / num_v_heads;
    if (!l->wqkv || !l->wqkv_gate) {
        return galloc_model_fail(g, "%s: tensor 'blk.%d.%s' is missing (llama.cpp's gated delta net reads it; it would crash); %s",
                                 g->m->arch->name, il, l->wqkv ? "attn_gate.weight" : "attn_qkv.weight", GALLOC_MODEL_CAPTURE_HINT);
    }
    struct ggml_tensor * qkv_mixed = galloc_model_mm(g, l->wqkv, cur, l->wqkv_s);
    qkv_mixed = ggml_reshape_3d(ctx, qkv_mixed, qkv_mixed->ne[0], n_seq_tokens, n_seqs);
    galloc_model_cb(g, qkv_mixed, "linear_attn_qkv_mixed", il);
    struct ggml_tensor * z = galloc_model_mm(g, l->wqkv_gate, cur, l->wqkv_gate_s);
    galloc_model_cb(g, z, "z", il);

    struct ggml_tensor * beta = galloc_model_mm(g, l->ssm_beta, cur, l->ssm_beta_s);
    beta = ggml_reshape_4d(ctx, beta, 1, num_v_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, beta, "beta", il);
    beta = ggml_sigmoid(ctx, beta);
    galloc_model_cb(g, beta, "beta_sigmoid", il);
    struct ggml_tensor * alpha = galloc_model_mm(g, l->ssm_alpha, cur, l->ssm_alpha_s);
    alpha = ggml_reshape_3d(ctx, alpha, num_v_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, alpha, "alpha", il);
    struct ggml_tensor * alpha_softplus = ggml_softplus(ctx, ggml_add(ctx, alpha, l->ssm_dt_b));
    galloc_model_cb(g, alpha_softplus, "a_softplus", il);
    struct ggml_tensor * gate = ggml_mul(ctx, alpha_softplus, l->ssm_a); // -exp(A_log) * softplus
    galloc_model_cb(g, gate, "gate", il);
    gate = ggml_reshape_4d(ctx, gate, 1, num_v_heads, n_seq_tokens, n_seqs);

    struct ggml_tensor * q_conv, * k_conv, * v_conv, * state;
    if (!galloc_model_delta_net_qkv(g, inp, qkv_mixed, il, &q_conv, &k_conv, &v_conv, &state)) {
        return NULL;
    }
    struct ggml_tensor * ssm_states_all = g->rs->s[il];
    // the fused delta net takes fewer key heads than value heads as they are: no repeat
    galloc_model_cb(g, q_conv, "q_conv_predelta", il);
    galloc_model_cb(g, k_conv, "k_conv_predelta", il);
    galloc_model_cb(g, v_conv, "v_conv_predelta", il);
    struct ggml_tensor * output = galloc_model_recurrent_attn(g, ssm_states_all, q_conv, k_conv, v_conv, gate, beta, state, il);
    if (!output) {
        return NULL;
    }
    struct ggml_tensor * z_2d = ggml_reshape_4d(ctx, z, head_v_dim, num_v_heads, n_seq_tokens, n_seqs);
    // the gated norm: norm(output) x silu(z)
    struct ggml_tensor * normalized = galloc_model_norm(g, output, l->ssm_norm, NULL, MODEL_NORM_RMS, il);
    struct ggml_tensor * attn_out_norm = ggml_mul(ctx, normalized, ggml_silu(ctx, z_2d));
    struct ggml_tensor * final_output = ggml_reshape_3d(ctx, attn_out_norm, head_v_dim * num_v_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, final_output, "final_output", il);
    cur = galloc_model_mm(g, l->ssm_out, final_output, l->ssm_out_s);
    galloc_model_cb(g, cur, "linear_attn_out", il);
    return ggml_reshape_2d(ctx, cur, hp->n_embd, n_seq_tokens * n_seqs);
}

static bool qwen35_graph_of(struct model_graph * g, bool moe) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    if (galloc_hp_n_embd_head_v(hp, 0) != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "%s: key and value heads differ (%u, %u); %s", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          galloc_hp_n_embd_head_v(hp, 0), GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    galloc_model_cb(g, inpL, "model.input_embed", -1);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_pos     = galloc_model_inp_pos(g); // four per token (M-RoPE)
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
        if (moe) {
            cur = galloc_model_qwen35_moe_ffn(g, post, il);
        } else {
            cur = galloc_model_ffn(g, post, l->ffn_up, NULL, l->ffn_up_s, l->ffn_gate, NULL, l->ffn_gate_s, l->ffn_down, NULL,
                                   l->ffn_down_s, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_residual);
        galloc_model_cb(g, cur, moe ? "post_moe" : "post_ffn", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    // the final norm over every token (the MTP head's seed), then the output rows
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

static bool qwen35_graph(struct model_graph * g) {
    return qwen35_graph_of(g, false);
}

static bool qwen35moe_graph(struct model_graph * g) {
    return qwen35_graph_of(g, true);
}

const struct model_arch_def galloc_model_arch_qwen35 = {
    "qwen35", MODEL_ROPE_IMROPE, qwen35_hparams, qwen35_tensors, qwen35_graph,
};

const struct model_arch_def galloc_model_arch_qwen35moe = {
    "qwen35moe", MODEL_ROPE_IMROPE, qwen35moe_hparams, qwen35moe_tensors, qwen35moe_graph,
};
