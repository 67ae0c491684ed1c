// galloc-model-arch-nemotron-h.c: the `nemotron_h` architecture (NVIDIA Nemotron-H, Nemotron Nano 2).
//
// As llama.cpp's src/models/nemotron-h.cpp: three kinds of layer, each an RMS norm, one block and
// the residual: Mamba-2 (head_count_kv and feed_forward_length 0), attention without RoPE
// (feed_forward_length 0), or a squared-ReLU FFN without gate. The hybrid memory keeps recurrent
// states for the first kind and a KV cache for the second only. The output rows are selected after
// the final norm (embeddings_nextn_masked is false). Experts (nemotron_h_moe) and the MTP draft
// head (nextn_predict_layers) are not built.

#include "galloc-model-impl.h"

static bool nemotron_h_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_nextn = 0;
    if (!galloc_model_ssm_hparams(ml, hp, true) || !galloc_ml_get_u32(ml, ".nextn_predict_layers", &n_nextn, false)) {
        return false;
    }
    if (n_nextn > 0) {
        return galloc_model_loader_refuse(ml, "%s.nextn_predict_layers: %u MTP layers (galloc builds the trunk without them)",
                                          ml->arch, n_nextn);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = hp->n_head_kv[il] == 0 && hp->n_ff[il] == 0;
        if (!hp->is_recr[il] && hp->n_ff[il] == 0 && hp->n_head[il] == 0) {
            return galloc_model_loader_refuse(ml, "%s.attention.head_count: attention layer %u has no heads", ml->arch, il);
        }
    }
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true)) {
        return false;
    }
    if (hp->n_expert > 0) {
        return galloc_model_loader_refuse(ml, "%s: %u experts (galloc does not build Nemotron-H's sigmoid-routed experts)", ml->arch,
                                          hp->n_expert);
    }
    return true;
}

static bool nemotron_h_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = hp->n_embd_head_k_full;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->is_recr[i]) {
            galloc_model_weights_mamba2(g, l, il, true, false);
        } else if (hp->n_ff[i] == 0) {
            galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_k_gqa(hp, i),
                                     galloc_hp_n_embd_v_gqa(hp, i));
            l->wo   = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
            l->wo_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        } else {
            l->ffn_down   = galloc_model_weight_2d(g, 0, hp->n_ff[i], n_embd, "ffn_down.weight", il);
            l->ffn_up     = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff[i], "ffn_up.weight", il);
            l->ffn_down_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
            l->ffn_up_b   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, hp->n_ff[i], "ffn_up.bias", il);
        }
    }
    return !g->failed;
}

static bool nemotron_h_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != (int64_t) galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "%s: key and value heads differ (%u, %u); %s", g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0),
                          (unsigned) n_embd_head, GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    ggml_build_forward_expand(g->gf, inpL);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    const float kq_scale = hp->f_attention_scale == 0.0f ? 1.0f / galloc_model_sqrtf((float) n_embd_head) : hp->f_attention_scale;

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        if (hp->is_recr[il]) {
            cur = galloc_model_mamba2_layer(g, &rs_inp, cur, il);
        } else if (hp->n_ff[il] == 0) {
            struct ggml_tensor * q, * k, * v;
            galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[il], hp->n_head_kv[il], il, &q, &k, &v);
            cur = g->failed ? NULL : galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, kq_scale, il);
            galloc_model_cb(g, cur, "attn_out", il);
        } else {
            cur = galloc_model_ffn(g, cur, l->ffn_up, l->ffn_up_b, l->ffn_up_s, NULL, NULL, NULL, l->ffn_down, l->ffn_down_b,
                                   l->ffn_down_s, MODEL_FFN_RELU_SQR, MODEL_FFN_PAR, il);
            galloc_model_cb(g, cur, "ffn_out", il);
            galloc_model_cb(g, cur, "l_out", il);
        }
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, inpL);
        galloc_model_cb(g, cur, "nemotron_h_block_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "h_nextn", -1);
    ggml_set_output(cur); // the MTP head's seed (t_h_nextn), an output of the graph
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

const struct model_arch_def galloc_model_arch_nemotron_h = {
    "nemotron_h", MODEL_ROPE_NORM, nemotron_h_hparams, nemotron_h_tensors, nemotron_h_graph,
};

// Nemotron-H MoE: llama.cpp's nemotron_h with another name (its MTP graph aside); its experts are refused
const struct model_arch_def galloc_model_arch_nemotron_h_moe = {
    "nemotron_h_moe", MODEL_ROPE_NORM, nemotron_h_hparams, nemotron_h_tensors, nemotron_h_graph,
};
