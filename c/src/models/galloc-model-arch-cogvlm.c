// galloc-model-arch-cogvlm.c: the `cogvlm` architecture (CogVLM's language model).
//
// As llama.cpp's src/models/cogvlm.cpp on a batch of tokens (llama.cpp's reserve): the text
// weights (the visual expert's weights are loaded and used only for image embeddings), a fused QKV
// projection without its scale split by views, ggml_rope with llama.cpp's defaults over whole heads,
// no attention-norm name, a SwiGLU FFN; no output-row selection.

#include "galloc-model-impl.h"

static bool cogvlm_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool cogvlm_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_q = (int64_t) galloc_hp_n_embd_head_k(hp, 0) * hp->n_head[0];
    const int64_t n_rot = galloc_hp_n_rot(hp, 0);
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->wqkv      = galloc_model_weight_2d(g, 0, n_embd, n_q * 3, "attn_qkv.weight", il);
        l->wo        = galloc_model_weight_2d(g, 0, n_q, n_embd, "attn_output.weight", il);
        galloc_model_weight_2d(g, 0, n_embd, n_q * 3, "vis_attn_qkv.weight", il); // the visual expert: image batches only
        galloc_model_weight_2d(g, 0, n_q, n_embd, "vis_attn_output.weight", il);
        // kept on the layer for the placement (llama.cpp's layers hold it), never passed to RoPE by the graph
        l->rope_freqs = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL | (i != 0 ? MODEL_TENSOR_DUPLICATED : 0), n_rot / 2,
                                               "rope_freqs.weight", -1);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, n_ff);
        galloc_model_weight_2d(g, 0, n_embd, n_ff, "vis_gate.weight", il);
        galloc_model_weight_2d(g, 0, n_ff, n_embd, "vis_down.weight", il);
        galloc_model_weight_2d(g, 0, n_embd, n_ff, "vis_up.weight", il);
    }
    return !g->failed;
}

static bool cogvlm_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0), n_embd = hp->n_embd, n_tokens = g->n_tokens;
    const int64_t n_head = hp->n_head[0], n_head_kv = hp->n_head_kv[0];
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    // llama.cpp's views: K and V at n_embd and 2 n_embd values, of n_head_kv heads each
    if (2 * n_embd + n_embd_head * n_head_kv > n_embd_head * n_head * 3 || n_embd_head * n_head > 3 * n_embd) {
        galloc_model_fail(g, "%s.attention.head_count_kv: K/V views past the fused QKV projection (llama.cpp's views would abort); %s",
                          g->m->arch->name, GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL;
        struct ggml_tensor * cur = galloc_model_norm(g, inpSA, l->attn_norm, NULL, MODEL_NORM_RMS, il);
        struct ggml_tensor * qkv = ggml_mul_mat(ctx, l->wqkv, cur);
        const size_t es = ggml_element_size(qkv);
        struct ggml_tensor * q = ggml_view_3d(ctx, qkv, n_embd_head, n_head, n_tokens, (size_t) n_embd_head * sizeof(float), qkv->nb[1], 0);
        struct ggml_tensor * k = ggml_view_3d(ctx, qkv, n_embd_head, n_head_kv, n_tokens, (size_t) n_embd_head * sizeof(float), qkv->nb[1],
                                              (size_t) n_embd * es);
        struct ggml_tensor * v = ggml_view_3d(ctx, qkv, n_embd_head, n_head_kv, n_tokens, (size_t) n_embd_head * sizeof(float), qkv->nb[1],
                                              (size_t) (2 * n_embd) * es);
        q = ggml_rope(ctx, q, inp_pos, (int) n_embd_head, (int) hp->rope_type);
        k = ggml_rope(ctx, k, inp_pos, (int) n_embd_head, (int) hp->rope_type);
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                               MODEL_FFN_PAR, il);
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

const struct model_arch_def galloc_model_arch_cogvlm = {
    "cogvlm", MODEL_ROPE_NEOX, cogvlm_hparams, cogvlm_tensors, cogvlm_graph,
};
