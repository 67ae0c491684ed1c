// galloc-model-open.c: a model from a GGUF header or a built-in card, the table of architectures.
//
// Above the architectures (galloc-model-arch-*.c), which build on the hyperparameter and graph
// helpers: opening picks the architecture by name and loads the hyperparameters with it
// (galloc_model_load_hparams), so no helper depends back on the architectures.

#include "galloc-error.h"
#include "galloc-gguf.h"
#include "galloc-model-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct model_arch_def * const model_archs[] = {
    &galloc_model_arch_llama, &galloc_model_arch_mistral3, &galloc_model_arch_qwen2, &galloc_model_arch_qwen2moe, &galloc_model_arch_qwen3, &galloc_model_arch_qwen3moe, &galloc_model_arch_gemma, &galloc_model_arch_gemma2, &galloc_model_arch_gemma3, &galloc_model_arch_openai_moe,
    &galloc_model_arch_llama4, &galloc_model_arch_qwen3vl, &galloc_model_arch_qwen3vlmoe, &galloc_model_arch_deepseek,
    &galloc_model_arch_glm4, &galloc_model_arch_phi3, &galloc_model_arch_phimoe, &galloc_model_arch_olmoe, &galloc_model_arch_smollm3,
    &galloc_model_arch_granite, &galloc_model_arch_granitemoe, &galloc_model_arch_exaone4, &galloc_model_arch_ernie4_5,
    &galloc_model_arch_ernie4_5_moe, &galloc_model_arch_hunyuan_dense, &galloc_model_arch_hunyuan_moe, &galloc_model_arch_seed_oss,
    &galloc_model_arch_minimax_m2, &galloc_model_arch_dots1, &galloc_model_arch_bailingmoe2, &galloc_model_arch_command_r,
    &galloc_model_arch_internlm2, &galloc_model_arch_glm4moe, &galloc_model_arch_deepseek2,
    &galloc_model_arch_mistral4, &galloc_model_arch_qwen2vl,
    &galloc_model_arch_mamba, &galloc_model_arch_mamba2, &galloc_model_arch_granite_hybrid, &galloc_model_arch_falcon_h1,
    &galloc_model_arch_nemotron_h, &galloc_model_arch_nemotron_h_moe, &galloc_model_arch_jamba, &galloc_model_arch_lfm2, &galloc_model_arch_lfm2moe,
    &galloc_model_arch_plamo2,
    &galloc_model_arch_qwen35, &galloc_model_arch_qwen35moe, &galloc_model_arch_qwen3next,
    &galloc_model_arch_gpt2, &galloc_model_arch_starcoder, &galloc_model_arch_starcoder2, &galloc_model_arch_codeshell, &galloc_model_arch_jais, &galloc_model_arch_bloom, &galloc_model_arch_mpt, &galloc_model_arch_refact,
    &galloc_model_arch_falcon, &galloc_model_arch_gptneox, &galloc_model_arch_phi2, &galloc_model_arch_stablelm,
    &galloc_model_arch_minicpm, &galloc_model_arch_qwen, &galloc_model_arch_olmo, &galloc_model_arch_baichuan, &galloc_model_arch_xverse, &galloc_model_arch_orion, &galloc_model_arch_exaone, &galloc_model_arch_nemotron, &galloc_model_arch_arcee,
    &galloc_model_arch_pangu_embedded, &galloc_model_arch_jais2, &galloc_model_arch_maincoder, &galloc_model_arch_nanbeige, &galloc_model_arch_deci, &galloc_model_arch_plamo, &galloc_model_arch_chatglm, &galloc_model_arch_openelm, &galloc_model_arch_talkie,
    &galloc_model_arch_kimi_linear, &galloc_model_arch_minicpm3, &galloc_model_arch_dbrx, &galloc_model_arch_grok,
    &galloc_model_arch_arctic, &galloc_model_arch_bailingmoe,
    &galloc_model_arch_dream, &galloc_model_arch_rnd1, &galloc_model_arch_llada, &galloc_model_arch_llada_moe,
    &galloc_model_arch_grovemoe,
    &galloc_model_arch_smallthinker, &galloc_model_arch_hunyuan_vl, &galloc_model_arch_hy_v3,
    &galloc_model_arch_paddleocr, &galloc_model_arch_cogvlm,
};

