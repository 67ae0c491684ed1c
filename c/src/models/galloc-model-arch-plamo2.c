// galloc-model-arch-plamo2.c: the `plamo2` architecture (Preferred Networks PLaMo 2).
//
// As llama.cpp's src/models/plamo2.cpp: a layer is PLaMo-2's own Mamba block (heads of
// inner_size / time_step_rank, z and x interleaved per head, RMS norms on dt, B and C, no groups)
// when its head_count_kv is 0, else attention over a fused QKV with per-head Q/K norms and NeoX
// RoPE; each followed by a post-mixer norm and the residual, then a SwiGLU FFN over one up
// projection between a pre- and a post-norm.

#include "galloc-model-impl.h"

static bool plamo2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_model_ssm_hparams(ml, hp, false) || !galloc_ml_get_u32(ml, ".ssm.group_count", &hp->ssm_n_group, true)) {
        return false;
    }
    if (hp->ssm_n_group != 0) {
        return galloc_model_loader_refuse(ml, "%s.ssm.group_count: %u (llama.cpp's PLaMo-2 Mamba layer asserts 0)", ml->arch,
                                          hp->ssm_n_group);
    }
    if (hp->ssm_dt_rank == 0 || hp->ssm_d_inner % hp->ssm_dt_rank != 0) {
        return galloc_model_loader_refuse(ml, "%s.ssm.time_step_rank: %u heads do not divide inner_size %u (llama.cpp would abort)",
                                          ml->arch, hp->ssm_dt_rank, hp->ssm_d_inner);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0;
        if (!hp->is_recr[il] && hp->n_head[il] == 0) {
            return galloc_model_loader_refuse(ml, "%s.attention.head_count: attention layer %u has no heads", ml->arch, il);
        }
    }
    return true;
}

static int64_t dt_dim_of(const struct model_hparams * hp) {
    return hp->n_embd / 16 > 64 ? (int64_t) (hp->n_embd / 16) : 64;
}

static bool plamo2_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_ff = hp->n_ff[0];
    const int64_t d_conv = hp->ssm_d_conv, d_state = hp->ssm_d_state, num_heads = hp->ssm_dt_rank, d_inner = hp->ssm_d_inner;
    const int64_t dt_dim = dt_dim_of(hp);
    const int64_t qk_dim = galloc_hp_n_embd_head_k(hp, 0), v_dim = galloc_hp_n_embd_head_v(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->is_recr[i]) {
            l->ssm_in      = galloc_model_weight_2d(g, 0, n_embd, 2 * d_inner, "ssm_in.weight", il);
            l->ssm_conv1d  = galloc_model_weight_2d(g, 0, d_conv, d_inner, "ssm_conv1d.weight", il);
            l->ssm_x       = galloc_model_weight_2d(g, 0, d_inner, dt_dim + 2 * d_state, "ssm_x.weight", il);
            l->ssm_dt      = galloc_model_weight_2d(g, 0, dt_dim, num_heads, "ssm_dt.weight", il);
            l->ssm_dt_b    = galloc_model_weight_1d(g, 0, num_heads, "ssm_dt.bias", il);
            l->ssm_a       = galloc_model_weight_1d(g, 0, num_heads, "ssm_a", il);
            l->ssm_d       = galloc_model_weight_1d(g, 0, num_heads, "ssm_d", il);
            l->ssm_out     = galloc_model_weight_2d(g, 0, d_inner, n_embd, "ssm_out.weight", il);
            l->ssm_dt_norm = galloc_model_weight_1d(g, 0, dt_dim, "ssm_dt_norm", il);
            l->ssm_b_norm  = galloc_model_weight_1d(g, 0, d_state, "ssm_b_norm", il);
            l->ssm_c_norm  = galloc_model_weight_1d(g, 0, d_state, "ssm_c_norm", il);
        } else {
            const int64_t n_head = hp->n_head[i], n_head_kv = hp->n_head_kv[i];
            l->wqkv        = galloc_model_weight_2d(g, 0, n_embd, n_head * qk_dim + n_head_kv * qk_dim + n_head_kv * v_dim,
                                                    "attn_qkv.weight", il);
            l->attn_q_norm = galloc_model_weight_2d(g, 0, qk_dim, n_head, "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_2d(g, 0, qk_dim, n_head_kv, "attn_k_norm.weight", il);
            l->wo          = galloc_model_weight_2d(g, 0, n_head * v_dim, n_embd, "attn_output.weight", il);
        }
        l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm", il);
        l->ffn_norm       = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_down       = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
        l->ffn_up         = galloc_model_weight_2d(g, 0, n_embd, n_ff * 2, "ffn_up.weight", il);
        l->ffn_post_norm  = galloc_model_weight_1d(g, 0, n_embd, "post_ffw_norm", il);
    }
    return !g->failed;
}

