// galloc-model-arch-granite-hybrid.c: the `granitehybrid` architecture (IBM Granite 4.0 H).
//
// As llama.cpp's src/models/granite-hybrid.cpp: a hybrid memory (a KV cache for the attention
// layers, recurrent states for the others: a layer is recurrent when its head_count_kv is 0);
// each layer an RMS norm, then a Mamba-2 block or attention (RoPE when rope.scaling.finetuned),
// the residual scaled by residual_scale, then a SwiGLU FFN or a MoE FFN with optional shared
// experts; the logits divided by logit_scale.

#include "galloc-model-impl.h"

static bool granite_hybrid_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->has_rope = true; // rope.scaling.finetuned: Granite's switch for RoPE, on by default
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, false) ||
        !galloc_ml_get_f32(ml, ".residual_scale", &hp->f_residual_scale, false) ||
        !galloc_ml_get_f32(ml, ".embedding_scale", &hp->f_embedding_scale, false) ||
        !galloc_ml_get_f32(ml, ".attention.scale", &hp->f_attention_scale, false) ||
        !galloc_model_ssm_hparams(ml, hp, true) ||
        !galloc_ml_get_bool(ml, ".rope.scaling.finetuned", &hp->has_rope, false) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false)) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0;
        if (!hp->is_recr[il] && hp->n_head[il] == 0) {
            return galloc_model_loader_refuse(ml, "%s.attention.head_count: attention layer %u has no heads", ml->arch, il);
        }
    }
    // only an expansion factor of 2 is supported (llama.cpp asserts)
    if (2ull * hp->n_embd != hp->ssm_d_inner) {
        return galloc_model_loader_refuse(ml, "%s.ssm.inner_size: %u is not twice embedding_length %u (llama.cpp would abort)",
                                          ml->arch, hp->ssm_d_inner, hp->n_embd);
    }
    return true;
}

static bool granite_hybrid_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_embd_head_k = hp->n_embd_head_k_full;
    const int64_t n_rot = hp->n_rot_full;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[0]; // layer 0's (llama.cpp's n_ff)
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->is_recr[i]) {
            galloc_model_weights_mamba2(g, l, il, true, false);
        } else {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_k_gqa(hp, i),
                                     galloc_hp_n_embd_v_gqa(hp, i));
            l->wo   = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
            l->wo_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        }
        l->ffn_norm   = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                               "rope_freqs.weight", -1);
        if (n_expert > 0) {
            l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
            l->ffn_gate_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
            if (hp->n_ff_shexp > 0) {
                l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_gate_shexp.weight", il);
                l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_up_shexp.weight", il);
                l->ffn_down_shexp = galloc_model_weight_2d(g, 0, hp->n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
            }
        } else {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
            l->ffn_gate_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_gate.bias", il);
            l->ffn_down_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
            l->ffn_up_b   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_up.bias", il);
        }
    }
    return !g->failed;
}

static struct ggml_tensor * attention_layer(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * inp_pos,
                                            const struct model_attn_input * attn, int64_t n_embd_head, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_tensor * q, * k, * v;
    galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[il], hp->n_head_kv[il], il, &q, &k, &v);
    if (hp->has_rope) {
        q = galloc_model_rope(g, q, inp_pos, l->rope_freqs, il);
        k = galloc_model_rope(g, k, inp_pos, l->rope_freqs, il);
    }
    galloc_model_cb(g, q, "Qcur", il);
    galloc_model_cb(g, k, "Kcur", il);
    galloc_model_cb(g, v, "Vcur", il);
    const float kq_scale = hp->f_attention_scale == 0.0f ? 1.0f / galloc_model_sqrtf((float) n_embd_head) : hp->f_attention_scale;
    cur = galloc_model_attn(g, attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
    galloc_model_cb(g, cur, "attn_out", il);
    return cur;
}

static struct ggml_tensor * layer_ffn(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * inpSA, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
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
        struct ggml_tensor * moe_out = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps,
                                                            NULL, l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used,
                                                            MODEL_FFN_SILU, true, hp->expert_weights_scale,
                                                            MODEL_GATING_SOFTMAX, NULL, il);
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

// the lm head with Granite's logit scale: the logits divided by logit_scale when it is set
static bool logits(struct model_graph * g, struct ggml_tensor * inpL) {
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    if (g->hp->f_logit_scale != 0.0f) {
        cur = ggml_scale(g->ctx, cur, 1.0f / g->hp->f_logit_scale);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

static bool granite_hybrid_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != (int64_t) galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "%s: key and value heads differ (%u, %u); %s", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          (unsigned) n_embd_head, GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    struct ggml_tensor * inp_pos     = hp->has_rope ? galloc_model_inp_pos(g) : NULL;

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->layers[il].attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        cur = hp->is_recr[il] ? galloc_model_mamba2_layer(g, &rs_inp, cur, il) : attention_layer(g, cur, inp_pos, &attn, n_embd_head, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(g->ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(g->ctx, inpSA, inp_out_ids);
        }
        inpL = layer_ffn(g, cur, inpSA, il);
    }
    return !g->failed && logits(g, inpL);
}

const struct model_arch_def galloc_model_arch_granite_hybrid = {
    "granitehybrid", MODEL_ROPE_NORM, granite_hybrid_hparams, granite_hybrid_tensors, granite_hybrid_graph,
};
