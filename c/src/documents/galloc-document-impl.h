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

// ggml's op, type, unary op and glu op names by hash, for the fast entry reader (galloc-document-fast.c):
// one open-addressing table of every kind, a name's first 16 bytes held in the slot, so that a
// lookup is a hash of two words and their compare (the rest of a longer name compared to ggml's)
#define GALLOC_FAST_NAME_SLOTS 512 // a power of two, about three times the names
struct galloc_fast_name_slot {
    uint64_t word[2]; // the name's bytes 0-7 and 8-15 as galloc_swar_load reads them, zero past its end
    uint16_t tag;     // enum galloc_name_kind << 8 | the name's bytes
    int16_t  id;      // id + 1, 0 for an empty slot
};
struct galloc_fast_names {
    struct galloc_fast_name_slot slots[GALLOC_FAST_NAME_SLOTS];
    int8_t   flag_of[128];                  // a flag name's first byte: its bit + 1, 0 for none
    uint64_t flag_word[GALLOC_DOCUMENT_N_FLAGS]; // a flag name and its closing '"' as a word (all are under 8 bytes)
    uint64_t flag_mask[GALLOC_DOCUMENT_N_FLAGS]; // that word's bytes
    uint8_t  flag_len[GALLOC_DOCUMENT_N_FLAGS];  // the name's bytes
    uint32_t blck_size[GGML_TYPE_COUNT];    // ggml's block size and bytes per block of the types in the table (0: none)
    uint32_t type_size[GGML_TYPE_COUNT];
};
void galloc_fast_names_build(struct galloc_fast_names * names);
// the table, built once per process (the first reader builds it; one that finds another thread building
// it builds its own into scratch and uses that): never NULL, never changed after it is returned
const struct galloc_fast_names * galloc_fast_names_shared(struct galloc_fast_names * scratch);

// tensors[i] read from the document's text at pos (text that parsed as JSON) when it has the common
// shape and passes every check of the checked reader: filled as that reader fills it, and the offset
// just after the entry returned. 0 otherwise, with nothing changed: the checked reader reads it.
size_t galloc_document_fast_tensor(const struct galloc_fast_names * names, struct galloc_document * doc, const char * text, size_t len,
                                   size_t pos, int32_t i);

// the same at s (galloc-document-scan.h; text never parsed is fine: it is read strictly), s then just
// after the entry; false otherwise (s anywhere). Indices are checked against bounds, which the
// one-pass reader sets to INT32_MAX and checks after the walk, when the counts are known
struct galloc_scan;
struct galloc_fast_bounds {
    int32_t n_tensors;      // src and view_src in [0, n_tensors)
    int32_t n_buffer_types; // buffer_type in [0, n_buffer_types)
};
// the names of each kind a document's entries gave, for the entries after them (a graph names few
// ops and types, again and again): the 8 bytes after a name's opening quote as the text had them,
// the name and its closing quote among them (names of up to 7 bytes), in a slot chosen by a hash of
// those bytes. Eight equal bytes at a later name's quote are the same name: it is not looked up.
// All zero: none yet
#define GALLOC_FAST_NAME_KINDS  4  // enum galloc_name_kind
#define GALLOC_FAST_RECENT_BITS 4  // 16 slots of each kind
struct galloc_fast_recent_slot {
    uint64_t raw;   // the name, its closing quote and the bytes after it, as galloc_swar_load reads them
    int32_t  id;    // the name's id in ggml's table
    uint32_t len_1; // the name's bytes plus one (2 to 8); 0 for an empty slot
};
struct galloc_fast_recent {
    struct galloc_fast_recent_slot slots[GALLOC_FAST_NAME_KINDS][1 << GALLOC_FAST_RECENT_BITS];
};
// a string naming an entry of ggml's table of that kind (enum galloc_name_kind): its id; false for any
// other value. recent: kept up to date and used (may be NULL: not kept)
bool galloc_fast_scan_table_name(struct galloc_scan * s, const struct galloc_fast_names * names, struct galloc_fast_recent * recent, int kind,
                                 int32_t * out);
// what the indices of the entries read so far reach, for the one-pass reader to check them once the
// counts are known (links may be NULL: not kept). With links, the tensors are read in place and a
// view of an earlier tensor is checked against it (galloc_document_view_fit): false when it does not fit
struct galloc_fast_links {
    int32_t max_tensor;      // the largest src or view_src, -1 for none
    int32_t max_buffer_type; // the largest buffer_type, -1 for none
    bool    forward;         // some src or view_src names a later tensor
};
bool galloc_document_fast_entry(const struct galloc_fast_names * names, struct galloc_fast_recent * recent, const struct galloc_fast_bounds * bounds,
                               struct galloc_document * doc, struct galloc_scan * s, int32_t i, struct galloc_fast_links * links);
// the entry at pos by galloc_document_fast_entry's shortest way, the writers' layout alone (no
// scanner's rules): the offset just after it, 0 when that way leaves it to the scanner. Nothing is
// kept. For the tests that check the writers' documents never leave it (they would still read
// alike, only slower)
size_t galloc_document_fast_writers_entry(const struct galloc_fast_names * names, const char * text, size_t len, size_t pos, int32_t n_tensors,
                                          int32_t n_buffer_types);

// the one buffer type of a document without "buffer_types"
#define GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_NAME      "host"
#define GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_ALIGNMENT 32

// the per-tensor arrays of doc grown to want > *cap entries (the new ones zero-filled when zero),
// *cap updated; false when out of memory (the arrays are then as they were, still doc's)
bool galloc_document_grow_tensors(struct galloc_document * doc, size_t * cap, size_t want, bool zero);

// the whole document in one pass over its text (galloc-document-walk.c): header, buffer types, type
// traits, the tensors straight into doc's arrays, nodes and leafs (or outputs) and the buffer ids
// straight into int32 arrays; every index checked once the counts are known. True when the text is
// of the shape it takes (plain JSON, known members, names in ggml's tables) and every check of the
// checked reader on it passes but those across tensors and of the graph, which the caller runs
// (check_views, check_cycles, the graph from outputs, check_graph). False otherwise: the caller
// frees doc and reads the text the checked way. Never allocates more than the bytes read justify.
struct galloc_walk {
    bool      has_nodes, has_leafs;                 // given and not null
    int32_t * outputs;                              // "outputs" (caller frees), NULL when absent or null
    int32_t   n_outputs;
    int32_t   n_node_buffer_ids, n_leaf_buffer_ids; // entries of doc->node_buffer_ids / leaf_buffer_ids, when given
    struct galloc_fast_links links;                 // what the entries' indices reach (!links.forward: no cycle)
};
bool galloc_document_walk(const struct galloc_fast_names * names, const char * text, size_t len, struct galloc_document * doc,
                          struct galloc_walk * walk);

// how galloc_document_read takes the "tensors" entries (the others are for tests that compare them)
enum galloc_document_read_mode {
    GALLOC_READ_ONE_PASS,      // galloc_document_walk; a document it declines is read GALLOC_READ_FAST
    GALLOC_READ_ONE_PASS_ONLY, // galloc_document_walk alone: a document it declines is refused, GALLOC_STATUS_DECLINED
    GALLOC_READ_FAST,    // checked while parsing and not kept, then read again from the text, plain entries by the fast reader
    GALLOC_READ_CHECKED, // the same, every entry built and read by the checked reader
    GALLOC_READ_TREE,    // the whole document parsed into one tree first
};
bool galloc_document_read_mode(const char * json, size_t len, struct galloc_document * doc, struct galloc_error * err,
                               enum galloc_document_read_mode mode);
