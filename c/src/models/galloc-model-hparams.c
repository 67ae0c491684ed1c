// galloc-model-hparams.c: a model's hyperparameters, read with llama.cpp's keys and defaults.
//
// The loader reads keys from a GGUF header (with llama.cpp's strict type checks: a uint32 key
// must be UINT32, a float key FLOAT32) or from a built-in card's list; galloc_model_load_hparams is
// llama_model::load_hparams for the keys the supported architectures use, then the
// architecture's own keys. Models are made from either source in galloc-model-open.c.

#include "galloc-gguf.h"
#include "galloc-error.h"
#include "galloc-model-impl.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// per-layer values (llama_hparams)
//

uint32_t galloc_hp_n_embd_head_k(const struct model_hparams * hp, uint32_t il) {
    return hp->is_swa[il] ? hp->n_embd_head_k_swa : hp->n_embd_head_k_full;
}

uint32_t galloc_hp_n_embd_head_v(const struct model_hparams * hp, uint32_t il) {
    return hp->is_swa[il] ? hp->n_embd_head_v_swa : hp->n_embd_head_v_full;
}

uint32_t galloc_hp_n_rot(const struct model_hparams * hp, uint32_t il) {
    return hp->is_swa[il] ? hp->n_rot_swa : hp->n_rot_full;
}

uint32_t galloc_hp_n_embd_k_gqa(const struct model_hparams * hp, uint32_t il) {
    return galloc_hp_n_embd_head_k(hp, il) * hp->n_head_kv[il];
}

uint32_t galloc_hp_n_embd_v_gqa(const struct model_hparams * hp, uint32_t il) {
    return galloc_hp_n_embd_head_v(hp, il) * hp->n_head_kv[il];
}

uint32_t galloc_hp_n_embd_v_gqa_max(const struct model_hparams * hp) {
    uint32_t val = galloc_hp_n_embd_v_gqa(hp, 0);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        val = galloc_hp_n_embd_v_gqa(hp, il) > val ? galloc_hp_n_embd_v_gqa(hp, il) : val;
    }
    return val;
}

bool galloc_hp_is_mla(const struct model_hparams * hp) {
    return hp->n_embd_head_k_mla != 0 && hp->n_embd_head_v_mla != 0;
}

bool galloc_hp_use_mrope(const struct model_hparams * hp) {
    return hp->rope_sections[0] > 0 && hp->rope_sections[1] > 0;
}

// layers il with il % n < n - 1 slide (n = 0: every layer)
void galloc_hp_set_swa_pattern(struct model_hparams * hp, uint32_t n_pattern) {
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->is_swa[il] = n_pattern == 0 || (il % n_pattern < n_pattern - 1);
    }
}

// Mamba's conv state: the last d_conv - 1 columns of x (and of B and C, Mamba-2)
uint32_t galloc_hp_n_embd_r(const struct model_hparams * hp) {
    if (hp->n_shortconv_l_cache != 0) {
        return hp->n_embd * (hp->n_shortconv_l_cache - 1); // LFM2: the last l_cache - 1 columns
    }
    if (hp->n_embd_head_kda != 0) {
        // Kimi's delta attention: the Q, K and V convolutions' columns
        return 3 * (hp->ssm_d_conv > 0 ? hp->ssm_d_conv - 1 : 3) * hp->n_head[0] * hp->n_embd_head_kda;
    }
    return (hp->ssm_d_conv > 0 ? hp->ssm_d_conv - 1 : 0) * (hp->ssm_d_inner + 2 * hp->ssm_n_group * hp->ssm_d_state);
}

// Mamba's scan state
uint32_t galloc_hp_n_embd_s(const struct model_hparams * hp) {
    if (hp->n_embd_head_kda != 0) {
        return hp->n_embd_head_kda * hp->n_embd_head_kda * hp->n_head[0]; // Kimi: a head_dim x head_dim state per head
    }
    return hp->ssm_d_state * hp->ssm_d_inner;
}

//
// the loader
//

