// galloc-model-arch-qwen.c: the `qwen2`, `qwen2vl`, `qwen3`, `qwen3moe`, `qwen3vl` and `qwen3vlmoe` architectures,
// the diffusion models built on their graph (`dream`, `rnd1`, `llada`, `llada-moe`) and `grovemoe`.
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

// the diffusion models: the same keys, attention over the whole batch (no causal mask, no memory)
static bool diffusion_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->causal_attn = false;
    return qwen_hparams(ml, hp);
}

static bool rnd1_hparams(struct model_loader * ml, struct model_hparams * hp) { // and llada-moe's
    hp->causal_attn = false;
    return qwen3moe_hparams(ml, hp);
}

static bool grovemoe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_chunk_feed_forward_length", &hp->n_ff_chexp, false) ||
        !galloc_ml_get_f32(ml, ".expert_group_scale", &hp->expert_group_scale, true) ||
        !galloc_ml_get_u32(ml, ".experts_per_group", &hp->n_group_experts, true) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    // the chunk experts are routed by all n_expert weights reshaped to n_expert / experts_per_group rows:
    // llama.cpp's graph aborts unless there is one expert per group
    if (hp->n_group_experts != 1) {
        return galloc_model_loader_refuse(ml, "%s.experts_per_group: %u (llama.cpp's graph would abort unless 1)", ml->arch,
                                          hp->n_group_experts);
    }
    return true;
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
    if (g->m->arch == &galloc_model_arch_qwen2vl || g->m->arch == &galloc_model_arch_dream) {
        g->output_b = NULL; // loaded (in the weights), never added by qwen2vl's or dream's graph
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
    // llada-moe: Q and the output projection n_embd wide, and an output head of its own
    const bool llada_moe = g->m->arch == &galloc_model_arch_llada_moe;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0], n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_expert = hp->n_expert, n_q = llada_moe ? n_embd : n_embd_head_k * n_head;
    galloc_model_weights_io(g, false);
    if (llada_moe && !ggml_get_tensor(g->wctx, "output.weight")) {
        galloc_model_fail(g, "missing tensor 'output.weight'");
        return false;
    }
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
        galloc_model_weights_qkv(g, l, il, n_embd, n_q, n_embd_gqa, n_embd_gqa);
        l->wo          = galloc_model_weight_2d(g, 0, n_q, n_embd, "attn_output.weight", il);
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
            if (g->m->arch == &galloc_model_arch_grovemoe) {
                const int64_t n_ff_chexp = hp->n_ff_chexp ? hp->n_ff_chexp : n_embd_head_k;
                const int64_t n_chunk    = n_expert / hp->n_group_experts;
                l->ffn_gate_chexps = galloc_model_weight_3d(g, 0, n_embd, n_ff_chexp, n_chunk, "ffn_gate_chexps.weight", il);
                l->ffn_down_chexps = galloc_model_weight_3d(g, 0, n_ff_chexp, n_embd, n_chunk, "ffn_down_chexps.weight", il);
                l->ffn_up_chexps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_chexp, n_chunk, "ffn_up_chexps.weight", il);
            }
        }
    }
    return !g->failed;
}

// llada: llama's tensors without Q/K/V biases; the output bias, RoPE factors and FFN biases loaded, unused by its graph
static bool llada_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_rot = galloc_hp_n_rot(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->wq        = galloc_model_weight_2d(g, 0, n_embd, n_embd_head_k * hp->n_head[0], "attn_q.weight", il);
        l->wk        = galloc_model_weight_2d(g, 0, n_embd, galloc_hp_n_embd_k_gqa(hp, i), "attn_k.weight", il);
        l->wv        = galloc_model_weight_2d(g, 0, n_embd, galloc_hp_n_embd_v_gqa(hp, i), "attn_v.weight", il);
        l->wo        = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[0], n_embd, "attn_output.weight", il);
        galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        // kept on the layer for the placement (llama.cpp's layers hold it), never passed to RoPE by the graph
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                               "rope_freqs.weight", -1);
        galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_gate.bias", il);
        galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
        galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_up.bias", il);
    }
    return !g->failed;
}

