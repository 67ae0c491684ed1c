// galloc-model-moe.c: the mixture-of-experts FFN (llm_graph_context::build_moe_ffn).
//
// The router's logits, the gating (softmax, sigmoid, or softmax over the selected weights), the
// optional selection bias (DeepSeek V3), the top-k experts, their weights normalised and scaled,
// then each selected expert's FFN through mul_mat_id (with per-expert biases and scales), the
// outputs weighted and summed. Llama 4 weights the input instead of the output and selects on
// the raw logits. Same calls, names and order as llama-graph.cpp.

#include "galloc-model-impl.h"

#include <math.h>

// build_lora_mm_id: the experts' products, times each selected expert's scale when there are scales
static struct ggml_tensor * mm_id(struct model_graph * g, struct ggml_tensor * w, struct ggml_tensor * cur,
                                  struct ggml_tensor * ids, struct ggml_tensor * w_s) {
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * res = ggml_mul_mat_id(ctx, w, cur, ids);
    if (w_s) {
        const int64_t n_expert = w_s->ne[0], n_tokens = cur->ne[2];
        struct ggml_tensor * s = ggml_reshape_3d(ctx, w_s, 1, n_expert, 1);
        s   = ggml_repeat_4d(ctx, s, 1, n_expert, n_tokens, 1);
        s   = ggml_get_rows(ctx, s, ids);
        res = ggml_mul(ctx, res, s);
    }
    return res;
}

// the experts' gated activation (the switch of build_moe_ffn)
static struct ggml_tensor * moe_act(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * up, bool has_gate,
                                    enum model_ffn_op op, int il) {
    struct ggml_context * ctx = g->ctx;
    switch (op) {
        case MODEL_FFN_SILU:
            if (has_gate) {
                cur = ggml_swiglu_split(ctx, cur, up);
                galloc_model_cb(g, cur, "ffn_moe_swiglu", il);
            } else {
                cur = ggml_silu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_moe_silu", il);
            }
            break;
        case MODEL_FFN_GELU:
            if (has_gate) {
                cur = ggml_geglu_split(ctx, cur, up);
                galloc_model_cb(g, cur, "ffn_moe_geglu", il);
            } else {
                cur = ggml_gelu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_moe_gelu", il);
            }
            break;
        case MODEL_FFN_SWIGLU_OAI_MOE:
            cur = ggml_swiglu_oai(ctx, cur, up, 1.702f, 7.0f);
            galloc_model_cb(g, cur, "ffn_moe_swiglu_oai", il);
            break;
        case MODEL_FFN_SWIGLU:
            return galloc_model_fail(g, "layer %d: llama.cpp's experts have no fused SwiGLU", il); // its build_moe_ffn aborts
        case MODEL_FFN_RELU:
            if (has_gate) {
                cur = ggml_glu_split(ctx, cur, up, GGML_GLU_OP_REGLU);
                galloc_model_cb(g, cur, "ffn_moe_reglu", il);
            } else {
                cur = ggml_relu(ctx, cur);
                galloc_model_cb(g, cur, "ffn_moe_relu", il);
            }
            break;
        case MODEL_FFN_RELU_SQR:
            if (has_gate) {
                return galloc_model_fail(g, "layer %d: gated squared-ReLU experts (llama.cpp aborts: not implemented)", il);
            }
            cur = ggml_relu(ctx, cur);
            cur = ggml_sqr(ctx, cur);
            galloc_model_cb(g, cur, "ffn_moe_relu_sqr", il);
            break;
    }
    return cur;
}

enum model_gating galloc_model_gating_func(uint32_t func) {
    return func == 2 ? MODEL_GATING_SIGMOID : func == 3 ? MODEL_GATING_SOFTMAX_WEIGHT : MODEL_GATING_SOFTMAX;
}

