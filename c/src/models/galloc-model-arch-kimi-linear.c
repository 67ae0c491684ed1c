// galloc-model-arch-kimi-linear.c: the `kimi-linear` architecture (Kimi-Linear-48B-A3B).
//
// As llama.cpp's src/models/kimi-linear.cpp: a hybrid whose layers with no KV heads are Kimi delta
// attention (KDA: Q, K and V each through its own short convolution over a conv state, a per-value
// gate -exp(A) * softplus(f_b(f_a(x)) + dt_bias), the fused delta rule, an RMS norm gated by
// sigmoid(g_b(g_a(x))), the output projection) and the others multi-head latent attention without
// RoPE over a K-only cache (deepseek2's absorption of Q into the latent space); the first
// leading_dense_block_count layers a SwiGLU FFN, the others sigmoid-routed experts with a selection
// bias plus the shared experts. llama.cpp uses no projection scale but the MLA output's, and no
// Q/K/V bias: neither does galloc. Files without MLA head sizes (the MHA-cache fallback), with
// Q's low-rank projection or a decompressing wkv_b are not built.

#include "galloc-model-impl.h"

static bool kimi_linear_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".attention.key_length_mla", &hp->n_embd_head_k_mla, true) ||
        !galloc_ml_get_u32(ml, ".attention.value_length_mla", &hp->n_embd_head_v_mla, true) ||
        !galloc_ml_get_u32(ml, ".attention.kv_lora_rank", &hp->n_lora_kv, true) ||
        !galloc_ml_get_u32(ml, ".ssm.conv_kernel", &hp->ssm_d_conv, true) ||
        !galloc_ml_get_u32(ml, ".kda.head_dim", &hp->n_embd_head_kda, true) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) ||
        !galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) ||
        !galloc_ml_get_expert_gating(ml, &hp->expert_gating_func)) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0; // KDA layers have no KV heads
    }
    if (!galloc_hp_is_mla(hp)) {
        return galloc_model_loader_refuse(ml, "%s.attention.key_length_mla/value_length_mla: 0, the MHA-cache attention is not "
                                          "built by galloc", ml->arch);
    }
    if (hp->n_head[0] == 0 || hp->n_embd_head_kda == 0 || hp->n_embd_head_kda > 1024 || hp->ssm_d_conv == 0 ||
        hp->ssm_d_conv > 1024 || (uint64_t) hp->n_embd_head_kda * hp->n_embd_head_kda * hp->n_head[0] > (1u << 30)) {
        return galloc_model_loader_refuse(ml, "%s.kda.head_dim/ssm.conv_kernel/attention.head_count: %u, %u, %u (1 to 1024 each, "
                                          "states of at most 2^30 values)", ml->arch, hp->n_embd_head_kda, hp->ssm_d_conv, hp->n_head[0]);
    }
    if (hp->n_embd_head_k_mla <= galloc_hp_n_rot(hp, 0)) {
        return galloc_model_loader_refuse(ml, "%s.attention.key_length_mla: %u is not more than rope.dimension_count %u",
                                          ml->arch, hp->n_embd_head_k_mla, galloc_hp_n_rot(hp, 0));
    }
    return true;
}

// a convolution weight [d_conv, 1, d_inner], 4D or 3D as the file has it
static struct ggml_tensor * conv_weight(struct model_graph * g, const char * name, int64_t d_conv, int64_t d_inner, int il) {
    const int64_t ne4[4] = { d_conv, 1, d_inner, 1 };
    struct ggml_tensor * w = galloc_model_weight(g, MODEL_TENSOR_OPTIONAL, 4, ne4, "blk.%d.%s.weight", il, name);
    return w ? w : galloc_model_weight(g, 0, 3, ne4, "blk.%d.%s.weight", il, name);
}

