// galloc-model-impl.h: what the model builders share (private to the models layer).
//
// The shape of llama.cpp's code, in C: hyperparameters (llama_hparams) read by a loader with
// llama.cpp's keys and defaults, context parameters (llama_cparams) derived from the settings,
// KV caches (llama_kv_cache, two of them for sliding-window models), and a graph builder
// (llm_graph_context) whose shared blocks the architecture files compose. Each architecture is
// a `struct model_arch_def`: its name, its hyperparameter keys, its tensors and its graph.

#pragma once

#include "galloc-model.h"
#include "galloc-status.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_LAYERS  512  // LLAMA_MAX_LAYERS
#define MODEL_MAX_EXPERTS 1024 // LLAMA_MAX_EXPERTS
#define MODEL_MAX_TENSORS (MODEL_MAX_LAYERS * 64 + 64)

// the end of every refusal of a model galloc cannot build exactly: where llama.cpp's own graph comes from
#define GALLOC_MODEL_CAPTURE_HINT \
    "for this model's graph, run llama.cpp under the capture library (LD_PRELOAD=libgalloc-capture.so " \
    "llama-fit-params -m MODEL --fit-print on; docs/capture.md)"

enum model_rope_type { MODEL_ROPE_NORM = 0, MODEL_ROPE_NEOX = 2, MODEL_ROPE_MROPE = 8, MODEL_ROPE_IMROPE = 40 };
enum model_swa_type  { MODEL_SWA_NONE = 0, MODEL_SWA_STANDARD = 1, MODEL_SWA_CHUNKED = 2 };
enum model_rope_scaling { MODEL_ROPE_SCALING_NONE, MODEL_ROPE_SCALING_LINEAR, MODEL_ROPE_SCALING_YARN,
                          MODEL_ROPE_SCALING_LONGROPE };

// llama_hparams: the part the compute graph depends on
struct model_hparams {
    uint32_t n_ctx_train;
    uint32_t n_embd;
    uint32_t n_layer;
    uint32_t n_vocab;
    uint32_t n_cls_out;  // classifier outputs (rerank heads): the labels, 1 without
    uint32_t n_expert, n_expert_used, n_expert_groups, n_group_used;
    uint32_t n_ff_exp, n_ff_shexp;
    uint32_t n_head[MODEL_MAX_LAYERS], n_head_kv[MODEL_MAX_LAYERS], n_ff[MODEL_MAX_LAYERS];
    uint32_t n_embd_head_k_full, n_embd_head_v_full, n_rot_full;
    uint32_t n_embd_head_k_swa,  n_embd_head_v_swa,  n_rot_swa;
    bool     causal_attn;
    float    f_norm_rms_eps;
    float    rope_freq_base_train, rope_freq_scale_train;
    float    rope_freq_base_train_swa, rope_freq_scale_train_swa;
    enum model_rope_scaling rope_scaling_type_train;
    uint32_t n_ctx_orig_yarn;
    float    rope_attn_factor, rope_yarn_log_mul;
    float    yarn_ext_factor, yarn_attn_factor, yarn_beta_fast, yarn_beta_slow;
    float    f_attention_scale;
    float    f_final_logit_softcapping;
    bool     attn_soft_cap;            // gemma2: attention logits soft-capped at f_attn_logit_softcapping
    float    f_attn_logit_softcapping;
    float    expert_weights_scale;
    enum model_swa_type swa_type;
    uint32_t n_swa;
    bool     is_swa[MODEL_MAX_LAYERS];
    enum model_rope_type rope_type;
    uint32_t n_moe_layer_step;       // every n-th layer is MoE (llama4; 0: none)
    uint32_t n_no_rope_layer_step;   // every n-th layer skips RoPE (llama.cpp's default 4)
    bool     use_kq_norm;            // llama4: Q and K RMS-normalised after RoPE
    uint32_t n_layer_dense_lead;     // the first layers with a dense FFN (deepseek, ...)
    uint32_t n_layer_nextn;          // NextN (MTP) blocks after the others (glm4moe): in the KV cache, not in the graph,
                                     // their tensors skipped (llama.cpp's TENSOR_SKIP: not loaded, not counted)
    uint32_t n_expert_shared;        // shared experts, one FFN of n_ff_exp each (deepseek)
    uint32_t rope_sections[4];       // multimodal RoPE's sections (qwen3vl, glm4)
    uint32_t n_deepstack_layers;     // qwen3vl: layers adding a slice of the (wider) input embeddings
    float    f_norm_eps;             // LayerNorm's epsilon (attention.layer_norm_epsilon)
    float    f_logit_scale, f_residual_scale, f_embedding_scale; // granite, command-r
    bool     no_rope;                // granite: rope.scaling.finetuned false, no RoPE anywhere
    bool     expert_weights_norm;    // the experts' weights renormalised (expert_weights_norm)
    uint32_t expert_gating_func;     // llama.cpp's llama_expert_gating_func_type (expert_gating_func)
    uint32_t n_lora_q, n_lora_kv;    // MLA: the ranks of Q's and KV's low-rank projections
    uint32_t n_embd_head_k_mla, n_embd_head_v_mla; // MLA: the heads' sizes once decompressed (0: no MLA)
    float    f_attn_temp_scale;      // attention temperature tuning (deepseek2; 0: none)
    // recurrent layers (llama_hparams' ssm_* and friends); is_recr: the layer keeps a recurrent state
    uint32_t ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_dt_rank, ssm_n_group;
    uint32_t n_shortconv_l_cache; // LFM2's short convolutions: their kernel length (0: none)
    bool     ssm_dt_b_c_rms;
    bool     is_recr[MODEL_MAX_LAYERS];
    bool     has_rope;               // granitehybrid: RoPE on (rope.scaling.finetuned, true by default)
    float    f_clamp_kqv;            // Q, K and V clamped to [-c, c] after their projections (mpt; 0: none)
    float    f_max_alibi_bias;       // ALiBi's maximum bias, the softmax's max_bias (mpt, bloom, jais, refact; 0: none)
    bool     use_par_res;            // gptneox: attention and FFN in parallel on the same input
    uint32_t n_embd_head_kda;        // Kimi delta attention's head size (kda.head_dim; 0: none)
    bool     attn_grok;              // llama.cpp's LLM_ARCH_GROK logits: softcap * tanh(kq * f_attn_out_scale / softcap)
    float    f_attn_out_scale;
    uint32_t n_ff_chexp, n_group_experts; // grovemoe: the chunk experts' FFN size, experts per group
    float    expert_group_scale;          // grovemoe: the chunk experts' output scale
};

