// galloc-model-place-tensors.c: llama.cpp's tensor infos (llm_tensor_info_for) by GGUF name.
//
// Which layer a weight belongs to (the input layer, the output layer, or a repeating layer of
// blk.N) decides its buffer type list in llama_model_loader::create_tensor; the op it is used
// with decides whether a device's supports_op takes it. This is llama-arch.cpp's
// LLM_TENSOR_INFOS at 3f545bec, keyed by LLM_TENSOR_NAMES' text for decoder tensors (blk.%d.NAME
// and top-level names; the encoder, decoder-of-T5 and audio tensors are left out). Two names
// are ambiguous there: token_embd_norm (see its row) and ssm_a (its op).

#include "galloc-model-place-impl.h"

#include <string.h>

static const struct place_tensor_info tensor_infos[] = {
    { "token_embd", LAYER_INPUT, GGML_OP_GET_ROWS },
    { "output_norm", LAYER_OUTPUT, GGML_OP_MUL },
    { "token_embd_norm", LAYER_REPEATING, GGML_OP_MUL }, // TOKEN_EMBD_NORM at layer 0; LFM2's output norm (OUTPUT_NORM_LFM2) is found as the output norm
    { "output", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "rope_freqs", LAYER_REPEATING, GGML_OP_ROPE },
    { "attn_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_q", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_k", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_v", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_output", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_gate_inp", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ffn_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_down", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_up", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_gate_exps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "ffn_gate_up_exps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "ffn_down_exps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "ffn_up_exps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "post_attention_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_q_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_k_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "post_ffw_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "post_ffw_norm_1", LAYER_REPEATING, GGML_OP_MUL },
    { "post_ffw_norm_2", LAYER_REPEATING, GGML_OP_MUL },
    { "pre_ffw_norm_2", LAYER_REPEATING, GGML_OP_MUL },
    { "ffn_gate_shexp", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_up_shexp", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_down_shexp", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "exp_probs_b", LAYER_REPEATING, GGML_OP_ADD },
    { "ffn_latent_down", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_latent_up", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_norm_2", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_qkv", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "layer_output_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "layer_output_scale", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_output_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "position_embd", LAYER_INPUT, GGML_OP_GET_ROWS },
    { "ffn.act", LAYER_REPEATING, GGML_OP_DIV },
    { "token_types", LAYER_INPUT, GGML_OP_GET_ROWS },
    { "cls", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "cls.output", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "cls.norm", LAYER_OUTPUT, GGML_OP_MUL },
    { "ffn_gate_inp_shexp", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_a", LAYER_REPEATING, GGML_OP_COUNT }, // SSM_A_NOSCAN (MUL) or SSM_A (SSM_SCAN): the op is not known by name
    { "ssm_conv1d", LAYER_REPEATING, GGML_OP_SSM_CONV },
    { "ssm_dt", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_ba", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_alpha", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_in", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_out", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "rope_factors_long", LAYER_REPEATING, GGML_OP_ROPE },
    { "rope_factors_short", LAYER_REPEATING, GGML_OP_ROPE },
    { "ssm_x", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_d", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_dt_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_b_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_c_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_conv1d_q", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_conv1d_k", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_conv1d_v", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_f_a", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_f_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_beta", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_g_a", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ssm_g", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_res_score", LAYER_REPEATING, GGML_OP_MUL },
    { "ffn_res_score", LAYER_REPEATING, GGML_OP_MUL },
    { "output_res_score", LAYER_OUTPUT, GGML_OP_MUL },
    { "ffn_routed_down", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_routed_up", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_routed_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ssm_g_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_q_a_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_kv_a_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_q_a", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_q_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_kv_a_mqa", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_kv_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_kv", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_output_a", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_output_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "output_hc_fn", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "output_hc_base", LAYER_OUTPUT, GGML_OP_ADD },
    { "output_hc_scale", LAYER_OUTPUT, GGML_OP_MUL },
    { "hc_attn_fn", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "hc_attn_base", LAYER_REPEATING, GGML_OP_ADD },
    { "hc_attn_scale", LAYER_REPEATING, GGML_OP_MUL },
    { "hc_ffn_fn", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "hc_ffn_base", LAYER_REPEATING, GGML_OP_ADD },
    { "hc_ffn_scale", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_compressor_kv", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_compressor_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_compressor_ape", LAYER_REPEATING, GGML_OP_GET_ROWS },
    { "attn_compressor_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "per_layer_token_embd", LAYER_INPUT, GGML_OP_GET_ROWS },
    { "per_layer_model_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "per_layer_proj_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "altup_unembd_proj", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "altup_proj", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "inp_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "post_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "altup_correct_coef", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "altup_correct_scale", LAYER_REPEATING, GGML_OP_MUL },
    { "altup_predict_coef", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "altup_router", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "altup_router_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "laurel_l", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "laurel_r", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "laurel_post_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "dense_2", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "dense_3", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "ffn_norm_exps", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_k_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "attn_v_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "nextn.pre_projection", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "nextn.post_projection", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "nextn.eh_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "nextn.embed_tokens", LAYER_REPEATING, GGML_OP_GET_ROWS },
    { "nextn.enorm", LAYER_REPEATING, GGML_OP_MUL },
    { "nextn.hnorm", LAYER_REPEATING, GGML_OP_MUL },
    { "nextn.shared_head_head", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "nextn.shared_head_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "attn_sub_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ffn_sub_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "time_mix_w1", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_w2", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_lerp_x", LAYER_REPEATING, GGML_OP_MUL },
    { "time_mix_lerp_w", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_lerp_k", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_lerp_v", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_lerp_r", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_lerp_g", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_lerp_fused", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_first", LAYER_REPEATING, GGML_OP_RWKV_WKV6 },
    { "time_mix_decay", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_decay_w1", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_decay_w2", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_key", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_value", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_receptance", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_ln", LAYER_REPEATING, GGML_OP_MUL },
    { "time_mix_output", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "channel_mix_lerp_k", LAYER_REPEATING, GGML_OP_MUL },
    { "channel_mix_lerp_r", LAYER_REPEATING, GGML_OP_MUL },
    { "channel_mix_key", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "channel_mix_value", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "channel_mix_receptance", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_w0", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_a0", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_a1", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_a2", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_v0", LAYER_REPEATING, GGML_OP_ADD },
    { "time_mix_v1", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_v2", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_g1", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_g2", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "time_mix_k_k", LAYER_REPEATING, GGML_OP_MUL },
    { "time_mix_k_a", LAYER_REPEATING, GGML_OP_MUL },
    { "time_mix_r_k", LAYER_REPEATING, GGML_OP_MUL },
    { "conv1d", LAYER_REPEATING, GGML_OP_IM2COL },
    { "attn_sinks", LAYER_REPEATING, GGML_OP_SCALE },
    { "shortconv.conv", LAYER_REPEATING, GGML_OP_SSM_CONV },
    { "shortconv.in_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "shortconv.out_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "ffn_gate_chexps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "ffn_down_chexps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "ffn_up_chexps", LAYER_REPEATING, GGML_OP_MUL_MAT_ID },
    { "vis_attn_qkv", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "vis_attn_output", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "vis_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "vis_down", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "vis_up", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.k_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "indexer.proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.attn_k", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.attn_q_b", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.q_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.k_proj", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer.q_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "indexer_compressor_kv", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer_compressor_gate", LAYER_REPEATING, GGML_OP_MUL_MAT },
    { "indexer_compressor_ape", LAYER_REPEATING, GGML_OP_GET_ROWS },
    { "indexer_compressor_norm", LAYER_REPEATING, GGML_OP_MUL },
    { "ffn_gate_tid2eid", LAYER_REPEATING, GGML_OP_GET_ROWS },
    { "masked_embd_centroids", LAYER_INPUT, GGML_OP_NONE },
    { "masked_embd_ordering", LAYER_INPUT, GGML_OP_NONE },
    { "fc", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "d2t", LAYER_OUTPUT, GGML_OP_GET_ROWS },
    { "markov_w1", LAYER_OUTPUT, GGML_OP_GET_ROWS },
    { "markov_w2", LAYER_OUTPUT, GGML_OP_MUL_MAT },
    { "conf_proj", LAYER_OUTPUT, GGML_OP_MUL_MAT },
};

const struct place_tensor_info * galloc_place_tensor_info(const char * base) {
    for (size_t i = 0; i < sizeof(tensor_infos) / sizeof(tensor_infos[0]); i++) {
        if (strcmp(tensor_infos[i].name, base) == 0) {
            return &tensor_infos[i];
        }
    }
    return NULL;
}

bool galloc_place_split_name(const char * name, int * il, char * base, size_t base_size, char * suffix, size_t suffix_size) {
    const char * p = name;
    *il = -1;
    if (strncmp(p, "blk.", 4) == 0) {
        p += 4;
        int v = 0, digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 6) {
            v = v * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || *p != '.') {
            return false;
        }
        *il = v;
        p++;
    }
    // the suffix, when the name has one llama.cpp gives (some tensors have none: blk.N.ssm_a)
    static const char * const suffixes[] = { "weight", "bias", "scale", "scales", "input_scale" }; // scales: MPT's ffn.act.scales
    const char * dot = strrchr(p, '.');
    bool has_suffix = false;
    for (size_t i = 0; dot && i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        has_suffix = has_suffix || strcmp(dot + 1, suffixes[i]) == 0;
    }
    const char * end = has_suffix ? dot : p + strlen(p);
    if (end == p || (size_t) (end - p) >= base_size || suffix_size < 12) {
        return false;
    }
    memcpy(base, p, (size_t) (end - p));
    base[end - p] = '\0';
    strcpy(suffix, has_suffix ? dot + 1 : "");
    return true;
}
