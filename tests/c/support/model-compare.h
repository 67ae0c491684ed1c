// model-compare.h: built graph documents and plans against llama.cpp's / upstream's, field by field.

#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// forget the differences reported so far (at most 8 are printed between resets)
void model_compare_reset(void);
// the two graph documents are equal tensor for tensor (name, op, sub-op, type, shape, strides,
// sources, view, flags, buffer types and ids) with the same node and leaf lists; row names them
bool model_same_graph(const char * row, const char * built, size_t built_len, const char * ref, size_t ref_len);
// a digest of what model_same_graph compares (FNV-1a 64 over every tensor's fields, ne without
// trailing 1s, and the node and leaf lists): equal documents have equal digests. n_tensors and
// n_nodes: the document's counts. false for an unreadable document
bool model_graph_digest(const char * doc, size_t len, uint64_t * digest, size_t * n_tensors, size_t * n_nodes);
// the plans are equal: chunk sizes, every tensor's buffer, chunk and offset; with extra_empty,
// reference buffers past the built plan's must be empty
bool model_same_plan(const char * row, const char * built, size_t built_len, const char * ref, size_t ref_len, bool extra_empty);