// llama_hparams::is_mla: multi-head latent attention (a K-only cache of latent rows)
bool galloc_hp_is_mla(const struct model_hparams * hp);

// llama_hparams::use_mrope: the file has multimodal RoPE sections
bool galloc_hp_use_mrope(const struct model_hparams * hp);

// per-layer hyperparameters, as llama_hparams computes them
uint32_t galloc_hp_n_embd_head_k(const struct model_hparams * hp, uint32_t il);
uint32_t galloc_hp_n_embd_head_v(const struct model_hparams * hp, uint32_t il);
uint32_t galloc_hp_n_rot        (const struct model_hparams * hp, uint32_t il);
uint32_t galloc_hp_n_embd_k_gqa (const struct model_hparams * hp, uint32_t il);
uint32_t galloc_hp_n_embd_v_gqa (const struct model_hparams * hp, uint32_t il);
uint32_t galloc_hp_n_embd_v_gqa_max(const struct model_hparams * hp);
void     galloc_hp_set_swa_pattern(struct model_hparams * hp, uint32_t n_pattern);
// values per row of a layer's recurrent states: r (the convolution's last columns), s (the scan's state)
uint32_t galloc_hp_n_embd_r(const struct model_hparams * hp);
uint32_t galloc_hp_n_embd_s(const struct model_hparams * hp);

// where hyperparameters and tensor infos come from: a GGUF header or a card
struct model_card_kv {
    const char   * key;   // without the "ARCH." prefix when it starts with '.': ".block_count"
    double         num;
    const char   * str;   // a string value (NULL for numbers and lists)
    const double * arr;   // a list of numbers (llama.cpp's per-layer arrays), n_arr long; NULL otherwise
    int            n_arr;
};

struct model_tensor_info {
    char           name[GGML_MAX_NAME];
    enum ggml_type type;
    int64_t        ne[4];
};

// a card of c/cards (embedded at build time by scripts/embed-cards.sh into build/gen/galloc-card-data.h)
struct model_card {
    const char * name;
    const char * arch;          // general.architecture
    const char * family;        // the family it is listed under (c/cards/families.tsv)
    const char * source;        // the Hugging Face repository whose config.json the keys come from
    const char * description;
    const struct model_card_kv * kv;
    int          n_kv;
    const char * const * optional; // optional tensors the model has, "blk." names without the layer number
};

struct galloc_model {
    const struct model_arch_def * arch;
    char                 name[128];
    struct model_hparams hp;
    // a GGUF file's tensor infos, sorted by name (NULL for a card)
    struct model_tensor_info * tensors;
    int64_t                    n_tensors;
    const struct model_card  * card;
};

// reads keys for load_hparams: from a GGUF header or from a card's list
struct model_loader {
    const struct galloc_gguf * gguf;
    const struct model_card  * card;
    const char               * arch;  // key prefix
    struct galloc_error      * err;   // the first failure (GALLOC_STATUS_INVALID); may be NULL
};

// each returns false only for a required key that is absent or unreadable (the message is in err);
// an optional absent key leaves *out as it is
bool galloc_ml_get_u32  (struct model_loader * ml, const char * key, uint32_t * out, bool required);
bool galloc_ml_get_f32  (struct model_loader * ml, const char * key, float * out, bool required);
bool galloc_ml_get_bool (struct model_loader * ml, const char * key, bool * out, bool required);
bool galloc_ml_has_key  (struct model_loader * ml, const char * key);
// a number; an array there is left aside, *out unchanged (llama.cpp's get_key_or_arr into one
// uint32_t, not required: it returns false for an array; sliding_window_pattern, which the converter
// writes as a per-layer array for some models and the builders read as a period)
bool galloc_ml_get_u32_scalar(struct model_loader * ml, const char * key, uint32_t * out);
// a number, or an array of n_layer numbers (llama.cpp's get_key_or_arr)
bool galloc_ml_get_u32_or_arr(struct model_loader * ml, const char * key, uint32_t * out, uint32_t n, bool required);
// a value galloc does not build (the graph would differ from llama.cpp's): false, the message
// (printf-style, naming the key) followed by the capture library's hint, GALLOC_STATUS_INVALID
bool galloc_model_loader_refuse(struct model_loader * ml, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);
const char * galloc_ml_get_str(struct model_loader * ml, const char * key); // a string value, NULL if absent or not a string
// ARCH.expert_gating_func (optional; llama.cpp's default 0 aborts its MoE): 1 softmax, 2 sigmoid, 3 softmax
// over the selected weights; any other value refused naming the key
bool galloc_ml_get_expert_gating(struct model_loader * ml, uint32_t * func);
// how many elements of an int32 array key are >= min (0 when the key is absent)
bool galloc_ml_count_i32_at_least(struct model_loader * ml, const char * key, int64_t min, int64_t * count);

//
// context parameters (llama_cparams) and KV caches
//

struct model_cparams {
    uint32_t n_ctx, n_ctx_seq, n_batch, n_ubatch, n_seq_max, n_outputs_max;
    bool     flash_attn, kv_unified, swa_full, causal_attn;
    enum ggml_type type_k, type_v;
    float    rope_freq_base, rope_freq_scale, yarn_ext_factor, yarn_attn_factor, yarn_beta_fast, yarn_beta_slow;
    uint32_t n_ctx_orig_yarn;
};

// from the settings, as llama_context's constructor derives them; false on settings llama.cpp refuses
// (GALLOC_STATUS_ARGUMENT naming the flag; GALLOC_STATUS_LIMIT for tensors past what a document or size_t holds)
bool galloc_model_cparams_init(const struct galloc_model * m, const struct galloc_model_settings * s, struct model_cparams * cp,
                               struct galloc_error * err);

