// galloc-document-write.c: the graph document out (galloc_document_write_graph; the plan's
// writer is galloc-document-write-plan.c).
//
// Laid out like the golden files: top-level members one per line, one tensor
// per line, short arrays inline. Numbers above 2^53 come
// out as decimal strings (JavaScript readers would round them). Out of memory
// gives NULL, never an abort.

#include "galloc-document.h"
#include "galloc-document-impl.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

//
// shared pieces
//

static void write_header(struct galloc_json_writer * w, const char * format, const char * name) {
    galloc_json_write_begin_object(w);
    galloc_json_write_newline(w, 2);
    galloc_json_write_key_cstr(w, "format", format);
    galloc_json_write_newline(w, 2);
    galloc_json_write_key_u64(w, "version", 1);
    galloc_json_write_newline(w, 2);
    galloc_json_write_key_cstr(w, "name", name != NULL ? name : "");
}

static void write_index_array(struct galloc_json_writer * w, const char * key, const int32_t * items, int32_t n) {
    galloc_json_write_newline(w, 2);
    galloc_json_write_key(w, key);
    galloc_json_write_i32_array(w, items, (size_t) n);
}

static char * write_finish(struct galloc_json_writer * w, size_t * len) {
    galloc_json_write_newline(w, 0);
    galloc_json_write_end_object(w);
    galloc_json_write_newline(w, 0); // the file ends with a line break
    return galloc_json_writer_finish(w, len);
}

//
// graph document
//

static void write_graph_tensor(struct galloc_json_writer * w, const struct galloc_document * doc, int32_t i) {
    const struct galloc_tensor * t = &doc->tensors[i];
    galloc_json_write_newline(w, 4);
    galloc_json_write_begin_object(w);
    galloc_json_write_key_cstr(w, "name", doc->tensor_names != NULL ? doc->tensor_names[i] : "");
    galloc_json_write_key_cstr(w, "op", galloc_document_op_name(doc, i));
    if (doc->tensor_sub_op != NULL && doc->tensor_sub_op[i] >= 0) {
        galloc_json_write_key(w, t->op == GGML_OP_UNARY ? "unary_op" : "glu_op");
        galloc_json_write_cstr(w, galloc_document_op_desc(doc, i));
    }
    galloc_json_write_key_cstr(w, "type", galloc_document_type_name(doc, i));

    // ne without trailing 1s (at least one number)
    int n_dims = GGML_MAX_DIMS;
    while (n_dims > 1 && t->ne[n_dims - 1] == 1) {
        n_dims--;
    }
    galloc_json_write_key(w, "ne");
    galloc_json_write_i64_array(w, t->ne, (size_t) n_dims);

    // nb only when not contiguous
    uint64_t nb[GGML_MAX_DIMS];
    uint64_t blck, tsize;
    bool     contiguous = galloc_document_type_traits(doc, t->type, &blck, &tsize) &&
                      galloc_document_contiguous_nb(blck, tsize, t->ne, nb) && memcmp(nb, t->nb, sizeof(nb)) == 0;
    if (!contiguous) {
        galloc_json_write_key(w, "nb");
        galloc_json_write_u64_array(w, t->nb, GGML_MAX_DIMS);
    }

    // src up to the last used slot, with null holes
    int n_src = GGML_MAX_SRC;
    while (n_src > 0 && t->src[n_src - 1] < 0) {
        n_src--;
    }
    if (n_src > 0) {
        galloc_json_write_key(w, "src");
        galloc_json_write_begin_array(w);
        for (int s = 0; s < n_src; s++) {
            if (t->src[s] < 0) {
                galloc_json_write_null(w);
            } else {
                galloc_json_write_i64(w, t->src[s]);
            }
        }
        galloc_json_write_end_array(w);
    }

    if (t->view_src >= 0) {
        galloc_json_write_key_i64(w, "view_src", t->view_src);
        galloc_json_write_key_u64(w, "view_offs", t->view_offs);
    }

    if (t->flags & ((1 << GALLOC_DOCUMENT_N_FLAGS) - 1)) {
        galloc_json_write_key(w, "flags");
        galloc_json_write_begin_array(w);
        for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) {
            if (t->flags & (1 << b)) {
                galloc_json_write_cstr(w, galloc_document_flag_names[b]);
            }
        }
        galloc_json_write_end_array(w);
    }

    int32_t row = doc->tensor_alloc_sizes != NULL ? doc->tensor_alloc_sizes[i] : -1;
    if (row >= 0) {
        const uint64_t * sizes = &doc->alloc_sizes[(size_t) row * (size_t) doc->n_buffer_types];
        galloc_json_write_key(w, "alloc_sizes");
        galloc_json_write_begin_array(w);
        for (int32_t b = 0; b < doc->n_buffer_types; b++) {
            if (sizes[b] == t->nbytes) {
                galloc_json_write_null(w);
            } else {
                galloc_json_write_u64(w, sizes[b]);
            }
        }
        galloc_json_write_end_array(w);
    } else if (t->alloc_size != t->nbytes) {
        galloc_json_write_key_u64(w, "alloc_size", t->alloc_size);
    }
    if (doc->tensor_buffer_type != NULL && doc->tensor_buffer_type[i] >= 0) {
        galloc_json_write_key_i64(w, "buffer_type", doc->tensor_buffer_type[i]);
    } else if (t->external) {
        galloc_json_write_key_bool(w, "external", true);
    }
    galloc_json_write_end_object(w);
}