static bool kimi_linear_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0], n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
    const int64_t head_dim = hp->n_embd_head_kda, d_conv = hp->ssm_d_conv, d_inner = head_dim * n_head;
    const int64_t k_mla = hp->n_embd_head_k_mla, v_mla = hp->n_embd_head_v_mla, kv_lora = hp->n_lora_kv;
    const int64_t n_rope = galloc_hp_n_rot(hp, 0);
    const int64_t n_ff_shexp = n_ff_exp * (hp->n_expert_shared > 0 ? hp->n_expert_shared : 1);
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->is_recr[i]) {
            l->ssm_q_conv = conv_weight(g, "ssm_conv1d_q", d_conv, d_inner, il);
            l->ssm_k_conv = conv_weight(g, "ssm_conv1d_k", d_conv, d_inner, il);
            l->ssm_v_conv = conv_weight(g, "ssm_conv1d_v", d_conv, d_inner, il);
            galloc_model_weights_qkv(g, l, il, n_embd, d_inner, d_inner, d_inner);
            l->ssm_f_a  = galloc_model_weight_2d(g, 0, n_embd, head_dim, "ssm_f_a.weight", il);
            l->ssm_f_b  = galloc_model_weight_2d(g, 0, head_dim, d_inner, "ssm_f_b.weight", il);
            l->ssm_beta = galloc_model_weight_2d(g, 0, n_embd, n_head, "ssm_beta.weight", il);
            const int64_t ne_a[4] = { 1, n_head, 1, 1 };
            l->ssm_a = galloc_model_weight(g, MODEL_TENSOR_OPTIONAL, 4, ne_a, "blk.%d.ssm_a", il);
            if (!l->ssm_a) {
                l->ssm_a = galloc_model_weight(g, 0, 2, ne_a, "blk.%d.ssm_a", il);
            }
            l->ssm_dt_b = galloc_model_weight_1d(g, 0, d_inner, "ssm_dt.bias", il);
            l->ssm_g_a  = galloc_model_weight_2d(g, 0, n_embd, head_dim, "ssm_g_a.weight", il);
            l->ssm_g_b  = galloc_model_weight_2d(g, 0, head_dim, d_inner, "ssm_g_b.weight", il);
            l->ssm_norm = galloc_model_weight_1d(g, 0, head_dim, "ssm_norm.weight", il);
            l->wo       = galloc_model_weight_2d(g, 0, d_inner, n_embd, "attn_output.weight", il);
        } else {
            // no attn_q_a_norm (Q's low-rank projection: llama.cpp's graph would read no attn_q) and no
            // wkv_b (the MHA cache): files with them are refused by galloc_model_weights_all_used
            l->attn_kv_a_norm = galloc_model_weight_1d(g, 0, kv_lora, "attn_kv_a_norm.weight", il);
            l->wq             = galloc_model_weight_2d(g, 0, n_embd, n_head * k_mla, "attn_q.weight", il);
            l->attn_kv_a_mqa  = galloc_model_weight_2d(g, 0, n_embd, kv_lora + n_rope, "attn_kv_a_mqa.weight", il);
            l->attn_k_b       = galloc_model_weight_3d(g, 0, k_mla - n_rope, kv_lora, n_head, "attn_k_b.weight", il);
            l->attn_v_b       = galloc_model_weight_3d(g, 0, kv_lora, v_mla, n_head, "attn_v_b.weight", il);
            l->wo             = galloc_model_weight_2d(g, 0, n_head * v_mla, n_embd, "attn_output.weight", il);
        }
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (i < hp->n_layer_dense_lead) {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
            continue;
        }
        if (n_expert == 0 || hp->n_expert_used == 0) {
            galloc_model_fail(g, "%s: %s must be > 0", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used");
            return false;
        }
        l->ffn_gate_inp    = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps   = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps     = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        l->ffn_gate_shexp  = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_down_shexp  = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        l->ffn_up_shexp    = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
        l->ffn_exp_probs_b = galloc_model_weight_1d(g, 0, n_expert, "exp_probs_b.bias", il);
    }
    return !g->failed;
}

