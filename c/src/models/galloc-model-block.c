// galloc-model-block.c: the classic pre-norm transformer layer, shared by its many variants.
//
// GPT-2, StarCoder, CodeShell, JAIS, BLOOM, MPT, Refact, StarCoder2, GPT-NeoX and their kin
// differ only in small things: the norm (LayerNorm with biases, or RMS), fused or separate Q/K/V
// with biases, learned positions or RoPE or ALiBi (the softmax's max_bias), Q/K norms, a GELU MLP
// or a SiLU-gated FFN, with or without biases. A `struct model_block` says which; the weights, the
// attention, the FFN, the sequential layer and the output head are built here as llama.cpp's
// src/models/*.cpp build them, in the same order, with the same names.

#include "galloc-model-impl.h"

//
// weights
//

// one tensor with flags, or none (MODEL_W_NONE)
static struct ggml_tensor * w1(struct model_graph * g, int flags, int64_t ne0, const char * name, int il) {
    return flags == MODEL_W_NONE ? NULL : galloc_model_weight_1d(g, flags, ne0, name, il);
}

static struct ggml_tensor * w2(struct model_graph * g, int flags, int64_t ne0, int64_t ne1, const char * name, int il) {
    return flags == MODEL_W_NONE ? NULL : galloc_model_weight_2d(g, flags, ne0, ne1, name, il);
}

void galloc_model_weights_block_io(struct model_graph * g, const struct model_block_weights * w) {
    const int64_t n_embd = g->hp->n_embd, n_vocab = g->hp->n_vocab;
    g->tok_embd      = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->pos_embd      = w2(g, w->pos_embd, n_embd, g->hp->n_ctx_train, "position_embd.weight", -1);
    g->tok_norm      = w1(g, w->tok_norm, n_embd, "token_embd_norm.weight", -1);
    g->tok_norm_b    = w1(g, w->tok_norm, n_embd, "token_embd_norm.bias", -1);
    g->output_norm   = w->no_norms ? NULL : galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output_norm_b = w1(g, w->output_norm_b, n_embd, "output_norm.bias", -1);
    g->output        = galloc_model_weight_2d(g, w->output, n_embd, n_vocab, "output.weight", -1);
    g->output_b      = w1(g, w->output_b, n_vocab, "output.bias", -1);
    if (g->output == NULL) { // tied to the embeddings
        g->output = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, n_vocab, "token_embd.weight", -1);
    }
}