static bool qwen3_dense_tensors(struct model_graph * g) {
    return qwen3_tensors(g, false);
}

static bool qwen3_moe_tensors(struct model_graph * g) {
    return qwen3_tensors(g, true);
}

// grovemoe's FFN: the experts on the router's logits (computed here), then the chunk experts on their
// output with the same logits, scaled by expert_group_scale and added (llama.cpp's grovemoe.cpp)
static struct ggml_tensor * grovemoe_ffn(struct model_graph * g, struct ggml_tensor * cur, int il) {
    const struct model_hparams * hp = g->hp;
    const struct model_layer * l = &g->layers[il];
    struct ggml_tensor * probs = galloc_model_mm(g, l->ffn_gate_inp, cur, NULL);
    galloc_model_cb(g, probs, "ffn_moe_logits", il);
    const int64_t n_chunk = hp->n_expert / hp->n_group_experts;
    struct model_moe moe = {
        .logits_in = probs, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps, .down_exps = l->ffn_down_exps,
        .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU, .norm_w = true,
        .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SOFTMAX, .grovemoe = true,
    };
    struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
    galloc_model_cb(g, moe_out, "ffn_moe_out", il);
    if (!moe_out) {
        return NULL;
    }
    moe.up_exps = l->ffn_up_chexps, moe.gate_exps = l->ffn_gate_chexps, moe.down_exps = l->ffn_down_chexps;
    moe.n_expert = n_chunk, moe.n_expert_used = g->n_expert_used > n_chunk ? n_chunk : g->n_expert_used;
    struct ggml_tensor * adj = galloc_model_moe(g, moe_out, &moe, il);
    galloc_model_cb(g, adj, "ffn_adj_moe_out", il);
    if (!adj) {
        return NULL;
    }
    cur = ggml_add(g->ctx, moe_out, ggml_scale(g->ctx, adj, hp->expert_group_scale));
    galloc_model_cb(g, cur, "ffn_final_moe_out", il);
    return cur;
}

// the decoders differ in Q/K norms, the FFN, its scales, deepstack and the output bias
static bool qwen_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    // qwen3 multiplies by the FFN's scales, qwen3moe by the experts'; the others load them and leave them aside
    const bool ffn_scaled = g->m->arch == &galloc_model_arch_qwen3, moe_scaled = g->m->arch == &galloc_model_arch_qwen3moe;
    const bool moe_norm_w = g->m->arch != &galloc_model_arch_llada_moe; // llada-moe's experts' weights are not renormalised
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
        if (l->ffn_gate_chexps) {
            cur = grovemoe_ffn(g, cur, il);
        } else if (l->ffn_gate_inp) {
            const struct model_moe_scales scales = { l->ffn_up_exps_s, l->ffn_gate_exps_s, l->ffn_down_exps_s };
            cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL,
                                l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, moe_norm_w,
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

// the diffusion models (no memory: galloc_model_arch_memory): dream is qwen2's graph without the output
// bias, rnd1 qwen3moe's without the experts' scales, llada llama's without biases or RoPE factors, llada-moe
// qwen3moe's without the experts' scales or renormalisation
const struct model_arch_def galloc_model_arch_dream = {
    "dream", MODEL_ROPE_NEOX, diffusion_hparams, qwen2_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_rnd1 = {
    "rnd1", MODEL_ROPE_NEOX, rnd1_hparams, qwen3_moe_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_llada = {
    "llada", MODEL_ROPE_NORM, diffusion_hparams, llada_tensors, qwen_graph,
};

const struct model_arch_def galloc_model_arch_llada_moe = {
    "llada-moe", MODEL_ROPE_NEOX, rnd1_hparams, qwen3_moe_tensors, qwen_graph,
};

// grovemoe: qwen3moe's attention, its FFN grovemoe_ffn
const struct model_arch_def galloc_model_arch_grovemoe = {
    "grovemoe", MODEL_ROPE_NEOX, grovemoe_hparams, qwen3_moe_tensors, qwen_graph,
};