// causal_conv1d: x projected by w, prepended with its part (qkv: 0, 1, 2) of the conv state, the
// last columns written back, convolved by conv_w and SiLU'd: [head_dim, n_head, n_seq_tokens, n_seqs]
static struct ggml_tensor * causal_conv1d(struct model_graph * g, struct ggml_tensor * conv_states_all, struct ggml_tensor * conv_state_all,
                                          int64_t qkv, struct ggml_tensor * x, struct ggml_tensor * proj_w, struct ggml_tensor * conv_w) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t head_dim = hp->n_embd_head_kda, n_head = hp->n_head[0], d_conv = hp->ssm_d_conv, d_inner = head_dim * n_head;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs, n_tokens = g->n_tokens, kv_head = g->rs->head;
    const int64_t conv_state_size = (d_conv - 1) * d_inner, n_embd_r_total = 3 * conv_state_size;
    const size_t  es = ggml_element_size(conv_state_all);
    struct ggml_tensor * conv_state_x = ggml_view_3d(ctx, conv_state_all, d_conv - 1, d_inner, n_seqs, (size_t) (d_conv - 1) * es,
                                                     (size_t) n_embd_r_total * es, (size_t) (qkv * conv_state_size) * es);
    struct ggml_tensor * x_proj = ggml_mul_mat(ctx, proj_w, x);
    struct ggml_tensor * x_3d   = ggml_reshape_3d(ctx, x_proj, d_inner, n_seq_tokens, n_seqs);
    struct ggml_tensor * conv_x = ggml_concat(ctx, conv_state_x, ggml_transpose(ctx, x_3d), 0);
    struct ggml_tensor * last   = ggml_view_3d(ctx, conv_x, d_conv - 1, d_inner, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                               (size_t) n_seq_tokens * conv_x->nb[0]);
    const size_t es_all = ggml_element_size(conv_states_all);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, last, ggml_view_3d(ctx, conv_states_all, d_conv - 1, d_inner, n_seqs,
                                                                      (size_t) (d_conv - 1) * es_all, (size_t) n_embd_r_total * es_all,
                                                                      (size_t) (kv_head * n_embd_r_total + qkv * conv_state_size) * es_all)));
    struct ggml_tensor * kernel = ggml_reshape_2d(ctx, conv_w, d_conv, d_inner);
    struct ggml_tensor * xcur = ggml_ssm_conv(ctx, conv_x, kernel);
    xcur = ggml_reshape_2d(ctx, xcur, d_inner, n_tokens);
    xcur = ggml_silu(ctx, xcur);
    return ggml_reshape_4d(ctx, xcur, head_dim, n_head, n_seq_tokens, n_seqs);
}

