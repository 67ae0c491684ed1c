// galloc-model-arch-hy-v3.c: the `hy_v3` architecture (Hunyuan V3 MoE).
//
// As llama.cpp's src/models/hy-v3.cpp (its main graph): Q and K RMS-normalised per head before
// NeoX RoPE; layers without a router have a dense SwiGLU FFN, the others experts (the file's gating,
// sigmoid by default, a selection bias, fused or separate gate and up, the experts' scales) plus an
// ungated shared expert; the last hidden state normalised (h_nextn), then the output rows. NextN
// (MTP) layers are not built: refused.

#include "galloc-model-impl.h"

static bool hy_v3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_u32(ml, ".expert_feed_forward_length", &hp->n_ff_exp, true) ||
        !galloc_ml_get_u32(ml, ".expert_shared_feed_forward_length", &hp->n_ff_shexp, false) ||
        !galloc_ml_get_u32(ml, ".expert_gating_func", &hp->expert_gating_func, false) ||
        !galloc_ml_get_f32(ml, ".expert_weights_scale", &hp->expert_weights_scale, false) ||
        !galloc_ml_get_bool(ml, ".expert_weights_norm", &hp->expert_weights_norm, false) ||
        !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (hp->expert_gating_func == 0) {
        hp->expert_gating_func = 2; // llama.cpp: a sigmoid router by default
    }
    if (hp->expert_gating_func > 3) {
        return galloc_model_loader_refuse(ml, "%s.expert_gating_func: %u is not built by galloc", ml->arch, hp->expert_gating_func);
    }
    if (n_nextn != 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u NextN layers are not built by galloc", ml->arch, n_nextn);
    }
    return true;
}

static bool hy_v3_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_q = n_embd_head_k * hp->n_head[0];
    const int64_t n_ff_exp = hp->n_ff_exp ? hp->n_ff_exp : hp->n_ff[0] / (hp->n_expert_used > 0 ? hp->n_expert_used : 1);
    const int64_t n_ff_shexp = hp->n_ff_shexp ? hp->n_ff_shexp : n_ff_exp;
    const int opt = MODEL_TENSOR_OPTIONAL;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_q, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        l->wo          = galloc_model_weight_2d(g, 0, n_q, n_embd, "attn_output.weight", il);
        l->attn_q_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_q_norm.weight", il);
        l->attn_k_norm = galloc_model_weight_1d(g, 0, n_embd_head_k, "attn_k_norm.weight", il);
        l->ffn_norm    = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate    = galloc_model_weight_2d(g, opt, n_embd, n_ff, "ffn_gate.weight", il);
        l->ffn_down    = galloc_model_weight_2d(g, opt, n_ff, n_embd, "ffn_down.weight", il);
        l->ffn_up      = galloc_model_weight_2d(g, opt, n_embd, n_ff, "ffn_up.weight", il);
        l->ffn_gate_inp    = galloc_model_weight_2d(g, opt, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_exp_probs_b = galloc_model_weight_1d(g, opt, n_expert, "exp_probs_b", il);
        l->ffn_down_exps   = galloc_model_weight_3d(g, opt, n_ff_exp, n_embd, n_expert, "ffn_down_exps.weight", il);
        // create_tensor_gate_up_exps: the fused gate|up experts, else the two
        l->ffn_gate_up_exps = galloc_model_weight_3d(g, opt, n_embd, n_ff_exp * 2, n_expert, "ffn_gate_up_exps.weight", il);
        if (!l->ffn_gate_up_exps) {
            l->ffn_gate_exps = galloc_model_weight_3d(g, opt, n_embd, n_ff_exp, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, opt, n_embd, n_ff_exp, n_expert, "ffn_up_exps.weight", il);
        }
        l->ffn_gate_shexp = galloc_model_weight_2d(g, opt, n_embd, n_ff_shexp, "ffn_gate_shexp.weight", il);
        l->ffn_up_shexp   = galloc_model_weight_2d(g, opt, n_embd, n_ff_shexp, "ffn_up_shexp.weight", il);
        l->ffn_down_shexp = galloc_model_weight_2d(g, opt, n_ff_shexp, n_embd, "ffn_down_shexp.weight", il);
        if (l->ffn_gate_inp && (!l->ffn_down_exps || (!l->ffn_gate_up_exps && !l->ffn_up_exps) || n_expert == 0)) {
            galloc_model_fail(g, "%s: layer %d has a router but not its experts (llama.cpp's graph would crash); %s", g->m->arch->name,
                              il, GALLOC_MODEL_CAPTURE_HINT);
        } else if (!l->ffn_gate_inp && (!l->ffn_up || !l->ffn_down)) {
            galloc_model_fail(g, "%s: layer %d has neither a router nor a dense FFN (llama.cpp's graph would crash); %s",
                              g->m->arch->name, il, GALLOC_MODEL_CAPTURE_HINT);
        }
    }
    return !g->failed;
}

static bool hy_v3_graph(struct model_graph * g) {
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
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * factors = galloc_model_rope_factors(g, il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM_RMS, il);
        q = galloc_model_rope(g, q, inp_pos, factors, il);
        k = galloc_model_rope(g, k, inp_pos, factors, il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (!l->ffn_gate_inp) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, l->ffn_up_s, l->ffn_gate, NULL, l->ffn_gate_s, l->ffn_down, NULL,
                                   l->ffn_down_s, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_dense_out", il);
        } else {
            const struct model_moe moe = {
                .gate_inp = l->ffn_gate_inp, .up_exps = l->ffn_up_exps, .gate_exps = l->ffn_gate_exps,
                .gate_up_exps = l->ffn_gate_up_exps, .down_exps = l->ffn_down_exps, .exp_probs_b = l->ffn_exp_probs_b,
                .up_s = l->ffn_up_exps_s, .gate_s = l->ffn_gate_exps_s, .down_s = l->ffn_down_exps_s,
                .n_expert = hp->n_expert, .n_expert_used = g->n_expert_used, .op = MODEL_FFN_SILU,
                .norm_w = hp->expert_weights_norm, .w_scale = hp->expert_weights_scale,
                .gating = galloc_model_gating_func(hp->expert_gating_func),
            };
            struct ggml_tensor * moe_out = galloc_model_moe(g, cur, &moe, il);
            galloc_model_cb(g, moe_out, "ffn_moe_out", il);
            struct ggml_tensor * sh_out = galloc_model_ffn(g, cur, l->ffn_up_shexp, NULL, l->ffn_up_shexp_s, l->ffn_gate_shexp, NULL,
                                                           l->ffn_gate_shexp_s, l->ffn_down_shexp, NULL, l->ffn_down_shexp_s,
                                                           MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, sh_out, "ffn_shared_out", il);
            cur = moe_out && sh_out ? ggml_add(ctx, moe_out, sh_out) : NULL;
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
    galloc_model_cb(g, cur, "h_nextn", -1);
    ggml_set_output(cur);
    if (inp_out_ids) {
        cur = ggml_get_rows(ctx, cur, inp_out_ids);
    }
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_hy_v3 = {
    "hy_v3", MODEL_ROPE_NEOX, hy_v3_hparams, hy_v3_tensors, hy_v3_graph,
};