static bool ml_fail(struct model_loader * ml, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);
static bool ml_fail(struct model_loader * ml, const char * fmt, ...) {
    if (ml->err) {
        va_list args;
        va_start(args, fmt);
        const int n = vsnprintf(ml->err->message, sizeof(ml->err->message), fmt, args);
        va_end(args);
        ml->err->status = GALLOC_STATUS_INVALID; // the metadata breaks what llama.cpp's loader accepts
        galloc_error_one_line(ml->err->message, n < 0 || (size_t) n >= sizeof(ml->err->message));
    }
    return false;
}

bool galloc_model_loader_refuse(struct model_loader * ml, const char * fmt, ...) {
    if (ml->err) {
        va_list args;
        va_start(args, fmt);
        const int n = vsnprintf(ml->err->message, sizeof(ml->err->message), fmt, args);
        va_end(args);
        if (n >= 0 && (size_t) n < sizeof(ml->err->message)) {
            snprintf(ml->err->message + n, sizeof(ml->err->message) - (size_t) n, "; %s", GALLOC_MODEL_CAPTURE_HINT);
        }
        ml->err->status = GALLOC_STATUS_INVALID;
        galloc_error_one_line(ml->err->message, false);
    }
    return false;
}

// ".block_count" -> "llama.block_count"
static void ml_key(const struct model_loader * ml, const char * key, char * out, size_t size) {
    if (key[0] == '.') {
        snprintf(out, size, "%s%s", ml->arch, key);
    } else {
        snprintf(out, size, "%s", key);
    }
}

static const struct model_card_kv * card_find(const struct model_card * card, const char * key) {
    for (int i = 0; i < card->n_kv; i++) {
        if (strcmp(card->kv[i].key, key) == 0) {
            return &card->kv[i];
        }
    }
    return NULL;
}

// the value of key: false when absent; with type checked against want (GGUF) or a number (card)
static bool ml_find(struct model_loader * ml, const char * key, enum galloc_gguf_type want, double * num,
                    bool * bad_type, char * full, size_t full_size) {
    ml_key(ml, key, full, full_size);
    *bad_type = false;
    if (ml->card) {
        const struct model_card_kv * kv = card_find(ml->card, key);
        if (!kv) {
            return false;
        }
        *bad_type = kv->str != NULL || kv->arr != NULL; // a word or a list where a number is read
        *num      = kv->num;
        return true;
    }
    const struct galloc_gguf_kv * kv = galloc_gguf_find(ml->gguf, full);
    if (!kv) {
        return false;
    }
    if (galloc_gguf_kv_type(kv) != want) {
        *bad_type = true;
        return true;
    }
    if (want == GALLOC_GGUF_TYPE_FLOAT32) {
        return galloc_gguf_value_f64(&kv->value, 0, num);
    }
    uint64_t u = 0;
    if (!galloc_gguf_value_u64(&kv->value, 0, &u)) {
        *bad_type = true;
        return true;
    }
    *num = (double) u;
    return true;
}

static const char * gguf_type_label(enum galloc_gguf_type t) {
    return galloc_gguf_type_name(t);
}

static bool ml_get_num(struct model_loader * ml, const char * key, enum galloc_gguf_type want, double * num, bool required,
                       bool * found) {
    char   full[128];
    bool   bad_type;
    *found = ml_find(ml, key, want, num, &bad_type, full, sizeof(full));
    if (!*found) {
        return required ? ml_fail(ml, "key not found in model: %s", full) : true;
    }
    if (bad_type && ml->card) {
        const struct model_card_kv * kv = card_find(ml->card, key);
        return ml_fail(ml, "card %s: key %s has wrong type %s but expected type %s", ml->card->name, full,
                       kv->arr ? "arr" : "str", gguf_type_label(want));
    }
    if (bad_type) {
        const struct galloc_gguf_kv * kv = galloc_gguf_find(ml->gguf, full);
        return ml_fail(ml, "key %s has wrong type %s but expected type %s", full,
                       gguf_type_label(galloc_gguf_kv_type(kv)), gguf_type_label(want));
    }
    return true;
}

