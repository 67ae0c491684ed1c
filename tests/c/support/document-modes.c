// document-modes.c: a graph document read every way galloc_document_read_mode offers, compared.
//
// GALLOC_READ_TREE (the whole document as one JSON tree, then checked) is the reference; the
// reader galloc_document_read uses (one pass over the text, galloc_document_walk, or for a document
// it declines the next way), the two-pass reader (entries checked while parsing, then read from
// the text, plain ones by the fast reader) and the same without the fast reader must agree with
// it exactly. The one pass alone must either decline or agree: never refuse with a message of its
// own, never take a document the reference refuses.

#include "document-modes.h"

#include "galloc-document-impl.h"
#include "galloc-status.h"

#include <stdio.h>
#include <string.h>

#define SAME(field) (a->field == b->field)

// "" when equal, else the first field that differs
static const char * documents_differ(const struct galloc_document * a, const struct galloc_document * b) {
    if (strcmp(a->name, b->name) != 0) {
        return "name";
    }
    if (!SAME(n_buffer_types)) {
        return "n_buffer_types";
    }
    for (int32_t i = 0; i < a->n_buffer_types; i++) {
        if (a->buffer_types[i].alignment != b->buffer_types[i].alignment || a->buffer_types[i].max_size != b->buffer_types[i].max_size ||
            a->buffer_types[i].allocator != b->buffer_types[i].allocator || strcmp(a->buffer_type_names[i], b->buffer_type_names[i]) != 0) {
            return "buffer_types";
        }
    }
    if (!SAME(n_tensors)) {
        return "n_tensors";
    }
    for (int32_t i = 0; i < a->n_tensors; i++) {
        const struct galloc_tensor * x = &a->tensors[i];
        const struct galloc_tensor * y = &b->tensors[i];
        if (x->op != y->op || x->flags != y->flags || x->view_src != y->view_src || x->external != y->external ||
            x->alloc_size != y->alloc_size || x->view_offs != y->view_offs || x->nbytes != y->nbytes || x->type != y->type ||
            memcmp(x->src, y->src, sizeof(x->src)) != 0 || memcmp(x->ne, y->ne, sizeof(x->ne)) != 0 ||
            memcmp(x->nb, y->nb, sizeof(x->nb)) != 0) {
            return "tensors";
        }
        if (memcmp(a->tensor_names[i], b->tensor_names[i], GGML_MAX_NAME) != 0) {
            return "tensor_names";
        }
        if (a->tensor_buffer_type[i] != b->tensor_buffer_type[i]) {
            return "tensor_buffer_type";
        }
        if (a->tensor_sub_op[i] != b->tensor_sub_op[i]) {
            return "tensor_sub_op";
        }
        if (a->tensor_alloc_sizes[i] != b->tensor_alloc_sizes[i]) {
            return "tensor_alloc_sizes";
        }
        if (a->tensor_alloc_sizes[i] >= 0) {
            size_t row = (size_t) a->tensor_alloc_sizes[i] * (size_t) a->n_buffer_types;
            if (memcmp(&a->alloc_sizes[row], &b->alloc_sizes[row], (size_t) a->n_buffer_types * sizeof(uint64_t)) != 0) {
                return "alloc_sizes";
            }
        }
    }
    if (!SAME(n_unknown)) {
        return "n_unknown";
    }
    for (int32_t k = 0; k < a->n_unknown; k++) {
        const struct galloc_unknown_name * x = &a->unknown[k];
        const struct galloc_unknown_name * y = &b->unknown[k];
        if (strcmp(x->name, y->name) != 0 || x->kind != y->kind || x->n_tensors != y->n_tensors || x->blck_size != y->blck_size ||
            x->type_size != y->type_size) {
            return "unknown";
        }
    }
    if (!SAME(n_nodes) || !SAME(n_leafs) || !SAME(graph_from_outputs)) {
        return "graph counts";
    }
    if (memcmp(a->nodes, b->nodes, (size_t) a->n_nodes * sizeof(int32_t)) != 0 ||
        memcmp(a->leafs, b->leafs, (size_t) a->n_leafs * sizeof(int32_t)) != 0) {
        return "nodes or leafs";
    }
    if ((a->node_buffer_ids == NULL) != (b->node_buffer_ids == NULL) || (a->leaf_buffer_ids == NULL) != (b->leaf_buffer_ids == NULL) ||
        (a->node_buffer_ids && memcmp(a->node_buffer_ids, b->node_buffer_ids, (size_t) a->n_nodes * sizeof(int32_t)) != 0) ||
        (a->leaf_buffer_ids && memcmp(a->leaf_buffer_ids, b->leaf_buffer_ids, (size_t) a->n_leafs * sizeof(int32_t)) != 0)) {
        return "buffer ids";
    }
    if ((a->graph.alloc_size == NULL) != (b->graph.alloc_size == NULL) || a->graph.n_tensors != b->graph.n_tensors ||
        a->graph.n_nodes != b->graph.n_nodes || a->graph.n_leafs != b->graph.n_leafs) {
        return "graph";
    }
    return "";
}

