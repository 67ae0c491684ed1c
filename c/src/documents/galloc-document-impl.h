// galloc-document-impl.h: what the document reader and writers share (private).
//
// Tensor flag names in bit order, type traits (ggml's or the document's),
// and the contiguous strides and byte size rules of ggml, computed with
// overflow checks.

#pragma once

#include "galloc-document.h"
#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

// size arithmetic that says when it would wrap: false (and *out untouched) past 2^64 - 1
static inline bool galloc_mul_u64(uint64_t a, uint64_t b, uint64_t * out) {
    if (a != 0 && b > UINT64_MAX / a) {
        return false;
    }
    *out = a * b;
    return true;
}

static inline bool galloc_add_u64(uint64_t a, uint64_t b, uint64_t * out) {
    if (b > UINT64_MAX - a) {
        return false;
    }
    *out = a + b;
    return true;
}

// how a view fits the tensor its view_src names (root): the readers' rule (upstream: a view's
// view_src is no view, and its bytes lie in the root's; ggml checks no range for a view without bytes)
enum galloc_view_fit {
    GALLOC_VIEW_FITS,
    GALLOC_VIEW_OF_A_VIEW,       // root is itself a view
    GALLOC_VIEW_OFFS_OVER_LIMIT, // no bytes, and view_offs over GALLOC_DOCUMENT_MAX_TENSOR_BYTES
    GALLOC_VIEW_PAST_ROOT,       // [view_offs, view_offs + nbytes) reaches past root's nbytes
};
static inline enum galloc_view_fit galloc_document_view_fit(const struct galloc_tensor * view, const struct galloc_tensor * root) {
    uint64_t end;
    if (root->view_src >= 0) {
        return GALLOC_VIEW_OF_A_VIEW;
    }
    if (view->nbytes == 0) {
        return view->view_offs > GALLOC_DOCUMENT_MAX_TENSOR_BYTES ? GALLOC_VIEW_OFFS_OVER_LIMIT : GALLOC_VIEW_FITS;
    }
    return galloc_add_u64(view->view_offs, view->nbytes, &end) && end <= root->nbytes ? GALLOC_VIEW_FITS : GALLOC_VIEW_PAST_ROOT;
}

#define GALLOC_DOCUMENT_N_FLAGS 5

// "input", "output", "param", "loss", "compute": the names of flag bits 1 << 0 .. 1 << 4
extern const char * const galloc_document_flag_names[GALLOC_DOCUMENT_N_FLAGS];

// a type's block size (elements) and bytes per block: ggml's table, or the document's "type_traits" for a
// type the table does not know. false for an id that is neither.
bool galloc_document_type_traits(const struct galloc_document * doc, int32_t type, uint64_t * blck_size, uint64_t * type_size);

// strides of a contiguous tensor: nb[0] = type_size, nb[1] = nb[0]*(ne[0]/blck), nb[i] = nb[i-1]*ne[i-1].
// ne[i] >= 0 and blck_size >= 1 required; false when a stride overflows 64 bits.
bool galloc_document_contiguous_nb(uint64_t blck_size, uint64_t type_size, const int64_t ne[GGML_MAX_DIMS], uint64_t nb[GGML_MAX_DIMS]);

// ggml_nbytes with 64-bit overflow checks (0 when any ne[i] is 0; ne[i] >= 0 required); false on overflow
bool galloc_document_nbytes(uint64_t blck_size, uint64_t type_size, const int64_t ne[GGML_MAX_DIMS], const uint64_t nb[GGML_MAX_DIMS],
                            uint64_t * nbytes);

// true for 1 to 63 letters, digits and '_' (the names ggml gives ops and types)
bool galloc_document_is_table_name(const char * s, size_t len);

// the one buffer type of a document without "buffer_types"
#define GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_NAME      "host"
#define GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_ALIGNMENT 32
