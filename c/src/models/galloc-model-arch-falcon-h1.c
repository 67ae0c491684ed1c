// galloc-model-arch-falcon-h1.c: the `falcon-h1` architecture (TII Falcon-H1).
//
// As llama.cpp's src/models/falcon-h1.cpp: every layer runs attention (NeoX RoPE, no rope factors)
// and a Mamba-2 block side by side on the same normalised input and adds both outputs; the hybrid
// memory keeps a KV cache and recurrent states for every layer. Then a SwiGLU FFN.

#include "galloc-model-impl.h"

static bool falcon_h1_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) ||
        !galloc_model_ssm_hparams(ml, hp, true)) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_recr[il] = true;
    }
    return true;
}

static bool falcon_h1_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_embd_head_k = hp->n_embd_head_k_full, n_embd_head_v = hp->n_embd_head_v_full;
    const int64_t n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0], n_ff = hp->n_ff[0], n_rot = hp->n_rot_full;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd, hp->n_vocab, "output.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    if (g->output == NULL) {
        g->output = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, hp->n_vocab, "token_embd.weight", -1);
    }
    for (uint32_t i = 0; i < hp->n_layer; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        galloc_model_weights_mamba2(g, l, il, true, true);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * n_head, n_head_kv * n_embd_head_k, n_head_kv * n_embd_head_v);
        l->wo         = galloc_model_weight_2d(g, 0, n_embd_head_k * n_head, n_embd, "attn_output.weight", il);
        l->wo_b       = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_output.bias", il);
        l->attn_norm  = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->ffn_norm   = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm", il); // no ".weight" (llama.cpp's name)
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                               "rope_freqs.weight", -1);
        galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        l->ffn_gate_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_gate.bias", il);
        l->ffn_down_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "ffn_down.bias", il);
        l->ffn_up_b   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_ff, "ffn_up.bias", il);
    }
    return !g->failed;
}

static bool falcon_h1_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const struct model_cparams * cp = g->cp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_rs_input rs_inp;
    struct model_attn_input attn;
    galloc_model_rs_inp(g, &rs_inp);
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
        if (g->failed) {
            break;
        }
        q = ggml_rope_ext(ctx, q, inp_pos, NULL, (int) hp->n_rot_full, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn,
                          cp->rope_freq_base, cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast,
                          cp->yarn_beta_slow);
        k = ggml_rope_ext(ctx, k, inp_pos, NULL, (int) hp->n_rot_full, (int) hp->rope_type, (int) cp->n_ctx_orig_yarn,
                          cp->rope_freq_base, cp->rope_freq_scale, cp->yarn_ext_factor, cp->yarn_attn_factor, cp->yarn_beta_fast,
                          cp->yarn_beta_slow);
        galloc_model_cb(g, q, "Qcur-post-rope", il);
        galloc_model_cb(g, k, "Kcur-post-rope", il);
        galloc_model_cb(g, v, "Vcur-post-rope", il);
        struct ggml_tensor * attn_out = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, kq_scale, il);
        galloc_model_cb(g, attn_out, "attn_out", il);

        cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ssm_in", il);
        struct ggml_tensor * ssm_out = galloc_model_mamba2_layer(g, &rs_inp, cur, il);
        galloc_model_cb(g, ssm_out, "ssm_out", il);
        if (!attn_out || !ssm_out) {
            break;
        }
        cur   = ggml_add(ctx, attn_out, ssm_out);
        inpSA = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, cur, "layer_out", il);
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur   = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA = ggml_get_rows(ctx, inpSA, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = inpSA;
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, l->ffn_up_b, NULL, l->ffn_gate, l->ffn_gate_b, NULL, l->ffn_down, l->ffn_down_b,
                               NULL, MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_falcon_h1 = {
    "falcon-h1", MODEL_ROPE_NEOX, falcon_h1_hparams, falcon_h1_tensors, falcon_h1_graph,
};
