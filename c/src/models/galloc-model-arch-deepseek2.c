// galloc-model-arch-deepseek2.c: the `deepseek2` and `mistral4` architectures (DeepSeek-V2/V2.5/V3/R1,
// Kimi K2, GLM 4.7 Lite; Mistral 4, whose hyperparameters, tensors and graph are deepseek2's).
//
// As llama.cpp's src/models/deepseek2.cpp with multi-head latent attention (MLA): Q through a
// low-rank projection (q_a, its RMS norm, q_b; lite models one projection), the compressed KV
// and the rotary key from one projection (kv_a_mqa), the non-rotary part of Q absorbed into the
// latent space (k_b), attention over a K-only cache of latent rows whose V is a view of K, the
// result decompressed by v_b; the first leading_dense_block_count layers with a SwiGLU FFN, the
// others experts (fused gate-and-up or separate, a selection bias, the file's gating) plus the
// shared experts. Files without MLA head sizes (the decompressed wkv_b path) and NextN (MTP)
// layers are not built: refused.

#include "galloc-model-impl.h"

static bool deepseek2_hparams(struct model_loader * ml, struct model_hparams * hp) {
    // lite variants: DeepSeek-V2-Lite, GigaChat3-10B-A1.8B, Kanana-2-30B-A3B
    const bool lite = hp->n_layer == 27 || hp->n_layer == 26 || (hp->n_layer == 48 && hp->n_vocab == 128256);
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".leading_dense_block_count", &hp->n_layer_dense_lead, false) ||
        (!lite && !galloc_ml_get_u32(ml, ".attention.q_lora_rank", &hp->n_lora_q, true)) ||
        !galloc_ml_get_u32(ml, ".attention.kv_lora_rank", &hp->n_lora_kv, true) ||
        !galloc_ml_get_u32(ml, ".attention.key_length_mla", &hp->n_embd_head_k_mla, false) ||
        !galloc_ml_get_u32(ml, ".attention.value_length_mla", &hp->n_embd_head_v_mla, false) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_shared_count", &hp->n_expert_shared, true) ||
        !galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) ||
        !galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false) ||
        !galloc_ml_get_u32(ml, ".expert_gating_func", &hp->expert_gating_func, false) ||
        !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false) ||
        !galloc_ml_get_f32(ml, ".attention.temperature_scale", &hp->f_attn_temp_scale, false)) {
        return false;
    }
    if (galloc_ml_has_key(ml, ".rope.scaling.yarn_log_multiplier")) {
        if (!galloc_ml_get_f32(ml, ".rope.scaling.yarn_log_multiplier", &hp->rope_yarn_log_mul, false)) {
            return false;
        }
        hp->rope_yarn_log_mul /= 0.1f; // llama.cpp cancels the converter's factor
    }
    if (hp->expert_gating_func == 0) {
        // V2/V2.5 files name none: softmax, GLM 4.7 Lite's sigmoid
        hp->expert_gating_func = (hp->n_layer == 47 || hp->n_layer == 48) && hp->n_vocab == 154880 ? 2 : 1;
    }
    if (hp->expert_gating_func > 3) {
        return galloc_model_loader_refuse(ml, "%s.expert_gating_func: %u is not built by galloc", ml->arch, hp->expert_gating_func);
    }
    if (n_nextn != 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u NextN layers are not built by galloc", ml->arch, n_nextn);
    }
    if (!galloc_hp_is_mla(hp)) {
        return galloc_model_loader_refuse(ml, "%s.attention.key_length_mla/value_length_mla: absent, the decompressed (wkv_b) "
                                          "attention is not built by galloc", ml->arch);
    }
    if (hp->n_embd_head_k_mla <= galloc_hp_n_rot(hp, 0)) {
        return galloc_model_loader_refuse(ml, "%s.attention.key_length_mla: %u is not more than rope.dimension_count %u (llama.cpp "
                                          "asserts)", ml->arch, hp->n_embd_head_k_mla, galloc_hp_n_rot(hp, 0));
    }
    return true;
}

