// galloc-model-arch-llama4.c: the `llama4` architecture (Llama 4 Scout and Maverick).
//
// As llama.cpp's src/models/llama4.cpp: llama's attention on chunked sliding-window layers
// (three of every four by default, on their own KV cache), every n_no_rope_layer_step-th layer
// without RoPE and with the attention temperature input multiplied into Q, Q and K
// RMS-normalised after RoPE (except with 128 experts), and every interleave_moe_layer_step-th
// layer a sigmoid-routed MoE whose input is weighted before the experts, plus a shared expert.
// The FFNs take no per-tensor scales (llama.cpp loads them, its llama4 graph passes none).

#include "galloc-model-impl.h"

static bool llama4_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".interleave_moe_layer_step", &hp->n_moe_layer_step, true)) {
        return false;
    }
    const bool found_swa = galloc_ml_has_key(ml, ".attention.sliding_window");
    if (!galloc_ml_get_u32(ml, ".attention.sliding_window", &hp->n_swa, false)) {
        return false;
    }
    if (found_swa && hp->n_swa == 0) {
        hp->swa_type             = MODEL_SWA_NONE;
        hp->n_no_rope_layer_step = hp->n_layer; // RoPE on every layer but the last
    } else {
        // chunks of 8192 tokens whatever the file says; 3 chunked layers of every 4 unless the pattern says otherwise
        hp->swa_type = MODEL_SWA_CHUNKED;
        hp->n_swa    = 8192;
        uint32_t swa_period = 4;
        if (!galloc_ml_get_u32_scalar(ml, ".attention.sliding_window_pattern", &swa_period)) {
            return false;
        }
        galloc_hp_set_swa_pattern(hp, swa_period);
        hp->rope_freq_base_train_swa  = hp->rope_freq_base_train;
        hp->rope_freq_scale_train_swa = hp->rope_freq_scale_train;
        if (!galloc_ml_get_f32(ml, ".rope.freq_base_swa", &hp->rope_freq_base_train_swa, false)) {
            return false;
        }
    }
    hp->use_kq_norm = hp->n_expert != 128; // llama.cpp: every type but 17B_128E (Maverick)
    return true;
}

static bool llama4_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert;
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0), n_rot = galloc_hp_n_rot(hp, 0);
    if (n_expert == 0) {
        galloc_model_fail(g, "llama4: a model without experts (llama.cpp refuses it)");
        return false;
    }
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const bool moe = hp->n_moe_layer_step > 0 && (i + 1) % hp->n_moe_layer_step == 0;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo       = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                               "rope_freqs.weight", -1);
        if (moe) {
            const int64_t n_ff_exp = hp->n_ff_exp;
            l->ffn_gate_inp   = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
            l->ffn_gate_exps  = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps  = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps    = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
            l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, n_ff_exp, "ffn_gate_shexp.weight", il);
            l->ffn_down_shexp = galloc_model_weight_2d(g, 0, n_ff_exp, n_embd, "ffn_down_shexp.weight", il);
            l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, n_ff_exp, "ffn_up_shexp.weight", il);
        } else {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
        }
    }
    return !g->failed;
}

static bool llama4_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    // llama.cpp takes layer 0's head and rope sizes for every layer
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    if (hp->n_embd_head_k_full != hp->n_embd_head_k_swa || hp->n_embd_head_v_full != hp->n_embd_head_v_swa ||
        hp->n_rot_full != hp->n_rot_swa) {
        galloc_model_fail(g, "llama4.attention.key_length_swa/value_length_swa/rope.dimension_count_swa: sliding-window layers "
                          "with other head sizes than the full layers are not built by galloc; %s", GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL           = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos        = galloc_model_inp_pos(g);
    struct ggml_tensor * inp_attn_scale = galloc_model_inp_attn_scale(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head); // llama4 reads no attention.scale
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        const bool use_rope = hp->n_no_rope_layer_step > 0 && (uint32_t) (il + 1) % hp->n_no_rope_layer_step != 0;

        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        if (use_rope) {
            q = galloc_model_rope(g, q, inp_pos, l->rope_freqs, il);
            k = galloc_model_rope(g, k, inp_pos, l->rope_freqs, il);
        } else if (!g->failed) {
            q = ggml_mul(ctx, q, inp_attn_scale);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        if (use_rope && hp->use_kq_norm && !g->failed) {
            q = ggml_rms_norm(ctx, q, hp->f_norm_rms_eps);
            k = ggml_rms_norm(ctx, k, hp->f_norm_rms_eps);
            galloc_model_cb(g, q, "Qcur_normed", il);
            galloc_model_cb(g, k, "Kcur_normed", il);
        }
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "attn_out", il);
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);

        if (l->ffn_gate_inp == NULL) {
            cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, cur, "ffn_norm", il);
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            struct ggml_tensor * normed = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
            galloc_model_cb(g, cur, "ffn_norm", il); // llama.cpp names the attention output here, not the norm
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .down_exps = l->ffn_down_exps, .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used,
                .op = MODEL_FFN_SILU, .norm_w = false, .w_scale = hp->expert_weights_scale, .gating = MODEL_GATING_SIGMOID,
                .llama4 = true,
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, normed, &moe, il);
            struct ggml_tensor * shexp = galloc_model_ffn(g, normed, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            if (!moe_out || !shexp) {
                break;
            }
            galloc_model_cb(g, shexp, "ffn_moe_shexp", il);
            cur = ggml_add(ctx, moe_out, shexp);
            galloc_model_cb(g, cur, "ffn_moe_out_merged", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "ffn_out", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_llama4 = {
    "llama4", MODEL_ROPE_NORM, llama4_hparams, llama4_tensors, llama4_graph,
};
