// galloc-model-arch-granite.c: the `granite`, `granitemoe` and `minicpm` architectures (Granite 3.x dense and
// MoE; MiniCPM dense and MoE, on granite's graph as in llama.cpp).
//
// As llama.cpp's src/models/granite.cpp (granitemoe builds the same graph on the same tensors):
// llama's attention with per-layer head counts, RoPE unless rope.scaling.finetuned is false
// (granite; granitemoe always ropes), with rope_freqs or the long/short factors of longrope;
// the attention and FFN outputs multiplied by residual_scale before each residual add; a SwiGLU
// FFN with optional biases, or softmax-gated experts plus an optional shared expert; the logits
// divided by logit_scale. Granite 4 Vision's deepstack_mapping is not built: refused.

#include "galloc-model-impl.h"

static bool granite_common_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, true) &&
           galloc_ml_get_f32(ml, ".residual_scale", &hp->f_residual_scale, false) &&
           galloc_ml_get_f32(ml, ".embedding_scale", &hp->f_embedding_scale, false) &&
           galloc_ml_get_f32(ml, ".attention.scale", &hp->f_attention_scale, false) &&
           galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false);
}

static bool granite_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!granite_common_hparams(ml, hp)) {
        return false;
    }
    // deepstack_mapping: per layer, -1 or the slice of the vision embeddings added to the layer's input
    int64_t n_map = 0;
    if (!galloc_ml_count_i32_at_least(ml, ".deepstack_mapping", 0, &n_map)) {
        return false;
    }
    if (n_map > 0) {
        return galloc_model_loader_refuse(ml, "%s.deepstack_mapping: %lld layers take deepstack inputs, not built by galloc",
                                          ml->arch, (long long) n_map);
    }
    bool finetuned = true; // granite's switch for RoPE
    if (!galloc_ml_get_bool(ml, ".rope.scaling.finetuned", &finetuned, false)) {
        return false;
    }
    hp->no_rope = !finetuned;
    return true;
}

bool galloc_model_granite_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_rot = galloc_hp_n_rot(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        const int shared = MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[0], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo       = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[0], n_embd, "attn_output.weight", il);
        l->wo_b     = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (hp->rope_scaling_type_train == MODEL_ROPE_SCALING_LONGROPE) {
            l->rope_long  = galloc_model_weight_1d(g, shared, n_rot / 2, "rope_factors_long.weight", -1);
            l->rope_short = galloc_model_weight_1d(g, shared, n_rot / 2, "rope_factors_short.weight", -1);
        } else {
            l->rope_freqs = galloc_model_weight_1d(g, shared, n_rot / 2, "rope_freqs.weight", -1);
        }
        if (n_expert == 0) {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
            l->ffn_gate_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_gate.bias", il);
            l->ffn_down_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
            l->ffn_up_b   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_up.bias", il);
            continue;
        }
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        if (hp->n_ff_shexp > 0) {
            l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_gate_shexp.weight", il);
            l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_up_shexp.weight", il);
            l->ffn_down_shexp = galloc_model_weight_2d(g, 0, hp->n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        }
    }
    return !g->failed;
}

// build_layer_ffn: the residual-scaled attention output added, then the FFN or the experts
static struct ggml_tensor * granite_ffn(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur,
                                        struct ggml_tensor * inpSA, int il) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    if (hp->f_residual_scale != 0.0f) {
        cur = ggml_scale(ctx, cur, hp->f_residual_scale);
    }
    struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
    galloc_model_cb(g, ffn_inp, "ffn_inp", il);
    cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, cur, "ffn_norm", il);
    if (l->ffn_gate_inp == NULL) {
        cur = galloc_model_ffn(g, cur, l->ffn_up, l->ffn_up_b, NULL, l->ffn_gate, l->ffn_gate_b, NULL, l->ffn_down, l->ffn_down_b,
                               NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
    } else {
        const struct model_moe moe = {
            .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
            .down_exps = l->ffn_down_exps, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
            .op = MODEL_FFN_SILU, .norm_w = true, .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX,
        };
        struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
        galloc_model_cb(g, moe_out, "ffn_moe_out", il);
        if (hp->n_ff_shexp > 0) {
            struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, shexp, "ffn_shexp", il);
            cur = moe_out && shexp ? ggml_add(ctx, moe_out, shexp) : NULL;
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            cur = moe_out;
        }
    }
    if (!cur) {
        return NULL;
    }
    if (hp->f_residual_scale != 0.0f) {
        cur = ggml_scale(ctx, cur, hp->f_residual_scale);
    }
    cur = ggml_add(ctx, cur, ffn_inp);
    galloc_model_cb(g, cur, "ffn_out", il);
    galloc_model_cb(g, cur, "l_out", il);
    return cur;
}

bool galloc_model_granite_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = hp->no_rope ? NULL : galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    const float kq_scale = hp->f_attention_scale == 0.0f ? 1.0f / galloc_model_sqrtf((float) n_embd_head) : hp->f_attention_scale;

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[il], hp->n_head_kv[il], il, &q, &k, &v);
        if (!hp->no_rope) {
            struct ggml_tensor * factors = galloc_model_rope_factors(g, il);
            q = galloc_model_rope(g, q, inp_pos, factors, il);
            k = galloc_model_rope(g, k, inp_pos, factors, il);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        inpL = granite_ffn(g, l, cur, inpSA, il);
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    cur = ggml_scale(ctx, cur, 1.0f / hp->f_logit_scale);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_granite = {
    "granite", MODEL_ROPE_NORM, granite_hparams, galloc_model_granite_tensors, galloc_model_granite_graph,
};

const struct model_arch_def galloc_model_arch_granitemoe = {
    "granitemoe", MODEL_ROPE_NORM, granite_common_hparams, galloc_model_granite_tensors, galloc_model_granite_graph,
};

// minicpm: granite's tensors and graph (llama.cpp's llama_model_minicpm uses llama_model_granite::graph), with
// MiniCPM's defaults for the scales (older files have no keys): embeddings x12, residuals x1.4/sqrt(layers),
// logits / (256/n_embd); RoPE always on
static bool minicpm_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->f_embedding_scale = 12.0f;
    hp->f_residual_scale  = 1.4f / galloc_model_sqrtf((float) hp->n_layer);
    hp->f_logit_scale     = hp->n_embd ? 256.0f / (float) hp->n_embd : 1.0f;
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_f32(ml, ".embedding_scale", &hp->f_embedding_scale, false) &&
           galloc_ml_get_f32(ml, ".residual_scale", &hp->f_residual_scale, false) &&
           galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, false);
}

const struct model_arch_def galloc_model_arch_minicpm = {
    "minicpm", MODEL_ROPE_NORM, minicpm_hparams, galloc_model_granite_tensors, galloc_model_granite_graph,
};
