// galloc-model-arch-talkie.c: the `talkie` architecture.
//
// As llama.cpp's src/models/talkie.cpp: weightless RMS norms everywhere (the input embeddings,
// each layer's attention and FFN inputs, the output); NEOX RoPE, then Q normalised with one gain
// per head and K without one; a SiLU-gated FFN with only the down projection's scale; each layer
// adds the normalised input embeddings times its layer_output_scale; the logits times logit_scale.

#include "galloc-model-impl.h"

static bool talkie_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true) &&
           galloc_ml_get_f32(ml, ".logit_scale", &hp->f_logit_scale, true);
}

static bool talkie_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd;
    g->tok_embd = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output   = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(hp, i);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd_head_k * hp->n_head[i], galloc_hp_n_embd_v_gqa(hp, i),
                                 galloc_hp_n_embd_v_gqa(hp, i));
        l->wo          = galloc_model_weight_2d(g, 0, n_embd_head_k * hp->n_head[i], n_embd, "attn_output.weight", il);
        l->attn_q_norm = galloc_model_weight_2d(g, 0, 1, hp->n_head[i], "attn_q_norm.weight", il); // one gain per head
        l->ffn_gate    = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff[i], "ffn_gate.weight", il);
        l->ffn_up      = galloc_model_weight_2d(g, 0, n_embd, hp->n_ff[i], "ffn_up.weight", il);
        l->ffn_down    = galloc_model_weight_2d(g, 0, hp->n_ff[i], n_embd, "ffn_down.weight", il);
        l->out_scale   = galloc_model_weight_1d(g, 0, 1, "layer_output_scale.weight", il);
    }
    return !g->failed;
}

static bool talkie_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    const int64_t n_embd_head = galloc_hp_n_embd_head_k(hp, 0);
    struct ggml_tensor * inpL = galloc_model_inp_embd(g, g->tok_embd);
    inpL = galloc_model_norm(g, inpL, NULL, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, inpL, "inp_norm", -1);
    struct ggml_tensor * embd_skip = inpL;
    struct ggml_tensor * inp_pos   = galloc_model_inp_pos(g);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    const float kq_scale = 1.0f / galloc_model_sqrtf((float) n_embd_head);

    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * inpSA = inpL, * inp_skip = embd_skip;
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, NULL, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[il], hp->n_head_kv[il], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        q = galloc_model_norm(g, q, l->attn_q_norm, NULL, MODEL_NORM_RMS, il); // after RoPE, as the reference
        galloc_model_cb(g, q, "Qcur_norm", il);
        k = galloc_model_norm(g, k, NULL, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, k, "Kcur_norm", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, kq_scale, il);
        galloc_model_cb(g, cur, "attn_out", il);
        if (!cur) {
            break;
        }
        if (il == (int) hp->n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx, cur, inp_out_ids);
            inpSA    = ggml_get_rows(ctx, inpSA, inp_out_ids);
            inp_skip = ggml_get_rows(ctx, inp_skip, inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(ctx, cur, inpSA);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        cur = galloc_model_norm(g, ffn_inp, NULL, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, l->ffn_down_s,
                               MODEL_FFN_SILU, MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        if (!cur) {
            break;
        }
        cur = ggml_add(ctx, cur, ffn_inp);
        struct ggml_tensor * skip = ggml_mul(ctx, inp_skip, l->out_scale);
        galloc_model_cb(g, skip, "embd_skip", il);
        cur = ggml_add(ctx, cur, skip);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    if (g->failed) {
        return false;
    }
    struct ggml_tensor * cur = galloc_model_norm(g, inpL, NULL, NULL, MODEL_NORM_RMS, -1);
    galloc_model_cb(g, cur, "result_norm", -1);
    ggml_set_output(cur);
    cur = galloc_model_mm(g, g->output, cur, NULL);
    cur = ggml_scale(ctx, cur, hp->f_logit_scale);
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_talkie = {
    "talkie", MODEL_ROPE_NEOX, talkie_hparams, talkie_tensors, talkie_graph,
};
