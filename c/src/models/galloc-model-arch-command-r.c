// galloc-model-arch-command-r.c: the `command-r` architecture (Command R 35B, Command R+).
//
// As llama.cpp's src/models/command-r.cpp: a parallel block: one LayerNorm feeds both attention
// and a SwiGLU FFN, whose outputs are added to the residual together. Q and K LayerNorms per
// head in models of 64 layers or more; tied output embeddings; the logits times logit_scale.

#include "galloc-model-impl.h"

static bool command_r_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, false) &&
           galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true);
}

static bool command_r_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_embd_head_k = galloc_hp_n_embd_head_k(hp, 0);
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, MODEL_TENSOR_DUPLICATED, n_embd, n_vocab, "token_embd.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        if (hp->n_layer >= 64) {
            l->attn_q_norm = galloc_model_weight_2d(g, 0, n_embd_head_k, hp->n_head[0], "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_2d(g, 0, n_embd_head_k, hp->n_head_kv[0], "attn_k_norm.weight", il);
        }
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, hp->n_ff[i]);
    }
    return !g->failed;
}

static bool command_r_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (n_embd_head != galloc_hp_n_embd_head_k(hp, 0)) {
        galloc_model_fail(g, "command-r: head sizes differ (key %u, value %lld)", galloc_hp_n_embd_head_k(hp, 0), (long long) n_embd_head);
        return false;
    }
    struct ggml_tensor * inpL    = galloc_model_inp_embd(g, g->tok_embd);
    struct ggml_tensor * inp_pos = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * ffn_inp = cur;

        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        if (l->attn_q_norm) {
            q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM, il);
            galloc_model_cb(g, q, "Qcur", il);
        }
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        if (l->attn_k_norm) {
            k = galloc_model_norm(g, k, l->attn_k_norm, NULL, MODEL_NORM, il);
            galloc_model_cb(g, k, "Kcur", il);
        }
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, l->wo_b, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur     = ggml_get_rows(ctx, cur, inp_out_ids);
            inpL    = ggml_get_rows(ctx, inpL, inp_out_ids);
            ffn_inp = ggml_get_rows(ctx, ffn_inp, inp_out_ids);
        }
        struct ggml_tensor * attn_out = cur;
        cur = galloc_model_ffn(g, ffn_inp, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL,
                               MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, inpL);
        cur = ggml_add(ctx, cur, attn_out);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, g->output_norm, NULL, MODEL_NORM, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, g->output_s);
    if (hp->f_logit_scale != 0.0f) {
        cur = ggml_scale(ctx, cur, hp->f_logit_scale);
    }
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_command_r = {
    "command-r", MODEL_ROPE_NORM, command_r_hparams, command_r_tensors, command_r_graph,
};