char * galloc_document_write_graph(const struct galloc_document * doc, size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    write_header(&w, "galloc-graph", doc->name);

    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "buffer_types");
    galloc_json_write_begin_array(&w);
    for (int32_t b = 0; b < doc->n_buffer_types; b++) {
        const struct galloc_buffer_type * bt = &doc->buffer_types[b];
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "name");
        galloc_json_write_cstr(&w, doc->buffer_type_names != NULL ? doc->buffer_type_names[b] : "");
        galloc_json_write_key(&w, "alignment");
        galloc_json_write_u64(&w, bt->alignment);
        galloc_json_write_key(&w, "max_size");
        if (bt->max_size == GALLOC_NO_MAX_SIZE) {
            galloc_json_write_null(&w);
        } else {
            galloc_json_write_u64(&w, bt->max_size);
        }
        galloc_json_write_end_object(&w);
    }
    galloc_json_write_end_array(&w);

    // the block size and bytes per block of every type the tables do not know
    bool traits = false;
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        const struct galloc_unknown_name * u = &doc->unknown[k];
        if (u->kind != GALLOC_NAME_TYPE) {
            continue;
        }
        if (!traits) {
            galloc_json_write_newline(&w, 2);
            galloc_json_write_key(&w, "type_traits");
            galloc_json_write_begin_array(&w);
            traits = true;
        }
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "name");
        galloc_json_write_cstr(&w, u->name);
        galloc_json_write_key(&w, "blck_size");
        galloc_json_write_i64(&w, u->blck_size);
        galloc_json_write_key(&w, "type_size");
        galloc_json_write_u64(&w, u->type_size);
        galloc_json_write_end_object(&w);
    }
    if (traits) {
        galloc_json_write_end_array(&w);
    }

    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "tensors");
    galloc_json_write_begin_array(&w);
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        write_graph_tensor(&w, doc, i);
    }
    if (doc->n_tensors > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);

    write_index_array(&w, "nodes", doc->nodes, doc->n_nodes);
    write_index_array(&w, "leafs", doc->leafs, doc->n_leafs);
    if (doc->node_buffer_ids != NULL) {
        write_index_array(&w, "node_buffer_ids", doc->node_buffer_ids, doc->n_nodes);
    }
    if (doc->leaf_buffer_ids != NULL) {
        write_index_array(&w, "leaf_buffer_ids", doc->leaf_buffer_ids, doc->n_leafs);
    }
    return write_finish(&w, len);
}
