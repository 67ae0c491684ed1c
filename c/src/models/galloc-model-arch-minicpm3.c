// galloc-model-arch-minicpm3.c: the `minicpm3` architecture (MiniCPM3-4B).
//
// As llama.cpp's src/models/minicpm3.cpp: the input embeddings scaled by 12, latent attention
// decompressed into an ordinary KV cache (Q through a low-rank projection and its RMS norm, the
// compressed KV and one shared rotary key from kv_a_mqa, K's non-rotary part and V from kv_b),
// RoPE on Q's trailing n_rot values (ggml_rope_set_offset) with the long/short factors, the
// rotary key repeated to every head; each residual branch scaled by 1.4 / sqrt(n_layer), a SwiGLU
// FFN, and the head's input scaled by 256 / n_embd.

#include "galloc-model-impl.h"

static bool minicpm3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".attention.q_lora_rank", &hp->n_lora_q, true) ||
        !galloc_ml_get_u32(ml, ".attention.kv_lora_rank", &hp->n_lora_kv, true)) {
        return false;
    }
    if (galloc_hp_n_rot(hp, 0) > galloc_hp_n_embd_head_k(hp, 0)) {
        return galloc_model_loader_refuse(ml, "%s.rope.dimension_count: %u is more than attention.key_length %u", ml->arch,
                                          galloc_hp_n_rot(hp, 0), galloc_hp_n_embd_head_k(hp, 0));
    }
    return true;
}

static bool minicpm3_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0];
    const int64_t n_head_k = galloc_hp_n_embd_head_k(hp, 0), n_head_v = galloc_hp_n_embd_head_v(hp, 0);
    const int64_t n_rope = galloc_hp_n_rot(hp, 0), n_nope = n_head_k - n_rope;
    const int64_t q_lora = hp->n_lora_q, kv_lora = hp->n_lora_kv;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm      = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->attn_q_a_norm  = galloc_model_weight_1d(g, 0, q_lora, "attn_q_a_norm.weight", il);
        l->attn_kv_a_norm = galloc_model_weight_1d(g, 0, kv_lora, "attn_kv_a_norm.weight", il);
        l->attn_q_a       = galloc_model_weight_2d(g, 0, n_embd, q_lora, "attn_q_a.weight", il);
        l->attn_q_b       = galloc_model_weight_2d(g, 0, q_lora, n_head * n_head_k, "attn_q_b.weight", il);
        l->attn_kv_a_mqa  = galloc_model_weight_2d(g, 0, n_embd, kv_lora + n_rope, "attn_kv_a_mqa.weight", il);
        l->attn_kv_b      = galloc_model_weight_2d(g, 0, kv_lora, n_head * (n_nope + n_head_v), "attn_kv_b.weight", il);
        l->wo             = galloc_model_weight_2d(g, 0, n_head * n_head_v, n_embd, "attn_output.weight", il);
        l->ffn_norm       = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
        // the long and short RoPE factors, one pair shared by every layer
        const int flags = MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0);
        l->rope_long  = galloc_model_weight_1d(g, flags, n_rope / 2, "rope_factors_long.weight", -1);
        l->rope_short = galloc_model_weight_1d(g, flags, n_rope / 2, "rope_factors_short.weight", -1);
    }
    return !g->failed;
}

static struct ggml_tensor * minicpm3_rope(struct model_graph * g, struct ggml_tensor * x, struct ggml_tensor * pos,
                                          struct ggml_tensor * factors) {
    const struct model_cparams * cp = g->cp;
    return ggml_rope_ext(g->ctx, x, pos, factors, (int) galloc_hp_n_rot(g->hp, 0), (int) g->hp->rope_type, (int) cp->n_ctx_orig_yarn,
                         cp->rope_freq_base, cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast,
                         cp->yarn_beta_slow);
}