const struct model_arch_def * galloc_model_arch_find(const char * name) {
    for (size_t i = 0; name && i < sizeof(model_archs) / sizeof(model_archs[0]); i++) {
        if (strcmp(model_archs[i]->name, name) == 0) {
            return model_archs[i];
        }
    }
    return NULL;
}

int galloc_model_arch_count(void) {
    return (int) (sizeof(model_archs) / sizeof(model_archs[0]));
}

const char * galloc_model_arch_name_at(int i) {
    return i >= 0 && i < galloc_model_arch_count() ? model_archs[i]->name : NULL;
}

void galloc_model_arch_list(char * out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < galloc_model_arch_count() && used < size; i++) {
        const int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", model_archs[i]->name);
        used += n > 0 ? (size_t) n : 0;
    }
}

static int tensor_info_by_name(const void * a, const void * b) {
    return strcmp(((const struct model_tensor_info *) a)->name, ((const struct model_tensor_info *) b)->name);
}

bool galloc_model_from_gguf(const struct galloc_gguf * g, struct galloc_model ** out, struct galloc_error * err) {
    *out = NULL;
    galloc_error_clear(err);
    const char * arch_name = galloc_gguf_get_str(g, "general.architecture");
    if (!arch_name) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "general.architecture: missing (not a model file?)");
    }
    const struct model_arch_def * arch = galloc_model_arch_find(arch_name);
    if (!arch) {
        // the list itself would not fit a message: `galloc model --help` prints it
        return galloc_fail(err, GALLOC_STATUS_INVALID,
                           "general.architecture: '%.64s' is not supported by galloc (it builds %d architectures, listed by "
                           "galloc model --help); %s", arch_name, galloc_model_arch_count(), GALLOC_MODEL_CAPTURE_HINT);
    }
    if (g->n_tensors > MODEL_MAX_TENSORS) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "%lld tensors: more than a model of %d layers has", (long long) g->n_tensors,
                           MODEL_MAX_LAYERS);
    }
    struct galloc_model * m = calloc(1, sizeof(*m));
    if (!m) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    m->arch = arch;
    const char * name = galloc_gguf_get_str(g, "general.name");
    snprintf(m->name, sizeof(m->name), "%s", name ? name : arch_name);
    m->tensors = calloc((size_t) g->n_tensors + 1, sizeof(*m->tensors));
    if (!m->tensors) {
        free(m);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    m->n_tensors = g->n_tensors;
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const struct galloc_gguf_tensor_info * ti = &g->tensors[i];
        snprintf(m->tensors[i].name, sizeof(m->tensors[i].name), "%s", ti->name);
        m->tensors[i].type = (enum ggml_type) ti->type;
        for (int d = 0; d < 4; d++) {
            m->tensors[i].ne[d] = d < ti->n_dims ? ti->ne[d] : 1;
        }
    }
    // by name, for galloc_model_weight's binary search (the reader refuses duplicate names)
    qsort(m->tensors, (size_t) m->n_tensors, sizeof(*m->tensors), tensor_info_by_name);
    struct model_loader ml = { g, NULL, arch_name, err };
    if (!galloc_model_load_hparams(m, &ml)) {
        galloc_model_free(m);
        return false;
    }
    *out = m;
    return true;
}

bool galloc_model_from_card(const char * card_name, struct galloc_model ** out, struct galloc_error * err) {
    *out = NULL;
    galloc_error_clear(err);
    const struct model_card * card = galloc_model_card_find(card_name);
    if (!card) {
        return galloc_fail(err, GALLOC_STATUS_NOT_FOUND, "--card: unknown card '%.64s' (galloc model --cards lists them)",
                           card_name ? card_name : "");
    }
    struct galloc_model * m = calloc(1, sizeof(*m));
    if (!m) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    m->arch = galloc_model_arch_find(card->arch);
    m->card = card;
    snprintf(m->name, sizeof(m->name), "%s", card->name);
    struct model_loader ml = { NULL, card, card->arch, err };
    if (!m->arch || !galloc_model_load_hparams(m, &ml)) {
        galloc_model_free(m);
        return false;
    }
    *out = m;
    return true;
}

void galloc_model_free(struct galloc_model * m) {
    if (m) {
        free(m->tensors);
        free(m);
    }
}

const char * galloc_model_arch_name(const struct galloc_model * m) {
    return m ? m->arch->name : NULL;
}

const char * galloc_model_name(const struct galloc_model * m) {
    return m ? m->name : NULL;
}