// cells per stream of the caches: the non-SWA (or only) cache, and the SWA cache (0: none)
void galloc_model_cache_sizes(const struct model_hparams * hp, const struct model_cparams * cp, uint32_t * base, uint32_t * swa);

// llama_memory_recurrent: per recurrent layer a tensor r of n_embd_r values and a tensor s of
// n_embd_s values per row, one row per sequence (mem_size); a reserve sees the full memory
// (llama_memory_recurrent_context with is_full: n_rs = size, head 0, rs_z 0)
struct model_rs_cache {
    bool     used;
    uint32_t size;   // rows: max(1, n_seq_max)
    uint32_t n_rs;   // rows the graph reads
    uint32_t head;   // the first of them
    int32_t  rs_z;   // the row cleared (-1: none)
    struct ggml_tensor * r[MODEL_MAX_LAYERS], * s[MODEL_MAX_LAYERS]; // NULL: layer not recurrent
};

// the recurrent states' bytes: each tensor padded to the buffer's alignment, as ggml allocates them
uint64_t galloc_model_rs_bytes(const struct model_rs_cache * rs, size_t alignment);

struct model_graph;

// the prompt graph llama.cpp reserves first (sched_reserve's pp graph), built with the hooks above
// set; its graph and freeing
struct model_build;
struct model_build * galloc_model_build_prompt_hooked(const struct galloc_model * m, const struct model_cparams * cp,
                                                      ggml_backend_buffer_type_t buft,
                                                      void (*on_weights)(struct model_graph * g, void * ud),
                                                      void (*on_cb)(struct model_graph * g, struct ggml_tensor * t, const char * name, int il, void * ud),
                                                      void * ud, struct galloc_error * err);
// the weights and the memory (KV caches, recurrent states) of that build, created as it creates
// them (the same tensors in the same order, in the graph's wctx), without building the graph
struct model_build * galloc_model_build_memory(const struct galloc_model * m, const struct model_cparams * cp,
                                               ggml_backend_buffer_type_t buft, struct galloc_error * err);
struct model_graph * galloc_model_build_graph_of(struct model_build * b);
void                 galloc_model_build_free(struct model_build * b);

// llama_kv_cache: one per layer filter (all layers, or the non-SWA and SWA layers)
struct model_kv_cache {
    bool     used;
    uint32_t size;        // cells per stream (kv_size)
    uint32_t n_stream;
    bool     v_trans;
    bool     attn_rot_k, attn_rot_v;
    int32_t  n_embd_head_k_all, n_embd_head_v_all;
    struct ggml_tensor * k[MODEL_MAX_LAYERS], * v[MODEL_MAX_LAYERS]; // NULL: layer not in this cache
};

//
// the graph builder (llm_graph_context)
//

struct model_layer {
    struct ggml_tensor * attn_norm, * attn_post_norm, * attn_q_norm, * attn_k_norm;
    struct ggml_tensor * wq, * wk, * wv, * wqkv, * wo;
    struct ggml_tensor * wq_b, * wk_b, * wv_b, * wqkv_b, * wo_b;
    struct ggml_tensor * attn_sinks;
    struct ggml_tensor * ffn_norm, * ffn_post_norm;
    struct ggml_tensor * ffn_gate, * ffn_up, * ffn_down;
    struct ggml_tensor * ffn_gate_b, * ffn_up_b, * ffn_down_b;
    struct ggml_tensor * ffn_gate_inp, * ffn_gate_inp_b, * ffn_exp_probs_b;
    struct ggml_tensor * ffn_gate_exps, * ffn_up_exps, * ffn_down_exps, * ffn_gate_up_exps;
    // MLA (deepseek2): Q's low-rank projection and norm, KV's compressed projection and norm, the
    // per-head absorption (k_b) and decompression (v_b)
    struct ggml_tensor * attn_q_a, * attn_q_b, * attn_q_a_norm, * attn_kv_a_mqa, * attn_kv_a_norm, * attn_k_b, * attn_v_b;
    struct ggml_tensor * ffn_gate_exps_b, * ffn_up_exps_b, * ffn_down_exps_b;
    struct ggml_tensor * rope_freqs, * rope_long, * rope_short;
    struct ggml_tensor * attn_norm_b, * ffn_norm_b;
    struct ggml_tensor * attn_norm_2, * attn_norm_2_b;   // falcon-40b: a second input norm for attention
    struct ggml_tensor * attn_q_norm_b, * attn_k_norm_b; // mpt: Q and K LayerNorms' biases
    struct ggml_tensor * ffn_act;                        // mpt: AWQ's activation scales (ffn.act.scales)
    struct ggml_tensor * out_scale;                      // talkie: the embeddings' skip into the layer, scaled
    // shared experts (qwen2moe, ...)
    struct ggml_tensor * ffn_gate_inp_shexp, * ffn_gate_shexp, * ffn_up_shexp, * ffn_down_shexp;
    // per-tensor (per-expert) ".scale" multipliers after the projection (llama.cpp's *_s), and the
    // ".input_scale" tensors llama.cpp loads but no graph uses (*_in_s)
    struct ggml_tensor * wq_s, * wk_s, * wv_s, * wo_s, * wqkv_s;
    struct ggml_tensor * ffn_gate_s, * ffn_up_s, * ffn_down_s;
    struct ggml_tensor * ffn_gate_shexp_s, * ffn_up_shexp_s, * ffn_down_shexp_s;
    struct ggml_tensor * ffn_gate_exps_s, * ffn_up_exps_s, * ffn_down_exps_s;
    struct ggml_tensor * in_s[24];
    // recurrent layers: Mamba's selective scan (ssm_*), with the optional norms of Mamba-2 and Jamba
    struct ggml_tensor * ssm_in, * ssm_x, * ssm_dt, * ssm_out, * ssm_conv1d, * ssm_conv1d_b, * ssm_dt_b, * ssm_a, * ssm_d;
    struct ggml_tensor * ssm_norm, * ssm_dt_norm, * ssm_b_norm, * ssm_c_norm;
    struct ggml_tensor * ssm_in_s, * ssm_out_s;
    // gated delta nets (Qwen3-Next, Qwen3.5): the Q/K/V and gate projections, beta, alpha
    struct ggml_tensor * wqkv_gate, * ssm_beta, * ssm_alpha, * ssm_beta_alpha;
    struct ggml_tensor * wqkv_gate_s, * ssm_beta_s, * ssm_alpha_s;
    // LFM2's short convolution
    struct ggml_tensor * shortconv_conv, * shortconv_in_proj, * shortconv_out_proj;
    // Kimi delta attention: the Q/K/V convolutions, the gate's (f) and the output gate's (g) low-rank projections
    struct ggml_tensor * ssm_q_conv, * ssm_k_conv, * ssm_v_conv, * ssm_f_a, * ssm_f_b, * ssm_g_a, * ssm_g_b;
    struct ggml_tensor * attn_out_norm; // a norm of the attention's output (dbrx's before the experts, grok's after attention)
    struct ggml_tensor * attn_kv_b;     // latent attention decompressed into an ordinary cache (minicpm3's wkv_b)
    struct ggml_tensor * ffn_norm_exps; // arctic: the experts' own input norm
    struct ggml_tensor * ffn_gate_chexps, * ffn_up_chexps, * ffn_down_chexps; // grovemoe's chunk experts
};