static struct ggml_tensor * attn_layer(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * inp_pos,
                                       struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * qkv = galloc_model_mm(g, l->wqkv, cur, NULL); // llama.cpp leaves the scale out
    galloc_model_cb(g, qkv, "wqkv", il);
    const int64_t hq = galloc_hp_n_embd_head_k(hp, 0), hk = hq, hv = galloc_hp_n_embd_head_v(hp, 0);
    const int64_t n_head = hp->n_head[il], n_head_kv = hp->n_head_kv[il], n_tokens = g->n_tokens;
    const int64_t k_offset = hq * n_head, v_offset = k_offset + hk * n_head_kv;
    const size_t es = ggml_element_size(qkv);
    struct ggml_tensor * q = ggml_view_3d(ctx, qkv, hq, n_head, n_tokens, (size_t) hq * sizeof(float), qkv->nb[1], 0);
    struct ggml_tensor * k = ggml_view_3d(ctx, qkv, hk, n_head_kv, n_tokens, (size_t) hk * sizeof(float), qkv->nb[1], (size_t) k_offset * es);
    struct ggml_tensor * v = ggml_view_3d(ctx, qkv, hv, n_head_kv, n_tokens, (size_t) hv * sizeof(float), qkv->nb[1], (size_t) v_offset * es);
    galloc_model_cb(g, q, "Qcur", il);
    galloc_model_cb(g, k, "Kcur", il);
    galloc_model_cb(g, v, "Vcur", il);
    const int n_rot = (int) galloc_hp_n_rot(hp, 0);
    q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, q, "Qcur_normed", il);
    q = ggml_rope_ext(ctx, q, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, k, "Kcur_normed", il);
    k = ggml_rope_ext(ctx, k, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    cur = galloc_model_attn(g, inp, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) hv), il);
    galloc_model_cb(g, cur, "attn_out", il);
    return cur;
}

struct plamo2_scan {
    struct ggml_tensor * x, * dt, * A, * B, * C;
    int64_t d_state, head_dim, n_heads, size;
};

static struct ggml_tensor * plamo2_scan_rows(struct model_graph * g, struct ggml_tensor * states, struct ggml_tensor * ids, void * ud) {
    const struct plamo2_scan * a = ud;
    struct ggml_tensor * ssm = ggml_reshape_4d(g->ctx, states, a->d_state, a->head_dim, a->n_heads, a->size);
    return ggml_ssm_scan(g->ctx, ssm, a->x, a->dt, a->A, a->B, a->C, ids, 1);
}