bool galloc_ml_get_u32(struct model_loader * ml, const char * key, uint32_t * out, bool required) {
    double num;
    bool   found;
    if (!ml_get_num(ml, key, GALLOC_GGUF_TYPE_UINT32, &num, required, &found)) {
        return false;
    }
    if (found) {
        *out = (uint32_t) num;
    }
    return true;
}

// float keys must be finite: an infinite or NaN hyperparameter makes no model (llama.cpp would build
// a graph computing NaNs; the builders' YaRN and attention-scale arithmetic would not end)
bool galloc_ml_get_f32(struct model_loader * ml, const char * key, float * out, bool required) {
    double num;
    bool   found;
    if (!ml_get_num(ml, key, GALLOC_GGUF_TYPE_FLOAT32, &num, required, &found)) {
        return false;
    }
    if (found && !(num >= -FLT_MAX && num <= FLT_MAX)) {
        char full[128];
        ml_key(ml, key, full, sizeof(full));
        return ml_fail(ml, "%s: %s is not a finite number", full, num != num ? "nan" : num > 0 ? "inf" : "-inf");
    }
    if (found) {
        *out = (float) num;
    }
    return true;
}

bool galloc_ml_get_bool(struct model_loader * ml, const char * key, bool * out, bool required) {
    double num;
    bool   found;
    if (!ml_get_num(ml, key, GALLOC_GGUF_TYPE_BOOL, &num, required, &found)) {
        return false;
    }
    if (found) {
        *out = num != 0.0;
    }
    return true;
}

bool galloc_ml_has_key(struct model_loader * ml, const char * key) {
    char full[128];
    ml_key(ml, key, full, sizeof(full));
    return ml->card ? card_find(ml->card, key) != NULL : galloc_gguf_find(ml->gguf, full) != NULL;
}

const char * galloc_ml_get_str(struct model_loader * ml, const char * key) {
    if (ml->card) {
        const struct model_card_kv * kv = card_find(ml->card, key);
        return kv ? kv->str : NULL;
    }
    char full[128];
    ml_key(ml, key, full, sizeof(full));
    const struct galloc_gguf_kv * kv = galloc_gguf_find(ml->gguf, full);
    return kv && galloc_gguf_kv_type(kv) == GALLOC_GGUF_TYPE_STRING ? galloc_gguf_get_str(ml->gguf, full) : NULL;
}

bool galloc_ml_get_u32_scalar(struct model_loader * ml, const char * key, uint32_t * out) {
    char full[128];
    ml_key(ml, key, full, sizeof(full));
    const struct galloc_gguf_kv * kv  = ml->gguf ? galloc_gguf_find(ml->gguf, full) : NULL;
    const struct model_card_kv *  ckv = ml->card ? card_find(ml->card, key) : NULL;
    if ((kv && galloc_gguf_kv_type(kv) == GALLOC_GGUF_TYPE_ARRAY) || (ckv && ckv->arr)) {
        return true;
    }
    return galloc_ml_get_u32(ml, key, out, false);
}

