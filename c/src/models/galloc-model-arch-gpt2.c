// galloc-model-arch-gpt2.c: the sequential pre-norm architectures: `gpt2`, `starcoder`,
// `starcoder2`, `codeshell`, `jais`, `bloom`, `mpt`, `refact`, and the llama-like `qwen`,
// `baichuan`, `xverse`, `olmo`, `orion`, `exaone`, `nemotron`, `arcee`, `pangu-embedded`,
// `jais2`, `maincoder`, `nanbeige` (one loop), `deci` (uniform layers) and `chatglm`.
//
// As llama.cpp's src/models/{gpt2,starcoder,starcoder2,codeshell,jais,bloom,mpt,refact}.cpp:
// every layer is x + attn(norm(x)), then + ffn(norm(.)) (galloc_model_block_seq); they differ in
// the table below: learned positions (gpt2, starcoder, mpt), RoPE (starcoder2, codeshell), ALiBi
// (bloom, mpt, jais, refact: the softmax's max_bias), BLOOM's embedding norm, MPT's Q/K norms, KQV
// clamp and activation scales, JAIS's 1/head scale and SiLU-gated FFN, Refact's RMS norms; the
// llama-like ones a SiLU-gated (or squared-ReLU: nemotron, arcee) FFN, OLMo's weightless LayerNorms,
// Qwen's half-width FFN, Baichuan's RoPE (7B) or ALiBi (13B) by its layer count, MainCoder's Q/K
// norms after RoPE, Nanbeige's FFN scales, ChatGLM's one-projection SwiGLU.

#include "galloc-model-impl.h"

#include <string.h>

struct seq_arch {
    const char *               name;
    struct model_block_weights w;
    struct model_block         blk;
    bool                       any_rot; // RoPE on part of the head allowed (else llama.cpp asserts n_rot = head)
};

#define OPT MODEL_TENSOR_OPTIONAL
#define NO  MODEL_W_NONE

// GELU MLP with biases on a LayerNorm block, no RoPE (gpt2's)
// llama's layer: RMS norms, RoPE (or none), no output bias, a SiLU-gated FFN without biases
#define LLAMA_BLOCK(rope) { MODEL_NORM_RMS, rope, false, false, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, false, false, false }
#define GPT2_BLOCK { MODEL_NORM, false, false, true, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false }