// a KDA layer: [n_embd, n_tokens] in and out
static struct ggml_tensor * kda_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t head_dim = hp->n_embd_head_kda, n_head = hp->n_head[0], d_inner = head_dim * n_head;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs, n_tokens = g->n_tokens;
    struct ggml_tensor * conv_states_all = g->rs->r[il];
    galloc_model_cb(g, conv_states_all, "conv_states_all", il);
    struct ggml_tensor * conv_state_all = galloc_model_build_rs(g, inp, conv_states_all, galloc_hp_n_embd_r(hp), n_seqs, NULL, NULL);
    if (!conv_state_all) {
        return NULL;
    }
    struct ggml_tensor * q = causal_conv1d(g, conv_states_all, conv_state_all, 0, cur, l->wq, l->ssm_q_conv);
    struct ggml_tensor * k = causal_conv1d(g, conv_states_all, conv_state_all, 1, cur, l->wk, l->ssm_k_conv);
    struct ggml_tensor * v = causal_conv1d(g, conv_states_all, conv_state_all, 2, cur, l->wv, l->ssm_v_conv);

    // g1 = -exp(A_log) * softplus(f_b(f_a(x)) + dt_bias) (the converter stored -exp(A_log))
    struct ggml_tensor * f_a = ggml_mul_mat(ctx, l->ssm_f_a, cur);
    struct ggml_tensor * g1  = ggml_mul_mat(ctx, l->ssm_f_b, f_a);
    galloc_model_cb(g, g1, "g1 f_b(f_a(cur))", il);
    g1 = ggml_add(ctx, g1, l->ssm_dt_b);
    g1 = ggml_softplus(ctx, g1);
    g1 = ggml_reshape_3d(ctx, g1, head_dim, n_head, n_tokens);
    g1 = ggml_mul(ctx, g1, ggml_reshape_3d(ctx, l->ssm_a, 1, n_head, 1));
    galloc_model_cb(g, g1, "kda_g1", il);
    g1 = ggml_reshape_4d(ctx, g1, head_dim, n_head, n_seq_tokens, n_seqs);

    struct ggml_tensor * beta = ggml_mul_mat(ctx, l->ssm_beta, cur);
    beta = ggml_reshape_4d(ctx, beta, 1, n_head, n_seq_tokens, n_seqs);
    galloc_model_cb(g, beta, "kda_beta", il);
    beta = ggml_sigmoid(ctx, beta);

    cur = ggml_reshape_3d(ctx, cur, cur->ne[0], n_seq_tokens, n_seqs);
    struct ggml_tensor * ssm_states_all = g->rs->s[il];
    struct ggml_tensor * state = galloc_model_build_rs(g, inp, ssm_states_all, galloc_hp_n_embd_s(hp), n_seqs, NULL, NULL);
    if (!state) {
        return NULL;
    }
    state = ggml_reshape_4d(ctx, state, head_dim, head_dim, n_head, n_seqs);
    q = ggml_l2_norm(ctx, q, hp->f_norm_rms_eps);
    k = ggml_l2_norm(ctx, k, hp->f_norm_rms_eps);
    struct ggml_tensor * output, * new_state;
    if (!galloc_model_delta_net(g, q, k, v, g1, beta, state, il, &output, &new_state)) {
        return NULL;
    }
    output = ggml_cont(ctx, output);
    galloc_model_cb(g, output, "attn_output", il);
    galloc_model_cb(g, new_state, "new_state", il);
    const int64_t n_embd_s = galloc_hp_n_embd_s(hp);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, new_state, ggml_view_1d(ctx, ssm_states_all, n_embd_s * n_seqs,
                                                                           (size_t) (g->rs->head * n_embd_s) * ggml_element_size(ssm_states_all))));

    // the output gate g2 = g_b(g_a(x)), applied as sigmoid after the RMS norm
    struct ggml_tensor * cur_2d = ggml_reshape_2d(ctx, cur, cur->ne[0], n_seq_tokens * n_seqs);
    struct ggml_tensor * g_a = ggml_mul_mat(ctx, l->ssm_g_a, cur_2d);
    struct ggml_tensor * g2  = ggml_mul_mat(ctx, l->ssm_g_b, g_a);
    galloc_model_cb(g, g2, "g2 g_b(g_a(cur_2d))", il);
    g2 = ggml_reshape_3d(ctx, g2, head_dim, n_head, n_seq_tokens * n_seqs);
    struct ggml_tensor * attn_out = ggml_reshape_3d(ctx, output, head_dim, n_head, n_seq_tokens * n_seqs);
    struct ggml_tensor * normed = galloc_model_norm(g, attn_out, l->ssm_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, normed, "kda_normed", il);
    struct ggml_tensor * gated = ggml_mul(ctx, normed, ggml_sigmoid(ctx, g2));
    gated = ggml_cont_2d(ctx, gated, d_inner, n_tokens);
    cur = ggml_mul_mat(ctx, l->wo, gated);
    galloc_model_cb(g, cur, "kda_out", il);
    return cur;
}

