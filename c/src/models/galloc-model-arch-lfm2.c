// galloc-model-arch-lfm2.c: the `lfm2` and `lfm2moe` architectures (Liquid AI LFM2, LFM2-MoE).
//
// As llama.cpp's src/models/lfm2.cpp: a layer is a gated short convolution (ssm_conv over the
// last l_cache - 1 columns kept in the recurrent state) when its head_count_kv is 0, else
// attention with Q/K RMS norms and NeoX RoPE; then a SwiGLU FFN. With a sliding window the
// attention layers slide and the memory is llama_memory_hybrid_iswa. LFM2-MoE (no sliding window)
// replaces the FFN of the layers after leading_dense_block_count with experts routed by
// expert_gating_func with a selection bias. The graph callback names are llama.cpp's
// ("model.layers.{}.operator_norm-0", ...). Non-causal (bidirectional) models are not built.

#include "galloc-model-impl.h"

// the keys lfm2 and lfm2moe share: the short convolution, the recurrent layers
static bool lfm2_common_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_u32(ml, ".shortconv.l_cache", &hp->n_shortconv_l_cache, true) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    if (hp->n_shortconv_l_cache < 2 || hp->n_shortconv_l_cache > 1024) {
        return galloc_model_loader_refuse(ml, "%s.shortconv.l_cache: %u (2 to 1024; llama.cpp asserts more than 1)", ml->arch,
                                          hp->n_shortconv_l_cache);
    }
    if (!hp->causal_attn) {
        return galloc_model_loader_refuse(ml, "%s.attention.causal: false (galloc does not build the bidirectional short "
                                          "convolution)", ml->arch);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0;
        if (!hp->is_recr[il] && galloc_hp_n_embd_k_gqa(hp, il) != galloc_hp_n_embd_v_gqa(hp, il)) {
            return galloc_model_loader_refuse(ml, "%s: layer %u's keys and values differ in width (llama.cpp would abort)", ml->arch, il);
        }
    }
    if (hp->n_head[0] == 0) {
        return galloc_model_loader_refuse(ml, "%s.attention.head_count: layer 0 has no heads (llama.cpp's attention layers take "
                                          "layer 0's head count)", ml->arch);
    }
    return true;
}

static bool lfm2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!lfm2_common_hparams(ml, hp)) {
        return false;
    }
    hp->n_layer_dense_lead = hp->n_layer; // every layer dense
    const bool found_swa = galloc_ml_has_key(ml, ".attention.sliding_window");
    if (!galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, false)) {
        return false;
    }
    if (found_swa && hp->n_swa > 0) {
        hp->swa_type = MODEL_SWA_STANDARD;
        for (uint32_t il = 0; il < hp->n_layer; il++) {
            hp->is_swa[il] = !hp->is_recr[il];
        }
    }
    return true;
}

static bool lfm2moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t gating = 0;
    if (!lfm2_common_hparams(ml, hp) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_gating_func", &gating, true)) {
        return false;
    }
    // llama_expert_gating_func_type: 1 softmax, 2 sigmoid, 3 softmax over the selected weights
    if (gating < 1 || gating > 3) {
        return galloc_model_loader_refuse(ml, "%s.expert_gating_func: %u (llama.cpp's build_moe_ffn aborts on it)", ml->arch, gating);
    }
    hp->expert_gating_func = gating;
    if (hp->n_layer_dense_lead < hp->n_layer && (hp->n_expert == 0 || hp->n_expert_used == 0)) {
        return galloc_model_loader_refuse(ml, "%s.expert_count: MoE layers without experts (llama.cpp asserts)", ml->arch);
    }
    return true;
}