// the recurrent state input (llm_graph_input_rs): the rows to read, the first n_seqs of them to update
struct model_rs_input {
    struct ggml_tensor * s_copy, * s_copy_main, * s_copy_extra;
};

struct model_attn_input {
    bool iswa;
    bool no_cache; // llm_graph_input_attn_no_cache: kq_mask (and kq_mask_swa) over the batch's tokens, no cache
    struct ggml_tensor * k_idxs, * v_idxs, * kq_mask, * k_rot, * v_rot;
    struct ggml_tensor * k_idxs_swa, * v_idxs_swa, * kq_mask_swa, * k_rot_swa, * v_rot_swa;
};

struct model_graph {
    const struct galloc_model  * m;
    const struct model_hparams * hp;
    const struct model_cparams * cp;
    struct ggml_context * wctx;   // weights and KV caches (a no_alloc context, on a dummy buffer)
    struct ggml_context * ctx;    // the compute graph's tensors (ctx0)
    struct ggml_cgraph  * gf;
    ggml_backend_buffer_t wbuf;   // the dummy buffer of wctx's tensors
    // weights
    struct ggml_tensor * pos_embd, * tok_norm, * tok_norm_b; // learned positions (gpt2, ...), the embeddings' norm (bloom)
    struct ggml_tensor * tok_embd, * output_norm, * output_norm_b, * output, * output_b, * output_s, * output_in_s;
    struct model_layer * layers;
    struct ggml_tensor * t_inp_embd; // the input embeddings (llm_graph_result's t_inp_embd): deepstack reads slices of it
    // memory: caches[0] all or non-SWA layers, caches[1] SWA layers
    struct model_kv_cache * caches;
    struct model_rs_cache * rs;   // the recurrent states (rs->used: the model has some)
    // this graph's batch (llm_graph_context's n_tokens, n_outputs, ...)
    int64_t n_tokens, n_outputs, n_seqs;
    int64_t n_expert_used;
    // the first error; blocks return NULL after it
    struct galloc_error * err;
    bool                  failed;
    // placement hooks (galloc-model-place-compute.c; NULL for the CPU alone): after the weights and
    // caches exist, before the graph; and in the graph callback, after the name (llama.cpp's pins)
    void (*on_weights)(struct model_graph * g, void * ud);
    void (*on_cb)(struct model_graph * g, struct ggml_tensor * t, const char * name, int il, void * ud);
    void * hook_ud;
};

