// galloc-document.h: graph documents (JSON) in, graph and plan documents out.
//
// Reads a "galloc-graph" document (the format of spec/graph-format.md), checks
// everything the planner and the writers rely on, and fills the planner's
// arrays; writes a graph back as a document, and a plan as a "galloc-plan"
// document, one tensor per line. Every reading error is one line that starts
// with the JSON path of the culprit ("tensors[12].src[1]: ...").
//
// Example usage:
//
//   struct galloc_document doc;
//   struct galloc_error err;
//   if (!galloc_document_read(text, len, &doc, &err)) { puts(err); return; }
//   struct galloc_plan plan;
//   if (galloc_plan_graph(&doc.graph, &plan, &err)) {
//       size_t n; char * json = galloc_document_write_plan(&doc, &plan, &n);
//       ...; free(json); galloc_plan_free(&plan);
//   }
//   galloc_document_free(&doc);

#pragma once

#include "galloc-planner.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//
// limits of what a document may describe
//

#define GALLOC_DOCUMENT_MAX_BYTES     ((size_t) 32 << 20)   // 33554432: largest document text
#define GALLOC_DOCUMENT_MAX_TENSORS   (4194304)             // entries of "tensors"
#define GALLOC_DOCUMENT_MAX_ALIGNMENT ((uint64_t) 1 << 30)  // largest buffer type alignment, bytes
#define GALLOC_DOCUMENT_MAX_TENSOR_BYTES ((uint64_t) 1 << 40) // largest nbytes / alloc_size of one tensor

// Names ggml's tables (ggml 0.21.0) do not know are kept, never refused: an op, unary op, GLU or type
// the tables lack gets the id GALLOC_DOCUMENT_UNKNOWN + k in tensors[].op / .type / tensor_sub_op,
// k indexing unknown[]. Such an op is planned as one that may not run in place; such a type is
// sized with the block size and bytes per block the document gives in "type_traits".
#define GALLOC_DOCUMENT_UNKNOWN     0x40000000
#define GALLOC_DOCUMENT_MAX_UNKNOWN 256 // distinct unknown names in one document

enum galloc_name_kind {
    GALLOC_NAME_OP,       // "op"
    GALLOC_NAME_UNARY_OP, // "unary_op"
    GALLOC_NAME_GLU_OP,   // "glu_op"
    GALLOC_NAME_TYPE,     // "type"
};

struct galloc_unknown_name {
    char     name[GGML_MAX_NAME]; // letters, digits and '_', 1 to 63 bytes
    int32_t  kind;                // enum galloc_name_kind
    int32_t  n_tensors;           // tensors that use it
    int64_t  blck_size;           // types: elements per block (from "type_traits")
    uint64_t type_size;           // types: bytes per block
};

// a graph document, read and checked
struct galloc_document {
    char *  name;                            // "name", "" when absent

    int32_t                     n_buffer_types;
    struct galloc_buffer_type * buffer_types;      // alignment, max_size (bytes), shared allocator index
    char **                     buffer_type_names; // n_buffer_types names

    int32_t                n_tensors;
    struct galloc_tensor * tensors;                   // everything the planner needs, sizes in bytes
    char                (* tensor_names)[GGML_MAX_NAME]; // NUL-terminated, "" when absent
    int32_t *              tensor_buffer_type;        // "buffer_type" (memory allocated outside the allocator), -1 if absent
    int32_t *              tensor_sub_op;             // "unary_op" of a UNARY tensor (enum ggml_unary_op), "glu_op" of a
                                                      // GLU tensor (enum ggml_glu_op); -1 if absent. Not used in planning.

    int32_t                      n_unknown;
    struct galloc_unknown_name * unknown;          // names the tables do not know (see GALLOC_DOCUMENT_UNKNOWN)

    // "alloc_sizes": bytes each buffer type asks for a tensor (get_alloc_size), when they differ by type.
    // tensor_alloc_sizes[i] < 0: tensors[i].alloc_size for every type; else alloc_sizes[tensor_alloc_sizes[i] * n_buffer_types + b]
    int32_t *  tensor_alloc_sizes;
    uint64_t * alloc_sizes;

    int32_t   n_nodes;
    int32_t * nodes;            // tensor indices in execution order
    int32_t * node_buffer_ids;  // parallel to nodes; NULL when the document has none (all 0)
    int32_t   n_leafs;
    int32_t * leafs;
    int32_t * leaf_buffer_ids;  // parallel to leafs; NULL when the document has none (all 0)
    bool      graph_from_outputs; // nodes and leafs were built from "outputs" (as ggml_build_forward_expand)

    struct galloc_graph graph;  // ready for galloc_plan_graph(), pointing into the arrays above
};

// read and check len bytes of JSON (at most GALLOC_DOCUMENT_MAX_BYTES). On failure: false, a
// one-line message in err, and *doc zeroed. On success release with galloc_document_free.
bool galloc_document_read(const char * json, size_t len, struct galloc_document * doc, struct galloc_error * err);
// release everything; safe on a zeroed or failed doc, and twice
void galloc_document_free(struct galloc_document * doc);

// tensor t's op and type by name, also when the tables do not know them ("LIGHTNING_INDEXER", "nvfp4")
const char * galloc_document_op_name  (const struct galloc_document * doc, int32_t t);
const char * galloc_document_type_name(const struct galloc_document * doc, int32_t t);

// the one warning a document can give: what its tensors use that the tables do not know, as one line
// ("ops and types ggml 0.21.0's tables do not know, planned as not in place: op LIGHTNING_INDEXER (4 tensors)").
// false (and "" in buf) when there is nothing to say.
bool galloc_document_warning(const struct galloc_document * doc, char * buf, size_t size);

// ggml's tables as documents name them, for the web UI (which gets them from here, not a copy):
// {"ggml": "0.21.0", "types": {"f32": [1, 4], ...}, "ops": [...], "inplace_ops": [...],
//  "unary_ops": [...], "glu_ops": [...], "flags": [...]}, types and ops in enum order. malloc'd; NULL when out of memory.
char * galloc_document_write_tables(size_t * len);

// tensor t's op as ggml_op_desc() names it: the unary op or GLU when the document says which
// ("SILU", "SWIGLU"), else the op ("UNARY", "MUL_MAT")
const char * galloc_document_op_desc(const struct galloc_document * doc, int32_t t);

// the document as a "galloc-graph" document (reads back to an equal document): malloc'd,
// NUL-terminated, length in *len (may be NULL). NULL when out of memory.
char * galloc_document_write_graph(const struct galloc_document * doc, size_t * len);
// plan (made for doc.graph) as a "galloc-plan" document with the project's extras (names, peak,
// how each tensor was placed, lifetimes). NULL when out of memory or when plan does not fit doc.
char * galloc_document_write_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len);

// A graph document read and planned: the one "read, plan" path of the CLI, the WASM module and
// the benchmarks (galloc_document_read, then galloc_plan_graph on its graph). On failure err
// says why (the reader's message with its JSON path, or the planner's) and nothing is held.
struct galloc_planned {
    struct galloc_document doc;
    struct galloc_plan     plan;
};
bool galloc_planned_read(const char * json, size_t len, struct galloc_planned * out, struct galloc_error * err);
void galloc_planned_free(struct galloc_planned * p);

#ifdef __cplusplus
}
#endif
