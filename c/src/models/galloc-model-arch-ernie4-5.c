// galloc-model-arch-ernie4-5.c: the `ernie4_5`, `ernie4_5-moe`, `paddleocr` and `internlm2` architectures
// (ERNIE 4.5 0.3B, 21B-A3B, 300B-A47B; PaddleOCR-VL; InternLM2/2.5).
//
// As llama.cpp's src/models/ernie4-5.cpp, ernie4-5-moe.cpp and internlm2.cpp: llama's attention
// without the output bias (ernie loads it and leaves it aside), a SwiGLU FFN without scales;
// internlm2's graph is ernie4_5's, on tensors without the output bias and with a required output
// head. In the MoE model the layers from leading_dense_block_count on, every
// interleave_moe_layer_step-th, take softmax-gated experts (with the optional selection bias,
// weights renormalised) plus an optional shared expert.

#include "galloc-model-impl.h"

static bool ernie_hparams_rms(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool ernie_hparams(struct model_loader * ml, struct model_hparams * hp) {
    // read for PaddleOCR's multimodal RoPE; ERNIE's rope type is NORM, so they change nothing here
    uint32_t sections[4] = { 0 };
    return galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", sections, 4, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

// paddleocr: ernie4_5's keys with the multimodal RoPE sections kept (its rope type is M-RoPE)
static bool paddleocr_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_u32_or_arr(ml, ".rope.dimension_sections", hp->rope_sections, 4, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool ernie_moe_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!ernie_hparams(ml, hp) || !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) ||
        !galloc_ml_get_u32(ml, ".interleave_moe_layer_step", &hp->n_moe_layer_step, true) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false)) {
        return false;
    }
    if (hp->n_moe_layer_step == 0) {
        return galloc_model_loader_refuse(ml, "%s.interleave_moe_layer_step: 0 (llama.cpp divides by it)", ml->arch);
    }
    return true;
}

static bool ernie_moe_layer(const struct model_hparams * hp, uint32_t il) {
    return il >= hp->n_layer_dense_lead && (il + 1) % hp->n_moe_layer_step == 0;
}

static bool ernie_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const bool moe = g->m->arch == &galloc_model_arch_ernie4_5_moe, internlm2 = g->m->arch == &galloc_model_arch_internlm2;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_expert = hp->n_expert;
    if (internlm2) {
        g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
        g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
        g->output      = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "output.weight", -1);
    } else {
        galloc_model_weights_io(g, false);
    }
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[0], n_embd_gqa, n_embd_gqa);
        l->wo       = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[0], n_embd, "attn_output.weight", il);
        l->wo_b     = internlm2 ? NULL : galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (!moe || i < hp->n_layer_dense_lead) {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
            continue;
        }
        if (!ernie_moe_layer(hp, i)) {
            // llama.cpp creates experts for this layer and builds a dense FFN without weights (it crashes)
            galloc_model_fail(g, "%s.interleave_moe_layer_step: layer %d has experts but is not a MoE layer; %s", g->m->arch->name,
                              il, GALLOC_MODEL_CAPTURE_HINT);
            return false;
        }
        const int64_t n_ff_exp = hp->n_ff_exp;
        l->ffn_gate_inp    = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_exp_probs_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_expert, "exp_probs_b.bias", il);
        l->ffn_gate_exps   = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps   = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps     = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        if (hp->n_ff_shexp > 0) {
            l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_gate_shexp.weight", il);
            l->ffn_down_shexp = galloc_model_weight_2d(g, 0, hp->n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
            l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff_shexp, "ffn_up_shexp.weight", il);
        }
    }
    return !g->failed;
}

static bool ernie_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const bool moe = g->m->arch == &galloc_model_arch_ernie4_5_moe;
    const bool paddleocr = g->m->arch == &galloc_model_arch_paddleocr; // its graph adds the output projection's bias
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, paddleocr ? l->wo_b : NULL, l->wo_s, q, k, v, NULL,
                                1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        if (moe) {
            galloc_model_cb(g, cur, "attn_out", il);
        }
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (!moe || !ernie_moe_layer(hp, (uint32_t) il)) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe p = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b, .n_expert = hp->n_expert,
                .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU, .norm_w = true, .w_scale = hp->expert_weights_scale,
                .gating = MODEL_GATING_SOFTMAX,
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &p, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            if (hp->n_ff_shexp > 0) {
                struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                              l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
                galloc_model_cb(g, shexp, "ffn_shexp", il);
                cur = moe_out && shexp ? ggml_add(ctx, moe_out, shexp) : NULL;
            } else {
                cur = moe_out;
            }
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        if (moe) {
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_ernie4_5 = {
    "ernie4_5", MODEL_ROPE_NORM, ernie_hparams, ernie_tensors, ernie_graph,
};

const struct model_arch_def galloc_model_arch_ernie4_5_moe = {
    "ernie4_5-moe", MODEL_ROPE_NORM, ernie_moe_hparams, ernie_tensors, ernie_graph,
};

const struct model_arch_def galloc_model_arch_internlm2 = {
    "internlm2", MODEL_ROPE_NORM, ernie_hparams_rms, ernie_tensors, ernie_graph,
};

// paddleocr (PaddleOCR-VL's language model): ernie4_5's tensors, its graph with M-RoPE and the output bias
const struct model_arch_def galloc_model_arch_paddleocr = {
    "paddleocr", MODEL_ROPE_MROPE, paddleocr_hparams, ernie_tensors, ernie_graph,
};
