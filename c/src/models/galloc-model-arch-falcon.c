// galloc-model-arch-falcon.c: the parallel-residual architectures: `falcon`, `plamo`, `gptneox`,
// `phi2` and `stablelm`.
//
// As llama.cpp's src/models/{falcon,gptneox,phi2,stablelm}.cpp, on the shared layer pieces
// (galloc-model-block.c): Falcon feeds one LayerNorm (two in Falcon-40B) to both attention and a
// GELU MLP and adds both to the input (PLaMo the same with RMS norms and a SiLU-gated FFN); GPT-NeoX is sequential, or parallel with
// use_parallel_residual (x + attn(ln1(x)) + ffn(ln2(x))); Phi-2 scales Q before attention and
// adds a GELU MLP on the same norm; StableLM adds Q/K norms and a SiLU-gated FFN, on the attention
// norm's output when the layer has no FFN norm (StableLM 2 12B). All have partial or full NEOX RoPE.

#include "galloc-model-impl.h"

#include <string.h>

#define OPT MODEL_TENSOR_OPTIONAL
#define NO  MODEL_W_NONE

static const struct model_block falcon_blk   = { MODEL_NORM, true, false, false, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, false, false, false, false, false, false, false };
static const struct model_block gptneox_blk  = { MODEL_NORM, true, false, true, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false };
static const struct model_block phi2_blk     = { MODEL_NORM, true, false, true, true, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false };
static const struct model_block plamo_blk    = { MODEL_NORM_RMS, true, false, false, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, false, false, false };
static const struct model_block stablelm_blk = { MODEL_NORM, true, false, false, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, false, false, false };

//                                                    pos tok onb out  outb anb qkv qkvb qh     wob fn  fnb  gate gateb upb downb
static const struct model_block_weights falcon_w   = { NO, NO, 0,  OPT, NO,  0,  0,  NO,  false, NO, NO, NO,  NO,  NO,   NO, NO, false, false, 0, false, false, false, false };
static const struct model_block_weights gptneox_w  = { NO, NO, 0,  0,   NO,  0,  0,  0,   false, 0,  0,  0,   NO,  NO,   0,  0, false, false, 0, false, false, false, false };
static const struct model_block_weights phi2_w     = { NO, NO, 0,  0,   0,   0,  NO, NO,  false, 0,  NO, NO,  NO,  NO,   0,  0, false, false, 0, false, false, false, false };
static const struct model_block_weights plamo_w    = { NO, NO, NO, 0,   NO,  NO, NO, NO,  false, NO, NO, NO,  0,   NO,   NO, NO, false, false, 0, false, false, false, false };
static const struct model_block_weights stablelm_w = { NO, NO, 0,  0,   NO,  0,  NO, NO,  false, NO, OPT, OPT, 0,  NO,   NO, NO, false, false, 0, false, false, false, false };

//
// hyperparameters
//

static bool falcon_hparams(struct model_loader * ml, struct model_hparams * hp) {
    if (hp->n_rot_full != hp->n_embd_head_k_full) { // llama.cpp's load_hparams throws for falcon (as for llama)
        return galloc_model_loader_refuse(ml, "%s.rope.dimension_count: invalid n_rot: %u, expected %u", ml->arch, hp->n_rot_full,
                                          hp->n_embd_head_k_full);
    }
    return galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true);
}

static bool layer_norm_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true);
}

static bool gptneox_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return layer_norm_hparams(ml, hp) && galloc_ml_get_bool(ml, ".use_parallel_residual", &hp->use_par_res, true);
}

//
// tensors
//

static bool block_tensors(struct model_graph * g, const struct model_block_weights * w) {
    galloc_model_weights_block_io(g, w);
    for (uint32_t i = 0; i < g->hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        galloc_model_weights_block(g, l, il, w);
        if (w == &falcon_w) { // Falcon-40B's second norm
            l->attn_norm_2   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, g->hp->n_embd, "attn_norm_2.weight", il);
            l->attn_norm_2_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, g->hp->n_embd, "attn_norm_2.bias", il);
        }
        if (w == &stablelm_w) { // StableLM 2 12B's per-head Q and K norms
            const int64_t n_embd_head_k = galloc_hp_n_embd_head_k(g->hp, i);
            l->attn_q_norm = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd_head_k, g->hp->n_head[i], "attn_q_norm.weight", il);
            l->attn_k_norm = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, n_embd_head_k, g->hp->n_head_kv[i], "attn_k_norm.weight", il);
        }
    }
    return !g->failed;
}

static bool plamo_tensors(struct model_graph * g) {
    return block_tensors(g, &plamo_w);
}