static bool lfm2_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_ff = hp->n_ff[0], n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "token_embd_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, hp->n_vocab, "output.weight", -1);
    if (g->output == NULL) {
        g->output = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, hp->n_vocab, "token_embd.weight", -1);
    }
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->ffn_norm  = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (i >= hp->n_layer_dense_lead) {
            const int64_t n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
            l->ffn_gate_inp    = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
            l->ffn_gate_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps   = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps     = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
            l->ffn_exp_probs_b = galloc_model_weight_1d(g, 0, n_expert, "exp_probs_b.bias", il);
        } else {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        }
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (!hp->is_recr[i]) {
            l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
            l->wo = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        } else {
            l->shortconv_conv     = galloc_model_weight_2d(g, 0, hp->n_shortconv_l_cache, n_embd, "shortconv.conv.weight", il);
            l->shortconv_in_proj  = galloc_model_weight_2d(g, 0, n_embd, 3 * n_embd, "shortconv.in_proj.weight", il);
            l->shortconv_out_proj = galloc_model_weight_2d(g, 0, n_embd, n_embd, "shortconv.out_proj.weight", il);
        }
    }
    // LFM2-ColBert's projection: loaded, used only for embeddings (not in the generation graph)
    galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_embd, "dense_2.weight", -1);
    galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "dense_2.bias", -1);
    return !g->failed;
}

static struct ggml_tensor * attn_block(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * inp_pos,
                                       const struct model_attn_input * attn, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    const int     n_rot = (int) galloc_hp_n_rot(hp, 0);
    struct ggml_tensor * q, * k, * v;
    galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[il], il, &q, &k, &v);
    if (g->failed) {
        return NULL;
    }
    q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, q, "model.layers.{}.self_attn.q_layernorm", il);
    k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, k, "model.layers.{}.self_attn.k_layernorm", il);
    q = ggml_rope_ext(ctx, q, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    k = ggml_rope_ext(ctx, k, inp_pos, NULL, n_rot, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn, cp->rope_freq_base,
                      cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast, cp->yarn_beta_slow);
    cur = galloc_model_attn(g, attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
    galloc_model_cb(g, cur, "model.layers.{}.self_attn.out_proj", il);
    return cur;
}

static struct ggml_tensor * shortconv_block(struct model_graph * g, struct ggml_tensor * cur, const struct model_rs_input * inp,
                                            int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_context * ctx = g->ctx;
    const int64_t kv_head = g->rs->head, mem_size = g->rs->size;
    const int64_t n_seqs = g->n_seqs, n_seq_tokens = g->n_tokens / n_seqs, n_embd = hp->n_embd;
    const int64_t d_conv = hp->n_shortconv_l_cache - 1;

    cur = ggml_reshape_3d(ctx, cur, cur->ne[0], n_seq_tokens, n_seqs);
    struct ggml_tensor * bcx = galloc_model_mm(g, l->shortconv_in_proj, cur, NULL);
    galloc_model_cb(g, bcx, "model.layers.{}.conv.in_proj", il);
    const int64_t chunk = bcx->ne[0] / 3;
    struct ggml_tensor * b = ggml_view_3d(ctx, bcx, chunk, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2], 0);
    struct ggml_tensor * c = ggml_view_3d(ctx, bcx, chunk, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2],
                                          (size_t) chunk * ggml_element_size(bcx));
    struct ggml_tensor * x = ggml_view_3d(ctx, bcx, chunk, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2],
                                          2 * (size_t) chunk * ggml_element_size(bcx));
    struct ggml_tensor * bx = ggml_transpose(ctx, ggml_mul(ctx, b, x));

    // the conv state prepended (causal)
    struct ggml_tensor * conv_state = g->rs->r[il];
    struct ggml_tensor * conv_rs = galloc_model_build_rs(g, inp, conv_state, galloc_hp_n_embd_r(hp), n_seqs, NULL, NULL);
    if (!conv_rs) {
        return NULL;
    }
    struct ggml_tensor * conv = ggml_reshape_3d(ctx, conv_rs, d_conv, n_embd, n_seqs);
    bx = ggml_concat(ctx, conv, bx, 0);

    // the last d_conv columns kept (one slot: cparams.n_rs_seq is 0)
    const size_t row_size = ggml_row_size(conv_state->type, d_conv * n_embd);
    const int64_t n_written = n_seq_tokens < 1 ? n_seq_tokens : 1;
    for (int64_t slot = 0; slot < n_written; slot++) {
        struct ggml_tensor * snap = ggml_view_3d(ctx, bx, d_conv, bx->ne[1], bx->ne[2], bx->nb[1], bx->nb[2],
                                                 (size_t) (bx->ne[0] - d_conv - slot) * ggml_element_size(bx));
        ggml_build_forward_expand(g->gf, ggml_cpy(ctx, snap, ggml_view_2d(ctx, conv_state, d_conv * n_embd, n_seqs, conv_state->nb[1],
                                                                         (size_t) (slot * mem_size + kv_head) * row_size)));
    }
    struct ggml_tensor * conv_out = ggml_ssm_conv(ctx, bx, l->shortconv_conv);
    galloc_model_cb(g, conv_out, "model.layers.{}.conv.conv", il);
    struct ggml_tensor * y = ggml_mul(ctx, c, conv_out);
    y = galloc_model_mm(g, l->shortconv_out_proj, y, NULL);
    galloc_model_cb(g, y, "model.layers.{}.conv.out_proj", il);
    return ggml_reshape_2d(ctx, y, y->ne[0], n_seq_tokens * n_seqs);
}

