// galloc-model.h: the compute graphs llama.cpp builds for a model, from a GGUF header or a model card.
//
// A model is an architecture and its hyperparameters (read with llama.cpp's keys and defaults
// from a GGUF file's metadata and tensor infos, or taken from a built-in card). With llama.cpp's
// context settings (-c, -b, -ub, -fa, -ctk, -ctv, -np) it yields the graph llama.cpp reserves at
// context creation (snapshot 3f545bec, ggml 0.21.0): the same tensors, names, ops, shapes,
// strides, views and order, so the same plan, and the compute buffer size llama.cpp logs.
// Architectures: galloc_model_arch_list; a model galloc cannot build exactly is refused. CPU backend only.
//
// Example usage:
//
//   struct galloc_model * m;
//   struct galloc_error err;
//   if (!galloc_model_from_card("llama-3.1-8b", &m, &err)) { puts(err.message); return; }
//   struct galloc_model_settings s;
//   galloc_model_settings_default(&s);
//   s.n_ctx = 4096;
//   size_t len;
//   char * json = galloc_model_document(m, &s, &len, &err); // the graph document
//   struct galloc_model_sizes sizes;
//   galloc_model_compute_sizes(m, &s, &sizes, &err);        // "CPU compute buffer size = ..."
//   free(json);
//   galloc_model_free(m);

#pragma once

#include "galloc-status.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct galloc_gguf;

//
// settings: llama.cpp's context parameters, by their command-line flags
//

enum galloc_model_graph {
    GALLOC_MODEL_GRAPH_PROMPT, // the worst-case graph reserved at context creation: a full micro-batch
    GALLOC_MODEL_GRAPH_DECODE, // the graph of a context with -b 1 -ub 1: one token (per sequence)
};

struct galloc_model_settings {
    int64_t        n_ctx;      // -c: context length in tokens; 0 = the model's training context
    int64_t        n_batch;    // -b: logical batch
    int64_t        n_ubatch;   // -ub: micro-batch (tokens per graph)
    int32_t        flash_attn; // -fa: 0 off, 1 on (llama.cpp's "auto" is on for the CPU backend)
    enum ggml_type type_k;     // -ctk: K cache type
    enum ggml_type type_v;     // -ctv: V cache type
    int32_t        n_seq;      // -np: sequences (n_seq_max), each with its own KV stream
    enum galloc_model_graph graph; // --graph prompt|decode
    bool           swa_full;   // --swa-full: the sliding-window cache as large as the context
};

// llama.cpp's defaults: -c 0, -b 2048, -ub 512, -fa auto (on), -ctk f16, -ctv f16, -np 1, prompt
void galloc_model_settings_default(struct galloc_model_settings * s);

// the cache types llama.cpp accepts for -ctk/-ctv (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)
bool galloc_model_cache_type_from_name(const char * name, enum ggml_type * type);

//
// models
//

struct galloc_model;

// from a GGUF header (galloc_gguf_read); the model keeps copies of what it needs
// Failures fill err (may be NULL): GALLOC_STATUS_INVALID (metadata llama.cpp's loader refuses, naming
// the key or tensor), GALLOC_STATUS_LIMIT, GALLOC_STATUS_NO_MEMORY; an unknown card GALLOC_STATUS_NOT_FOUND.
bool galloc_model_from_gguf(const struct galloc_gguf * g, struct galloc_model ** out, struct galloc_error * err);
// from a built-in card ("llama-3.1-8b", ...; see galloc_model_card_*)
bool galloc_model_from_card(const char * card, struct galloc_model ** out, struct galloc_error * err);
void galloc_model_free(struct galloc_model * m);

// the architectures galloc builds (general.architecture names: "llama", "qwen2", ...), in order
int          galloc_model_arch_count(void);
const char * galloc_model_arch_name_at(int i);            // NULL when out of range
void         galloc_model_arch_list(char * out, size_t size); // "llama, qwen2, ...", cut to size
const char * galloc_model_arch_name(const struct galloc_model * m); // "llama", "gemma3", "gpt-oss", ...
const char * galloc_model_name(const struct galloc_model * m);      // general.name or the card's name

// built-in cards (c/cards: one file per family, in menu order), each NULL when i is out of range
int          galloc_model_card_count(void);
const char * galloc_model_card_name(int i);        // "llama-3.1-8b"
const char * galloc_model_card_description(int i); // what the model is: its shape in one line
const char * galloc_model_card_family(int i);      // the family it is listed under: "Llama (Meta)"
const char * galloc_model_card_source(int i);      // the Hugging Face repository of its config.json
const char * galloc_model_card_arch(int i);        // its general.architecture: "llama"

//
// graphs and sizes
//

// the compute graph llama.cpp builds for these settings, as a graph document (malloc'd JSON,
// NUL-terminated). NULL with err filled: GALLOC_STATUS_ARGUMENT for settings llama.cpp refuses (the
// message starts with the flag: "-ctv: ..."), GALLOC_STATUS_LIMIT for tensors past what a document
// (or a 32-bit size_t) holds, GALLOC_STATUS_INVALID for a model llama.cpp would refuse (naming the
// tensor), GALLOC_STATUS_NO_MEMORY.
char * galloc_model_document(const struct galloc_model * m, const struct galloc_model_settings * s,
                             size_t * len, struct galloc_error * err);
// the same with the document's "name" given (NULL: the model and settings, as above)
char * galloc_model_document_named(const struct galloc_model * m, const struct galloc_model_settings * s, const char * name,
                                   size_t * len, struct galloc_error * err);

#define GALLOC_MODEL_MAX_BUFTS 4

// what llama.cpp logs after creating the context
struct galloc_model_sizes {
    int    n_bufts;
    char   names[GALLOC_MODEL_MAX_BUFTS][16];   // buffer type names ("CPU")
    uint64_t compute[GALLOC_MODEL_MAX_BUFTS];    // "<name> compute buffer size", bytes
    int64_t n_ctx;                               // the context after llama.cpp's rounding (n_ctx)
    int64_t n_ctx_seq;                           // cells per sequence stream
    int64_t n_ctx_swa;                           // cells of the sliding-window cache (0: none)
    int64_t n_tokens;                            // tokens in the graph
    int32_t n_nodes, n_leafs;                    // of the graph
    uint64_t kv_bytes;                           // K and V caches, bytes ("KV buffer size")
    uint64_t rs_bytes;                           // recurrent states (R and S), bytes ("RS buffer size")
};

// plans the reserved graphs as llama.cpp does (prompt, one token per sequence, prompt again: the
// buffer is reallocated only when a chunk must grow) and reports the compute buffer size per
// buffer type; sizes are 64-bit on every target. Failures as galloc_model_document's.
bool galloc_model_compute_sizes(const struct galloc_model * m, const struct galloc_model_settings * s,
                                struct galloc_model_sizes * out, struct galloc_error * err);

// both at once, from one build of the prompt graph: *out as galloc_model_compute_sizes fills it and
// the document galloc_model_document returns (the graph whose plan gave the sizes). NULL with err
// filled and *out zeroed on failure, as galloc_model_document's.
char * galloc_model_document_sizes(const struct galloc_model * m, const struct galloc_model_settings * s,
                                   struct galloc_model_sizes * out, size_t * len, struct galloc_error * err);

#ifdef __cplusplus
}
#endif
