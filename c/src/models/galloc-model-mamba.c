// galloc-model-mamba.c: Mamba-1 and Mamba-2 layers (llm_build_mamba_base), shared by mamba, mamba2
// and the hybrids that interleave them with attention (jamba, falcon-h1, granitehybrid, nemotron_h).
//
// As llama.cpp's src/models/mamba-base.cpp: the input projection split into x and z (and B, C,
// dt for Mamba-2), the causal 1D convolution over the conv state (ssm_conv) whose last columns
// are copied back into it, the selective scan (ssm_scan) over the recurrent state read with
// build_rs, the last state copied back, then the gate and the output projection.

#include "galloc-model-impl.h"

// a hyperparameter past any model (so that no state size wraps), or a combination llama.cpp
// asserts on while building
static bool ssm_refuse(struct model_loader * ml, const char * key, uint32_t value, const char * why) {
    return galloc_model_loader_refuse(ml, "%s.ssm.%s: %u %s", ml->arch, key, value, why);
}

bool galloc_model_ssm_hparams(struct model_loader * ml, struct model_hparams * hp, bool group_count) {
    if (!galloc_ml_get_u32(ml, ".ssm.conv_kernel", &hp->ssm_d_conv, true) ||
        !galloc_ml_get_u32(ml, ".ssm.inner_size", &hp->ssm_d_inner, true) ||
        !galloc_ml_get_u32(ml, ".ssm.state_size", &hp->ssm_d_state, true) ||
        !galloc_ml_get_u32(ml, ".ssm.time_step_rank", &hp->ssm_dt_rank, true) ||
        (group_count && !galloc_ml_get_u32(ml, ".ssm.group_count", &hp->ssm_n_group, true)) ||
        !galloc_ml_get_bool(ml, ".ssm.dt_b_c_rms", &hp->ssm_dt_b_c_rms, false)) {
        return false;
    }
    const struct { const char * key; uint32_t value, max; } limits[] = {
        { "conv_kernel", hp->ssm_d_conv, 1u << 10 }, { "inner_size", hp->ssm_d_inner, 1u << 20 },
        { "state_size", hp->ssm_d_state, 1u << 16 }, { "time_step_rank", hp->ssm_dt_rank, 1u << 20 },
        { "group_count", hp->ssm_n_group, 1u << 16 },
    };
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        if (limits[i].value > limits[i].max) {
            return ssm_refuse(ml, limits[i].key, limits[i].value, "is more than galloc plans");
        }
    }
    const uint64_t n_embd_r = (uint64_t) (hp->ssm_d_conv > 0 ? hp->ssm_d_conv - 1 : 0) *
                              ((uint64_t) hp->ssm_d_inner + 2ull * hp->ssm_n_group * hp->ssm_d_state);
    const uint64_t n_embd_s = (uint64_t) hp->ssm_d_state * hp->ssm_d_inner;
    if (n_embd_r > (1u << 30) || n_embd_s > (1u << 30)) {
        return galloc_model_loader_refuse(ml, "%s.ssm: recurrent states of %llu and %llu values per sequence, more than galloc plans",
                                          ml->arch, (unsigned long long) n_embd_r, (unsigned long long) n_embd_s);
    }
    if (group_count) {
        // Mamba-2: heads of d_inner / time_step_rank values in groups (llama.cpp asserts both divide)
        if (hp->ssm_dt_rank == 0 || hp->ssm_d_inner % hp->ssm_dt_rank != 0) {
            return ssm_refuse(ml, "time_step_rank", hp->ssm_dt_rank, "heads do not divide inner_size (llama.cpp would abort)");
        }
        if (hp->ssm_n_group == 0 || hp->ssm_d_inner % hp->ssm_n_group != 0) {
            return ssm_refuse(ml, "group_count", hp->ssm_n_group, "groups do not divide inner_size (llama.cpp would abort)");
        }
    }
    return true;
}