static const struct seq_arch seq_archs[] = {
    //                 pos tok  onb  out  outb anb qkv qkvb qh     wob fn  fnb gate gateb upb downb
    { "gpt2",       { 0,  NO,  0,   OPT, NO,  0,  0,  0,   false, 0,  0,  0,  NO,  NO,   0,  0, false, false, 0, false, false, false, false }, GPT2_BLOCK, false },
    { "starcoder",  { 0,  NO,  0,   OPT, NO,  0,  0,  0,   false, 0,  0,  0,  NO,  NO,   0,  0, false, false, 0, false, false, false, false }, GPT2_BLOCK, false },
    { "starcoder2", { NO, NO,  0,   OPT, NO,  0,  NO, NO,  false, 0,  0,  0,  NO,  NO,   0,  0, false, false, 0, false, false, false, false },
      { MODEL_NORM, true, false, true, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false }, false },
    { "codeshell",  { NO, NO,  0,   0,   NO,  0,  NO, NO,  false, 0,  0,  0,  NO,  NO,   0,  0, false, false, 0, false, false, false, false },
      { MODEL_NORM, true, false, true, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false }, false },
    { "jais",       { NO, NO,  0,   0,   NO,  0,  0,  0,   false, 0,  0,  0,  0,   0,    0,  0, false, false, 0, false, false, false, false },
      { MODEL_NORM, false, false, true, false, true, MODEL_FFN_SILU, MODEL_FFN_PAR, true, false, false, false, false, false, false }, false },
    { "bloom",      { NO, 0,   0,   OPT, NO,  0,  0,  0,   false, 0,  0,  0,  NO,  NO,   0,  0, false, false, 0, false, false, false, false }, GPT2_BLOCK, false },
    { "mpt",        { OPT, NO, OPT, OPT, NO,  OPT, 0, OPT, false, OPT, 0, OPT, NO, NO,   OPT, OPT, false, false, 0, false, false, false, false },
      { MODEL_NORM, false, true, true, false, false, MODEL_FFN_GELU, MODEL_FFN_SEQ, true, false, false, false, false, false, false }, false },
    { "refact",     { NO, NO,  NO,  OPT, NO,  NO, NO, NO,  true,  OPT, 0, NO, 0,   OPT,  OPT, OPT, false, false, 2, false, false, false, false }, LLAMA_BLOCK(false), false },
    // llama-like: RMS (or LayerNorm) norms, RoPE, a SiLU-gated FFN
    { "qwen",       { NO, NO,  NO,  0,   NO,  NO, 0,  0,   false, NO, 0,  NO, 0,   NO,   NO, NO, false, true, 0, false, false, false, false }, LLAMA_BLOCK(true), true },
    { "baichuan",   { NO, NO,  NO,  0,   NO,  NO, NO, NO,  false, NO, 0,  NO, 0,   NO,   NO, NO, false, false, 0, false, false, false, false }, LLAMA_BLOCK(true), false },
    { "xverse",     { NO, NO,  NO,  0,   NO,  NO, NO, NO,  false, NO, 0,  NO, 0,   NO,   NO, NO, false, false, 0, false, false, false, false }, LLAMA_BLOCK(true), false },
    { "olmo",       { NO, NO,  NO,  OPT, NO,  NO, NO, NO,  false, NO, NO, NO, 0,   NO,   NO, NO, true, false, 0, false, false, false, false },
      { MODEL_NORM, true, false, false, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, false, false, false }, false },
    { "orion",      { NO, NO,  0,   0,   NO,  0,  NO, NO,  false, NO, 0,  0,  0,   NO,   NO, NO, false, false, 0, false, false, false, false },
      { MODEL_NORM, true, false, false, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, false, false, false }, false },
    { "exaone",     { NO, NO,  NO,  OPT, NO,  NO, NO, NO,  true,  NO, 0,  NO, 0,   NO,   NO, NO, false, false, 1, false, false, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, true, false, false, false, false, false }, false },
    // squared-ReLU MLPs
    { "nemotron",   { NO, NO,  0,   0,   NO,  0,  NO, NO,  false, OPT, 0, 0,  NO,  NO,   OPT, OPT, false, false, 0, false, false, false, false },
      { MODEL_NORM, true, false, true, false, false, MODEL_FFN_RELU_SQR, MODEL_FFN_SEQ, true, false, false, true, false, false, false }, true },
    { "arcee",      { NO, NO,  NO,  OPT, NO,  NO, NO, NO,  true,  NO, 0,  NO, NO,  NO,   NO, NO, false, false, 1, false, false, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_RELU_SQR, MODEL_FFN_SEQ, false, true, true, false, false, false, false }, false },
    // llama-like with RoPE factors, output biases, Q/K norms after RoPE, squared-ReLU MLPs
    { "pangu-embedded", { NO, NO, NO, OPT, NO, NO, NO, NO, true, 0, 0, NO, 0, NO, NO, NO, false, false, 2, false, false, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, true, false, false, true, false, false, false }, false },
    { "jais2",      { NO, NO, 0, OPT, NO, 0, NO, 0, true, 0, 0, 0, NO, NO, 0, 0, false, false, 0, true, false, false, false },
      { MODEL_NORM, true, false, true, false, false, MODEL_FFN_RELU_SQR, MODEL_FFN_SEQ, true, false, false, false, false, true, false }, false },
    { "maincoder",  { NO, NO, NO, OPT, NO, NO, NO, NO, true, NO, 0, NO, 0, NO, NO, NO, false, false, 0, false, true, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, false, false, false, false, true, false, false }, false },
    { "nanbeige",   { NO, NO, NO, OPT, NO, NO, NO, NO, true, NO, 0, NO, 0, NO, NO, NO, false, false, 1, false, false, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, true, true, true, false, false, false, true }, true },
    { "deci",       { NO, NO, NO, OPT, NO, NO, NO, NO, true, OPT, 0, NO, 0, OPT, OPT, OPT, false, false, 2, false, false, false, false },
      { MODEL_NORM_RMS, true, false, true, false, false, MODEL_FFN_SILU, MODEL_FFN_PAR, true, true, false, false, false, false, false }, false },
    // ChatGLM: one up projection for the gate and up halves of a SwiGLU
    { "chatglm",    { NO, NO, NO, OPT, NO, NO, NO, NO, true, NO, 0, NO, NO, NO, NO, NO, false, false, 0, false, false, true, true },
      { MODEL_NORM_RMS, true, false, false, false, false, MODEL_FFN_SWIGLU, MODEL_FFN_SEQ, false, false, false, false, false, false, false }, true },
};

