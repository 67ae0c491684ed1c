// llama-synthetic.h: llama-style decoder graphs built through the ggml API, for tests and benchmarks.
//
// Builds the compute graph of one llama.cpp decode/prompt step (embedding, per-layer
// attention with a KV cache, SwiGLU FFN, final norm and logits) the way llama.cpp
// builds it, with weights and the KV cache allocated beforehand on virtual buffer
// types, so graphs of any model size can be planned or exported as documents.
//
// Example usage:
//
//   struct galloc_llama_params p;
//   galloc_llama_preset_params("llama-tiny", &p);
//   size_t len;
//   char * json = galloc_llama_document(&p, "llama-tiny", &len);
//   free(json);

#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_LLAMA_MAX_BUFTS 3 // compute devices (up to 2) + a separate weights type

struct galloc_llama_params {
    int            n_layer;
    int            n_embd;
    int            n_head;
    int            n_head_kv;   // < n_head: grouped-query attention
    int            n_ff;
    int            n_vocab;
    int            n_tokens;    // batch: tokens processed by the graph
    int            n_kv;        // KV cache length; the batch is written to its last n_tokens cells
    enum ggml_type wtype;       // matrix weights (norm weights are always F32)
    enum ggml_type kvtype;      // KV cache
    enum ggml_type atype;       // activations: only GGML_TYPE_F32 (as ggml computes them)
    bool           flash_attn;  // ggml_flash_attn_ext instead of mul_mat + soft_max + mul_mat
    bool           set_rows;    // KV written with ggml_set_rows (kv_idxs) instead of views + ggml_cpy
    size_t         alignment;   // of every buffer type
    size_t         max_size;    // compute buffer types' max size; SIZE_MAX: none (then weights share them)
    int            n_bufts;     // compute devices, 1 or 2 (layers split in halves, as llama.cpp -ts 1,1)
};

// a built graph and what planning it needs; everything is released by galloc_llama_free
struct galloc_llama_graph {
    struct ggml_cgraph         * graph;
    ggml_backend_buffer_type_t   bufts[GALLOC_LLAMA_MAX_BUFTS]; // devices, then "weights" if separate
    int                          n_bufts;
    int                        * node_buffer_ids; // NULL when n_bufts == 1
    int                        * leaf_buffer_ids; // NULL when n_bufts == 1
    // private
    struct ggml_context        * ctx;
    struct ggml_context        * wctx[GALLOC_LLAMA_MAX_BUFTS];
    ggml_backend_buffer_t        wbuf[GALLOC_LLAMA_MAX_BUFTS];
    ggml_backend_buffer_t      * tbufs;   // one buffer per weight where size_t is too small for all (wasm32)
    int                          n_tbufs;
};

// NULL for invalid parameters or out of memory
struct galloc_llama_graph * galloc_llama_build(const struct galloc_llama_params * p);
void                        galloc_llama_free (struct galloc_llama_graph * g);

// the graph document (galloc_export_graph): malloc'd, NUL-terminated; NULL on failure
char * galloc_llama_document(const struct galloc_llama_params * p, const char * name, size_t * len);

// named llama-style presets: the tiny teaching decoders ("llama-tiny", ...) and the synthetic llama-like
// 7B/70B graphs ("llama-7b-pp512", ...: not llama.cpp's graphs; golden twins and benchmark baselines)
int          galloc_llama_preset_count(void);
const char * galloc_llama_preset_name(int i);        // NULL when out of range
const char * galloc_llama_preset_description(int i);
bool         galloc_llama_preset_params(const char * name, struct galloc_llama_params * p); // false: unknown
bool         galloc_llama_preset_listed(int i);     // shown in the preset list: the tiny decoders, llama-7b-decode (a golden twin)
char *       galloc_llama_preset_document(const char * name, size_t * len);                // NULL: unknown

#ifdef __cplusplus
}
#endif
