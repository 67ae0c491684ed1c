// galloc-model-arch-deepseek.c: the `deepseek`, `dots1`, `bailingmoe2` and `glm4moe` architectures
// (DeepSeek-MoE 16B; dots.llm1; Ling/Ring 2.0; GLM-4.5, GLM-4.5-Air).
//
// As llama.cpp's src/models/deepseek.cpp, dots1.cpp, bailingmoe2.cpp and glm4-moe.cpp: llama's
// attention (the others than deepseek: Q and K RMS-normalised per head (optional in glm4moe), NEOX
// RoPE (glm4moe: multimodal sections when the file has them); bailingmoe2 with a fused QKV), the
// first leading_dense_block_count layers with a SwiGLU FFN, the others a MoE plus the shared
// experts as one SwiGLU FFN (glm4moe normalises the FFN input with post_attention_norm). deepseek's experts are softmax-gated, weights not renormalised; the
// others take the gating function, the renormalisation and a selection bias from the file. All
// scale by expert_weights_scale. No per-tensor scales reach the FFNs (llama.cpp loads them, these
// graphs pass none). glm4moe's NextN (MTP) blocks (nextn_predict_layers, the last blocks of the file) are
// skipped as llama.cpp skips them: their tensors not loaded, the graph over the blocks before them,
// the KV cache over all blocks; the others' NextN layers are refused.

#include "galloc-model-impl.h"

static bool deepseek_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) &&
           galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) &&
           galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) &&
           galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false);
}

static bool dots1_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return deepseek_hparams(ml, hp) && galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false) &&
           galloc_ml_get_expert_gating(ml, &hp->expert_gating_func);
}

static bool bailingmoe2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) ||
        !galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) ||
        !galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) ||
        !galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false) ||
        !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (!galloc_ml_has_key(ml, ".expert_gating_func")) {
        return galloc_ml_get_u32(ml, ".expert_gating_func", &hp->expert_gating_func, true); // required: the message
    }
    if (!galloc_ml_get_expert_gating(ml, &hp->expert_gating_func)) {
        return false;
    }
    if (n_nextn != 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u NextN layers are not built by galloc", ml->arch, n_nextn);
    }
    return true;
}

static bool glm4moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, false) ||
        !galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) ||
        !galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) ||
        !galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false) ||
        !galloc_ml_get_u32(ml, ".expert_gating_func", &hp->expert_gating_func, false) ||
        !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (hp->expert_gating_func == 0) {
        hp->expert_gating_func = 2; // GLM-4.5's sigmoid when the file names none
    }
    if (hp->expert_gating_func > 3) {
        return galloc_model_loader_refuse(ml, "%s.expert_gating_func: %u is not built by galloc", ml->arch, hp->expert_gating_func);
    }
    if (n_nextn >= hp->n_layer) { // llama.cpp asserts
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u of %u blocks", ml->arch, n_nextn, hp->n_layer);
    }
    hp->n_layer_nextn = n_nextn;
    if (hp->n_expert_shared == 0) { // llama.cpp builds the shared expert without weights
        return galloc_model_loader_refuse(ml, "%s.expert_shared_count: 0 (llama.cpp's glm4moe graph needs a shared expert)", ml->arch);
    }
    if (galloc_hp_use_mrope(hp)) {
        hp->rope_type = MODEL_ROPE_MROPE;
    }
    return true;
}