void galloc_model_weights_mamba(struct model_graph * g, struct model_layer * l, int il) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner, d_state = hp->ssm_d_state;
    const int64_t dt_rank = hp->ssm_dt_rank;
    l->ssm_in       = galloc_model_weight_2d(g, 0, n_embd, 2 * d_inner, "ssm_in.weight", il);
    l->ssm_conv1d   = galloc_model_weight_2d(g, 0, d_conv, d_inner, "ssm_conv1d.weight", il);
    l->ssm_conv1d_b = galloc_model_weight_1d(g, 0, d_inner, "ssm_conv1d.bias", il);
    l->ssm_x        = galloc_model_weight_2d(g, 0, d_inner, dt_rank + 2 * d_state, "ssm_x.weight", il);
    l->ssm_dt       = galloc_model_weight_2d(g, 0, dt_rank, d_inner, "ssm_dt.weight", il);
    l->ssm_dt_b     = galloc_model_weight_1d(g, 0, d_inner, "ssm_dt.bias", il);
    l->ssm_a        = galloc_model_weight_2d(g, 0, d_state, d_inner, "ssm_a", il);
    l->ssm_d        = galloc_model_weight_1d(g, 0, d_inner, "ssm_d", il);
    l->ssm_out      = galloc_model_weight_2d(g, 0, d_inner, n_embd, "ssm_out.weight", il);
}

void galloc_model_weights_mamba2(struct model_graph * g, struct model_layer * l, int il, bool conv_bias_optional,
                                 bool norm_optional) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner, d_state = hp->ssm_d_state;
    const int64_t n_group = hp->ssm_n_group, dt_rank = hp->ssm_dt_rank;
    const int64_t conv_dim = d_inner + 2 * n_group * d_state, d_in_proj = d_inner + conv_dim + dt_rank;
    l->ssm_in       = galloc_model_weight_2d(g, 0, n_embd, d_in_proj, "ssm_in.weight", il);
    l->ssm_conv1d   = galloc_model_weight_2d(g, 0, d_conv, conv_dim, "ssm_conv1d.weight", il);
    l->ssm_conv1d_b = galloc_model_weight_1d(g, conv_bias_optional ? MODEL_TENSOR_OPTIONAL : 0, conv_dim, "ssm_conv1d.bias", il);
    l->ssm_dt_b     = galloc_model_weight_1d(g, 0, dt_rank, "ssm_dt.bias", il);
    l->ssm_a        = galloc_model_weight_2d(g, 0, 1, dt_rank, "ssm_a", il);
    l->ssm_d        = galloc_model_weight_2d(g, 0, 1, dt_rank, "ssm_d", il);
    l->ssm_norm     = galloc_model_weight_2d(g, norm_optional ? MODEL_TENSOR_OPTIONAL : 0, d_inner / n_group, n_group,
                                             "ssm_norm.weight", il);
    l->ssm_out      = galloc_model_weight_2d(g, 0, d_inner, n_embd, "ssm_out.weight", il);
}

// the scan over the states read by build_rs (llama.cpp's get_ssm_rows lambdas)
struct scan_args {
    struct ggml_tensor * x, * dt, * A, * B, * C;
    int64_t d_state, head_dim, n_head, n_slots, K;
};

static struct ggml_tensor * scan_rows(struct model_graph * g, struct ggml_tensor * states, struct ggml_tensor * ids, void * ud) {
    const struct scan_args * a = ud;
    struct ggml_tensor * ssm = ggml_reshape_4d(g->ctx, states, a->d_state, a->head_dim, a->n_head, a->n_slots);
    return ggml_ssm_scan(g->ctx, ssm, a->x, a->dt, a->A, a->B, a->C, ids, a->K);
}