static bool lfm2_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * cur = galloc_model_inp_embd(g, g->tok_embd);
    galloc_model_cb(g, cur, "model.embed_tokens", -1);
    ggml_build_forward_expand(g->gf, cur);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_pos     = galloc_model_inp_pos(g);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * prev_cur = cur;
        cur = galloc_model_norm(g, cur, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "model.layers.{}.operator_norm", il);
        cur = hp->is_recr[il] ? shortconv_block(g, cur, &rs_inp, il) : attn_block(g, cur, inp_pos, &attn, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx, cur, inp_out_ids);
            prev_cur = ggml_get_rows(ctx, prev_cur, inp_out_ids);
        }
        cur = ggml_add(ctx, prev_cur, cur);
        struct ggml_tensor * ffn_norm_out = galloc_model_norm(g, cur, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, ffn_norm_out, "model.layers.{}.ffn_norm", il);
        struct ggml_tensor * ffn_out;
        if (il >= (int) hp->n_layer_dense_lead) {
            const struct model_moe p = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps, .down_exps = l->ffn_down_exps,
                .exp_probs_b = l->ffn_exp_probs_b, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
                .op = MODEL_FFN_SILU, .norm_w = true, .w_scale = hp->expert_weights_scale, .gating = hp->expert_gating_func == 1   ? MODEL_GATING_SOFTMAX
                                                                                  : hp->expert_gating_func == 2 ? MODEL_GATING_SIGMOID
                                                                                                                : MODEL_GATING_SOFTMAX_WEIGHT,
            };
            ffn_out = galloc_model_moe(g, ffn_norm_out, &p, il);
        } else {
            ffn_out = galloc_model_ffn(g, ffn_norm_out, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                       MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        }
        galloc_model_cb(g, ffn_norm_out, "model.layers.{}.ffn_out", il); // llama.cpp names the norm's output here
        if (!ffn_out) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_out);
        galloc_model_cb(g, cur, "l_out", il);
    }
    return !g->failed && galloc_model_logits(g, cur, 0.0f);
}

const struct model_arch_def galloc_model_arch_lfm2 = {
    "lfm2", MODEL_ROPE_NEOX, lfm2_hparams, lfm2_tensors, lfm2_graph,
};

const struct model_arch_def galloc_model_arch_lfm2moe = {
    "lfm2moe", MODEL_ROPE_NEOX, lfm2moe_hparams, lfm2_tensors, lfm2_graph,
};