// the first failure wins; returns NULL so that builders can `return fail(...)`: a model llama.cpp
// would refuse (GALLOC_STATUS_INVALID), or with the status given
void * galloc_model_fail(struct model_graph * g, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);
void * galloc_model_fail_status(struct model_graph * g, enum galloc_status status, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(3, 4);

// weights: llama.cpp's create_tensor. name is printf-style with the layer; ne has n_dims entries.
// A required tensor missing from the file (or the wrong shape) fails the build; an optional one
// (MODEL_TENSOR_OPTIONAL) returns NULL when absent. MODEL_TENSOR_DUPLICATED returns the tensor of
// that name already created, if any (llama.cpp's tied output / shared rope_freqs).
enum { MODEL_TENSOR_OPTIONAL = 1, MODEL_TENSOR_DUPLICATED = 2 };
struct ggml_tensor * galloc_model_weight(struct model_graph * g, int flags, int n_dims, const int64_t * ne, const char * fmt, ...)
    GGML_ATTRIBUTE_FORMAT(5, 6);
struct ggml_tensor * galloc_model_weight_1d(struct model_graph * g, int flags, int64_t ne0, const char * name, int il);
struct ggml_tensor * galloc_model_weight_2d(struct model_graph * g, int flags, int64_t ne0, int64_t ne1, const char * name, int il);
struct ggml_tensor * galloc_model_weight_3d(struct model_graph * g, int flags, int64_t ne0, int64_t ne1, int64_t ne2,
                                     const char * name, int il);
// attn_q/k/v (or the fused attn_qkv) with their optional biases (create_tensor_qkv)
void galloc_model_weights_qkv(struct model_graph * g, struct model_layer * l, int il, int64_t n_embd, int64_t n_embd_q,
                       int64_t n_embd_k, int64_t n_embd_v);
// token embeddings, the final norm and the output head: output.weight, else (tied) the embeddings
// again; with output_bias also the optional output.bias
void galloc_model_weights_io(struct model_graph * g, bool output_bias);
// llama.cpp's generic pass after an architecture's tensors: the optional ".scale" and ".input_scale"
// tensors of every projection the layer has (load_tensors), and the output's for an NVFP4 head
void galloc_model_weights_scales(struct model_graph * g);
// every tensor of the file was created (llama.cpp refuses a file with tensors it does not create;
// galloc creates only what its builder uses): false naming the first tensor the builder left aside
bool galloc_model_weights_all_used(struct model_graph * g);
// a dense SwiGLU FFN's weights, created as llama's and qwen's builders create them (gate, down, up)
void galloc_model_weights_ffn(struct model_graph * g, struct model_layer * l, int il, int64_t n_embd, int64_t n_ff);
// decoders with one head size: key, value and rope sizes must agree (fails naming the architecture)
bool galloc_model_same_head_sizes(struct model_graph * g);
// the end of a decoder: the RMS-normalised last hidden state (result_norm, an output), the logits
// (result_output, an output: output.bias added when the model has one, soft-capped to softcap when
// not 0: gemma3's final_logit_softcapping), expanded into the graph
bool galloc_model_logits(struct model_graph * g, struct ggml_tensor * inpL, float softcap);

// the graph callback: names a tensor "name-il" (or "name" for il < 0)
void galloc_model_cb(struct model_graph * g, struct ggml_tensor * t, const char * name, int il);

// inputs
struct ggml_tensor * galloc_model_inp_embd(struct model_graph * g, struct ggml_tensor * tok_embd);
struct ggml_tensor * galloc_model_inp_pos(struct model_graph * g);
struct ggml_tensor * galloc_model_inp_out_ids(struct model_graph * g);
struct ggml_tensor * galloc_model_inp_attn_scale(struct model_graph * g); // attention temperature tuning's per-token scale
bool                 galloc_model_attn_inp(struct model_graph * g, struct model_attn_input * inp); // kv or kv_iswa

// blocks
enum model_norm_type { MODEL_NORM, MODEL_NORM_RMS };
enum model_ffn_op    { MODEL_FFN_SILU, MODEL_FFN_GELU, MODEL_FFN_SWIGLU_OAI_MOE, MODEL_FFN_SWIGLU /* fused gate|up */, MODEL_FFN_RELU_SQR,
                       MODEL_FFN_RELU };
enum model_ffn_gate  { MODEL_FFN_SEQ, MODEL_FFN_PAR };
enum model_gating    { MODEL_GATING_SOFTMAX, MODEL_GATING_SOFTMAX_WEIGHT, MODEL_GATING_SIGMOID };

struct ggml_tensor * galloc_model_norm(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * mw,
                                struct ggml_tensor * mb, enum model_norm_type type, int il);
// Q, K, V as [n_embd_head, n_head(_kv), n_tokens] (build_qkv)
void galloc_model_qkv(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur, int64_t n_embd_head,
               int64_t n_head, int64_t n_head_kv, int il, struct ggml_tensor ** q, struct ggml_tensor ** k,
               struct ggml_tensor ** v);
// build_lora_mm: w x, times the scale w_s when there is one
struct ggml_tensor * galloc_model_mm(struct model_graph * g, struct ggml_tensor * w, struct ggml_tensor * cur, struct ggml_tensor * w_s);
// build_ffn; the scales (up_s, gate_s, down_s) may be NULL
struct ggml_tensor * galloc_model_ffn(struct model_graph * g, struct ggml_tensor * cur,
                               struct ggml_tensor * up, struct ggml_tensor * up_b, struct ggml_tensor * up_s,
                               struct ggml_tensor * gate, struct ggml_tensor * gate_b, struct ggml_tensor * gate_s,
                               struct ggml_tensor * down, struct ggml_tensor * down_b, struct ggml_tensor * down_s,
                               enum model_ffn_op op, enum model_ffn_gate gate_type, int il);
// the same with llama.cpp's act_scales: GELU's output divided by them (MPT's AWQ scales; NULL: none)
struct ggml_tensor * galloc_model_ffn_act(struct model_graph * g, struct ggml_tensor * cur,
                                          struct ggml_tensor * up, struct ggml_tensor * up_b, struct ggml_tensor * up_s,
                                          struct ggml_tensor * gate, struct ggml_tensor * gate_b, struct ggml_tensor * gate_s,
                                          struct ggml_tensor * down, struct ggml_tensor * down_b, struct ggml_tensor * down_s,
                                          struct ggml_tensor * act_scales, enum model_ffn_op op, enum model_ffn_gate gate_type,
                                          int il);
// the expert weights' per-expert scales of a layer (NULL when it has none), for galloc_model_moe_ffn
struct model_moe_scales {
    struct ggml_tensor * up, * gate, * down;
};
// build_moe_ffn's arguments (galloc-model-moe.c); NULL tensors are absent
struct model_moe {
    struct ggml_tensor * gate_inp, * gate_inp_b;
    struct ggml_tensor * logits_in;             // the router's logits computed by the caller (smallthinker): no gate_inp product
    struct ggml_tensor * up_exps, * up_exps_b, * gate_exps, * gate_exps_b, * down_exps, * down_exps_b;
    struct ggml_tensor * gate_up_exps;          // gate and up fused: one product, split in halves
    struct ggml_tensor * exp_probs_b;           // the experts' selection bias (DeepSeek V3)
    struct ggml_tensor * up_s, * gate_s, * down_s; // per-expert scales
    int64_t n_expert, n_expert_used;
    enum model_ffn_op op;
    bool  norm_w;
    float w_scale;
    enum model_gating gating;
    bool  llama4; // llama.cpp's LLM_ARCH_LLAMA4 path: selection on the logits, the input weighted before the experts
    bool  grovemoe; // llama.cpp's LLM_ARCH_GROVEMOE path: selection on sigmoid(logits)
};
struct ggml_tensor * galloc_model_moe(struct model_graph * g, struct ggml_tensor * cur, const struct model_moe * p, int il);
// the gating of llama.cpp's expert_gating_func value (1..3, as galloc_ml_get_expert_gating accepts)
enum model_gating galloc_model_gating_func(uint32_t func);
// the same with positional arguments
struct ggml_tensor * galloc_model_moe_ffn(struct model_graph * g, struct ggml_tensor * cur,
                                   struct ggml_tensor * gate_inp, struct ggml_tensor * gate_inp_b,
                                   struct ggml_tensor * up_exps, struct ggml_tensor * up_exps_b,
                                   struct ggml_tensor * gate_exps, struct ggml_tensor * gate_exps_b,
                                   struct ggml_tensor * down_exps, struct ggml_tensor * down_exps_b,
                                   int64_t n_expert, int64_t n_expert_used, enum model_ffn_op op, bool norm_w,
                                   float w_scale, enum model_gating gating, const struct model_moe_scales * scales, int il);
// self-attention with the KV cache (build_attn): stores K and V, attends, projects with wo (+ wo_b)
struct ggml_tensor * galloc_model_attn(struct model_graph * g, const struct model_attn_input * inp,
                                struct ggml_tensor * wo, struct ggml_tensor * wo_b, struct ggml_tensor * wo_s,
                                struct ggml_tensor * q_cur, struct ggml_tensor * k_cur, struct ggml_tensor * v_cur,
                                struct ggml_tensor * sinks, float kq_scale, int il);
// RoPE of layer il (ggml_rope_ext; ggml_rope_multi with the hparams' sections for M-RoPE types)
struct ggml_tensor * galloc_model_rope(struct model_graph * g, struct ggml_tensor * x, struct ggml_tensor * pos,
                                struct ggml_tensor * factors, int il);
// MLA attention over the K-only cache (build_attn with llm_graph_input_attn_k): K stored, V a view
// of the cached K's first v_cur->ne[0] values, the result decompressed by v_mla, projected by wo
struct ggml_tensor * galloc_model_attn_mla(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * wo,
                                           struct ggml_tensor * wo_s, struct ggml_tensor * q_cur, struct ggml_tensor * k_cur,
                                           struct ggml_tensor * v_cur, struct ggml_tensor * v_mla, float kq_scale, int il);
// llama_model::get_rope_factors: rope_freqs, else the long factors past the original context, else the short
struct ggml_tensor * galloc_model_rope_factors(const struct model_graph * g, int il);

// rope frequency of layer il (llama_model::get_rope_freq_base/scale)
float galloc_model_rope_freq_base (const struct model_graph * g, int il);
float galloc_model_rope_freq_scale(const struct model_graph * g, int il);

//
// architectures
//

// the memory an architecture's context creates (llama_model::create_memory)
enum model_memory {
    MODEL_MEMORY_KV,        // llama_kv_cache (or _iswa)
    MODEL_MEMORY_RECURRENT, // llama_memory_recurrent: every layer recurrent
    MODEL_MEMORY_HYBRID,    // llama_memory_hybrid: a KV cache for some layers, recurrent states for others
    MODEL_MEMORY_NONE,      // no memory (the diffusion models): attention over the batch alone
};

struct model_arch_def {
    const char *         name;      // general.architecture
    enum model_rope_type rope_type;
    bool (*load_hparams)(struct model_loader * ml, struct model_hparams * hp); // the architecture's own keys
    bool (*load_tensors)(struct model_graph * g);                               // declares g's weights
    bool (*build_graph)(struct model_graph * g);                                // composes the blocks
};

// llm_arch_is_recurrent / llm_arch_is_hybrid: the memory of an architecture, by its name
enum model_memory galloc_model_arch_memory(const char * name);
// llama_memory_hybrid's layer filters (create_memory): the layers with a KV cache, with recurrent states
bool galloc_model_layer_attn(const struct galloc_model * m, uint32_t il);
bool galloc_model_layer_recr(const struct galloc_model * m, uint32_t il);

//
// recurrent layers (galloc-model-recurrent.c, galloc-model-mamba.c)
//

// llama_memory_recurrent's tensors for the layers with is_recr (fails naming the keys when a row would be empty)
bool galloc_model_rs_init(struct model_graph * g, struct model_rs_cache * rs);
// build_rs_inp: the state-copy indices (the first n_seqs read and updated, the others only copied)
void galloc_model_rs_inp(struct model_graph * g, struct model_rs_input * inp);
// build_rs: a state row cleared, the rows of the sequences read (get_rows, or the caller's op on the
// states reshaped to [state_size, rows] and the indices: rows_fn), the other rows copied back
struct ggml_tensor * galloc_model_build_rs(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * s,
                                           int64_t state_size, int64_t n_seqs,
                                           struct ggml_tensor * (*rows_fn)(struct model_graph * g, struct ggml_tensor * states,
                                                                           struct ggml_tensor * ids, void * ud),
                                           void * ud);
// build_conv_state: the conv state (read with build_rs) prepended to qkv_mixed, its last columns kept
struct ggml_tensor * galloc_model_conv_state(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * conv_states_all,
                                             struct ggml_tensor * qkv_mixed, int64_t conv_kernel_size, int64_t conv_channels, int il);
// both build_layer_attn_linear's convolution over the conv state (silu) and the recurrent state
// read: q and k L2-normed, v, as views of the convolution; the state as [head_v, head_v, v heads,
// seqs]; false (the failure recorded) when the state inputs are missing
bool galloc_model_delta_net_qkv(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * qkv_mixed, int il,
                                struct ggml_tensor ** q, struct ggml_tensor ** k, struct ggml_tensor ** v, struct ggml_tensor ** state);
// build_delta_net_fused: the delta rule over the state s (one GATED_DELTA_NET), its output
// [S_v, H_v, n_tokens, n_seqs] and new state [S_v, S_v, H_v, n_seqs] as views; false (the failure
// recorded) on sizes llama.cpp asserts on
bool galloc_model_delta_net(struct model_graph * g, struct ggml_tensor * q, struct ggml_tensor * k, struct ggml_tensor * v,
                            struct ggml_tensor * gate, struct ggml_tensor * beta, struct ggml_tensor * s, int il,
                            struct ggml_tensor ** output, struct ggml_tensor ** new_state);
// build_recurrent_attn, fused: the delta rule's output, its new state copied into ssm_states_all
struct ggml_tensor * galloc_model_recurrent_attn(struct model_graph * g, struct ggml_tensor * ssm_states_all, struct ggml_tensor * q,
                                                 struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * gate,
                                                 struct ggml_tensor * beta, struct ggml_tensor * s, int il);
// the Mamba keys (ssm.conv_kernel, inner_size, state_size, time_step_rank, group_count, dt_b_c_rms)
bool galloc_model_ssm_hparams(struct model_loader * ml, struct model_hparams * hp, bool group_count);
// a Mamba-1 or Mamba-2 layer's weights, as mamba's, jamba's and the hybrids' load_arch_tensors create them
void galloc_model_weights_mamba(struct model_graph * g, struct model_layer * l, int il);
void galloc_model_weights_mamba2(struct model_graph * g, struct model_layer * l, int il, bool conv_bias_optional,
                                 bool norm_optional);
// llm_build_mamba_base::build_mamba_layer / build_mamba2_layer: [n_embd, n_tokens] in and out
struct ggml_tensor * galloc_model_mamba_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il);
struct ggml_tensor * galloc_model_mamba2_layer(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * cur, int il);