struct ggml_tensor * galloc_model_mamba_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    const int64_t kv_head = g->rs->head;
    const int64_t d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner, d_state = hp->ssm_d_state, dt_rank = hp->ssm_dt_rank;
    const int64_t n_head = d_inner, head_dim = 1;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs;
    struct ggml_tensor * conv_states_all = g->rs->r[il];
    struct ggml_tensor * ssm_states_all  = g->rs->s[il];

    struct ggml_tensor * conv = galloc_model_build_rs(g, inp, conv_states_all, galloc_hp_n_embd_r(hp), n_seqs, NULL, NULL);
    conv = ggml_reshape_3d(ctx, conv, d_conv - 1, d_inner, n_seqs);
    cur  = ggml_reshape_3d(ctx, cur, cur->ne[0], n_seq_tokens, n_seqs);

    // {2*d_inner, n_seq_tokens, n_seqs}, split into x and z
    struct ggml_tensor * xz = galloc_model_mm(g, l->ssm_in, cur, l->ssm_in_s);
    struct ggml_tensor * x  = ggml_view_3d(ctx, xz, d_inner, xz->ne[1], xz->ne[2], xz->nb[1], xz->nb[2], 0);
    struct ggml_tensor * z  = ggml_view_3d(ctx, xz, d_inner, xz->ne[1], xz->ne[2], xz->nb[1], xz->nb[2],
                                           (size_t) d_inner * ggml_element_size(xz));

    // the convolution over the state and the new columns; its last d_conv - 1 columns kept
    struct ggml_tensor * conv_x = ggml_concat(ctx, conv, ggml_transpose(ctx, x), 0);
    struct ggml_tensor * last_conv = ggml_view_3d(ctx, conv_x, d_conv - 1, d_inner, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                                  (size_t) n_seq_tokens * conv_x->nb[0]);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, last_conv,
                                              ggml_view_1d(ctx, conv_states_all, (d_conv - 1) * d_inner * n_seqs,
                                                           (size_t) (kv_head * (d_conv - 1) * d_inner) *
                                                               ggml_element_size(conv_states_all))));
    x = ggml_ssm_conv(ctx, conv_x, l->ssm_conv1d);
    x = ggml_add(ctx, x, l->ssm_conv1d_b);
    x = ggml_silu(ctx, x);

    // {dt_rank + 2*d_state, n_seq_tokens, n_seqs}, split into dt, B and C
    struct ggml_tensor * x_db = galloc_model_mm(g, l->ssm_x, x, NULL);
    struct ggml_tensor * dt = ggml_view_3d(ctx, x_db, dt_rank, n_seq_tokens, n_seqs, x_db->nb[1], x_db->nb[2], 0);
    struct ggml_tensor * B  = ggml_view_4d(ctx, x_db, d_state, 1, n_seq_tokens, n_seqs, (size_t) d_state * x_db->nb[0], x_db->nb[1],
                                           x_db->nb[2], ggml_element_size(x_db) * (size_t) dt_rank);
    struct ggml_tensor * C  = ggml_view_4d(ctx, x_db, d_state, 1, n_seq_tokens, n_seqs, (size_t) d_state * x_db->nb[0], x_db->nb[1],
                                           x_db->nb[2], ggml_element_size(x_db) * (size_t) (dt_rank + d_state));
    // FalconMamba and Jamba normalise dt, B and C
    if (hp->ssm_dt_b_c_rms || (l->ssm_dt_norm && l->ssm_b_norm && l->ssm_c_norm)) {
        dt = galloc_model_norm(g, dt, l->ssm_dt_norm, NULL, MODEL_NORM_RMS, il);
        B  = galloc_model_norm(g, B, l->ssm_b_norm, NULL, MODEL_NORM_RMS, il);
        C  = galloc_model_norm(g, C, l->ssm_c_norm, NULL, MODEL_NORM_RMS, il);
    }
    dt = galloc_model_mm(g, l->ssm_dt, dt, NULL);
    dt = ggml_add(ctx, dt, l->ssm_dt_b);

    cur = x;
    x   = ggml_reshape_4d(ctx, x, head_dim, n_head, n_seq_tokens, n_seqs);

    struct scan_args args = { x, dt, l->ssm_a, B, C, d_state, head_dim, n_head, g->rs->size, 1 };
    struct ggml_tensor * y_ssm = galloc_model_build_rs(g, inp, ssm_states_all, galloc_hp_n_embd_s(hp), n_seqs, scan_rows, &args);
    if (!y_ssm) {
        return NULL;
    }
    // the last states stored
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, ggml_view_1d(ctx, y_ssm, d_state * d_inner * n_seqs, x->nb[3] * (size_t) x->ne[3]),
                                              ggml_view_1d(ctx, ssm_states_all, d_state * d_inner * n_seqs,
                                                           (size_t) (kv_head * d_state * d_inner) * ggml_element_size(ssm_states_all))));
    struct ggml_tensor * y = ggml_view_3d(ctx, y_ssm, d_inner, n_seq_tokens, n_seqs, x->nb[2], x->nb[3], 0);
    y   = ggml_add(ctx, y, ggml_mul(ctx, cur, l->ssm_d));
    y   = ggml_swiglu_split(ctx, ggml_cont(ctx, z), y);
    cur = galloc_model_mm(g, l->ssm_out, y, l->ssm_out_s);
    return ggml_reshape_2d(ctx, cur, cur->ne[0], n_seq_tokens * n_seqs);
}

