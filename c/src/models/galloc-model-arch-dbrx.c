// galloc-model-arch-dbrx.c: the `dbrx` architecture (DBRX).
//
// As llama.cpp's src/models/dbrx.cpp: LayerNorm (no bias) before attention and before the experts,
// a fused QKV projection clamped to attention.clamp_kqv, NeoX RoPE over the whole head, then
// softmax-routed SwiGLU experts with renormalised weights and no dense FFN.

#include "galloc-model-impl.h"

static bool dbrx_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (!galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true) ||
        !galloc_ml_get_f32(ml, ".attention.clamp_kqv", &hp->f_clamp_kqv, true)) {
        return false;
    }
    if (hp->n_expert == 0) {
        return galloc_model_loader_refuse(ml, "%s.expert_count: 0 (llama.cpp: DBRX model cannot have zero experts)", ml->arch);
    }
    return true;
}

static bool dbrx_tensors(struct model_graph * g) {
    const struct model_hparams * hp = g->hp;
    const int64_t n_embd = hp->n_embd, n_expert = hp->n_expert;
    g->tok_embd    = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "token_embd.weight", -1);
    g->output_norm = galloc_model_weight_1d(g, 0, n_embd, "output_norm.weight", -1);
    g->output      = galloc_model_weight_2d(g, 0, n_embd, hp->n_vocab, "output.weight", -1);
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        const int64_t n_ff = hp->n_ff[i];
        l->attn_norm     = galloc_model_weight_1d(g, 0, n_embd, "attn_norm.weight", il);
        l->wqkv          = galloc_model_weight_2d(g, 0, n_embd, n_embd + 2 * (int64_t) galloc_hp_n_embd_v_gqa(hp, i), "attn_qkv.weight", il);
        l->wo            = galloc_model_weight_2d(g, 0, n_embd, n_embd, "attn_output.weight", il);
        l->attn_out_norm = galloc_model_weight_1d(g, 0, n_embd, "attn_output_norm.weight", il);
        l->ffn_gate_inp  = galloc_model_weight_2d(g, 0, n_embd, n_expert, "ffn_gate_inp.weight", il);
        l->ffn_gate_exps = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_gate_exps.weight", il);
        l->ffn_down_exps = galloc_model_weight_3d(g, 0, n_ff, n_embd, n_expert, "ffn_down_exps.weight", il);
        l->ffn_up_exps   = galloc_model_weight_3d(g, 0, n_embd, n_ff, n_expert, "ffn_up_exps.weight", il);
    }
    return !g->failed;
}

static bool dbrx_graph(struct model_graph * g) {
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
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, NULL, MODEL_NORM, il);
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
        cur = galloc_model_norm(g, ffn_inp, l->attn_out_norm, NULL, MODEL_NORM, il);
        galloc_model_cb(g, cur, "attn_out_norm", il);
        cur = galloc_model_moe_ffn(g, cur, l->ffn_gate_inp, NULL, l->ffn_up_exps, NULL, l->ffn_gate_exps, NULL, l->ffn_down_exps, NULL,
                                   hp->n_expert, g->n_expert_used, MODEL_FFN_SILU, true, hp->expert_weights_scale,
                                   MODEL_GATING_SOFTMAX, NULL, il);
        if (!cur) {
            break;
        }
        galloc_model_cb(g, cur, "ffn_moe_out", il);
        cur = ggml_add(ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "ffn_out", il);
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
    galloc_model_cb(g, cur, "result_output", -1);
    ggml_set_output(cur);
    ggml_build_forward_expand(g->gf, cur);
    return !g->failed;
}

const struct model_arch_def galloc_model_arch_dbrx = {
    "dbrx", MODEL_ROPE_NEOX, dbrx_hparams, dbrx_tensors, dbrx_graph,
};
