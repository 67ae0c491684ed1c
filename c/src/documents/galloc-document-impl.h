// galloc-document-impl.h: what the document reader and writers share (private).
//
// Tensor flag names in bit order, and the contiguous strides and byte size
// rules of ggml, computed with overflow checks.

#pragma once

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

#define GALLOC_DOCUMENT_N_FLAGS 5

// "input", "output", "param", "loss", "compute": the names of flag bits 1 << 0 .. 1 << 4
extern const char * const galloc_document_flag_names[GALLOC_DOCUMENT_N_FLAGS];

// strides of a contiguous tensor: nb[0] = type_size, nb[1] = nb[0]*(ne[0]/blck), nb[i] = nb[i-1]*ne[i-1].
// ne[i] >= 1 and a known type required; false when a stride overflows 64 bits.
bool galloc_document_contiguous_nb(int32_t type, const int64_t ne[GGML_MAX_DIMS], uint64_t nb[GGML_MAX_DIMS]);

// ggml_nbytes with 64-bit overflow checks (ne[i] >= 1 required); false on overflow
bool galloc_document_nbytes(int32_t type, const int64_t ne[GGML_MAX_DIMS], const uint64_t nb[GGML_MAX_DIMS], uint64_t * nbytes);