static const struct seq_arch * seq_arch_of(const struct model_graph * g) {
    for (size_t i = 0; i < sizeof(seq_archs) / sizeof(seq_archs[0]); i++) {
        if (strcmp(seq_archs[i].name, g->m->arch->name) == 0) {
            return &seq_archs[i];
        }
    }
    return NULL;
}

//
// hyperparameters
//

static bool layer_norm_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_epsilon", &hp->f_norm_eps, true);
}

static bool jais_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return layer_norm_hparams(ml, hp) && galloc_ml_get_f32(ml, ".attention.max_alibi_bias", &hp->f_max_alibi_bias, false);
}

static bool bloom_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->f_max_alibi_bias = 8.0f; // llama.cpp's constant (no key)
    return layer_norm_hparams(ml, hp);
}

static bool mpt_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return layer_norm_hparams(ml, hp) && galloc_ml_get_f32(ml, ".attention.clamp_kqv", &hp->f_clamp_kqv, false) &&
           galloc_ml_get_f32(ml, ".attention.max_alibi_bias", &hp->f_max_alibi_bias, false);
}

static bool rms_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return galloc_ml_get_f32(ml, ".attention.layer_norm_rms_epsilon", &hp->f_norm_rms_eps, true);
}

static bool baichuan_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->f_max_alibi_bias = hp->n_layer == 40 ? 8.0f : 0.0f; // Baichuan 13B: llama.cpp's constant ALiBi
    return rms_hparams(ml, hp);
}

static bool olmo_hparams(struct model_loader * ml, struct model_hparams * hp) {
    return layer_norm_hparams(ml, hp) && galloc_ml_get_f32(ml, ".attention.clamp_kqv", &hp->f_clamp_kqv, false);
}

static bool nanbeige_hparams(struct model_loader * ml, struct model_hparams * hp) {
    uint32_t n_loops = 1;
    bool skip_final_norm = false;
    if (!rms_hparams(ml, hp) || !galloc_ml_get_u32(ml, ".num_loops", &n_loops, false) ||
        !galloc_ml_get_bool(ml, ".skip_loop_final_norm", &skip_final_norm, false)) {
        return false;
    }
    if (n_loops != 1) { // looped layers (shared weights, a norm between loops) are not built
        return galloc_model_loader_refuse(ml, "%s.num_loops: %u loops over the layers are not built by galloc", ml->arch, n_loops);
    }
    return true;
}

static bool deci_hparams(struct model_loader * ml, struct model_hparams * hp) {
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->n_ff[il] == 0) { // Nemotron-Ultra's FFN-free layers (and the attention-free ones, refused by the loader)
            return galloc_model_loader_refuse(ml, "%s.feed_forward_length: layer %u has no FFN, not built by galloc", ml->arch, il);
        }
    }
    return rms_hparams(ml, hp);
}

static bool refact_hparams(struct model_loader * ml, struct model_hparams * hp) {
    hp->f_max_alibi_bias = 8.0f; // llama.cpp's constant (no key)
    if (hp->n_expert > 0) {
        // llama.cpp loads experts for refact but its graph builds a dense FFN on them (it would crash)
        return galloc_model_loader_refuse(ml, "%s.expert_count: %u experts: refact's graph in llama.cpp has no MoE FFN", ml->arch,
                                          hp->n_expert);
    }
    return rms_hparams(ml, hp);
}

//
// tensors
//