static struct ggml_tensor * mamba_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t kv_head = g->rs->head;
    const int64_t d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner, d_state = hp->ssm_d_state;
    const int64_t n_heads = hp->ssm_dt_rank, head_dim = d_inner / n_heads, n_group = hp->ssm_n_group;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs;
    struct ggml_tensor * conv_states_all = g->rs->r[il];
    struct ggml_tensor * ssm_states_all  = g->rs->s[il];

    struct ggml_tensor * conv = galloc_model_build_rs(g, inp, conv_states_all, galloc_hp_n_embd_r(hp), n_seqs, NULL, NULL);
    if (!conv) {
        return NULL;
    }
    conv = ggml_reshape_3d(ctx, conv, d_conv - 1, d_inner + 2 * n_group * d_state, n_seqs);
    cur  = ggml_reshape_3d(ctx, cur, cur->ne[0], n_seq_tokens, n_seqs);

    struct ggml_tensor * zx = galloc_model_mm(g, l->ssm_in, cur, NULL);
    galloc_model_cb(g, zx, "mamba_in_proj", il);
    zx = ggml_permute(ctx, zx, 0, 2, 1, 3);
    zx = ggml_cont_4d(ctx, zx, head_dim * 2, n_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, zx, "mamba_in_proj_out", il);
    struct ggml_tensor * x = ggml_view_4d(ctx, zx, head_dim, n_heads, n_seq_tokens, n_seqs, zx->nb[1], zx->nb[2], zx->nb[3],
                                          (size_t) head_dim * ggml_element_size(zx));
    x = ggml_cont_3d(ctx, x, head_dim * n_heads, n_seq_tokens, n_seqs);
    galloc_model_cb(g, x, "mamba_x_split", il);
    struct ggml_tensor * z = ggml_view_4d(ctx, zx, head_dim, n_heads, n_seq_tokens, n_seqs, zx->nb[1], zx->nb[2], zx->nb[3], 0);
    galloc_model_cb(g, z, "mamba_z_split", il);

    struct ggml_tensor * conv_x = ggml_concat(ctx, conv, ggml_transpose(ctx, x), 0);
    galloc_model_cb(g, conv_x, "mamba_conv1d_input", il);
    struct ggml_tensor * last_conv = ggml_view_3d(ctx, conv_x, d_conv - 1, d_inner, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                                  (size_t) n_seq_tokens * conv_x->nb[0]);
    const int64_t conv_row = (d_conv - 1) * (d_inner + 2 * n_group * d_state);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, last_conv, ggml_view_1d(ctx, conv_states_all, conv_row * n_seqs,
                                                                          (size_t) (kv_head * conv_row) * ggml_element_size(conv_states_all))));
    galloc_model_cb(g, conv_states_all, "mamba_conv1d_state", il); // llama.cpp names the state tensor itself
    x = ggml_ssm_conv(ctx, conv_x, l->ssm_conv1d);
    galloc_model_cb(g, x, "mamba_conv1d", il);
    x = ggml_silu(ctx, x);
    galloc_model_cb(g, x, "mamba_conv1d_silu", il);

    struct ggml_tensor * x_bcdt = galloc_model_mm(g, l->ssm_x, x, NULL);
    galloc_model_cb(g, x_bcdt, "mamba_bcdt_proj", il);
    const int64_t dt_dim = dt_dim_of(hp);
    struct ggml_tensor * B  = ggml_view_3d(ctx, x_bcdt, d_state, n_seq_tokens, n_seqs, x_bcdt->nb[1], x_bcdt->nb[2], 0);
    struct ggml_tensor * C  = ggml_view_3d(ctx, x_bcdt, d_state, n_seq_tokens, n_seqs, x_bcdt->nb[1], x_bcdt->nb[2],
                                           ggml_element_size(x_bcdt) * (size_t) d_state);
    struct ggml_tensor * dt = ggml_view_3d(ctx, x_bcdt, dt_dim, n_seq_tokens, n_seqs, x_bcdt->nb[1], x_bcdt->nb[2],
                                           ggml_element_size(x_bcdt) * (size_t) (2 * d_state));
    galloc_model_cb(g, B, "mamba_B_raw", il);
    galloc_model_cb(g, C, "mamba_C_raw", il);
    galloc_model_cb(g, dt, "mamba_dt_raw", il);
    B  = galloc_model_norm(g, B, l->ssm_b_norm, NULL, MODEL_NORM_RMS, il);
    C  = galloc_model_norm(g, C, l->ssm_c_norm, NULL, MODEL_NORM_RMS, il);
    dt = galloc_model_norm(g, dt, l->ssm_dt_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, B, "mamba_B_normed", il);
    galloc_model_cb(g, C, "mamba_C_normed", il);
    galloc_model_cb(g, dt, "mamba_dt_normed", il);
    dt = galloc_model_mm(g, l->ssm_dt, dt, NULL);
    dt = ggml_add(ctx, dt, l->ssm_dt_b);
    galloc_model_cb(g, dt, "mamba_dt_proj", il);
    struct ggml_tensor * A = ggml_reshape_2d(ctx, l->ssm_a, 1, n_heads);
    galloc_model_cb(g, A, "mamba_A", il);

    const size_t xs = ggml_element_size(x);
    x = ggml_view_4d(ctx, x, head_dim, n_heads, n_seq_tokens, n_seqs, (size_t) head_dim * xs, (size_t) (head_dim * n_heads) * xs,
                     (size_t) (head_dim * n_heads * n_seq_tokens) * xs, 0);
    B = ggml_view_4d(ctx, B, d_state, 1, n_seq_tokens, n_seqs, (size_t) d_state * B->nb[0], B->nb[1], B->nb[2], 0);
    C = ggml_view_4d(ctx, C, d_state, 1, n_seq_tokens, n_seqs, (size_t) d_state * C->nb[0], C->nb[1], C->nb[2], 0);

    struct plamo2_scan args = { x, dt, A, B, C, d_state, head_dim, n_heads, g->rs->size };
    struct ggml_tensor * y_ssm = galloc_model_build_rs(g, inp, ssm_states_all, galloc_hp_n_embd_s(hp), n_seqs, plamo2_scan_rows, &args);
    if (!y_ssm) {
        return NULL;
    }
    galloc_model_cb(g, y_ssm, "mamba_ssm_scan", il);
    const int64_t n_state = n_heads * head_dim * d_state * n_seqs;
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, ggml_view_1d(ctx, y_ssm, n_state,
                                                                (size_t) (n_heads * head_dim * n_seq_tokens * n_seqs) * ggml_element_size(y_ssm)),
                                              ggml_view_1d(ctx, ssm_states_all, n_state,
                                                           (size_t) (kv_head * n_state) * ggml_element_size(ssm_states_all))));
    galloc_model_cb(g, ssm_states_all, "mamba_ssm_states", il);
    struct ggml_tensor * y = ggml_view_4d(ctx, y_ssm, head_dim, n_heads, n_seq_tokens, n_seqs, (size_t) head_dim * xs,
                                          (size_t) (head_dim * n_heads) * xs, (size_t) (head_dim * n_heads * n_seq_tokens) * xs, 0);
    galloc_model_cb(g, y, "mamba_y_view", il);
    struct ggml_tensor * D = ggml_reshape_2d(ctx, l->ssm_d, 1, n_heads);
    y = ggml_add(ctx, y, ggml_mul(ctx, x, D));
    galloc_model_cb(g, y, "mamba_y_add_d", il);
    y = ggml_swiglu_split(ctx, ggml_cont(ctx, z), y);
    galloc_model_cb(g, y, "mamba_y_swiglu_z", il);
    y   = ggml_view_3d(ctx, y, head_dim * n_heads, n_seq_tokens, n_seqs, y->nb[2], y->nb[3], 0);
    cur = galloc_model_mm(g, l->ssm_out, y, NULL);
    galloc_model_cb(g, cur, "mamba_out_proj", il);
    cur = ggml_reshape_2d(ctx, cur, cur->ne[0], n_seq_tokens * n_seqs);
    galloc_model_cb(g, cur, "mamba_out", il);
    return cur;
}