//
// the classic pre-norm layer and its variants (galloc-model-block.c)
//

#define MODEL_W_NONE (-1) // a tensor the variant does not have

// which tensors a variant creates: each MODEL_W_NONE, 0 (required) or MODEL_TENSOR_OPTIONAL
struct model_block_weights {
    int  pos_embd, tok_norm, output_norm_b, output, output_b; // output: 0, or optional (tied to the embeddings)
    int  attn_norm_b;
    int  qkv, qkv_b;       // qkv MODEL_W_NONE: attn_qkv or attn_q/k/v with optional biases (create_tensor_qkv)
    bool q_heads;          // Q and the output projection key_length x heads wide (else n_embd)
    int  wo_b, ffn_norm, ffn_norm_b, ffn_gate, ffn_gate_b, ffn_up_b, ffn_down_b;
    bool no_norms;         // olmo: LayerNorms without weights (no attn_norm, ffn_norm, output_norm tensors)
    bool ffn_half;         // qwen: the FFN n_ff/2 wide
    int  rope_freqs;       // the shared optional RoPE factors: 0 none, 1 rope_freqs, 2 that or long/short for longrope
    bool qkv_split;        // attn_q/k/v only (no fused attn_qkv), their biases qkv_b's flags (jais2)
    bool qk_norm_head;     // attn_q_norm and attn_k_norm of one head's width, required (maincoder)
    bool ffn_up_x2;        // chatglm: ffn_up 2 x n_ff wide (gate and up halves, one SwiGLU)
    bool wo_n_embd;        // chatglm: the output projection n_embd wide whatever Q's width
};
// the layer's shape
struct model_block {
    enum model_norm_type norm;    // the layer's norms (and Q/K's)
    bool  rope;                   // RoPE on Q and K
    bool  qk_norm_flat;           // mpt: Q/K norms over all heads (else per head), only when Q has one
    bool  wo_b;                   // the attention output's bias added
    bool  q_prescale;             // phi2: Q scaled before attention, whose scale is then 1
    bool  kq_scale_head;          // jais: the scale 1/head (else 1/sqrt(head))
    enum model_ffn_op   ffn_op;
    enum model_ffn_gate ffn_gate;
    bool  ffn_b;                  // the FFN's biases added
    bool  rope_factors;           // RoPE with the layer's factors (rope_freqs, or long/short)
    bool  attn_out_cb;            // the attention output named attn_out (arcee)
    bool  ffn_out_unnamed;        // the FFN's output left unnamed (nemotron)
    bool  qk_norm_after_rope;     // Q/K norms after RoPE (maincoder)
    bool  rope_cb_rope;           // RoPE's outputs named Qcur_rope/Kcur_rope (jais2)
    bool  ffn_scales;             // the FFN's .scale multipliers applied (nanbeige)
};
void galloc_model_weights_block_io(struct model_graph * g, const struct model_block_weights * w);
void galloc_model_weights_block(struct model_graph * g, struct model_layer * l, int il, const struct model_block_weights * w);
// the token embeddings, plus the learned positions (pos_embd), then the embeddings' norm (tok_norm)
struct ggml_tensor * galloc_model_block_input(struct model_graph * g, struct ggml_tensor * inp_pos);
// Q/K/V, their norms, RoPE, attention and the output projection
struct ggml_tensor * galloc_model_block_attn(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur,
                                             struct ggml_tensor * inp_pos, const struct model_attn_input * attn,
                                             const struct model_block * blk, int il);