static bool seq_tensors(struct model_graph * g) {
    const struct seq_arch * a = seq_arch_of(g);
    const struct model_hparams * hp = g->hp;
    if (strcmp(a->name, "codeshell") == 0) {
        // the embeddings, or the output head's weights when the file has none
        g->tok_embd = galloc_model_weight_2d(g, MODEL_TENSOR_OPTIONAL, hp->n_embd, hp->n_vocab, "token_embd.weight", -1);
    }
    galloc_model_weights_block_io(g, &a->w);
    if (strcmp(a->name, "codeshell") == 0 && !ggml_get_tensor(g->wctx, "token_embd.weight") && !g->failed) {
        g->tok_embd = g->output;
    }
    for (uint32_t i = 0; i < hp->n_layer && !g->failed; i++) {
        struct model_layer * l = &g->layers[i];
        const int il = (int) i;
        galloc_model_weights_block(g, l, il, &a->w);
        if (strcmp(a->name, "mpt") == 0) {
            const int64_t n_embd = hp->n_embd;
            l->attn_q_norm   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_q_norm.weight", il);
            l->attn_q_norm_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_q_norm.bias", il);
            l->attn_k_norm   = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_k_norm.weight", il);
            l->attn_k_norm_b = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, n_embd, "attn_k_norm.bias", il);
            l->ffn_act       = galloc_model_weight_1d(g, MODEL_TENSOR_OPTIONAL, hp->n_ff[i], "ffn.act.scales", il);
        }
    }
    return !g->failed;
}

//
// graph
//

static bool seq_graph(struct model_graph * g) {
    const struct seq_arch * a = seq_arch_of(g);
    const struct model_hparams * hp = g->hp;
    struct model_block blk = a->blk;
    if (strcmp(a->name, "baichuan") == 0) {
        blk.rope = hp->n_layer == 32; // Baichuan 7B ropes; 13B (40 layers) has ALiBi, and llama.cpp's unknown sizes neither
    }
    if (galloc_hp_n_embd_head_k(hp, 0) != galloc_hp_n_embd_head_v(hp, 0) ||
        (blk.rope && !a->any_rot && !galloc_model_same_head_sizes(g))) {
        galloc_model_fail(g, "%s: head sizes differ (key %u, value %u, rope %u): llama.cpp's graph asserts they agree", a->name,
                          galloc_hp_n_embd_head_k(hp, 0), galloc_hp_n_embd_head_v(hp, 0), galloc_hp_n_rot(hp, 0));
        return false;
    }
    // positions, for RoPE or the learned position embeddings (the graph's order is its edges', not the inputs')
    struct ggml_tensor * inp_pos = blk.rope || g->pos_embd ? galloc_model_inp_pos(g) : NULL;
    struct ggml_tensor * inpL = galloc_model_block_input(g, inp_pos);
    struct model_attn_input attn;
    galloc_model_attn_inp(g, &attn);
    struct ggml_tensor * inp_out_ids = galloc_model_inp_out_ids(g);
    for (int il = 0; il < (int) hp->n_layer && !g->failed; il++) {
        inpL = galloc_model_block_seq(g, inpL, inp_pos, &attn, inp_out_ids, &blk, il);
    }
    return galloc_model_block_output(g, inpL, blk.norm);
}

const struct model_arch_def galloc_model_arch_gpt2       = { "gpt2", MODEL_ROPE_NORM, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_starcoder  = { "starcoder", MODEL_ROPE_NORM, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_starcoder2 = { "starcoder2", MODEL_ROPE_NEOX, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_codeshell  = { "codeshell", MODEL_ROPE_NEOX, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_jais       = { "jais", MODEL_ROPE_NORM, jais_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_bloom      = { "bloom", MODEL_ROPE_NORM, bloom_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_mpt        = { "mpt", MODEL_ROPE_NORM, mpt_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_refact     = { "refact", MODEL_ROPE_NORM, refact_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_qwen       = { "qwen", MODEL_ROPE_NEOX, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_baichuan   = { "baichuan", MODEL_ROPE_NORM, baichuan_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_xverse     = { "xverse", MODEL_ROPE_NORM, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_olmo       = { "olmo", MODEL_ROPE_NORM, olmo_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_orion      = { "orion", MODEL_ROPE_NEOX, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_exaone     = { "exaone", MODEL_ROPE_NEOX, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_nemotron   = { "nemotron", MODEL_ROPE_NEOX, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_arcee      = { "arcee", MODEL_ROPE_NORM, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_pangu_embedded = { "pangu-embedded", MODEL_ROPE_NEOX, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_jais2     = { "jais2", MODEL_ROPE_NEOX, layer_norm_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_maincoder = { "maincoder", MODEL_ROPE_NORM, rms_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_nanbeige  = { "nanbeige", MODEL_ROPE_NORM, nanbeige_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_deci      = { "deci", MODEL_ROPE_NORM, deci_hparams, seq_tensors, seq_graph };
const struct model_arch_def galloc_model_arch_chatglm   = { "chatglm", MODEL_ROPE_NORM, rms_hparams, seq_tensors, seq_graph };