static bool rms_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool falcon_tensors(struct model_graph * g) {
    return block_tensors(g, &falcon_w);
}

static bool gptneox_tensors(struct model_graph * g) {
    return block_tensors(g, &gptneox_w);
}

static bool phi2_tensors(struct model_graph * g) {
    return block_tensors(g, &phi2_w);
}

static bool stablelm_tensors(struct model_graph * g) {
    return block_tensors(g, &stablelm_w);
}

//
// graphs
//

// the inputs every one of them builds: embeddings, positions, attention inputs, output ids
struct par_inputs {
    struct ggml_tensor * inpL, * inp_pos, * inp_out_ids;
    struct model_attn_input attn;
};

static bool par_inputs(struct model_graph * g, struct par_inputs * in, bool need_rot) {
    const struct model_hparams * hp = g->hp;
    if (galloc_hp_n_embd_head_k(hp, 0) != galloc_hp_n_embd_head_v(hp, 0) || (need_rot && !galloc_model_same_head_sizes(g))) {
        galloc_model_fail(g, "%s: head sizes differ (key %u, value %u, rope %u): llama.cpp's graph asserts they agree",
                          g->m->arch->name, galloc_hp_n_embd_head_k(hp, 0), galloc_hp_n_embd_head_v(hp, 0), galloc_hp_n_rot(hp, 0));
        return false;
    }
    in->inpL    = galloc_model_inp_embd(g, g->tok_embd);
    in->inp_pos = galloc_model_inp_pos(g);
    galloc_model_attn_inp(g, &in->attn);
    in->inp_out_ids = galloc_model_inp_out_ids(g);
    return !g->failed;
}

static bool last_layer(const struct model_graph * g, const struct par_inputs * in, int il) {
    return il == (int) g->hp->n_layer - 1 && in->inp_out_ids;
}