static bool plamo2_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    // llama.cpp's Mamba layers name the state tensors themselves (below); the tensors outlive the
    // graphs, so every graph after the first (the reserves llama.cpp makes) finds them named so
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (g->rs->r[il]) {
            ggml_format_name(g->rs->r[il], "mamba_conv1d_state-%u", il);
            ggml_format_name(g->rs->s[il], "mamba_ssm_states-%u", il);
        }
    }
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    galloc_model_cb(g, inpL, "embedding_output", -1);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * residual = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        cur = hp->is_recr[il] ? mamba_layer(g, &rs_inp, cur, il) : attn_layer(g, &attn, inp_pos, cur, il);
        if (!cur) {
            break;
        }
        cur = galloc_model_norm(g, cur, l->attn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_post_norm", il);
        cur = ggml_add(ctx, cur, residual);
        galloc_model_cb(g, cur, "attn_residual", il);
        residual = cur;
        cur = galloc_model_norm(g, cur, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_pre_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, NULL, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SWIGLU,
                               MODEL_FFN_SEQ, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = galloc_model_norm(g, cur, l->ffn_post_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_post_norm", il);
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx, cur, inp_out_ids);
            residual = ggml_get_rows(ctx, residual, inp_out_ids);
        }
        cur = ggml_add(ctx, cur, residual);
        galloc_model_cb(g, cur, "ffn_residual", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_plamo2 = {
    "plamo2", MODEL_ROPE_NEOX, plamo2_hparams, plamo2_tensors, plamo2_graph,
};