void galloc_model_weights_block(struct model_graph * g, struct model_layer * l, int il, const struct model_block_weights * w) {
    const struct model_hparams * hp = g->hp;
    const uint32_t i = (uint32_t) il;
    const int64_t n_embd = hp->n_embd, n_ff = w->ffn_half ? hp->n_ff[i] / 2 : hp->n_ff[i];
    const int64_t n_embd_q = w->q_heads ? (int64_t) galloc_hp_n_embd_head_k(hp, i) * hp->n_head[i] : n_embd;
    const int64_t n_embd_k = w->q_heads ? galloc_hp_n_embd_k_gqa(hp, i) : galloc_hp_n_embd_v_gqa(hp, i);
    const int64_t n_embd_v = galloc_hp_n_embd_v_gqa(hp, i);
    l->attn_norm   = w->no_norms ? NULL : galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
    l->attn_norm_b = w1(g, w->attn_norm_b, n_embd, "attn_norm.bias", il);
    if (w->qkv_split) {
        l->wq   = galloc_model_weight_2d(g, 0, n_embd, n_embd_q, "attn_q.weight", il);
        l->wk   = galloc_model_weight_2d(g, 0, n_embd, n_embd_k, "attn_k.weight", il);
        l->wv   = galloc_model_weight_2d(g, 0, n_embd, n_embd_v, "attn_v.weight", il);
        l->wq_b = w1(g, w->qkv_b, n_embd_q, "attn_q.bias", il);
        l->wk_b = w1(g, w->qkv_b, n_embd_k, "attn_k.bias", il);
        l->wv_b = w1(g, w->qkv_b, n_embd_v, "attn_v.bias", il);
    } else if (w->qkv == MODEL_W_NONE) {
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_q, n_embd_k, n_embd_v); // create_tensor_qkv: fused or separate
    } else {
        l->wqkv   = galloc_model_weight_2d(g, w->qkv, n_embd, n_embd_q + n_embd_k + n_embd_v, "attn_qkv.weight", il);
        l->wqkv_b = w1(g, w->qkv_b, n_embd_q + n_embd_k + n_embd_v, "attn_qkv.bias", il);
    }
    l->wo         = galloc_model_weight_2d(g, 0, w->wo_n_embd ? n_embd : n_embd_q, n_embd, "attn_output.weight", il);
    if (w->qk_norm_head) {
        l->attn_q_norm = galloc_model_weight_1d(g, 0, galloc_hp_n_embd_head_k(hp, i), "attn_q_norm.weight", il);
        l->attn_k_norm = galloc_model_weight_1d(g, 0, galloc_hp_n_embd_head_k(hp, i), "attn_k_norm.weight", il);
    }
    l->wo_b       = w1(g, w->wo_b, n_embd, "attn_output.bias", il);
    l->ffn_norm   = w1(g, w->ffn_norm, n_embd, "ffn_norm.weight", il);
    l->ffn_norm_b = w1(g, w->ffn_norm_b, n_embd, "ffn_norm.bias", il);
    l->ffn_gate   = w2(g, w->ffn_gate, n_embd, n_ff, "ffn_gate.weight", il);
    l->ffn_gate_b = l->ffn_gate ? w1(g, w->ffn_gate_b, n_ff, "ffn_gate.bias", il) : NULL;
    l->ffn_down   = galloc_model_weight_2d(g, 0, n_ff, n_embd, "ffn_down.weight", il);
    l->ffn_down_b = w1(g, w->ffn_down_b, n_embd, "ffn_down.bias", il);
    l->ffn_up     = galloc_model_weight_2d(g, 0, n_embd, w->ffn_up_x2 ? 2 * n_ff : n_ff, "ffn_up.weight", il);
    l->ffn_up_b   = w1(g, w->ffn_up_b, n_ff, "ffn_up.bias", il);
    if (w->rope_freqs != 0) { // one tensor shared by every layer, loaded even where the graph does not use it
        const int64_t n_rot = galloc_hp_n_rot(hp, 0);
        const int flags = MODEL_TENSOR_OPTIONAL | (il != 0 ? MODEL_TENSOR_DUPLICATED : 0);
        if (w->rope_freqs == 2 && hp->rope_scaling_type_train == MODEL_ROPE_SCALING_LONGROPE) {
            l->rope_long  = galloc_model_weight_1d(g, flags, n_rot / 2, "rope_factors_long.weight", -1);
            l->rope_short = galloc_model_weight_1d(g, flags, n_rot / 2, "rope_factors_short.weight", -1);
        } else {
            l->rope_freqs = galloc_model_weight_1d(g, flags, n_rot / 2, "rope_freqs.weight", -1);
        }
    }
}

//
// the graph
//

struct ggml_tensor * galloc_model_block_input(struct model_graph * g, struct ggml_tensor * inp_pos) {
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    if (g->failed) {
        return NULL;
    }
    if (g->pos_embd) {
        struct ggml_tensor * pos = ggml_get_rows(g->ctx, g->pos_embd, inp_pos);
        galloc_model_cb(g, pos, "pos_embd", -1);
        inpL = ggml_add(g->ctx, inpL, pos);
        galloc_model_cb(g, inpL, "inpL", -1);
    }
    if (g->tok_norm) {
        inpL = galloc_model_norm(g, inpL, g->tok_norm, g->tok_norm_b, MODEL_NORM, 0);
        galloc_model_cb(g, inpL, "inp_norm", 0);
    }
    return inpL;
}