struct ggml_tensor * galloc_model_moe(struct model_graph * g, struct ggml_tensor * cur, const struct model_moe * p, int il) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd   = cur->ne[0];
    const int64_t n_tokens = cur->ne[1];
    const int64_t n_expert = p->n_expert, n_expert_used = p->n_expert_used;

    struct ggml_tensor * logits = p->logits_in;
    if (!logits) {
        logits = ggml_mul_mat(ctx, p->gate_inp, cur); // [n_expert, n_tokens]
        galloc_model_cb(g, logits, "ffn_moe_logits", il);
    }
    if (p->gate_inp_b) {
        logits = ggml_add(ctx, logits, p->gate_inp_b);
        galloc_model_cb(g, logits, "ffn_moe_logits_biased", il);
    }
    struct ggml_tensor * probs = logits;
    if (p->gating == MODEL_GATING_SOFTMAX) {
        probs = ggml_soft_max(ctx, logits);
    } else if (p->gating == MODEL_GATING_SIGMOID) {
        probs = ggml_sigmoid(ctx, logits);
    }
    galloc_model_cb(g, probs, "ffn_moe_probs", il);

    // the selection bias leaves probs unbiased (they weight the experts); Llama 4 selects on the logits
    struct ggml_tensor * selection = probs;
    if (p->exp_probs_b) {
        selection = ggml_add(ctx, probs, p->exp_probs_b);
        galloc_model_cb(g, selection, "ffn_moe_probs_biased", il);
    }
    if (p->llama4) {
        selection = logits;
    }
    if (p->grovemoe) {
        selection = ggml_sigmoid(ctx, logits);
        galloc_model_cb(g, selection, "ffn_moe_probs_biased", il);
    }
    // the top expert_group_used_count groups of experts by the sum of each group's best two, the
    // others masked with -inf (DeepSeek-V3's device-limited routing; llama.cpp's build_moe_ffn)
    const int64_t n_groups = g->hp->n_expert_groups;
    if (n_groups > 1 && n_tokens > 0) {
        const int64_t n_per_group = n_expert / n_groups;
        if (n_per_group * n_groups != n_expert || n_per_group < 2 || g->hp->n_group_used < 1 || g->hp->n_group_used > n_groups) {
            return galloc_model_fail(g, "%s: %lld experts in %lld groups, %u used (llama.cpp's graph would abort); %s",
                                     g->m->arch->name, (long long) n_expert, (long long) n_groups, g->hp->n_group_used,
                                     GALLOC_MODEL_CAPTURE_HINT);
        }
        struct ggml_tensor * groups = ggml_reshape_3d(ctx, selection, n_per_group, n_groups, n_tokens);
        struct ggml_tensor * scores = ggml_argsort_top_k(ctx, groups, 2); // [2, n_groups, n_tokens]
        scores = ggml_get_rows(ctx, ggml_reshape_4d(ctx, groups, 1, groups->ne[0], groups->ne[1], groups->ne[2]), scores);
        scores = ggml_sum_rows(ctx, ggml_reshape_3d(ctx, scores, scores->ne[1], scores->ne[2], scores->ne[3]));
        scores = ggml_reshape_2d(ctx, scores, scores->ne[1], scores->ne[2]); // [n_groups, n_tokens]
        struct ggml_tensor * top = ggml_argsort_top_k(ctx, scores, (int) g->hp->n_group_used);
        galloc_model_cb(g, top, "ffn_moe_group_topk", il);
        selection = ggml_get_rows(ctx, groups, top); // [n_per_group, n_group_used, n_tokens]
        selection = ggml_set_rows(ctx, ggml_fill(ctx, groups, -INFINITY), selection, top);
        selection = ggml_reshape_2d(ctx, selection, n_expert, n_tokens);
        galloc_model_cb(g, selection, "ffn_moe_probs_masked", il);
    }
    struct ggml_tensor * selected = ggml_argsort_top_k(ctx, selection, (int) n_expert_used); // [n_expert_used, n_tokens]
    galloc_model_cb(g, selected->src[0], "ffn_moe_argsort", il);
    galloc_model_cb(g, selected, "ffn_moe_topk", il);

    if (ggml_nelements(probs) != n_expert * n_tokens || n_expert_used < 1 || n_expert_used > n_expert) {
        return galloc_model_fail(g, "%s: layer %d: %lld experts' weights for %lld experts, %lld used (llama.cpp's graph would abort); %s",
                                 g->m->arch->name, il, (long long) probs->ne[0], (long long) n_expert, (long long) n_expert_used,
                                 GALLOC_MODEL_CAPTURE_HINT);
    }
    probs = ggml_reshape_3d(ctx, probs, 1, n_expert, n_tokens);
    struct ggml_tensor * weights = ggml_get_rows(ctx, probs, selected); // [1, n_expert_used, n_tokens]
    galloc_model_cb(g, weights, "ffn_moe_weights", il);
    if (p->gating == MODEL_GATING_SOFTMAX_WEIGHT) {
        weights = ggml_reshape_2d(ctx, weights, n_expert_used, n_tokens);
        weights = ggml_soft_max(ctx, weights);
        weights = ggml_reshape_3d(ctx, weights, 1, n_expert_used, n_tokens);
        galloc_model_cb(g, weights, "ffn_moe_weights_softmax", il);
    }
    if (p->norm_w) {
        weights = ggml_reshape_2d(ctx, weights, n_expert_used, n_tokens);
        struct ggml_tensor * sum = ggml_sum_rows(ctx, weights); // [1, n_tokens]
        galloc_model_cb(g, sum, "ffn_moe_weights_sum", il);
        sum = ggml_clamp(ctx, sum, 6.103515625e-5f, INFINITY); // the smallest normal f16
        galloc_model_cb(g, sum, "ffn_moe_weights_sum_clamped", il);
        weights = ggml_div(ctx, weights, sum);
        galloc_model_cb(g, weights, "ffn_moe_weights_norm", il);
        weights = ggml_reshape_3d(ctx, weights, 1, n_expert_used, n_tokens);
    }
    if (p->w_scale != 0.0f && p->w_scale != 1.0f) {
        weights = ggml_scale(ctx, weights, p->w_scale);
        galloc_model_cb(g, weights, "ffn_moe_weights_scaled", il);
    }
    ggml_build_forward_expand(g->gf, weights);

    cur = ggml_reshape_3d(ctx, cur, n_embd, 1, n_tokens);
    if (p->llama4) {
        // the input weighted before the experts: repeated to [n_embd, n_expert_used, n_tokens]
        cur = ggml_mul(ctx, ggml_repeat_4d(ctx, cur, n_embd, n_expert_used, n_tokens, 1), weights);
        galloc_model_cb(g, cur, "ffn_moe_weighted", il);
    }
    struct ggml_tensor * up;
    if (p->gate_up_exps) {
        // one product for gate and up, split into its halves
        struct ggml_tensor * gate_up = mm_id(g, p->gate_up_exps, cur, selected, p->up_s); // [n_ff*2, n_expert_used, n_tokens]
        galloc_model_cb(g, gate_up, "ffn_moe_gate_up", il);
        if (p->up_s) {
            galloc_model_cb(g, gate_up, "ffn_moe_gate_up_scaled", il);
        }
        const int64_t n_ff = gate_up->ne[0] / 2;
        cur = ggml_view_3d(ctx, gate_up, n_ff, gate_up->ne[1], gate_up->ne[2], gate_up->nb[1], gate_up->nb[2], 0);
        galloc_model_cb(g, cur, "ffn_moe_gate", il);
        up = ggml_view_3d(ctx, gate_up, n_ff, gate_up->ne[1], gate_up->ne[2], gate_up->nb[1], gate_up->nb[2],
                          (size_t) n_ff * gate_up->nb[0]);
        galloc_model_cb(g, up, "ffn_moe_up", il);
    } else {
        up = mm_id(g, p->up_exps, cur, selected, p->up_s); // [n_ff, n_expert_used, n_tokens]
        galloc_model_cb(g, up, "ffn_moe_up", il);
        if (p->up_s) {
            galloc_model_cb(g, up, "ffn_moe_up_scaled", il);
        }
        if (p->up_exps_b) {
            up = ggml_add_id(ctx, up, p->up_exps_b, selected);
            galloc_model_cb(g, up, "ffn_moe_up_biased", il);
        }
        if (p->gate_exps) {
            cur = mm_id(g, p->gate_exps, cur, selected, p->gate_s);
            galloc_model_cb(g, cur, "ffn_moe_gate", il);
        } else {
            cur = up;
        }
        if (p->gate_s) {
            galloc_model_cb(g, cur, "ffn_moe_gate_scaled", il);
        }
        if (p->gate_exps_b) {
            cur = ggml_add_id(ctx, cur, p->gate_exps_b, selected);
            galloc_model_cb(g, cur, "ffn_moe_gate_biased", il);
        }
    }
    cur = moe_act(g, cur, up, p->gate_exps != NULL || p->gate_up_exps != NULL, p->op, il);
    if (!cur) {
        return NULL;
    }
    struct ggml_tensor * experts = mm_id(g, p->down_exps, cur, selected, p->down_s); // [n_embd, n_expert_used, n_tokens]
    galloc_model_cb(g, experts, "ffn_moe_down", il);
    if (p->down_s) {
        galloc_model_cb(g, experts, "ffn_moe_down_scaled", il);
    }
    if (p->down_exps_b) {
        experts = ggml_add_id(ctx, experts, p->down_exps_b, selected);
        galloc_model_cb(g, experts, "ffn_moe_down_biased", il);
    }
    if (!p->llama4) {
        experts = ggml_mul(ctx, experts, weights);
        galloc_model_cb(g, experts, "ffn_moe_weighted", il);
    }
    ggml_build_forward_expand(g->gf, experts);

    // the views first, then the adds (hparams.n_expert_used of them, not the warm-up count)
    const int64_t n_used = g->hp->n_expert_used;
    if (n_used < 1 || n_used > MODEL_MAX_EXPERTS) {
        return galloc_model_fail(g, "layer %d: %lld experts used", il, (long long) n_used);
    }
    struct ggml_tensor * views[MODEL_MAX_EXPERTS] = { NULL };
    for (int64_t i = 0; i < n_used; i++) {
        views[i] = ggml_view_2d(ctx, experts, n_embd, n_tokens, experts->nb[2], (size_t) i * experts->nb[1]);
        ggml_build_forward_expand(g->gf, views[i]);
    }
    struct ggml_tensor * moe_out = views[0];
    for (int64_t i = 1; i < n_used; i++) {
        moe_out = ggml_add(ctx, moe_out, views[i]);
        ggml_build_forward_expand(g->gf, moe_out);
    }
    if (n_used == 1) {
        moe_out = ggml_cont(ctx, moe_out); // not a view
    }
    galloc_model_cb(g, moe_out, "ffn_moe_out", il);
    return moe_out;
}

