// galloc-presets.c: ready-made graph documents: the allocator test's scenarios and the tiny
// llama decoders that teach (documents embedded from c/presets by scripts/embed-presets.sh), then
// llama.cpp's own graphs of well-known models (model cards through the model builders).

#include "galloc-presets.h"
#include "galloc-model.h"

#include <stdlib.h>
#include <string.h>

// a graph document kept as data: its name, one sentence, its text
struct preset_document {
    const char * name;
    const char * description;
    const char * text;
};

#include "galloc-preset-data.h" // build/gen: preset_documents[], in menu order

#define N_DOCUMENTS ((int) (sizeof(preset_documents) / sizeof(preset_documents[0])))

// llama.cpp's graphs of model cards at a context setting
struct model_preset {
    const char * name;
    const char * card;
    const char * description;
    int64_t      n_ctx;
    enum galloc_model_graph graph;
};

static const struct model_preset model_presets[] = {
    { "llama-3.1-8b-c4096", "llama-3.1-8b", "llama.cpp's prompt graph of Llama 3.1 8B: -c 4096 -ub 512, flash attention.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "llama-3.1-8b-decode", "llama-3.1-8b", "llama.cpp's one-token graph of Llama 3.1 8B against a 4096-cell KV cache.",
      4096, GALLOC_MODEL_GRAPH_DECODE },
    { "llama-3.1-70b-c8192", "llama-3.1-70b", "llama.cpp's prompt graph of Llama 3.1 70B (64 heads sharing 8 KV heads): -c 8192.",
      8192, GALLOC_MODEL_GRAPH_PROMPT },
    { "qwen3-30b-a3b-c4096", "qwen3-30b-a3b", "llama.cpp's prompt graph of Qwen3-30B-A3B: 128 experts, 8 used per token.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "gemma-3-4b-c4096", "gemma-3-4b", "llama.cpp's prompt graph of gemma-3-4b: sliding-window layers on a 1536-cell cache.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
    { "gpt-oss-20b-c4096", "gpt-oss-20b", "llama.cpp's prompt graph of gpt-oss-20b: attention sinks, biased experts.",
      4096, GALLOC_MODEL_GRAPH_PROMPT },
};

#define N_MODEL_PRESETS ((int) (sizeof(model_presets) / sizeof(model_presets[0])))

static char * model_preset_document(const struct model_preset * p, size_t * len) {
    struct galloc_model * m = NULL;
    if (!galloc_model_from_card(p->card, &m, NULL)) {
        return NULL;
    }
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx = p->n_ctx;
    s.graph = p->graph;
    char * doc = galloc_model_document_named(m, &s, p->name, len, NULL);
    galloc_model_free(m);
    return doc;
}

// the documents, then the model presets
int galloc_preset_count(void) {
    return N_DOCUMENTS + N_MODEL_PRESETS;
}

const char * galloc_preset_name(int i) {
    if (i >= 0 && i < N_DOCUMENTS) {
        return preset_documents[i].name;
    }
    const int m = i - N_DOCUMENTS;
    return m >= 0 && m < N_MODEL_PRESETS ? model_presets[m].name : NULL;
}

const char * galloc_preset_description(int i) {
    if (i >= 0 && i < N_DOCUMENTS) {
        return preset_documents[i].description;
    }
    const int m = i - N_DOCUMENTS;
    return m >= 0 && m < N_MODEL_PRESETS ? model_presets[m].description : NULL;
}

static int preset_index(const char * name) {
    for (int i = 0; name && i < galloc_preset_count(); i++) {
        if (strcmp(galloc_preset_name(i), name) == 0) {
            return i;
        }
    }
    return -1;
}

bool galloc_preset_exists(const char * name) {
    return preset_index(name) >= 0;
}

static char * copy_document(const char * text, size_t * len) {
    const size_t n = strlen(text);
    char * out = malloc(n + 1);
    if (out) {
        memcpy(out, text, n + 1);
        if (len) {
            *len = n;
        }
    }
    return out;
}

char * galloc_preset_document(const char * name, size_t * len) {
    const int i = preset_index(name);
    if (i < 0) {
        return NULL;
    }
    return i < N_DOCUMENTS ? copy_document(preset_documents[i].text, len) : model_preset_document(&model_presets[i - N_DOCUMENTS], len);
}