struct ggml_tensor * galloc_model_block_attn(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur,
                                             struct ggml_tensor * inp_pos, const struct model_attn_input * attn,
                                             const struct model_block * blk, int il) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, (uint32_t) il);
    const int64_t n_head = hp->n_head[il], n_head_kv = hp->n_head_kv[il];
    struct ggml_tensor * q, * k, * v;
    galloc_model_qkv(g, l, cur, n_embd_head, n_head, n_head_kv, il, &q, &k, &v);
    if (g->failed) {
        return NULL;
    }
    if (blk->qk_norm_flat && l->attn_q_norm) { // mpt: both reshaped, both normalised, both reshaped back
        q = ggml_reshape_2d(g->ctx, q, n_embd_head * n_head, g->n_tokens);
        k = ggml_reshape_2d(g->ctx, k, n_embd_head * n_head_kv, g->n_tokens);
        q = galloc_model_norm(g, q, l->attn_q_norm, l->attn_q_norm_b, blk->norm, il);
        k = galloc_model_norm(g, k, l->attn_k_norm, l->attn_k_norm_b, blk->norm, il);
        q = ggml_reshape_3d(g->ctx, q, n_embd_head, n_head, g->n_tokens);
        k = ggml_reshape_3d(g->ctx, k, n_embd_head, n_head_kv, g->n_tokens);
    } else if (!blk->qk_norm_flat && !blk->qk_norm_after_rope) {
        if (l->attn_q_norm) {
            q = galloc_model_norm(g, q, l->attn_q_norm, l->attn_q_norm_b, blk->norm, il); // per head
            galloc_model_cb(g, q, "Qcur", il);
        }
        if (l->attn_k_norm) {
            k = galloc_model_norm(g, k, l->attn_k_norm, l->attn_k_norm_b, blk->norm, il);
            galloc_model_cb(g, k, "Kcur", il);
        }
    }
    if (blk->rope) {
        struct ggml_tensor * factors = blk->rope_factors ? galloc_model_rope_factors(g, il) : NULL;
        q = galloc_model_rope(g, q, inp_pos, factors, il);
        k = galloc_model_rope(g, k, inp_pos, factors, il);
    }
    if (blk->qk_norm_after_rope) {
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, blk->norm, il);
        galloc_model_cb(g, q, "Qcur_normed", il);
        k = galloc_model_norm(g, k, l->attn_k_norm, NULL, blk->norm, il);
        galloc_model_cb(g, k, "Kcur_normed", il);
    }
    if (blk->rope_cb_rope) {
        galloc_model_cb(g, q, "Qcur_rope", il);
        galloc_model_cb(g, k, "Kcur_rope", il);
    } else {
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
    }
    float kq_scale = blk->kq_scale_head ? 1.0f / (float) n_embd_head : 1.0f / galloc_model_sqrtf((float) n_embd_head);
    if (blk->q_prescale) { // phi2: Q scaled first (precision), the attention's scale 1
        q = ggml_scale(g->ctx, q, kq_scale);
        kq_scale = 1.0f;
    }
    struct ggml_tensor * out = galloc_model_attn(g, attn, l->wo, blk->wo_b ? l->wo_b : NULL, l->wo_s, q, k, v, NULL, kq_scale, il);
    if (blk->attn_out_cb) {
        galloc_model_cb(g, out, "attn_out", il);
    }
    return out;
}

struct ggml_tensor * galloc_model_block_ffn(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur,
                                            const struct model_block * blk, int il) {
    const bool b = blk->ffn_b, s = blk->ffn_scales;
    cur = galloc_model_ffn_act(g, cur, l->ffn_up, b ? l->ffn_up_b : NULL, s ? l->ffn_up_s : NULL, l->ffn_gate, b ? l->ffn_gate_b : NULL,
                               s ? l->ffn_gate_s : NULL, l->ffn_down, b ? l->ffn_down_b : NULL, s ? l->ffn_down_s : NULL, l->ffn_act,
                               blk->ffn_op, blk->ffn_gate, il);
    if (!blk->ffn_out_unnamed) {
        galloc_model_cb(g, cur, "ffn_out", il);
    }
    return cur;
}

struct ggml_tensor * galloc_model_block_seq(struct model_graph * g, struct ggml_tensor * inpL, struct ggml_tensor * inp_pos,
                                            const struct model_attn_input * attn, struct ggml_tensor * inp_out_ids,
                                            const struct model_block * blk, int il) {
    const struct model_layer * l = &g->layers[il];
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, blk->norm, il);
    galloc_model_cb(g, cur, "attn_norm", il);
    cur = galloc_model_block_attn(g, l, cur, inp_pos, attn, blk, il);
    if (!cur) {
        return NULL;
    }
    if (il == (int) g->hp->n_layer - 1 && inp_out_ids) {
        cur  = ggml_get_rows(g->ctx, cur, inp_out_ids);
        inpL = ggml_get_rows(g->ctx, inpL, inp_out_ids);
    }
    struct ggml_tensor * ffn_inp = ggml_add(g->ctx, cur, inpL);
    galloc_model_cb(g, ffn_inp, "ffn_inp", il);
    cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, l->ffn_norm_b, blk->norm, il);
    galloc_model_cb(g, cur, "ffn_norm", il);
    cur = galloc_model_block_ffn(g, l, cur, blk, il);
    if (!cur) {
        return NULL;
    }
    cur = ggml_add(g->ctx, cur, ffn_inp);
    galloc_model_cb(g, cur, "l_out", il);
    return cur;
}

bool galloc_model_block_output(struct model_graph * g, struct ggml_tensor * cur, enum model_norm_type norm) {
    if (g->failed) {
        return false;
    }
    cur = galloc_model_norm(g, cur, g->output_norm, g->output_norm_b, norm, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    if (g->output_b) {
        galloc_model_cb(g, cur, "result_output_no_bias", -1);
        cur = ggml_add(g->ctx, cur, g->output_b);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}