bool galloc_ml_get_u32_or_arr(struct model_loader * ml, const char * key, uint32_t * out, uint32_t n, bool required) {
    char full[128];
    ml_key(ml, key, full, sizeof(full));
    if (n > MODEL_MAX_LAYERS) {
        return ml_fail(ml, "n > N_MAX: %u > %u for key %s", n, (unsigned) MODEL_MAX_LAYERS, full);
    }
    const struct model_card_kv * ckv = ml->card ? card_find(ml->card, key) : NULL;
    if (ckv && ckv->arr) {
        if (ckv->n_arr != (int) n) {
            return ml_fail(ml, "key %s has wrong array length; expected %u, got %d", full, n, ckv->n_arr);
        }
        for (uint32_t i = 0; i < n; i++) {
            out[i] = (uint32_t) ckv->arr[i];
        }
        return true;
    }
    const struct galloc_gguf_kv * kv = ml->gguf ? galloc_gguf_find(ml->gguf, full) : NULL;
    if (kv && galloc_gguf_kv_type(kv) == GALLOC_GGUF_TYPE_ARRAY) {
        const struct galloc_gguf_value * v = &kv->value;
        if (v->n != n) {
            return ml_fail(ml, "key %s has wrong array length; expected %u, got %u", full, n, (unsigned) v->n);
        }
        if (v->elem_type != GALLOC_GGUF_TYPE_UINT32 && v->elem_type != GALLOC_GGUF_TYPE_INT32 &&
            v->elem_type != GALLOC_GGUF_TYPE_BOOL) {
            return ml_fail(ml, "%s has wrong array element type %s", full, gguf_type_label(v->elem_type));
        }
        for (uint32_t i = 0; i < n; i++) {
            int64_t x = 0;
            if (!galloc_gguf_value_i64(v, i, &x)) {
                return ml_fail(ml, "%s: element %u unreadable", full, i);
            }
            out[i] = (uint32_t) x;
        }
        return true;
    }
    uint32_t value = 0;
    bool     found = galloc_ml_has_key(ml, key);
    if (!galloc_ml_get_u32(ml, key, &value, required)) {
        return false;
    }
    if (found) {
        for (uint32_t i = 0; i < n; i++) {
            out[i] = value;
        }
    }
    return true;
}

bool galloc_ml_get_expert_gating(struct model_loader * ml, uint32_t * func) {
    if (!galloc_ml_get_u32(ml, ".expert_gating_func", func, false)) {
        return false;
    }
    // llama.cpp's build_moe_ffn builds softmax (1), sigmoid (2) and softmax over the selected (3); it
    // aborts on none (0, also the default); sqrt-softplus (4) is not built by galloc
    if (*func < 1 || *func > 3) {
        return galloc_model_loader_refuse(ml, "%s.expert_gating_func: %u (%s) is not built by galloc", ml->arch, *func,
                                          *func == 0 ? "none: llama.cpp's build_moe_ffn aborts" : "not softmax, sigmoid or softmax weights");
    }
    return true;
}

bool galloc_ml_count_i32_at_least(struct model_loader * ml, const char * key, int64_t min, int64_t * count) {
    char full[128];
    ml_key(ml, key, full, sizeof(full));
    *count = 0;
    const struct model_card_kv * ckv = ml->card ? card_find(ml->card, key) : NULL;
    if (ckv) {
        if (!ckv->arr) {
            return ml_fail(ml, "key %s has wrong type but expected an array of int32", full);
        }
        for (int i = 0; i < ckv->n_arr; i++) {
            *count += ckv->arr[i] >= (double) min;
        }
        return true;
    }
    const struct galloc_gguf_kv * kv = ml->gguf ? galloc_gguf_find(ml->gguf, full) : NULL;
    if (!kv) {
        return true;
    }
    if (galloc_gguf_kv_type(kv) != GALLOC_GGUF_TYPE_ARRAY ||
        (kv->value.elem_type != GALLOC_GGUF_TYPE_INT32 && kv->value.elem_type != GALLOC_GGUF_TYPE_UINT32)) {
        return ml_fail(ml, "key %s has wrong type but expected an array of int32", full);
    }
    for (uint64_t i = 0; i < kv->value.n; i++) {
        int64_t x = 0;
        if (!galloc_gguf_value_i64(&kv->value, i, &x)) {
            return ml_fail(ml, "%s: element %llu unreadable", full, (unsigned long long) i);
        }
        *count += x >= min;
    }
    return true;
}

//
// llama_model::load_hparams
//

