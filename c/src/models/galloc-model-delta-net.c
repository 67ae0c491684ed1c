// galloc-model-delta-net.c: the gated delta net layers of Qwen3-Next and Qwen3.5 (llm_build_delta_net_base).
//
// As llama.cpp's src/models/delta-net-base.cpp with its fused path (the CPU backend computes
// GATED_DELTA_NET, so llama.cpp's probe keeps fused_gdn_ar and fused_gdn_ch on): the convolution
// state prepended to the mixed Q/K/V projection and its last columns kept (build_conv_state), and
// the delta rule over the recurrent state read by build_rs, its new state copied back
// (build_recurrent_attn with n_rs_seq 0).

#include "galloc-model-impl.h"

struct ggml_tensor * galloc_model_conv_state(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * conv_states_all,
                                             struct ggml_tensor * qkv_mixed, int64_t conv_kernel_size, int64_t conv_channels, int il) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    const int64_t kv_head = g->rs->head, mem_size = g->rs->size, n_seqs = g->n_seqs;
    struct ggml_tensor * conv_states = galloc_model_build_rs(g, inp, conv_states_all, galloc_hp_n_embd_r(g->hp), n_seqs, NULL, NULL);
    if (!conv_states) {
        return NULL;
    }
    galloc_model_cb(g, conv_states, "conv_states", il);
    conv_states = ggml_reshape_3d(ctx, conv_states, conv_kernel_size - 1, conv_channels, n_seqs);
    galloc_model_cb(g, conv_states, "conv_states_reshaped", il);
    qkv_mixed = ggml_transpose(ctx, qkv_mixed);
    galloc_model_cb(g, qkv_mixed, "qkv_mixed_transposed", il);
    struct ggml_tensor * conv_input = ggml_concat(ctx, conv_states, qkv_mixed, 0);
    galloc_model_cb(g, conv_input, "conv_input", il);

    const int64_t row_count = (conv_kernel_size - 1) * conv_channels;
    const size_t  row_size  = ggml_row_size(conv_states_all->type, row_count);
    const int64_t s_idx     = conv_input->ne[0] - conv_states->ne[0];
    struct ggml_tensor * last = ggml_view_3d(ctx, conv_input, conv_kernel_size - 1, conv_channels, n_seqs, conv_input->nb[1],
                                             conv_input->nb[2], ggml_row_size(conv_input->type, s_idx));
    galloc_model_cb(g, last, "conv_state_last", il);
    struct ggml_tensor * update = ggml_view_2d(ctx, conv_states_all, row_count, n_seqs, conv_states_all->nb[1],
                                               (size_t) (0 * mem_size + kv_head) * row_size);
    galloc_model_cb(g, update, "conv_state_update", il);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, last, update));
    return conv_input;
}

