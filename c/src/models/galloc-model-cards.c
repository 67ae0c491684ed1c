// galloc-model-cards.c: built-in model cards (hyperparameters of well-known models).
//
// Each card is the metadata convert_hf_to_gguf.py writes for the model's published config,
// as keys read by the same loader as GGUF files, plus the optional tensors the converted
// model has ("blk." names without the layer number). Cards marked "from the GGUF" copy the
// metadata-only GGUF files of tests/models-real; the others the model's config.json.

#include "galloc-model-impl.h"

#include <string.h>

#define N(k, v) { k, (double) (v), NULL }
#define S(k, v) { k, 0.0, v }
#define CARD(name, arch, desc, kvs, opt) { name, arch, desc, kvs, (int) (sizeof(kvs) / sizeof(kvs[0])), opt }

static const char * const opt_output[]   = { "output.weight", NULL };
static const char * const opt_llama31[]  = { "output.weight", "rope_freqs.weight", NULL };
static const char * const opt_qwen2[]    = { "output.weight", "blk.attn_q.bias", "blk.attn_k.bias", "blk.attn_v.bias", NULL };
static const char * const opt_tied[]     = { NULL };
static const char * const opt_gpt_oss[]  = { "blk.attn_q.bias", "blk.attn_k.bias", "blk.attn_v.bias", NULL };

// llama
static const struct model_card_kv kv_llama3_8b[] = {
    N(".context_length", 8192), N(".embedding_length", 4096), N(".block_count", 32), N(".feed_forward_length", 14336),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 8), N(".rope.freq_base", 500000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".rope.dimension_count", 128), N(".vocab_size", 128256),
};
static const struct model_card_kv kv_llama31_8b[] = {
    N(".context_length", 131072), N(".embedding_length", 4096), N(".block_count", 32), N(".feed_forward_length", 14336),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 8), N(".rope.freq_base", 500000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".rope.dimension_count", 128), N(".vocab_size", 128256),
};
static const struct model_card_kv kv_llama31_70b[] = {
    N(".context_length", 131072), N(".embedding_length", 8192), N(".block_count", 80), N(".feed_forward_length", 28672),
    N(".attention.head_count", 64), N(".attention.head_count_kv", 8), N(".rope.freq_base", 500000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".rope.dimension_count", 128), N(".vocab_size", 128256),
};
static const struct model_card_kv kv_mistral_7b[] = {
    N(".context_length", 32768), N(".embedding_length", 4096), N(".block_count", 32), N(".feed_forward_length", 14336),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 8), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".rope.dimension_count", 128), N(".vocab_size", 32768),
};
// qwen
static const struct model_card_kv kv_qwen25_7b[] = {
    N(".context_length", 32768), N(".embedding_length", 3584), N(".block_count", 28), N(".feed_forward_length", 18944),
    N(".attention.head_count", 28), N(".attention.head_count_kv", 4), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".vocab_size", 152064),
};
static const struct model_card_kv kv_qwen3_8b[] = {
    N(".context_length", 40960), N(".embedding_length", 4096), N(".block_count", 36), N(".feed_forward_length", 12288),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 8), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".attention.key_length", 128), N(".attention.value_length", 128),
    N(".vocab_size", 151936),
};
static const struct model_card_kv kv_qwen3_30b_a3b[] = {
    N(".context_length", 40960), N(".embedding_length", 2048), N(".block_count", 48), N(".feed_forward_length", 6144),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 4), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".attention.key_length", 128), N(".attention.value_length", 128),
    N(".expert_count", 128), N(".expert_used_count", 8), N(".expert_feed_forward_length", 768), N(".vocab_size", 151936),
};
// gemma3 (text): sliding window 1024 on 5 of every 6 layers, linear rope scaling 8 on the global layers
static const struct model_card_kv kv_gemma3_4b[] = {
    N(".context_length", 131072), N(".embedding_length", 2560), N(".block_count", 34), N(".feed_forward_length", 10240),
    N(".attention.head_count", 8), N(".attention.head_count_kv", 4), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".attention.key_length", 256), N(".attention.value_length", 256),
    N(".attention.sliding_window", 1024), S(".rope.scaling.type", "linear"), N(".rope.scaling.factor", 8),
    N(".vocab_size", 262208),
};
static const struct model_card_kv kv_gemma3_12b[] = {
    N(".context_length", 131072), N(".embedding_length", 3840), N(".block_count", 48), N(".feed_forward_length", 15360),
    N(".attention.head_count", 16), N(".attention.head_count_kv", 8), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".attention.key_length", 256), N(".attention.value_length", 256),
    N(".attention.sliding_window", 1024), S(".rope.scaling.type", "linear"), N(".rope.scaling.factor", 8),
    N(".vocab_size", 262208),
};
static const struct model_card_kv kv_gemma3_27b[] = {
    N(".context_length", 131072), N(".embedding_length", 5376), N(".block_count", 62), N(".feed_forward_length", 21504),
    N(".attention.head_count", 32), N(".attention.head_count_kv", 16), N(".rope.freq_base", 1000000),
    N(".attention.layer_norm_rms_epsilon", 1e-6), N(".attention.key_length", 128), N(".attention.value_length", 128),
    N(".attention.sliding_window", 1024), S(".rope.scaling.type", "linear"), N(".rope.scaling.factor", 8),
    N(".vocab_size", 262208),
};
// gpt-oss: sliding window 128 on every other layer, YaRN x32 from 4096
static const struct model_card_kv kv_gpt_oss_20b[] = {
    N(".context_length", 131072), N(".embedding_length", 2880), N(".block_count", 24), N(".feed_forward_length", 2880),
    N(".attention.head_count", 64), N(".attention.head_count_kv", 8), N(".rope.freq_base", 150000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".attention.key_length", 64), N(".attention.value_length", 64),
    N(".expert_count", 32), N(".expert_used_count", 4), N(".expert_feed_forward_length", 2880),
    N(".attention.sliding_window", 128), S(".rope.scaling.type", "yarn"), N(".rope.scaling.factor", 32),
    N(".rope.scaling.original_context_length", 4096), N(".vocab_size", 201088),
};
static const struct model_card_kv kv_gpt_oss_120b[] = {
    N(".context_length", 131072), N(".embedding_length", 2880), N(".block_count", 36), N(".feed_forward_length", 2880),
    N(".attention.head_count", 64), N(".attention.head_count_kv", 8), N(".rope.freq_base", 150000),
    N(".attention.layer_norm_rms_epsilon", 1e-5), N(".attention.key_length", 64), N(".attention.value_length", 64),
    N(".expert_count", 128), N(".expert_used_count", 4), N(".expert_feed_forward_length", 2880),
    N(".attention.sliding_window", 128), S(".rope.scaling.type", "yarn"), N(".rope.scaling.factor", 32),
    N(".rope.scaling.original_context_length", 4096), N(".vocab_size", 201088),
};

