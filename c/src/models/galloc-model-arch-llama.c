// galloc-model-arch-llama.c: the `llama` and `smollm3` architectures (Llama 2/3/3.1, Mistral;
// Mixtral's experts; SmolLM3).
//
// As llama.cpp's src/models/llama.cpp: RMS norms, Q/K/V with optional biases, RoPE with the
// optional rope_freqs factors (Llama 3.1), attention over the KV cache, output rows selected at
// the last layer, then a SwiGLU FFN, or a softmax-gated MoE FFN when the model has experts.
// smollm3.cpp is llama's graph without RoPE on every fourth layer (NoPE) and without the FFN's
// scales, on llama's tensors without rope_freqs or FFN biases.

#include "galloc-model-impl.h"


static bool llama_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

bool galloc_model_llama_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_head = hp->n_head[0];
    const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    const int64_t n_rot = galloc_hp_n_rot(hp, 0), n_expert = hp->n_expert;

    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head, galloc_hp_n_embd_k_gqa(hp, i), galloc_hp_n_embd_v_gqa(hp, i));
        l->wo       = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
        l->wo_b     = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        // one rope_freqs tensor shared by every layer
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                        "rope_freqs.weight", -1);
        if (n_expert == 0) {
            galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
            l->ffn_gate_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_gate.bias", il);
            l->ffn_down_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
            l->ffn_up_b   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_up.bias", il);
        } else {
            l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
            l->ffn_gate_exps = galloc_model_weight_3d(g, MODEL_TENSOR_OPTIONAL, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
            l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
            l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
        }
    }
    return !g->failed;
}

bool galloc_model_llama_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    // smollm3 (llama's graph otherwise): no RoPE on every n_no_rope_layer_step-th layer, no FFN scales
    const bool smollm3 = g->m->arch == &galloc_model_arch_smollm3;
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    const float kq_scale = hp->f_attention_scale == 0.0f ? 1.0f / galloc_model_sqrtf((float) n_embd_head) : hp->f_attention_scale;
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;

        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v); // layer 0's, as llama.cpp
        if (!smollm3 || (uint32_t) (il + 1) % hp->n_no_rope_layer_step != 0) {
            q = galloc_model_rope(g, q, inp_pos, l->rope_freqs, il);
            k = galloc_model_rope(g, k, inp_pos, l->rope_freqs, il);
        }
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "attn_out", il);
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(g->ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(g->ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(g->ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);

        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        if (l->ffn_gate_inp == NULL) {
            cur = galloc_model_ffn(g, cur, l->ffn_up, l->ffn_up_b, smollm3 ? NULL : l->ffn_up_s, l->ffn_gate, l->ffn_gate_b,
                                   smollm3 ? NULL : l->ffn_gate_s, l->ffn_down, l->ffn_down_b, smollm3 ? NULL : l->ffn_down_s,
                                   MODEL_FFN_SILU, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
        } else {
            const struct model_moe_scales scales = { l->ffn_up_exps_s, l->ffn_gate_exps_s, l->ffn_down_exps_s };
            cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL,
                                l->ffn_down_exps, NULL, hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, true,
                                hp->expert_weights_scale, MODEL_GATING_SOFTMAX, &scales, il);
            galloc_model_cb(g, cur, "ffn_moe_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(g->ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "ffn_out", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_llama = {
    "llama", MODEL_ROPE_NORM, llama_hparams, galloc_model_llama_tensors, galloc_model_llama_graph,
};

// smollm3
static bool smollm3_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->n_no_rope_layer_step = 4;
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool smollm3_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_k_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo       = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
    }
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_smollm3 = {
    "smollm3", MODEL_ROPE_NORM, smollm3_hparams, smollm3_tensors, galloc_model_llama_graph,
};
