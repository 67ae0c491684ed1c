// galloc-model-memory.c: which memory an architecture's context creates, and for which layers.
//
// llama.cpp's llm_arch_is_recurrent / llm_arch_is_hybrid (llama-arch.cpp) by architecture name, and
// the layer filters llama_model::create_memory gives llama_memory_hybrid. Depends on nothing but
// the hyperparameters, so that the loader, the caches and the blocks can all ask.

#include "galloc-model-impl.h"

#include <string.h>

enum model_memory galloc_model_arch_memory(const char * name) {
    static const char * const recurrent[] = { "mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7" };
    // deepseek4 is hybrid too, with a memory of its own (not llama_memory_hybrid)
    static const char * const hybrid[] = { "jamba", "falcon-h1", "plamo2", "granitehybrid", "lfm2", "lfm2moe", "nemotron_h",
                                           "nemotron_h_moe", "qwen3next", "kimi-linear", "bailingmoe3", "kimi-k3", "qwen35",
                                           "qwen35moe", "minimax-01" };
    // create_memory's nullptr: the diffusion models keep nothing between batches
    static const char * const none[] = { "dream", "llada", "llada-moe", "rnd1" };
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        if (strcmp(name, none[i]) == 0) {
            return MODEL_MEMORY_NONE;
        }
    }
    for (size_t i = 0; i < sizeof(recurrent) / sizeof(recurrent[0]); i++) {
        if (strcmp(name, recurrent[i]) == 0) {
            return MODEL_MEMORY_RECURRENT;
        }
    }
    for (size_t i = 0; i < sizeof(hybrid) / sizeof(hybrid[0]); i++) {
        if (strcmp(name, hybrid[i]) == 0) {
            return MODEL_MEMORY_HYBRID;
        }
    }
    return MODEL_MEMORY_KV;
}

bool galloc_model_layer_attn(const struct galloc_model * m, uint32_t il) {
    const struct model_hparams * hp = &m->hp;
    if (il >= hp->n_layer - hp->n_layer_nextn) {
        return false; // a NextN (MTP) block: the main context keeps no memory for it (qwen3next, qwen35)
    }
    if (strcmp(m->arch->name, "falcon-h1") == 0) {
        return true; // attention and a Mamba-2 block side by side in every layer
    }
    if (strcmp(m->arch->name, "nemotron_h") == 0 || strcmp(m->arch->name, "nemotron_h_moe") == 0) {
        return !hp->is_recr[il] && hp->n_ff[il] == 0; // FFN-only layers have neither
    }
    return !hp->is_recr[il];
}

bool galloc_model_layer_recr(const struct galloc_model * m, uint32_t il) {
    const struct model_hparams * hp = &m->hp;
    if (il >= hp->n_layer - hp->n_layer_nextn) {
        return false;
    }
    if (strcmp(m->arch->name, "nemotron_h") == 0 || strcmp(m->arch->name, "nemotron_h_moe") == 0) {
        return hp->is_recr[il] && hp->n_ff[il] == 0;
    }
    return hp->is_recr[il];
}
