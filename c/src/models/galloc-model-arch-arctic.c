// galloc-model-arch-arctic.c: the `arctic` architecture (Snowflake Arctic).
//
// As llama.cpp's src/models/arctic.cpp: llama's attention, then a dense SwiGLU FFN of n_embd x
// n_embd on the residual stream and, in parallel, softmax-routed experts (renormalised weights)
// on the layer's input RMS-normalised by ffn_norm_exps; both added to the residual.

#include "galloc-model-impl.h"

static bool arctic_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool arctic_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert;
    galloc_model_weights_io(g, false);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i], n_embd_gqa = galloc_hp_n_embd_v_gqa(hp, i);
        l->attn_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        galloc_model_weights_qkv(g, l, il, n_embd, n_embd, n_embd_gqa, n_embd_gqa);
        l->wo       = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->ffn_norm = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm.weight", il);
        galloc_model_weights_ffn(g, l, il, n_embd, n_embd);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_norm_exps = galloc_model_weight_1d(g, 0, n_embd, "ffn_norm_exps.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
    }
    return !g->failed;
}

static bool arctic_graph(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    struct ggml_context * ctx = g->ctx;
    const int64_t n_embd_head = galloc_hp_n_embd_head_v(hp, 0);
    if (!galloc_model_same_head_sizes(g)) {
        return false;
    }
    if (hp->n_expert == 0) {
        galloc_model_fail(g, "%s.expert_count: 0 (llama.cpp's build_moe_ffn would abort); %s", g->m->arch->name, GALLOC_MODEL_CAPTURE_HINT);
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
        struct ggml_tensor * q, * k, * v;
        galloc_model_qkv(g, l, cur, n_embd_head, hp->n_head[0], hp->n_head_kv[0], il, &q, &k, &v);
        q = galloc_model_rope(g, q, inp_pos, NULL, il);
        k = galloc_model_rope(g, k, inp_pos, NULL, il);
        galloc_model_cb(g, q, "Qcur", il);
        galloc_model_cb(g, k, "Kcur", il);
        galloc_model_cb(g, v, "Vcur", il);
        cur = galloc_model_attn(g, &attn, l->wo, NULL, l->wo_s, q, k, v, NULL, 1.0f / galloc_model_sqrtf((float) n_embd_head), il);
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
        cur = galloc_model_ffn(g, cur, l->ffn_up, NULL, NULL, l->ffn_gate, NULL, NULL, l->ffn_down, NULL, NULL, MODEL_FFN_SILU,
                               MODEL_FFN_PAR, il);
        galloc_model_cb(g, cur, "ffn_out", il);
        struct ggml_tensor * ffn_out = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, ffn_out, "ffn_out", il);

        cur = galloc_model_norm(g, inpSA, l->ffn_norm_exps, NULL, MODEL_NORM_RMS, il);
        galloc_model_cb(g, cur, "ffn_norm_exps", il);
        cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL, l->ffn_down_exps, NULL,
                                   hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, true, hp->expert_weights_scale,
                                   MODEL_GATING_SOFTMAX, NULL, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "ffn_moe_out", il);
        cur = ggml_add(ctx, cur, ffn_out);
        galloc_model_cb(g, cur, "ffn_out", il);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return !g->failed && galloc_model_logits(g, inpL, 0.0f);
}

const struct model_arch_def galloc_model_arch_arctic = {
    "arctic", MODEL_ROPE_NORM, arctic_hparams, arctic_tensors, arctic_graph,
};