static bool deepseek_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
    const bool dots1 = g->m->arch == &galloc_model_arch_dots1, bailing = g->m->arch == &galloc_model_arch_bailingmoe2;
    const bool glm = g->m->arch == &galloc_model_arch_glm4moe, deepseek = g->m->arch == &galloc_model_arch_deepseek;
    const int64_t n_ff_exp_l = glm && !hp->n_ff_exp ? hp->n_ff[0] / hp->n_expert_used : n_ff_exp;
    const int64_t n_ff_shexp = (bailing && hp->n_ff_shexp ? hp->n_ff_shexp : n_ff_exp_l) * hp->n_expert_shared;
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_embd_q = dots1 || glm ? n_embd_head_k * hp->n_head[0] : n_embd;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer - hp->n_layer_nextn && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (dots1) { // dots1 creates K and V as wide as Q
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_q, n_embd_q, n_embd_q);
        } else if (bailing) { // bailingmoe2: one fused projection, no biases
            l->wqkv = galloc_model_weight_2d(g, 0, n_embd, n_embd + 2 * (int64_t) galloc_hp_n_embd_k_gqa(hp, i), "attn_qkv.weight", il);
        } else {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_q, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        }
        l->wo = galloc_model_weight_2d(g, 0, n_embd_q, n_embd, "attn_output.weight", il);
        if (dots1 || bailing || glm) {
            const int flags = glm ? MODEL_TENSOR_OPTIONAL : 0;
            l->attn_q_norm = galloc_model_weight_1d(g, flags, n_embd_head_k, "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_1d(g, flags, n_embd_head_k, "attn_k_norm.weight", il);
        }
        if (glm) {
            l->attn_post_norm = galloc_model_weight_1d(g, 0, n_embd, "post_attention_norm.weight", il);
        } else {
            l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        }
        if (i < hp->n_layer_dense_lead) {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
            continue;
        }
        l->ffn_gate_inp = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        if (!deepseek) {
            l->ffn_exp_probs_b = galloc_model_weight_1d(g, glm ? 0 : MODEL_TENSOR_OPTIONAL, n_expert, "exp_probs_b.bias", il);
        }
        if (n_expert == 0 || hp->n_expert_used == 0) {
            galloc_model_fail(g, "%s: %s must be > 0", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used");
            return false;
        }
        l->ffn_gate_exps  = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp_l, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps  = galloc_model_weight_3d(g, 0, n_ff_exp_l, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps    = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp_l, n_expert, "ffn_up_exps.weight", il);
        l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_down_shexp = galloc_model_weight_2d(g, 0, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
    }
    return !g->failed;
}

static bool deepseek_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    const bool deepseek = g->m->arch == &galloc_model_arch_deepseek, bailing = g->m->arch == &galloc_model_arch_bailingmoe2;
    const bool glm = g->m->arch == &galloc_model_arch_glm4moe;
    if (bailing || glm ? n_embd_head != galloc_hp_n_embd_head_k(hp, 0) : !galloc_model_same_head_sizes(g)) {
        galloc_model_fail(g, "%s: head sizes differ (key %u, value %lld)", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          (long long) n_embd_head);
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head); // deepseek reads no attention.scale
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    const int n_layer = (int) (hp->n_layer - hp->n_layer_nextn);
    for (int il = 0; il < n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        if (l->attn_q_norm) {
            q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, q, "Qcur_normed", il);
        }
        if (l->attn_k_norm) {
            k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, k, "Kcur_normed", il);
        }
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        if (!cur) {
            break;
        }
        if (il == n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, bailing ? "sa_out" : "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, glm ? l->attn_post_norm : l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, glm ? "post_attn_norm" : "ffn_norm", il);

        if ((uint32_t) il < hp->n_layer_dense_lead) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b, .n_expert = hp->n_expert,
                .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU, .norm_w = !deepseek && hp->expert_weights_norm,
                .w_scale = hp->expert_weights_scale,
                .gating = deepseek ? MODEL_GATING_SOFTMAX : galloc_model_gating_func(hp->expert_gating_func),
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            if (!moe_out || !shexp) {
                break;
            }
            galloc_model_cb(g, shexp, glm ? "ffn_shexp_out" : "ffn_shexp", il);
            cur = ggml_add(ctx, moe_out, shexp);
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_deepseek = {
    "deepseek", MODEL_ROPE_NORM, deepseek_hparams, deepseek_tensors, deepseek_graph,
};

const struct model_arch_def galloc_model_arch_dots1 = {
    "dots1", MODEL_ROPE_NEOX, dots1_hparams, deepseek_tensors, deepseek_graph,
};

const struct model_arch_def galloc_model_arch_bailingmoe2 = {
    "bailingmoe2", MODEL_ROPE_NEOX, bailingmoe2_hparams, deepseek_tensors, deepseek_graph,
};

const struct model_arch_def galloc_model_arch_glm4moe = {
    "glm4moe", MODEL_ROPE_NEOX, glm4moe_hparams, deepseek_tensors, deepseek_graph,
};
