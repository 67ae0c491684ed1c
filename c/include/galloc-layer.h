// galloc-layer.h: the layer index a tensor's name carries, so repeated blocks can be folded.
//
// llama.cpp names the tensors of layer 12 in three ways: graph callbacks append "-12"
// ("attn_norm-12", "kq_soft_max-12"), weights start with "blk.12." ("blk.12.attn_q.weight"),
// the KV cache ends its base name with "_l12" ("cache_k_l12"). ggml appends " (view)",
// " (reshaped)", " (copy of ...)" to derived tensors; those suffixes are skipped when looking.
//
// Example usage:
//
//   struct galloc_layer_name l = galloc_layer_parse("Kcur-12 (reshaped)");
//   // l.layer = 12, l.digits_at = 5, l.n_digits = 2
//   char folded[GGML_MAX_NAME];
//   galloc_layer_fold("Kcur-12 (reshaped)", folded, sizeof(folded)); // "Kcur-* (reshaped)"
//
// Limits: a layer index has at most 6 digits; a name matching none of the three forms has
// no layer (-1), as do names like "x-1e5" or "blk.a.".

#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_LAYER_MAX_DIGITS 6 // longest layer index read from a name

struct galloc_layer_name {
    int32_t layer;     // the layer index, -1 when the name carries none
    int32_t digits_at; // byte offset of its first digit in the name (-1 when none)
    int32_t n_digits;  // its length in bytes (0 when none)
};

// the layer index name carries ("attn_norm-12", "blk.12.x", "cache_k_l12"), looked up in that
// order in the name's base (before its first " ("); NULL or "" carries none
struct galloc_layer_name galloc_layer_parse(const char * name);

// name with its layer index replaced by "*" ("attn_norm-*"), or the name itself when it carries
// none; always NUL-terminated within size (truncated if needed). Returns the layer, -1 if none.
int32_t galloc_layer_fold(const char * name, char * out, size_t size);

#ifdef __cplusplus
}
#endif