// what llama.cpp would assert on while building (it aborts; here a message), and sizes beyond
// any model, so that no shape overflows and every graph stays within what documents hold
static bool hparams_sane(struct model_loader * ml, const struct model_hparams * hp) {
    static const struct { const char * key; uint32_t max; } limits[] = {
        { "embedding_length", 1u << 20 }, { "vocab_size", 1u << 24 }, { "context_length", 1u << 24 },
        { "expert_used_count", 128 }, { "attention.key_length", 1u << 14 }, { "attention.value_length", 1u << 14 },
        { "expert_feed_forward_length", 1u << 22 }, { "attention.sliding_window", 1u << 24 },
    };
    const uint32_t values[] = { hp->n_embd, hp->n_vocab, hp->n_ctx_train, hp->n_expert_used,
                                hp->n_embd_head_k_full > hp->n_embd_head_k_swa ? hp->n_embd_head_k_full : hp->n_embd_head_k_swa,
                                hp->n_embd_head_v_full > hp->n_embd_head_v_swa ? hp->n_embd_head_v_full : hp->n_embd_head_v_swa,
                                hp->n_ff_exp, hp->n_swa };
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        if (values[i] > limits[i].max) {
            return ml_fail(ml, "%s.%s: %u is more than %u", ml->arch, limits[i].key, values[i], limits[i].max);
        }
    }
    const bool attn_free = hp->n_embd_head_k_full == 0 && hp->n_embd_head_v_full == 0; // no heads: a recurrent model
    if (!attn_free && (hp->n_embd_head_k_full == 0 || hp->n_embd_head_v_full == 0 || hp->n_embd_head_k_swa == 0 ||
                       hp->n_embd_head_v_swa == 0)) {
        return ml_fail(ml, "%s.attention.key_length/value_length: a head size of 0", ml->arch);
    }
    if (hp->n_rot_full > hp->n_embd_head_k_full || hp->n_rot_full % 2 != 0 || hp->n_rot_swa > hp->n_embd_head_k_swa ||
        hp->n_rot_swa % 2 != 0) {
        return ml_fail(ml, "%s.rope.dimension_count: %u is odd or more than the head size %u", ml->arch, hp->n_rot_full,
                       hp->n_embd_head_k_full);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->n_head[il] > (1u << 12) || (hp->n_head_kv[il] != 0 && hp->n_head[il] % hp->n_head_kv[il] != 0)) {
            return ml_fail(ml, "%s.attention.head_count_kv: layer %u has %u heads for %u KV heads (a divisor, at most 4096 heads)",
                           ml->arch, il, hp->n_head[il], hp->n_head_kv[il]);
        }
        if (hp->n_ff[il] > (1u << 22)) {
            return ml_fail(ml, "%s.feed_forward_length: layer %u: %u is more than %u", ml->arch, il, hp->n_ff[il], 1u << 22);
        }
    }
    return true;
}

static enum model_rope_scaling rope_scaling_from_name(const char * name, bool * ok) {
    *ok = true;
    if (strcmp(name, "none") == 0) {
        return MODEL_ROPE_SCALING_NONE;
    }
    if (strcmp(name, "linear") == 0) {
        return MODEL_ROPE_SCALING_LINEAR;
    }
    if (strcmp(name, "yarn") == 0) {
        return MODEL_ROPE_SCALING_YARN;
    }
    if (strcmp(name, "longrope") == 0) {
        return MODEL_ROPE_SCALING_LONGROPE;
    }
    *ok = false;
    return MODEL_ROPE_SCALING_LINEAR;
}