static bool deepseek2_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0], n_expert = hp->n_expert, n_ff_exp = hp->n_ff_exp;
    const int64_t n_rope = galloc_hp_n_rot(hp, 0), n_nope = (int64_t) hp->n_embd_head_k_mla - n_rope;
    const int64_t q_lora = hp->n_lora_q, kv_lora = hp->n_lora_kv, n_v = hp->n_embd_head_v_mla;
    const int64_t n_ff_shexp = n_ff_exp * hp->n_expert_shared;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (q_lora > 0) {
            l->attn_q_a_norm = galloc_model_weight_1d(g, 0, q_lora, "attn_q_a_norm.weight", il);
        }
        l->attn_kv_a_norm = galloc_model_weight_1d(g, 0, kv_lora, "attn_kv_a_norm.weight", il);
        if (q_lora > 0) {
            l->attn_q_a = galloc_model_weight_2d(g, 0, n_embd, q_lora, "attn_q_a.weight", il);
            l->attn_q_b = galloc_model_weight_2d(g, 0, q_lora, n_head * (int64_t) hp->n_embd_head_k_mla, "attn_q_b.weight", il);
        } else {
            l->wq = galloc_model_weight_2d(g, 0, n_embd, n_head * (int64_t) hp->n_embd_head_k_mla, "attn_q.weight", il);
        }
        l->attn_kv_a_mqa = galloc_model_weight_2d(g, 0, n_embd, kv_lora + n_rope, "attn_kv_a_mqa.weight", il);
        l->attn_k_b      = galloc_model_weight_3d(g, 0, n_nope, kv_lora, n_head, "attn_k_b.weight", il);
        l->attn_v_b      = galloc_model_weight_3d(g, 0, kv_lora, n_v, n_head, "attn_v_b.weight", il);
        l->wo            = galloc_model_weight_2d(g, 0, n_head * n_v, n_embd, "attn_output.weight", il);
        l->ffn_norm      = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        if (i < hp->n_layer_dense_lead) {
            galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
            continue;
        }
        l->ffn_gate_inp    = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_exp_probs_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_expert, "exp_probs_b.bias", il);
        if (n_expert == 0 || hp->n_expert_used == 0) {
            galloc_model_fail(g, "%s: %s must be > 0", g->m->arch->name, n_expert == 0 ? "n_expert" : "n_expert_used");
            return false;
        }
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        // create_tensor_gate_up_exps: the fused gate|up experts, else the two
        l->ffn_gate_up_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff_exp * 2, n_expert, "ffn_gate_up_exps.weight", il);
        if (!l->ffn_gate_up_exps) {
            l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        }
        l->ffn_gate_shexp = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_down_shexp = galloc_model_weight_2d(g, 0, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        l->ffn_up_shexp   = galloc_model_weight_2d(g, 0, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
    }
    return !g->failed;
}

// MLA: the latent Q and K (Qcur, Kcur, Vcur) of one layer, as deepseek2.cpp builds them
static void mla_qkv(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur, struct ggml_tensor * inp_pos,
                    int il, struct ggml_tensor ** q_out, struct ggml_tensor ** k_out, struct ggml_tensor ** v_out) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_head = hp->n_head[0], n_tokens = g->n_tokens, kv_lora = hp->n_lora_kv;
    const int64_t n_rope = galloc_hp_n_rot(hp, 0), n_nope = (int64_t) hp->n_embd_head_k_mla - n_rope;

    struct ggml_tensor * q;
    if (l->attn_q_a) {
        q = ggml_mul_mat(ctx, l->attn_q_a, cur);
        galloc_model_cb(g, q, "q", il);
        q = galloc_model_norm(g, q, l->attn_q_a_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, q, "q", il);
        q = ggml_mul_mat(ctx, l->attn_q_b, q);
        galloc_model_cb(g, q, "q", il);
    } else {
        q = ggml_mul_mat(ctx, l->wq, cur);
        galloc_model_cb(g, q, "q", il);
    }
    q = ggml_reshape_3d(ctx, q, hp->n_embd_head_k_mla, n_head, n_tokens);
    galloc_model_cb(g, q, "q", il);

    struct ggml_tensor * kv_cmpr_pe = ggml_mul_mat(ctx, l->attn_kv_a_mqa, cur);
    galloc_model_cb(g, kv_cmpr_pe, "kv_cmpr_pe", il);
    const size_t row = ggml_row_size(kv_cmpr_pe->type, kv_lora + n_rope);
    struct ggml_tensor * kv_cmpr = ggml_view_2d(ctx, kv_cmpr_pe, kv_lora, n_tokens, row, 0);
    galloc_model_cb(g, kv_cmpr, "kv_cmpr", il);
    struct ggml_tensor * k_pe = ggml_view_3d(ctx, kv_cmpr_pe, n_rope, 1, n_tokens, row, row, ggml_row_size(kv_cmpr_pe->type, kv_lora));
    galloc_model_cb(g, k_pe, "k_pe", il);
    k_pe = galloc_model_rope(g, k_pe, inp_pos, NULL, il);
    galloc_model_cb(g, k_pe, "k_pe", il);
    kv_cmpr = galloc_model_norm(g, kv_cmpr, l->attn_kv_a_norm, NULL, MODEL_NORM_RMS, il);
    galloc_model_cb(g, kv_cmpr, "kv_cmpr", il);

    struct ggml_tensor * q_nope = ggml_view_3d(ctx, q, n_nope, n_head, n_tokens, q->nb[1], q->nb[2], 0);
    galloc_model_cb(g, q_nope, "q_nope", il);
    struct ggml_tensor * q_pe = ggml_view_3d(ctx, q, n_rope, n_head, n_tokens, q->nb[1], q->nb[2], ggml_row_size(q->type, n_nope));
    galloc_model_cb(g, q_pe, "q_pe", il);
    q_pe = galloc_model_rope(g, q_pe, inp_pos, NULL, il);
    galloc_model_cb(g, q_pe, "q_pe", il);
    q_nope = ggml_permute(ctx, q_nope, 0, 2, 1, 3);
    galloc_model_cb(g, q_nope, "q_nope_perm", il);
    struct ggml_tensor * q_abs = ggml_mul_mat(ctx, l->attn_k_b, q_nope); // into the latent space
    galloc_model_cb(g, q_abs, "q_nope_absorbed", il);
    q_abs = ggml_permute(ctx, q_abs, 0, 2, 1, 3);
    galloc_model_cb(g, q_abs, "q_nope_absorbed_perm", il);
    struct ggml_tensor * qc = ggml_concat(ctx, q_abs, q_pe, 0);
    galloc_model_cb(g, qc, "Qcur", il);
    kv_cmpr = ggml_reshape_3d(ctx, kv_cmpr, kv_lora, 1, n_tokens);
    galloc_model_cb(g, kv_cmpr, "kv_cmpr_reshape", il);
    struct ggml_tensor * kc = ggml_concat(ctx, kv_cmpr, k_pe, 0);
    galloc_model_cb(g, kc, "Kcur", il);
    galloc_model_cb(g, kv_cmpr, "Vcur", il);
    *q_out = qc;
    *k_out = kc;
    *v_out = kv_cmpr;
}

