// galloc-binary.h: graph and plan documents as compact binary, for the WebAssembly module's JS side.
//
// The JSON writers (galloc_document_write_graph / _plan) stay the documents' one file format; this
// is only a transfer encoding of the same content, so that a 300,000-tensor graph reaches the page
// without 65 MB of JSON written in C and parsed in JS. web/src/core/galloc-binary.js decodes it
// into exactly the objects JSON.parse makes of the JSON writers' text (same keys in the same order,
// numbers past 2^53 as decimal strings); tests/js/wasm-binary.test.js checks that they agree.
//
// Layout: little-endian uint32 words, 8-byte aligned (malloc'd). Header (GALLOC_BINARY_HEADER_WORDS):
//   [0] GALLOC_BINARY_MAGIC   [1] GALLOC_BINARY_VERSION   [2] kind (GALLOC_BINARY_GRAPH / _PLAN)
//   [3] n_strings  [4] word offset of the string ends  [5] byte offset of the string bytes
//   [6] bytes of string text  [7] word offset of the body  [8] words of body  [9] total bytes
// Strings: all strings' UTF-8 bytes one after another (as the document holds them: valid UTF-8);
// ends[i] is where string i ends in UTF-16 code units of that text (string i starts where i-1
// ends), so JS decodes the text once and slices it. A string in the body is its index (u32).
// Body: a stream of u32 words. u64/i64: two words, low then high. "opt u64": a word 0 (null)
// or 1, then the two words. idx: a u32, 0xFFFFFFFF for null / -1.
//
// graph body:  name:str
//   n_flags, flag names:str[n_flags]           (the names of flag bits 0.., for "flags")
//   n_buffer_types, each: name:str alignment:u64 max_size:opt u64
//   n_type_traits, each: name:str blck_size:i64 type_size:u64
//   n_tensors, each: head, name:str op:str [sub:str] type:str ne:i64[n_dims] [nb:u64[4]]
//     src:idx[n_src] [view_src:u32 view_offs:u64] [alloc_size:u64 | alloc_sizes:opt u64[n_buffer_types]]
//     [buffer_type:u32]
//     head: bits 0-2 n_dims (1..4), 3-6 n_src, 7 sub op (8: "glu_op", else "unary_op"), 9 nb, 10 view,
//     11-12 alloc (1 alloc_size, 2 alloc_sizes), 13-14 buffer (1 buffer_type, 2 external), 16-23 flag bits
//   n_nodes, nodes:u32[]  n_leafs, leafs:u32[]
//   has node_buffer_ids (0/1), [u32[n_nodes]]  has leaf_buffer_ids (0/1), [u32[n_leafs]]
// plan body:  name:str n_steps:i32 n_inplace:i32
//   n_buffers, each: buffer_type:u32 name:str alignment:u64 max_size:opt u64 n_chunks chunk_sizes:u64[]
//     size:u64 peak_live:u64 overhead:u64 shared_with:idx
//   n_tensors, each: head (0: null; else bit 0 placed, bit 1 "view", bit 2 "parent"),
//     [buffer chunk offset:u64 size:u64 how:str [parent:u32] first:i32 last:i32]

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_BINARY_MAGIC        0x4e424c47u // "GLBN"
#define GALLOC_BINARY_VERSION      1
#define GALLOC_BINARY_GRAPH        1
#define GALLOC_BINARY_PLAN         2
#define GALLOC_BINARY_HEADER_WORDS 10

// the document (as galloc_document_write_graph writes it) / its plan (as galloc_document_write_plan):
// malloc'd, length in *len; NULL when out of memory, when it would pass 2^32 - 1 bytes, or (plan)
// when plan is not one of doc
uint8_t * galloc_binary_write_graph(const struct galloc_document * doc, size_t * len);
uint8_t * galloc_binary_write_plan (const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len);

#ifdef __cplusplus
}
#endif