// falcon's and plamo's layer: x + attn(norm(x)) + ffn(norm(x)), on one norm (two in Falcon-40B)
static bool par_norm_graph(struct model_graph * g, const struct model_block * blk) {
    struct par_inputs in;
    if (!par_inputs(g, &in, true)) {
        return false;
    }
    struct ggml_tensor * inpL = in.inpL;
    for (int il = 0; il < (int) g->hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * attn_norm = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, blk->norm, il);
        galloc_model_cb(g, attn_norm, "attn_norm", il);
        struct ggml_tensor * cur = attn_norm;
        if (l->attn_norm_2) { // Falcon-40B
            cur = galloc_model_norm(g, inpL, l->attn_norm_2, l->attn_norm_2_b, blk->norm, il);
            galloc_model_cb(g, cur, "attn_norm_2", il);
        }
        cur = galloc_model_block_attn(g, l, cur, in.inp_pos, &in.attn, blk, il);
        if (!cur) {
            break;
        }
        if (last_layer(g, &in, il)) {
            cur       = ggml_get_rows(g->ctx, cur, in.inp_out_ids);
            inpL      = ggml_get_rows(g->ctx, inpL, in.inp_out_ids);
            attn_norm = ggml_get_rows(g->ctx, attn_norm, in.inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = cur;
        cur = galloc_model_block_ffn(g, l, attn_norm, blk, il); // on the attention's norm
        if (!cur) {
            break;
        }
        cur = ggml_add(g->ctx, cur, ffn_inp);
        cur = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return galloc_model_block_output(g, inpL, blk->norm);
}

static bool falcon_graph(struct model_graph * g) {
    return par_norm_graph(g, &falcon_blk);
}

static bool plamo_graph(struct model_graph * g) {
    return par_norm_graph(g, &plamo_blk);
}

static bool gptneox_graph(struct model_graph * g) {
    struct par_inputs in;
    if (!par_inputs(g, &in, false)) {
        return false;
    }
    struct ggml_tensor * inpL = in.inpL;
    for (int il = 0; il < (int) g->hp->n_layer && !g->failed; il++) {
        if (!g->hp->use_par_res) {
            inpL = galloc_model_block_seq(g, inpL, in.inp_pos, &in.attn, in.inp_out_ids, &gptneox_blk, il);
            continue;
        }
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, MODEL_NORM, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        cur = galloc_model_block_attn(g, l, cur, in.inp_pos, &in.attn, &gptneox_blk, il);
        if (!cur) {
            break;
        }
        if (last_layer(g, &in, il)) {
            cur  = ggml_get_rows(g->ctx, cur, in.inp_out_ids);
            inpL = ggml_get_rows(g->ctx, inpL, in.inp_out_ids);
        }
        // x + attn(ln1(x)) + ffn(ln2(x))
        struct ggml_tensor * attn_out = cur;
        cur = galloc_model_norm(g, inpL, l->ffn_norm, l->ffn_norm_b, MODEL_NORM, il);
        galloc_model_cb(g, cur, "ffn_norm", il);
        cur = galloc_model_block_ffn(g, l, cur, &gptneox_blk, il);
        if (!cur) {
            break;
        }
        cur = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, cur, "ffn_out", il);
        cur = ggml_add(g->ctx, cur, attn_out);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return galloc_model_block_output(g, inpL, MODEL_NORM);
}

static bool phi2_graph(struct model_graph * g) {
    struct par_inputs in;
    if (!par_inputs(g, &in, false)) {
        return false;
    }
    struct ggml_tensor * inpL = in.inpL;
    for (int il = 0; il < (int) g->hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * attn_norm = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, MODEL_NORM, il);
        galloc_model_cb(g, attn_norm, "attn_norm", il);
        struct ggml_tensor * cur = galloc_model_block_attn(g, l, attn_norm, in.inp_pos, &in.attn, &phi2_blk, il);
        if (!cur) {
            break;
        }
        if (last_layer(g, &in, il)) {
            cur       = ggml_get_rows(g->ctx, cur, in.inp_out_ids);
            inpL      = ggml_get_rows(g->ctx, inpL, in.inp_out_ids);
            attn_norm = ggml_get_rows(g->ctx, attn_norm, in.inp_out_ids);
        }
        struct ggml_tensor * ffn_out = galloc_model_block_ffn(g, l, attn_norm, &phi2_blk, il);
        if (!ffn_out) {
            break;
        }
        cur = ggml_add(g->ctx, cur, ffn_out);
        cur = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return galloc_model_block_output(g, inpL, MODEL_NORM);
}

static bool stablelm_graph(struct model_graph * g) {
    struct par_inputs in;
    if (!par_inputs(g, &in, false)) {
        return false;
    }
    struct ggml_tensor * inpL = in.inpL;
    for (int il = 0; il < (int) g->hp->n_layer && !g->failed; il++) {
        const struct model_layer * l = &g->layers[il];
        struct ggml_tensor * cur = galloc_model_norm(g, inpL, l->attn_norm, l->attn_norm_b, MODEL_NORM, il);
        galloc_model_cb(g, cur, "attn_norm", il);
        struct ggml_tensor * inpSA = cur;
        cur = galloc_model_block_attn(g, l, cur, in.inp_pos, &in.attn, &stablelm_blk, il);
        if (!cur) {
            break;
        }
        if (last_layer(g, &in, il)) {
            cur   = ggml_get_rows(g->ctx, cur, in.inp_out_ids);
            inpL  = ggml_get_rows(g->ctx, inpL, in.inp_out_ids);
            inpSA = ggml_get_rows(g->ctx, inpSA, in.inp_out_ids);
        }
        struct ggml_tensor * ffn_inp = ggml_add(g->ctx, cur, inpL);
        galloc_model_cb(g, ffn_inp, "ffn_inp", il);
        if (l->ffn_norm) {
            cur = galloc_model_norm(g, ffn_inp, l->ffn_norm, l->ffn_norm_b, MODEL_NORM, il);
            galloc_model_cb(g, cur, "ffn_norm", il);
        } else {
            cur = inpSA; // parallel residual (StableLM 2 12B)
        }
        cur = galloc_model_block_ffn(g, l, cur, &stablelm_blk, il);
        if (!cur) {
            break;
        }
        cur = ggml_add(g->ctx, cur, ffn_inp);
        galloc_model_cb(g, cur, "l_out", il);
        inpL = cur;
    }
    return galloc_model_block_output(g, inpL, MODEL_NORM);
}

const struct model_arch_def galloc_model_arch_falcon   = { "falcon", MODEL_ROPE_NEOX, falcon_hparams, falcon_tensors, falcon_graph };
const struct model_arch_def galloc_model_arch_gptneox  = { "gptneox", MODEL_ROPE_NEOX, gptneox_hparams, gptneox_tensors, gptneox_graph };
const struct model_arch_def galloc_model_arch_phi2     = { "phi2", MODEL_ROPE_NEOX, layer_norm_hparams, phi2_tensors, phi2_graph };
const struct model_arch_def galloc_model_arch_stablelm = { "stablelm", MODEL_ROPE_NEOX, layer_norm_hparams, stablelm_tensors, stablelm_graph };
const struct model_arch_def galloc_model_arch_plamo    = { "plamo", MODEL_ROPE_NEOX, rms_hparams, plamo_tensors, plamo_graph };
