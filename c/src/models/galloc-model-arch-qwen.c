// galloc-model-arch-qwen.c: the `qwen2`, `qwen2vl`, `qwen3`, `qwen3moe`, `qwen3vl` and `qwen3vlmoe` architectures.
//
// As llama.cpp's src/models/qwen2.cpp, qwen2vl.cpp, qwen3.cpp, qwen3moe.cpp, qwen3vl.cpp and qwen3vlmoe.cpp:
// a llama-like decoder with NEOX RoPE; qwen2 has Q/K/V biases and an optional output bias, qwen3
// RMS-normalises Q and K per head before RoPE, and qwen3moe replaces the FFN with softmax-gated
// experts (weights renormalised over the experts used). The VL models are qwen3/qwen3moe with
// interleaved multimodal RoPE (four positions per token), no FFN scales, and deepstack layers
// adding slices of wider input embeddings. qwen2vl is qwen2 with multimodal RoPE, its output bias
// loaded and not added.

#include "galloc-model-impl.h"


static bool qwen_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool qwen3moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool qwen3vl_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32(ml, ".n_deepstack_layers", &hp->n_deepstack_layers, false) &&
           galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, true) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool qwen2vl_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, true); // reads no norm epsilon
}

static bool qwen3vlmoe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) && qwen3vl_hparams(ml, hp);
}

static bool qwen2_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd;
    galloc_model_weights_io(g, true);
    if (g->m->arch == &galloc_model_arch_qwen2vl) {
        g->output_b = NULL; // loaded (in the weights), never added by qwen2vl's graph
    }
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i], n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo       = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
    }
    return !g->failed;
}

static bool qwen3_tensors(struct model_graph * g, bool moe) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0], n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_expert = hp->n_expert;
    galloc_model_weights_io(g, false);
    if (!moe) {
        // the rerank head: loaded, used only by embedding contexts (pooling), never by this graph
        galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, hp->n_cls_out, "cls.output.weight", -1);
    }
    if (moe && (n_expert == 0 || hp->n_expert_used == 0)) {
        galloc_model_fail(g, "%s: %s must be > 0", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used");
        return false;
    }
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i], n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head, n_embd_gqa, n_embd_gqa);
        l->wo          = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
        l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->ffn_norm    = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (!moe) {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        } else {
            const int64_t n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : n_ff / hp->n_expert_used;
            l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
            l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        }
    }
    return !g->failed;
}

static bool qwen3_dense_tensors(struct model_graph * g) {
    return qwen3_tensors(g, false);
}

static bool qwen3_moe_tensors(struct model_graph * g) {
    return qwen3_tensors(g, true);
}

// the decoders differ in Q/K norms, the FFN, its scales, deepstack and the output bias
static bool qwen_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    // qwen3 multiplies by the FFN's scales, qwen3moe by the experts'; the others load them and leave them aside
    const bool ffn_scaled = g->m->arch == &galloc_model_arch_qwen3, moe_scaled = g->m->arch == &galloc_model_arch_qwen3moe;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v); // layer 0's, as llama.cpp
        if (l->attn_q_norm) {
            q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, q, "Qcur_normed", il);
        }
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        if (l->attn_k_norm) {
            k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, k, "Kcur_normed", il);
        }
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(g->ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(g->ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(g->ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (l->ffn_gate_inp) {
            const struct model_moe_scales scales = { l->ffn_up_exps_s, l->ffn_gate_exps_s, l->ffn_down_exps_s };
            cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL,
                                l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, true,
                                hp->expert_weights_scale, MODEL_GATING_SOFTMAX, moe_scaled ? &scales : NULL, il);
            galloc_model_cb(g, cur, "ffn_moe_out", il);
        } else {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, ffn_scaled ? l->ffn_up_s : NULL, l->ffn_gate, NULL,
                                   ffn_scaled ? l->ffn_gate_s : NULL, l->ffn_down, NULL, ffn_scaled ? l->ffn_down_s : NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(g->ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        if ((uint32_t) il < hp->n_deepstack_layers) {
            const int64_t n_embd = hp->n_embd;
            struct ggml_tensor * ds = ggml_view_2d(g->ctx, g->t_inp_embd, n_embd, g->n_tokens, g->t_inp_embd->nb[1],
                                                   (size_t) (il + 1) * (size_t) n_embd * sizeof(float));
            cur = ggml_add(g->ctx, cur, ds);
            galloc_model_cb(g, cur, "deepstack_out", il);
        }
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_qwen2 = {
    "qwen2", MODEL_ROPE_NEOX, qwen_hparams, qwen2_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_qwen2vl = {
    "qwen2vl", MODEL_ROPE_MROPE, qwen2vl_hparams, qwen2_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_qwen3 = {
    "qwen3", MODEL_ROPE_NEOX, qwen_hparams, qwen3_dense_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_qwen3moe = {
    "qwen3moe", MODEL_ROPE_NEOX, qwen3moe_hparams, qwen3_moe_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_qwen3vl = {
    "qwen3vl", MODEL_ROPE_IMROPE, qwen3vl_hparams, qwen3_dense_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_qwen3vlmoe = {
    "qwen3vlmoe", MODEL_ROPE_IMROPE, qwen3vlmoe_hparams, qwen3_moe_tensors, qwen_graph,
};