static struct ggml_tensor * minicpm3_attn(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * cur,
                                          struct ggml_tensor * inp_pos, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t n_head = hp->n_head[0], n_tokens = g->n_tokens, kv_lora = hp->n_lora_kv;
    const int64_t n_head_k = galloc_hp_n_embd_head_k(hp, 0), n_head_v = galloc_hp_n_embd_head_v(hp, 0);
    const int64_t n_rope = galloc_hp_n_rot(hp, 0), n_nope = n_head_k - n_rope;
    struct ggml_tensor * rope_factors = galloc_model_rope_factors(g, il);

    struct ggml_tensor * q = ggml_mul_mat(ctx, l->attn_q_a, cur);
    galloc_model_cb(g, q, "q", il);
    q = galloc_model_norm(g, q, l->attn_q_a_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, q, "q", il);
    q = ggml_mul_mat(ctx, l->attn_q_b, q);
    galloc_model_cb(g, q, "q", il);
    q = ggml_reshape_3d(ctx, q, n_head_k, n_head, n_tokens);
    galloc_model_cb(g, q, "q", il);

    struct ggml_tensor * kv_pe = ggml_mul_mat(ctx, l->attn_kv_a_mqa, cur);
    galloc_model_cb(g, kv_pe, "kv_pe_compresseed", il);
    struct ggml_tensor * kv_cmpr = ggml_view_2d(ctx, kv_pe, kv_lora, n_tokens, kv_pe->nb[1], 0);
    galloc_model_cb(g, kv_cmpr, "kv_compressed", il);
    struct ggml_tensor * k_pe = ggml_view_3d(ctx, kv_pe, n_rope, 1, n_tokens, kv_pe->nb[1], kv_pe->nb[1], ggml_row_size(kv_pe->type, kv_lora));
    galloc_model_cb(g, k_pe, "k_pe", il);
    kv_cmpr = galloc_model_norm(g, kv_cmpr, l->attn_kv_a_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, kv_cmpr, "kv_compressed", il);
    struct ggml_tensor * kv = ggml_mul_mat(ctx, l->attn_kv_b, kv_cmpr);
    galloc_model_cb(g, kv, "kv", il);
    const size_t row = ggml_row_size(kv->type, n_nope + n_head_v);
    struct ggml_tensor * k_nope = ggml_view_3d(ctx, kv, n_nope, n_head, n_tokens, row, row * (size_t) n_head, 0);
    galloc_model_cb(g, k_nope, "k_nope", il);
    struct ggml_tensor * v = ggml_view_3d(ctx, kv, n_head_v, n_head, n_tokens, row, row * (size_t) n_head, ggml_row_size(kv->type, n_nope));
    galloc_model_cb(g, v, "v_states", il);
    v = ggml_cont(ctx, v);
    galloc_model_cb(g, v, "v_states", il);

    q = ggml_rope_set_offset(minicpm3_rope(g, q, inp_pos, rope_factors), (int) n_nope); // RoPE on the trailing values
    galloc_model_cb(g, q, "q_rope", il);
    k_pe = minicpm3_rope(g, k_pe, inp_pos, rope_factors);
    galloc_model_cb(g, k_pe, "k_pe", il);
    galloc_model_cb(g, q, "q_states", il);
    struct ggml_tensor * k = ggml_concat(ctx, k_nope, ggml_repeat_4d(ctx, k_pe, n_rope, n_head, n_tokens, 1), 0);
    galloc_model_cb(g, k, "k_states", il);
    return galloc_model_attn(g, inp, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_head_k), il);
}

static bool minicpm3_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const float scale_res = 1.4f / galloc_model_sqrtf((float) hp->n_layer); // scale_depth / sqrt(n_layer)
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    if (!inpL) {
        return false;
    }
    inpL = ggml_scale(ctx, inpL, 12.0f);
    galloc_model_cb(g, inpL, "inp_scaled", -1);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        cur = minicpm3_attn(g, &attn, cur, inp_pos, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        cur = ggml_scale(ctx, cur, scale_res);
        galloc_model_cb(g, cur, "hidden_scaled", il);
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = ggml_scale(ctx, cur, scale_res);
        galloc_model_cb(g, cur, "hidden_scaled_ffn", il);
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
    cur = ggml_scale(ctx, cur, 256.0f / (float) hp->n_embd); // n_embd_base / n_embd
    galloc_model_cb(g, cur, "lmhead_scaling", -1);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_minicpm3 = {
    "minicpm3", MODEL_ROPE_NEOX, minicpm3_hparams, minicpm3_tensors, minicpm3_graph,
};
