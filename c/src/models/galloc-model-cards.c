// galloc-model-cards.c: the built-in model cards (hyperparameters of well-known models).
//
// The cards are data: c/cards holds one file per family (the metadata convert_hf_to_gguf.py
// writes for each model's published config.json, as keys read by the same loader as GGUF files,
// plus the optional tensors the converted model has), embedded at build time by
// scripts/embed-cards.sh as build/gen/galloc-card-data.h. This file only looks them up.

#include "galloc-model-impl.h"

#include <string.h>

#include "galloc-card-data.h"

#define N_CARDS ((int) (sizeof(cards) / sizeof(cards[0])))

const struct model_card * galloc_model_card_find(const char * name) {
    for (int i = 0; name && i < N_CARDS; i++) {
        if (strcmp(cards[i].name, name) == 0) {
            return &cards[i];
        }
    }
    return NULL;
}

static const struct model_card * card_at(int i) {
    return i >= 0 && i < N_CARDS ? &cards[i] : NULL;
}

int galloc_model_card_count(void) {
    return N_CARDS;
}

const char * galloc_model_card_name(int i) {
    return card_at(i) ? card_at(i)->name : NULL;
}

const char * galloc_model_card_description(int i) {
    return card_at(i) ? card_at(i)->description : NULL;
}

const char * galloc_model_card_family(int i) {
    return card_at(i) ? card_at(i)->family : NULL;
}

const char * galloc_model_card_source(int i) {
    return card_at(i) ? card_at(i)->source : NULL;
}

const char * galloc_model_card_arch(int i) {
    return card_at(i) ? card_at(i)->arch : NULL;
}