// an MLA layer without RoPE over the K-only cache: [n_embd, n_tokens] in and out
static struct ggml_tensor * mla_layer(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t n_head = hp->n_head[0], n_tokens = g->n_tokens, kv_lora = hp->n_lora_kv, k_mla = hp->n_embd_head_k_mla;
    const int64_t n_rope = galloc_hp_n_rot(hp, 0), n_nope = k_mla - n_rope;
    struct ggml_tensor * q = ggml_mul_mat(ctx, l->wq, cur);
    struct ggml_tensor * kv_cmpr_pe = ggml_mul_mat(ctx, l->attn_kv_a_mqa, cur);
    const size_t row = ggml_row_size(kv_cmpr_pe->type, kv_lora + n_rope);
    struct ggml_tensor * kv_cmpr = ggml_view_2d(ctx, kv_cmpr_pe, kv_lora, n_tokens, row, 0);
    struct ggml_tensor * k_pe = ggml_view_3d(ctx, kv_cmpr_pe, n_rope, 1, n_tokens, row, row, ggml_row_size(kv_cmpr_pe->type, kv_lora));
    kv_cmpr = galloc_model_norm(g, kv_cmpr, l->attn_kv_a_norm, NULL, MODEL_NORM_RMS, il);

    const size_t q_row = ggml_row_size(q->type, k_mla);
    struct ggml_tensor * q_nope = ggml_view_3d(ctx, q, n_nope, n_head, n_tokens, q_row, q_row * (size_t) n_head, 0);
    galloc_model_cb(g, q_nope, "q_nope", il);
    struct ggml_tensor * q_pe = ggml_view_3d(ctx, q, n_rope, n_head, n_tokens, q_row, q_row * (size_t) n_head,
                                             ggml_row_size(q->type, n_nope));
    galloc_model_cb(g, q_pe, "q_pe", il);
    q_nope = ggml_permute(ctx, q_nope, 0, 2, 1, 3);
    galloc_model_cb(g, q_nope, "q_nope_perm", il);
    struct ggml_tensor * q_abs = ggml_mul_mat(ctx, l->attn_k_b, q_nope);
    galloc_model_cb(g, q_abs, "q_nope_absorbed", il);
    q_abs = ggml_permute(ctx, q_abs, 0, 2, 1, 3);
    galloc_model_cb(g, q_abs, "q_nope_absorbed_perm", il);
    struct ggml_tensor * qc = ggml_concat(ctx, q_abs, q_pe, 0);
    galloc_model_cb(g, qc, "Qcur", il);
    kv_cmpr = ggml_reshape_3d(ctx, kv_cmpr, kv_lora, 1, n_tokens);
    galloc_model_cb(g, kv_cmpr, "kv_cmpr_reshape", il);
    struct ggml_tensor * kc = ggml_concat(ctx, kv_cmpr, k_pe, 0);
    galloc_model_cb(g, kc, "Kcur", il);
    galloc_model_cb(g, kv_cmpr, "Vcur", il);
    cur = galloc_model_attn_mla(g, inp, l->wo, l->wo_s, qc, kc, kv_cmpr, l->attn_v_b, 1.0f / galloc_model_sqrtf((float) k_mla), il);
    galloc_model_cb(g, cur, "mla_out", il);
    return cur;
}

static bool kimi_linear_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    galloc_model_cb(g, inpL, "model.embed_tokens", -1);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        ggml_build_forward_expand(g->gf, cur);
        cur = hp->is_recr[il] ? kda_layer(g, &rs_inp, cur, il) : mla_layer(g, &attn, cur, il);
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
                .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b,
                .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU,
                .norm_w = true, .w_scale = hp->expert_weights_scale, .gating = galloc_model_gating_func(hp->expert_gating_func),
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, shexp, "ffn_shexp", il);
            cur = moe_out && shexp ? ggml_add(ctx, moe_out, shexp) : NULL;
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = ggml_mul_mat(ctx, g->output, cur);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_kimi_linear = {
    "kimi-linear", MODEL_ROPE_NORM, kimi_linear_hparams, kimi_linear_tensors, kimi_linear_graph,
};