struct ggml_tensor * galloc_model_mamba2_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    const int64_t kv_head = g->rs->head, mem_size = g->rs->size;
    const int64_t d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner, d_state = hp->ssm_d_state;
    const int64_t n_head = hp->ssm_dt_rank, head_dim = d_inner / n_head, n_group = hp->ssm_n_group;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs;
    const int64_t K = 1; // cparams.n_rs_seq is 0: no rollback snapshots
    const int64_t conv_dim = d_inner + 2 * n_group * d_state;
    struct ggml_tensor * conv_states_all = g->rs->r[il];
    struct ggml_tensor * ssm_states_all  = g->rs->s[il];
    const int64_t state_slots = ssm_states_all->ne[1];
    if (!l->ssm_conv1d_b) {
        // llama.cpp adds the bias unconditionally: without it, its graph build would crash
        return galloc_model_fail(g, "%s: tensor 'blk.%d.ssm_conv1d.bias' is missing (llama.cpp's Mamba-2 layer adds it); %s",
                                 g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
    }

    struct ggml_tensor * conv = galloc_model_build_rs(g, inp, conv_states_all, galloc_hp_n_embd_r(hp), n_seqs, NULL, NULL);
    conv = ggml_reshape_3d(ctx, conv, d_conv - 1, conv_dim, n_seqs);
    cur  = ggml_reshape_3d(ctx, cur, cur->ne[0], n_seq_tokens, n_seqs);

    // {d_in_proj, n_seq_tokens, n_seqs}, split into z, xBC and dt
    struct ggml_tensor * zxBCdt = galloc_model_mm(g, l->ssm_in, cur, l->ssm_in_s);
    struct ggml_tensor * z   = ggml_view_4d(ctx, zxBCdt, head_dim, n_head, n_seq_tokens, n_seqs, (size_t) head_dim * zxBCdt->nb[0],
                                            zxBCdt->nb[1], zxBCdt->nb[2], 0);
    struct ggml_tensor * xBC = ggml_view_3d(ctx, zxBCdt, conv_dim, n_seq_tokens, n_seqs, zxBCdt->nb[1], zxBCdt->nb[2],
                                            (size_t) d_inner * ggml_element_size(zxBCdt));
    struct ggml_tensor * dt  = ggml_view_3d(ctx, zxBCdt, n_head, n_seq_tokens, n_seqs, zxBCdt->nb[1], zxBCdt->nb[2],
                                            (size_t) (2 * d_inner + 2 * n_group * d_state) * ggml_element_size(zxBCdt));

    // the convolution; its last d_conv - 1 columns kept (one slot: K = 1)
    struct ggml_tensor * conv_x = ggml_concat(ctx, conv, ggml_transpose(ctx, xBC), 0);
    const int64_t row_count = (d_conv - 1) * conv_dim;
    const size_t  row_size  = ggml_row_size(conv_states_all->type, row_count);
    const int64_t n_written = n_seq_tokens < K ? n_seq_tokens : K;
    for (int64_t slot = 0; slot < n_written; slot++) {
        struct ggml_tensor * last_conv = ggml_view_3d(ctx, conv_x, d_conv - 1, conv_dim, n_seqs, conv_x->nb[1], conv_x->nb[2],
                                                      (size_t) (n_seq_tokens - slot) * conv_x->nb[0]);
        ggml_build_forward_expand(g->gf, ggml_cpy(ctx, last_conv,
                                                  ggml_view_2d(ctx, conv_states_all, row_count, n_seqs, conv_states_all->nb[1],
                                                               (size_t) (slot * mem_size + kv_head) * row_size)));
    }
    xBC = ggml_ssm_conv(ctx, conv_x, l->ssm_conv1d);
    xBC = ggml_add(ctx, xBC, l->ssm_conv1d_b);
    xBC = ggml_silu(ctx, xBC);

    // V, K and Q of the SSM/attention duality
    struct ggml_tensor * x = ggml_view_4d(ctx, xBC, head_dim, n_head, n_seq_tokens, n_seqs, (size_t) head_dim * xBC->nb[0],
                                          xBC->nb[1], xBC->nb[2], 0);
    struct ggml_tensor * B = ggml_view_4d(ctx, xBC, d_state, n_group, n_seq_tokens, n_seqs, (size_t) d_state * xBC->nb[0],
                                          xBC->nb[1], xBC->nb[2], (size_t) d_inner * ggml_element_size(xBC));
    struct ggml_tensor * C = ggml_view_4d(ctx, xBC, d_state, n_group, n_seq_tokens, n_seqs, (size_t) d_state * xBC->nb[0],
                                          xBC->nb[1], xBC->nb[2], (size_t) (d_inner + n_group * d_state) * ggml_element_size(xBC));
    dt = ggml_add(ctx, ggml_cont(ctx, dt), l->ssm_dt_b);

    struct scan_args args = { x, dt, l->ssm_a, B, C, d_state, head_dim, n_head, state_slots, K };
    struct ggml_tensor * y_ssm = galloc_model_build_rs(g, inp, ssm_states_all, galloc_hp_n_embd_s(hp), n_seqs, scan_rows, &args);
    if (!y_ssm) {
        return NULL;
    }
    const int64_t D = d_state * d_inner;
    const size_t  s_row_size   = ggml_row_size(ssm_states_all->type, D);
    const size_t  y_row_size   = ggml_row_size(y_ssm->type, D);
    const size_t  state_offset = (size_t) ggml_nelements(x) * ggml_element_size(x);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, ggml_view_3d(ctx, y_ssm, D, n_seqs, n_written, y_row_size, y_row_size * (size_t) n_seqs,
                                                                state_offset),
                                              ggml_view_3d(ctx, ssm_states_all, D, n_seqs, n_written, ssm_states_all->nb[1],
                                                           (size_t) mem_size * s_row_size, (size_t) kv_head * s_row_size)));
    struct ggml_tensor * y = ggml_view_4d(ctx, y_ssm, head_dim, n_head, n_seq_tokens, n_seqs, x->nb[1], (size_t) n_head * x->nb[1],
                                          (size_t) (n_seq_tokens * n_head) * x->nb[1], 0);
    y = ggml_add(ctx, y, ggml_mul(ctx, x, l->ssm_d));
    galloc_model_cb(g, y, "mamba2_y_add_d", il);
    y = ggml_swiglu_split(ctx, ggml_cont(ctx, z), y);

    // the grouped RMS norm
    if (l->ssm_norm) {
        y = ggml_reshape_4d(ctx, y, d_inner / n_group, n_group, n_seq_tokens, n_seqs);
        y = galloc_model_norm(g, y, l->ssm_norm, NULL, MODEL_NORM_RMS, il);
    }
    y   = ggml_reshape_3d(ctx, y, d_inner, n_seq_tokens, n_seqs);
    cur = galloc_model_mm(g, l->ssm_out, y, l->ssm_out_s);
    cur = ggml_reshape_2d(ctx, cur, cur->ne[0], n_seq_tokens * n_seqs);
    galloc_model_cb(g, cur, "mamba_out", il);
    return cur;
}