static const struct model_card cards[] = {
    CARD("llama-3-8b", "llama",
         "Meta-Llama-3-8B: 32 layers, 4096 embd, 32 heads / 8 KV, n_ff 14336, vocab 128256, 8K context "
         "(from the GGUF of tests/models-real)", kv_llama3_8b, opt_output),
    CARD("llama-3.1-8b", "llama",
         "Llama-3.1-8B: as Llama 3 8B with a 128K context and llama3 rope_freqs (config.json of meta-llama/Llama-3.1-8B)",
         kv_llama31_8b, opt_llama31),
    CARD("llama-3.1-70b", "llama",
         "Llama-3.1-70B: 80 layers, 8192 embd, 64 heads / 8 KV, n_ff 28672, vocab 128256, 128K context "
         "(config.json of meta-llama/Llama-3.1-70B)", kv_llama31_70b, opt_llama31),
    CARD("mistral-7b-v0.3", "llama",
         "Mistral-7B-v0.3: 32 layers, 4096 embd, 32 heads / 8 KV, n_ff 14336, vocab 32768, rope 1e6, 32K context "
         "(config.json of mistralai/Mistral-7B-v0.3)", kv_mistral_7b, opt_output),
    CARD("qwen2.5-7b", "qwen2",
         "Qwen2.5-7B-Instruct: 28 layers, 3584 embd, 28 heads / 4 KV, n_ff 18944, vocab 152064, Q/K/V biases, 32K context "
         "(config.json of Qwen/Qwen2.5-7B-Instruct)", kv_qwen25_7b, opt_qwen2),
    CARD("qwen3-8b", "qwen3",
         "Qwen3-8B: 36 layers, 4096 embd, 32 heads / 8 KV, head 128, n_ff 12288, vocab 151936, Q/K norms "
         "(from the GGUF of tests/models-real)", kv_qwen3_8b, opt_output),
    CARD("qwen3-30b-a3b", "qwen3moe",
         "Qwen3-30B-A3B: 48 layers, 2048 embd, 32 heads / 4 KV, 128 experts (8 used) of n_ff 768, vocab 151936 "
         "(from the GGUF of tests/models-real)", kv_qwen3_30b_a3b, opt_output),
    CARD("gemma-3-4b", "gemma3",
         "gemma-3-4b-it (text): 34 layers, 2560 embd, 8 heads / 4 KV, head 256, n_ff 10240, vocab 262208, "
         "sliding window 1024 on 5 of 6 layers, tied output (from the GGUF of tests/models-real)", kv_gemma3_4b, opt_tied),
    CARD("gemma-3-12b", "gemma3",
         "gemma-3-12b-it (text): 48 layers, 3840 embd, 16 heads / 8 KV, head 256, n_ff 15360, vocab 262208, "
         "sliding window 1024 (text_config of google/gemma-3-12b-it)", kv_gemma3_12b, opt_tied),
    CARD("gemma-3-27b", "gemma3",
         "gemma-3-27b-it (text): 62 layers, 5376 embd, 32 heads / 16 KV, head 128, n_ff 21504, vocab 262208, "
         "sliding window 1024 (text_config of google/gemma-3-27b-it)", kv_gemma3_27b, opt_tied),
    CARD("gpt-oss-20b", "gpt-oss",
         "gpt-oss-20b: 24 layers, 2880 embd, 64 heads / 8 KV, head 64, 32 experts (4 used), sinks, sliding window 128 "
         "on every other layer, YaRN to 128K (from the GGUF of tests/models-real)", kv_gpt_oss_20b, opt_gpt_oss),
    CARD("gpt-oss-120b", "gpt-oss",
         "gpt-oss-120b: 36 layers, 2880 embd, 64 heads / 8 KV, head 64, 128 experts (4 used), sinks, sliding window 128 "
         "(config.json of openai/gpt-oss-120b)", kv_gpt_oss_120b, opt_gpt_oss),
};

#undef N
#undef S
#undef CARD

#define N_CARDS ((int) (sizeof(cards) / sizeof(cards[0])))

const struct model_card * galloc_model_card_find(const char * name) {
    for (int i = 0; name && i < N_CARDS; i++) {
        if (strcmp(cards[i].name, name) == 0) {
            return &cards[i];
        }
    }
    return NULL;
}

int galloc_model_card_count(void) {
    return N_CARDS;
}

const char * galloc_model_card_name(int i) {
    return i >= 0 && i < N_CARDS ? cards[i].name : NULL;
}

const char * galloc_model_card_description(int i) {
    return i >= 0 && i < N_CARDS ? cards[i].description : NULL;
}
