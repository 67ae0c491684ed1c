// galloc-model-arch-smallthinker.c: the `smallthinker` architecture (SmallThinker-4B/21B).
//
// As llama.cpp's src/models/smallthinker.cpp: the router's logits computed from the layer's input
// (before the attention norm) and handed to the experts; attention with Q/K/V biases, sliding-window
// layers (a window of 4096, every sliding_window_pattern-th layer dense from the first) when the
// file sets attention.sliding_window, RoPE on every layer but each n_no_rope_layer_step-th (no RoPE
// skipped without a window); ReGLU experts with renormalised weights and the file's gating.

#include "galloc-model-impl.h"

static bool smallthinker_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_swa = 0;
    if (!galloc_ml_get_u32(ml, ".attention.sliding_window", &n_swa, false)) {
        return false;
    }
    if (n_swa > 0) {
        hp->swa_type = MODEL_SWA_STANDARD;
        hp->n_swa    = 4096; // llama.cpp's, whatever the file says
        uint32_t swa_period = 4;
        if (!galloc_ml_get_u32_or_arr(ml, ".attention.sliding_window_pattern", &swa_period, 1, false)) {
            return false;
        }
        for (uint32_t il = 0; il < hp->n_layer; il++) {
            hp->is_swa[il] = swa_period == 0 || il % swa_period != 0; // set_swa_pattern(swa_period, dense_first)
        }
        hp->rope_freq_base_train_swa  = hp->rope_freq_base_train;
        hp->rope_freq_scale_train_swa = hp->rope_freq_scale_train;
        if (!galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false)) {
            return false;
        }
    } else {
        hp->swa_type             = MODEL_SWA_NONE;
        hp->n_no_rope_layer_step = hp->n_layer;
    }
    return galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_expert_gating(ml, &hp->expert_gating_func);
}

static bool smallthinker_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
    const int64_t n_q = galloc_hp_n_embd_head_k(hp, 0) * hp->n_head[0];
    if (n_expert == 0 || hp->n_expert_used == 0) {
        galloc_model_fail(g, "%s: %s must be > 0 (llama.cpp asserts); %s", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used",
                          GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_q, n_embd_gqa, n_embd_gqa);
        l->wo            = galloc_model_weight_2d(g, 0, n_q, n_embd, "attn_output.weight", il);
        l->ffn_norm      = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
    }
    return !g->failed;
}

static bool smallthinker_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
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
        const bool use_rope = hp->n_no_rope_layer_step == hp->n_layer || il % (int) hp->n_no_rope_layer_step != 0;
        struct ggml_tensor * probs = galloc_model_mm(g, l->ffn_gate_inp, inpL, NULL); // [n_expert, n_tokens]
        galloc_model_cb(g, probs, "ffn_moe_logits", il);
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        if (use_rope) {
            q = galloc_model_rope(g, q, inp_pos, NULL, il);
            k = galloc_model_rope(g, k, inp_pos, NULL, il);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
            probs = ggml_get_rows(ctx, probs, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        const struct model_moe moe = {
            .logits_in = probs, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps, .down_exps = l->ffn_down_exps,
            .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_RELU, .norm_w = true,
            .w_scale = hp->expert_weights_scale, .gating = galloc_model_gating_func(hp->expert_gating_func),
        };
        cur = galloc_model_moe(g, cur, &moe, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_smallthinker = {
    "smallthinker", MODEL_ROPE_NEOX, smallthinker_hparams, smallthinker_tensors, smallthinker_graph,
};