bool document_modes_agree(const char * text, size_t len, char * why, size_t size) {
    return document_modes_agree_taken(text, len, NULL, why, size);
}

bool document_modes_agree_taken(const char * text, size_t len, bool * one_pass_took, char * why, size_t size) {
    enum { N_MODES = 4 };
    static const enum galloc_document_read_mode modes[N_MODES] = { GALLOC_READ_ONE_PASS_ONLY, GALLOC_READ_ONE_PASS, GALLOC_READ_FAST,
                                                                   GALLOC_READ_CHECKED };
    static const char * const                   names[N_MODES] = { "one-pass alone", "one-pass", "fast", "checked" };
    struct galloc_document ref;
    struct galloc_error    ref_err;
    bool                   ref_ok = galloc_document_read_mode(text, len, &ref, &ref_err, GALLOC_READ_TREE);
    bool                   agree  = true;
    if (one_pass_took != NULL) {
        *one_pass_took = false;
    }
    for (int m = 0; m < N_MODES && agree; m++) {
        struct galloc_document doc;
        struct galloc_error    err;
        bool                   ok = galloc_document_read_mode(text, len, &doc, &err, modes[m]);
        if (modes[m] == GALLOC_READ_ONE_PASS_ONLY) {
            if (!ok && err.status != GALLOC_STATUS_DECLINED) {
                snprintf(why, size, "one-pass reader alone refuses with its own message: %s \"%s\"", galloc_status_name(err.status), err.message);
                agree = false;
            } else if (ok && !ref_ok) {
                snprintf(why, size, "one-pass reader alone takes what the tree reader refuses (%s)", ref_err.message);
                agree = false;
            } else if (ok && documents_differ(&doc, &ref)[0] != '\0') {
                snprintf(why, size, "one-pass reader alone: the documents differ in %s", documents_differ(&doc, &ref));
                agree = false;
            }
            if (ok && one_pass_took != NULL) {
                *one_pass_took = true;
            }
            galloc_document_free(&doc);
            continue;
        }
        if (ok != ref_ok) {
            snprintf(why, size, "%s reader %s, tree reader %s (%s)", names[m], ok ? "accepts" : "refuses", ref_ok ? "accepts" : "refuses",
                     ok ? ref_err.message : err.message);
            agree = false;
        } else if (!ok && (err.status != ref_err.status || strcmp(err.message, ref_err.message) != 0)) {
            snprintf(why, size, "%s reader: %s \"%s\", tree reader: %s \"%s\"", names[m], galloc_status_name(err.status), err.message,
                     galloc_status_name(ref_err.status), ref_err.message);
            agree = false;
        } else if (ok && documents_differ(&doc, &ref)[0] != '\0') {
            snprintf(why, size, "%s reader: the documents differ in %s", names[m], documents_differ(&doc, &ref));
            agree = false;
        }
        galloc_document_free(&doc);
    }
    galloc_document_free(&ref);
    return agree;
}