bool galloc_model_delta_net(struct model_graph * g, struct ggml_tensor * q, struct ggml_tensor * k, struct ggml_tensor * v,
                            struct ggml_tensor * gate, struct ggml_tensor * beta, struct ggml_tensor * s, int il,
                            struct ggml_tensor ** output, struct ggml_tensor ** new_state) {
    if (g->failed) {
        return false;
    }
    struct ggml_context * ctx = g->ctx;
    const int64_t S_k = q->ne[0], H_k = q->ne[1], n_tokens = q->ne[2], n_seqs = q->ne[3];
    const int64_t S_v = v->ne[0], H_v = v->ne[1];
    // llama.cpp's asserts: what a model's keys reach is checked by the architectures' hparams
    if (S_k != S_v || H_k == 0 || H_v % H_k != 0 || s->ne[0] != S_v || s->ne[1] != S_v || s->ne[2] != H_v) {
        galloc_model_fail(g, "%s: layer %d: delta net of %lld key and %lld value values, %lld key and %lld value heads "
                          "(llama.cpp would abort); %s", g->m->arch->name, il, (long long) S_k, (long long) S_v,
                          (long long) H_k, (long long) H_v, GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * result = ggml_gated_delta_net(ctx, q, k, v, gate, beta, s, 1);
    *output = ggml_view_4d(ctx, result, S_v, H_v, n_tokens, n_seqs, ggml_row_size(result->type, S_v),
                           ggml_row_size(result->type, S_v * H_v), ggml_row_size(result->type, S_v * H_v * n_tokens), 0);
    *new_state = ggml_view_4d(ctx, result, S_v, S_v, H_v, n_seqs, ggml_row_size(result->type, S_v),
                              ggml_row_size(result->type, S_v * S_v), ggml_row_size(result->type, S_v * S_v * H_v),
                              ggml_row_size(result->type, S_v * H_v * n_tokens * n_seqs));
    return true;
}

struct ggml_tensor * galloc_model_recurrent_attn(struct model_graph * g, struct ggml_tensor * ssm_states_all, struct ggml_tensor * q,
                                                 struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * gate,
                                                 struct ggml_tensor * beta, struct ggml_tensor * s, int il) {
    struct ggml_tensor * output, * new_state;
    if (!galloc_model_delta_net(g, q, k, v, gate, beta, s, il, &output, &new_state)) {
        return NULL;
    }
    galloc_model_cb(g, output, "attn_output", il);
    galloc_model_cb(g, new_state, "new_state", il);
    const int64_t n_embd_s = galloc_hp_n_embd_s(g->hp), n_seqs = q->ne[3];
    ggml_build_forward_expand(g->gf, ggml_cpy(g->ctx, new_state,
                                              ggml_view_2d(g->ctx, ssm_states_all, n_embd_s, n_seqs, ssm_states_all->nb[1],
                                                           (size_t) (g->rs->head * n_embd_s) * ggml_element_size(ssm_states_all))));
    return output;
}

bool galloc_model_delta_net_qkv(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * qkv_mixed, int il,
                                struct ggml_tensor ** q, struct ggml_tensor ** k, struct ggml_tensor ** v, struct ggml_tensor ** state_out) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t d_inner = hp->ssm_d_inner, n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs;
    const int64_t head_k_dim = hp->ssm_d_state, num_k_heads = hp->ssm_n_group, num_v_heads = hp->ssm_dt_rank;
    const int64_t head_v_dim = d_inner / num_v_heads;
    struct ggml_tensor * conv_states_all = g->rs->r[il];
    struct ggml_tensor * ssm_states_all  = g->rs->s[il];
    struct ggml_tensor * conv_kernel = l->ssm_conv1d;
    const int64_t conv_channels = d_inner + 2 * hp->ssm_n_group * hp->ssm_d_state;
    struct ggml_tensor * conv_input = galloc_model_conv_state(g, inp, conv_states_all, qkv_mixed, conv_kernel->ne[0], conv_channels, il);
    struct ggml_tensor * state = galloc_model_build_rs(g, inp, ssm_states_all, galloc_hp_n_embd_s(hp), n_seqs, NULL, NULL);
    if (!conv_input || !state) {
        return false;
    }
    state = ggml_reshape_4d(ctx, state, head_v_dim, head_v_dim, num_v_heads, n_seqs);
    galloc_model_cb(g, state, "state_predelta", il);
    struct ggml_tensor * conv_out = ggml_ssm_conv(ctx, conv_input, conv_kernel);
    galloc_model_cb(g, conv_out, "conv_output_raw", il);
    conv_out = ggml_silu(ctx, conv_out);
    galloc_model_cb(g, conv_out, "conv_output_silu", il);

    const int64_t qkv_dim = head_k_dim * num_k_heads * 2 + head_v_dim * num_v_heads;
    const size_t  nb1_qkv = ggml_row_size(conv_out->type, qkv_dim);
    struct ggml_tensor * q_conv = ggml_view_4d(ctx, conv_out, head_k_dim, num_k_heads, n_seq_tokens, n_seqs,
                                               ggml_row_size(conv_out->type, head_k_dim), nb1_qkv, nb1_qkv * (size_t) n_seq_tokens, 0);
    struct ggml_tensor * k_conv = ggml_view_4d(ctx, conv_out, head_k_dim, num_k_heads, n_seq_tokens, n_seqs,
                                               ggml_row_size(conv_out->type, head_k_dim), nb1_qkv, nb1_qkv * (size_t) n_seq_tokens,
                                               (size_t) (head_k_dim * num_k_heads) * ggml_element_size(conv_out));
    struct ggml_tensor * v_conv = ggml_view_4d(ctx, conv_out, head_v_dim, num_v_heads, n_seq_tokens, n_seqs,
                                               ggml_row_size(conv_out->type, head_v_dim), nb1_qkv, nb1_qkv * (size_t) n_seq_tokens,
                                               ggml_row_size(conv_out->type, 2 * head_k_dim * num_k_heads));
    galloc_model_cb(g, q_conv, "q_conv", il);
    galloc_model_cb(g, k_conv, "k_conv", il);
    galloc_model_cb(g, v_conv, "v_conv", il);
    q_conv = ggml_l2_norm(ctx, q_conv, hp->f_norm_rms_eps);
    k_conv = ggml_l2_norm(ctx, k_conv, hp->f_norm_rms_eps);
    *q = q_conv;
    *k = k_conv;
    *v = v_conv;
    *state_out = state;
    return true;
}