// build_ffn on the layer's up/gate/down (and act scales), named ffn_out
struct ggml_tensor * galloc_model_block_ffn(struct model_graph * g, const struct model_layer * l, struct ggml_tensor * cur,
                                            const struct model_block * blk, int il);
// x + attn(norm(x)), then + ffn(norm(.)); the output rows selected at the last layer
struct ggml_tensor * galloc_model_block_seq(struct model_graph * g, struct ggml_tensor * inpL, struct ggml_tensor * inp_pos,
                                            const struct model_attn_input * attn, struct ggml_tensor * inp_out_ids,
                                            const struct model_block * blk, int il);
// the final norm (with output_norm.bias), the logits (with output.bias), expanded
bool galloc_model_block_output(struct model_graph * g, struct ggml_tensor * cur, enum model_norm_type norm);

// granite's tensors and graph, shared with minicpm
bool galloc_model_granite_tensors(struct model_graph * g);
bool galloc_model_granite_graph(struct model_graph * g);

// llama's tensors and graph, shared by the architectures that are llama with other keys (mistral3)
bool galloc_model_llama_tensors(struct model_graph * g);
bool galloc_model_llama_graph(struct model_graph * g);

extern const struct model_arch_def galloc_model_arch_llama;
extern const struct model_arch_def galloc_model_arch_mistral3;
extern const struct model_arch_def galloc_model_arch_qwen2;
extern const struct model_arch_def galloc_model_arch_qwen2moe;
extern const struct model_arch_def galloc_model_arch_qwen3;
extern const struct model_arch_def galloc_model_arch_qwen3moe;
extern const struct model_arch_def galloc_model_arch_gemma;
extern const struct model_arch_def galloc_model_arch_gemma2;
extern const struct model_arch_def galloc_model_arch_gemma3;
extern const struct model_arch_def galloc_model_arch_openai_moe;
extern const struct model_arch_def galloc_model_arch_llama4;
extern const struct model_arch_def galloc_model_arch_qwen3vl;
extern const struct model_arch_def galloc_model_arch_qwen3vlmoe;
extern const struct model_arch_def galloc_model_arch_deepseek;
extern const struct model_arch_def galloc_model_arch_glm4;
extern const struct model_arch_def galloc_model_arch_phi3;
extern const struct model_arch_def galloc_model_arch_phimoe;
extern const struct model_arch_def galloc_model_arch_olmoe;
extern const struct model_arch_def galloc_model_arch_smollm3;
extern const struct model_arch_def galloc_model_arch_granite;
extern const struct model_arch_def galloc_model_arch_granitemoe;
extern const struct model_arch_def galloc_model_arch_exaone4;
extern const struct model_arch_def galloc_model_arch_ernie4_5;
extern const struct model_arch_def galloc_model_arch_ernie4_5_moe;
extern const struct model_arch_def galloc_model_arch_internlm2;
extern const struct model_arch_def galloc_model_arch_seed_oss;
extern const struct model_arch_def galloc_model_arch_command_r;
extern const struct model_arch_def galloc_model_arch_dots1;
extern const struct model_arch_def galloc_model_arch_bailingmoe2;
extern const struct model_arch_def galloc_model_arch_minimax_m2;
extern const struct model_arch_def galloc_model_arch_hunyuan_dense;
extern const struct model_arch_def galloc_model_arch_hunyuan_moe;
extern const struct model_arch_def galloc_model_arch_glm4moe;
extern const struct model_arch_def galloc_model_arch_deepseek2;
extern const struct model_arch_def galloc_model_arch_mistral4;
extern const struct model_arch_def galloc_model_arch_qwen2vl;
extern const struct model_arch_def galloc_model_arch_mamba;
extern const struct model_arch_def galloc_model_arch_mamba2;
extern const struct model_arch_def galloc_model_arch_granite_hybrid;
extern const struct model_arch_def galloc_model_arch_falcon_h1;
extern const struct model_arch_def galloc_model_arch_nemotron_h;
extern const struct model_arch_def galloc_model_arch_nemotron_h_moe;
extern const struct model_arch_def galloc_model_arch_jamba;
extern const struct model_arch_def galloc_model_arch_lfm2;
extern const struct model_arch_def galloc_model_arch_lfm2moe;
extern const struct model_arch_def galloc_model_arch_plamo2;
extern const struct model_arch_def galloc_model_arch_qwen35;
extern const struct model_arch_def galloc_model_arch_qwen35moe;
extern const struct model_arch_def galloc_model_arch_qwen3next;
extern const struct model_arch_def galloc_model_arch_gpt2;
extern const struct model_arch_def galloc_model_arch_starcoder;
extern const struct model_arch_def galloc_model_arch_starcoder2;
extern const struct model_arch_def galloc_model_arch_codeshell;
extern const struct model_arch_def galloc_model_arch_jais;
extern const struct model_arch_def galloc_model_arch_bloom;
extern const struct model_arch_def galloc_model_arch_mpt;
extern const struct model_arch_def galloc_model_arch_refact;
extern const struct model_arch_def galloc_model_arch_falcon;
extern const struct model_arch_def galloc_model_arch_gptneox;
extern const struct model_arch_def galloc_model_arch_phi2;
extern const struct model_arch_def galloc_model_arch_stablelm;
extern const struct model_arch_def galloc_model_arch_minicpm;
extern const struct model_arch_def galloc_model_arch_qwen;
extern const struct model_arch_def galloc_model_arch_olmo;
extern const struct model_arch_def galloc_model_arch_baichuan;
extern const struct model_arch_def galloc_model_arch_xverse;
extern const struct model_arch_def galloc_model_arch_orion;
extern const struct model_arch_def galloc_model_arch_exaone;
extern const struct model_arch_def galloc_model_arch_nemotron;
extern const struct model_arch_def galloc_model_arch_arcee;
extern const struct model_arch_def galloc_model_arch_pangu_embedded;
extern const struct model_arch_def galloc_model_arch_jais2;
extern const struct model_arch_def galloc_model_arch_maincoder;
extern const struct model_arch_def galloc_model_arch_nanbeige;
extern const struct model_arch_def galloc_model_arch_deci;
extern const struct model_arch_def galloc_model_arch_plamo;
extern const struct model_arch_def galloc_model_arch_chatglm;
extern const struct model_arch_def galloc_model_arch_openelm;
extern const struct model_arch_def galloc_model_arch_talkie;
extern const struct model_arch_def galloc_model_arch_kimi_linear;
extern const struct model_arch_def galloc_model_arch_minicpm3;
extern const struct model_arch_def galloc_model_arch_dbrx;
extern const struct model_arch_def galloc_model_arch_grok;
extern const struct model_arch_def galloc_model_arch_arctic;
extern const struct model_arch_def galloc_model_arch_bailingmoe;
extern const struct model_arch_def galloc_model_arch_dream;
extern const struct model_arch_def galloc_model_arch_rnd1;
extern const struct model_arch_def galloc_model_arch_llada;
extern const struct model_arch_def galloc_model_arch_llada_moe;
extern const struct model_arch_def galloc_model_arch_grovemoe;
extern const struct model_arch_def galloc_model_arch_hy_v3;
extern const struct model_arch_def galloc_model_arch_paddleocr;
extern const struct model_arch_def galloc_model_arch_cogvlm;
extern const struct model_arch_def galloc_model_arch_smallthinker;
extern const struct model_arch_def galloc_model_arch_hunyuan_vl;
// Qwen3.5's and Qwen3-Next's delta net keys (ssm.*, nextn_predict_layers refused, the recurrent layers)
bool galloc_model_delta_net_hparams(struct model_loader * ml, struct model_hparams * hp);
// Qwen3.5's and Qwen3-Next's MoE FFN: softmax-routed experts plus the shared expert gated by a sigmoid
struct ggml_tensor * galloc_model_qwen35_moe_ffn(struct model_graph * g, struct ggml_tensor * cur, int il);

const struct model_arch_def * galloc_model_arch_find(const char * name); // NULL: unsupported

// cards (galloc-model-cards.c)
const struct model_card * galloc_model_card_find(const char * name);

// sqrt and ln without libm (galloc-model-math.c): op parameters only
float galloc_model_sqrtf(float x);
float galloc_model_logf (float x);

// loads hyperparameters into m with ml (llama_model::load_hparams): generic keys, then the arch's
bool galloc_model_load_hparams(struct galloc_model * m, struct model_loader * ml);