bool galloc_model_load_hparams(struct galloc_model * m, struct model_loader * ml) {
    struct model_hparams * hp = &m->hp;
    memset(hp, 0, sizeof(*hp));
    hp->causal_attn               = true;
    hp->rope_attn_factor          = 1.0f;
    hp->rope_freq_base_train_swa  = 10000.0f;
    hp->rope_freq_scale_train_swa = 1.0f;
    hp->yarn_ext_factor           = -1.0f;
    hp->yarn_attn_factor          = 1.0f;
    hp->yarn_beta_fast            = 32.0f;
    hp->yarn_beta_slow            = 1.0f;
    hp->f_final_logit_softcapping = 30.0f;
    hp->rope_type                 = m->arch->rope_type;
    hp->n_no_rope_layer_step      = 4;
    hp->f_norm_eps                = 1e-5f;
    for (uint32_t il = 0; il < MODEL_MAX_LAYERS; il++) {
        hp->is_recr[il] = galloc_model_arch_memory(m->arch->name) == MODEL_MEMORY_RECURRENT;
    }
    // every layer attends: with a KV cache, or over the batch alone (no memory)
    const bool attn_only = galloc_model_arch_memory(m->arch->name) == MODEL_MEMORY_KV ||
                           galloc_model_arch_memory(m->arch->name) == MODEL_MEMORY_NONE;

    if (!galloc_ml_get_u32(ml, ".context_length", &hp->n_ctx_train, true) ||
        !galloc_ml_get_u32(ml, ".embedding_length", &hp->n_embd, true) ||
        !galloc_ml_get_bool(ml, ".attention.causal", &hp->causal_attn, false) ||
        !galloc_ml_get_u32(ml, ".block_count", &hp->n_layer, true)) {
        return false;
    }
    if (hp->n_layer == 0 || hp->n_layer > MODEL_MAX_LAYERS) {
        return ml_fail(ml, "%s.block_count: %u layers (1 to %d supported)", ml->arch, hp->n_layer, MODEL_MAX_LAYERS);
    }
    if (!galloc_ml_get_u32(ml, ".expert_count", &hp->n_expert, false) ||
        !galloc_ml_get_u32(ml, ".expert_used_count", &hp->n_expert_used, false) ||
        !galloc_ml_get_u32(ml, ".expert_group_count", &hp->n_expert_groups, false) ||
        !galloc_ml_get_u32(ml, ".expert_group_used_count", &hp->n_group_used, false)) {
        return false;
    }
    if (hp->n_expert > MODEL_MAX_EXPERTS) {
        return ml_fail(ml, "%s.expert_count: %u experts (at most %d)", ml->arch, hp->n_expert, MODEL_MAX_EXPERTS);
    }
    if (hp->n_expert_used > hp->n_expert) {
        return ml_fail(ml, "%s.expert_used_count: %u experts used of %u", ml->arch, hp->n_expert_used, hp->n_expert);
    }
    if (hp->n_expert > 0 && hp->n_expert_used == 0) {
        return ml_fail(ml, "%s.expert_used_count: 0 experts used of %u", ml->arch, hp->n_expert);
    }

    if (!galloc_ml_get_u32_or_arr(ml, ".feed_forward_length", hp->n_ff, hp->n_layer, false) ||
        !galloc_ml_get_u32_or_arr(ml, ".attention.head_count", hp->n_head, hp->n_layer, false)) {
        return false;
    }
    memcpy(hp->n_head_kv, hp->n_head, sizeof(hp->n_head_kv)); // n_head_kv defaults to n_head
    if (!galloc_ml_get_u32_or_arr(ml, ".attention.head_count_kv", hp->n_head_kv, hp->n_layer, false)) {
        return false;
    }

    hp->n_ctx_orig_yarn = hp->n_ctx_train;
    if (!galloc_ml_get_u32(ml, ".rope.scaling.original_context_length", &hp->n_ctx_orig_yarn, false)) {
        return false;
    }
    hp->rope_freq_base_train = 10000.0f;
    if (!galloc_ml_get_f32(ml, ".rope.freq_base", &hp->rope_freq_base_train, false)) {
        return false;
    }
    hp->rope_scaling_type_train = MODEL_ROPE_SCALING_LINEAR;
    const char * scaling = galloc_ml_get_str(ml, ".rope.scaling.type");
    if (scaling) {
        bool ok;
        hp->rope_scaling_type_train = rope_scaling_from_name(scaling, &ok);
        if (!ok) {
            return ml_fail(ml, "%s.rope.scaling.type: unknown rope scaling type '%.32s'", ml->arch, scaling);
        }
    } else if (galloc_ml_has_key(ml, ".rope.scaling.type")) {
        return ml_fail(ml, "key %s.rope.scaling.type has wrong type but expected type str", ml->arch);
    }
    float ropescale = 0.0f;
    if (!galloc_ml_get_f32(ml, ".rope.scaling.factor", &ropescale, false)) {
        return false;
    }
    if (ropescale == 0.0f && !galloc_ml_get_f32(ml, ".rope.scale_linear", &ropescale, false)) {
        return false;
    }
    hp->rope_freq_scale_train = ropescale == 0.0f ? 1.0f : 1.0f / ropescale;
    if (!galloc_ml_get_f32(ml, ".rope.scaling.attn_factor", &hp->rope_attn_factor, false)) {
        return false;
    }

    if (hp->n_head[0] > 0) {
        hp->n_embd_head_k_full = hp->n_embd / hp->n_head[0];
        hp->n_embd_head_v_full = hp->n_embd / hp->n_head[0];
        if (!galloc_ml_get_u32(ml, ".attention.key_length", &hp->n_embd_head_k_full, false) ||
            !galloc_ml_get_u32(ml, ".attention.value_length", &hp->n_embd_head_v_full, false)) {
            return false;
        }
        hp->n_rot_full = hp->n_embd_head_k_full;
        if (!galloc_ml_get_u32(ml, ".rope.dimension_count", &hp->n_rot_full, false)) {
            return false;
        }
        if (strcmp(m->arch->name, "llama") == 0 && hp->n_rot_full != hp->n_embd_head_k_full) {
            return ml_fail(ml, "invalid n_rot: %u, expected %u", hp->n_rot_full, hp->n_embd_head_k_full);
        }
    } else if (attn_only) {
        return ml_fail(ml, "%s.attention.head_count: no attention heads", ml->arch);
    } // else a recurrent model: no heads, head sizes 0 (the hybrids check their attention layers)
    hp->n_embd_head_k_swa = hp->n_embd_head_k_full;
    hp->n_embd_head_v_swa = hp->n_embd_head_v_full;
    hp->n_rot_swa         = hp->n_rot_full;
    if (!galloc_ml_get_u32(ml, ".attention.key_length_swa", &hp->n_embd_head_k_swa, false) ||
        !galloc_ml_get_u32(ml, ".attention.value_length_swa", &hp->n_embd_head_v_swa, false) ||
        !galloc_ml_get_u32(ml, ".rope.dimension_count_swa", &hp->n_rot_swa, false)) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer && attn_only; il++) {
        if (hp->n_head[il] == 0 || hp->n_head_kv[il] == 0) {
            return ml_fail(ml, "%s.attention.head_count%s: layer %u has no heads", ml->arch,
                           hp->n_head[il] == 0 ? "" : "_kv", il);
        }
    }

    // the vocabulary: tokenizer.ggml.tokens, or ARCH.vocab_size for files without one
    uint64_t n_tokens = 0;
    enum galloc_gguf_type elem;
    if (ml->gguf && galloc_gguf_get_arr(ml->gguf, "tokenizer.ggml.tokens", &elem, &n_tokens)) {
        hp->n_vocab = (uint32_t) n_tokens;
    } else if (!galloc_ml_get_u32(ml, ".vocab_size", &hp->n_vocab, false)) {
        return false;
    }

    // classifier heads: one output per label (llama.cpp: classifier.output_labels, default 1)
    hp->n_cls_out = 1;
    char labels_key[128];
    snprintf(labels_key, sizeof(labels_key), "%s.classifier.output_labels", ml->arch);
    uint64_t n_labels = 0;
    if (ml->gguf && galloc_gguf_get_arr(ml->gguf, labels_key, &elem, &n_labels) && n_labels > 0) {
        if (n_labels > (1u << 20)) {
            return ml_fail(ml, "%s: %llu labels", labels_key, (unsigned long long) n_labels);
        }
        hp->n_cls_out = (uint32_t) n_labels;
    }

    if (!m->arch->load_hparams(ml, hp)) {
        return false;
    }
    if (hp->n_embd == 0 || hp->n_vocab == 0) {
        return ml_fail(ml, "%s: %s", ml->arch, hp->n_embd == 0 ? "embedding_length is 0" : "no vocabulary size");
    }
    return hparams_sane(ml, hp);
}
