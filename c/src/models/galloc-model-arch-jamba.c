// galloc-model-arch-jamba.c: the `jamba` architecture (AI21 Jamba).
//
// As llama.cpp's src/models/jamba.cpp: a layer is a Mamba-1 block (with RMS norms on dt, B and C)
// when its head_count_kv is 0, else attention without RoPE; then a SwiGLU FFN, or a softmax-gated
// MoE FFN when the layer has a router. The hybrid memory keeps recurrent states for the Mamba
// layers and a KV cache for the attention layers.

#include "galloc-model-impl.h"

static bool jamba_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_model_ssm_hparams(ml, hp, false) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true)) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0;
    }
    if (hp->n_head[0] == 0) {
        return galloc_model_loader_refuse(ml, "%s.attention.head_count: layer 0 has no heads (llama.cpp's attention layers take "
                                          "layer 0's head count)", ml->arch);
    }
    // only an expansion factor of 2 is supported (llama.cpp asserts)
    if (2ull * hp->n_embd != hp->ssm_d_inner) {
        return galloc_model_loader_refuse(ml, "%s.ssm.inner_size: %u is not twice embedding_length %u (llama.cpp would abort)",
                                          ml->arch, hp->ssm_d_inner, hp->n_embd);
    }
    return true;
}

static bool jamba_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_ff = hp->n_ff[0], n_expert = hp->n_expert;
    const int64_t d_state = hp->ssm_d_state, dt_rank = hp->ssm_dt_rank;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->is_recr[i]) {
            galloc_model_weights_mamba(g, l, il);
            l->ssm_dt_norm = galloc_model_weight_1d(g, 0, dt_rank, "ssm_dt_norm.weight", il);
            l->ssm_b_norm  = galloc_model_weight_1d(g, 0, d_state, "ssm_b_norm.weight", il);
            l->ssm_c_norm  = galloc_model_weight_1d(g, 0, d_state, "ssm_c_norm.weight", il);
        } else {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
            l->wo = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        }
        l->ffn_norm     = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        l->ffn_gate_inp = n_expert > 0 ? galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_expert, "ffn_gate_inp.weight", il)
                                       : NULL;
        if (l->ffn_gate_inp) {
            l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        } else {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        }
    }
    return !g->failed;
}

static bool jamba_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        if (hp->is_recr[il]) {
            cur = galloc_model_mamba_layer(g, &rs_inp, cur, il);
        } else {
            struct ggml_tensor * q, * k, * v;
            galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[il], il, &q, &k, &v); // no RoPE
            cur = g->failed ? NULL
                            : galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL,
                                                1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        }
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur  = ggml_get_rows(ctx, cur, inp_out_ids);
            inpL = ggml_get_rows(ctx, inpL, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, inpL, cur);
        galloc_model_cb(g, cur, "ffn_inp", il); // llama.cpp names cur here, not ffn_inp
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (l->ffn_gate_inp == NULL) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                                   MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL, l->ffn_down_exps,
                                       NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, false, hp->expert_weights_scale,
                                       MODEL_GATING_SOFTMAX, NULL, il);
            galloc_model_cb(g, cur, "ffn_moe_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, ffn_inp, cur);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_jamba = {
    "jamba", MODEL_ROPE_NORM, jamba_hparams, jamba_tensors, jamba_graph,
};