struct ggml_tensor * galloc_model_moe_ffn(struct model_graph * g, struct ggml_tensor * cur,
                                   struct ggml_tensor * gate_inp, struct ggml_tensor * gate_inp_b,
                                   struct ggml_tensor * up_exps, struct ggml_tensor * up_exps_b,
                                   struct ggml_tensor * gate_exps, struct ggml_tensor * gate_exps_b,
                                   struct ggml_tensor * down_exps, struct ggml_tensor * down_exps_b,
                                   int64_t n_expert, int64_t n_expert_used, enum model_ffn_op op, bool norm_w,
                                   float w_scale, enum model_gating gating, const struct model_moe_scales * scales, int il) {
    const struct model_moe p = {
        .gate_inp = gate_inp, .gate_inp_b = gate_inp_b, .up_exps = up_exps, .up_exps_b = up_exps_b,
        .gate_exps = gate_exps, .gate_exps_b = gate_exps_b, .down_exps = down_exps, .down_exps_b = down_exps_b,
        .up_s = scales ? scales->up : NULL, .gate_s = scales ? scales->gate : NULL, .down_s = scales ? scales->down : NULL,
        .n_expert = n_expert, .n_expert_used = n_expert_used, .op = op, .norm_w = norm_w, .w_scale = w_scale, .gating = gating,
    };
    return galloc_model_moe(g, cur, &p, il);
}
