// galloc-model-cards.c: built-in model cards (hyperparameters of well-known models).
//
// Each card is the metadata convert_hf_to_gguf.py writes for the model's published config,
// as keys and numbers read by the same loader as GGUF files, plus the optional tensors the
// converted model has. The description says where the numbers come from.

#include "galloc-model-impl.h"

#include <string.h>

#define KV(k, v) { k, (double) (v) }
#define CARD(name, arch, desc, kvs, opt) { name, arch, desc, kvs, (int) (sizeof(kvs) / sizeof(kvs[0])), opt }


static const struct model_card_kv kv_llama31_8b[] = {
    KV(".context_length", 131072), KV(".embedding_length", 4096), KV(".block_count", 32),
    KV(".feed_forward_length", 14336), KV(".attention.head_count", 32), KV(".attention.head_count_kv", 8),
    KV(".rope.freq_base", 500000), KV(".attention.layer_norm_rms_epsilon", 1e-5), KV(".rope.dimension_count", 128),
    KV(".vocab_size", 128256),
};
static const char * const opt_llama31[] = { "output.weight", "rope_freqs.weight", NULL };

static const struct model_card cards[] = {
    CARD("llama-3.1-8b", "llama", "Meta Llama 3.1 8B: 32 layers, 4096 embd, 32 heads / 8 KV, n_ff 14336, vocab 128256, "
         "rope 5e5 with llama3 rope_freqs (config.json of meta-llama/Llama-3.1-8B)", kv_llama31_8b, opt_llama31),
};

#undef KV
#undef CARD

#define N_CARDS ((int) (sizeof(cards) / sizeof(cards[0])))

const struct model_card * model_card_find(const char * name) {
    for (int i = 0; name && i < N_CARDS; i++) {
        if (strcmp(cards[i].name, name) == 0) {
            return &cards[i];
        }
    }
    return NULL;
}

int model_card_total(void) {
    return N_CARDS;
}

const struct model_card * model_card_at(int i) {
    return i >= 0 && i < N_CARDS ? &cards[i] : NULL;
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