static bool deepseek2_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    struct ggml_context * ctx = g->ctx;
    // llama.cpp's YaRN-corrected scale (a parameter of the softmax: no shape depends on it)
    const float attn_factor_org = cp->yarn_attn_factor * (1.0f + 0.1f * galloc_model_logf(1.0f / cp->rope_freq_scale));
    const float mscale   = attn_factor_org * (1.0f + 0.1f * hp->rope_yarn_log_mul * galloc_model_logf(1.0f / cp->rope_freq_scale));
    const float kq_scale = mscale * mscale / galloc_model_sqrtf((float) hp->n_embd_head_k_mla);
    if (cp->yarn_ext_factor < 0.0f) {
        galloc_model_fail(g, "%s: a negative YaRN ext_factor (llama.cpp asserts)", g->m->arch->name);
        return false;
    }
    struct ggml_tensor * inpL           = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_attn_scale = hp->f_attn_temp_scale != 0.0f ? galloc_model_inp_attn_scale(g) : NULL;
    struct ggml_tensor * inp_pos        = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        mla_qkv(g, l, cur, inp_pos, il, &q, &k, &v);
        if (inp_attn_scale) {
            q = ggml_mul(ctx, q, inp_attn_scale);
            galloc_model_cb(g, q, "Qcur_attn_temp_scaled", il);
        }
        cur = galloc_model_attn_mla(g, &attn, l->wo, l->wo_s, q, k, v, l->attn_v_b, kq_scale, il);
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
        if ((uint32_t) il < hp->n_layer_dense_lead) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .gate_up_exps = l->ffn_gate_up_exps, .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b,
                .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU,
                .norm_w = hp->expert_weights_norm, .w_scale = hp->expert_weights_scale,
                .gating = galloc_model_gating_func(hp->expert_gating_func),
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            struct ggml_tensor * shexp = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, NULL, l->ffn_gate_shexp, NULL, NULL,
                                                          l->ffn_down_shexp, NULL, NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, shexp, "ffn_shexp", il);
            cur = moe_out && shexp ? ggml_add(ctx, moe_out, shexp) : NULL;
            galloc_model_cb(g, cur, "ffn_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1); // also h_nextn in llama.cpp: one tensor, the last name
    ggml_set_output(cur);
    cur = ggml_mul_mat(ctx, g->output, cur); // no output scale
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_deepseek2 = {
    "deepseek2", MODEL_ROPE_NORM, deepseek2_hparams, deepseek2_tensors, deepseek2_graph,
};

const struct model_arch_def galloc_model_arch_mistral4 = {
    "mistral4", MODEL_ROPE_NORM, deepseek2_hparams, deepseek2_tensors, deepseek2_graph,
};
