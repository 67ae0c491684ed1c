// galloc-document-write.c: graph and plan documents out (galloc_document_write_graph / _plan).
//
// Both writers lay documents out like the golden files: top-level members one
// per line, one tensor per line, short arrays inline. Numbers above 2^53 come
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

static void write_header(struct json_writer * w, const char * format, const char * name) {
    json_write_begin_object(w);
    json_write_newline(w, 2);
    json_write_key(w, "format");
    json_write_cstr(w, format);
    json_write_newline(w, 2);
    json_write_key(w, "version");
    json_write_u64(w, 1);
    json_write_newline(w, 2);
    json_write_key(w, "name");
    json_write_cstr(w, name != NULL ? name : "");
}

static void write_index_array(struct json_writer * w, const char * key, const int32_t * items, int32_t n) {
    json_write_newline(w, 2);
    json_write_key(w, key);
    json_write_begin_array(w);
    for (int32_t i = 0; i < n; i++) {
        json_write_i64(w, items[i]);
    }
    json_write_end_array(w);
}

static char * write_finish(struct json_writer * w, size_t * len) {
    json_write_newline(w, 0);
    json_write_end_object(w);
    json_write_newline(w, 0); // the file ends with a line break
    return json_writer_finish(w, len);
}

//
// graph document
//

static void write_graph_tensor(struct json_writer * w, const struct galloc_document * doc, int32_t i) {
    const struct galloc_tensor * t = &doc->tensors[i];
    json_write_newline(w, 4);
    json_write_begin_object(w);
    json_write_key(w, "name");
    json_write_cstr(w, doc->tensor_names != NULL ? doc->tensor_names[i] : "");
    json_write_key(w, "op");
    json_write_cstr(w, galloc_document_op_name(doc, i));
    if (doc->tensor_sub_op != NULL && doc->tensor_sub_op[i] >= 0) {
        json_write_key(w, t->op == GGML_OP_UNARY ? "unary_op" : "glu_op");
        json_write_cstr(w, galloc_document_op_desc(doc, i));
    }
    json_write_key(w, "type");
    json_write_cstr(w, galloc_document_type_name(doc, i));

    // ne without trailing 1s (at least one number)
    int n_dims = GGML_MAX_DIMS;
    while (n_dims > 1 && t->ne[n_dims - 1] == 1) {
        n_dims--;
    }
    json_write_key(w, "ne");
    json_write_begin_array(w);
    for (int d = 0; d < n_dims; d++) {
        json_write_i64(w, t->ne[d]);
    }
    json_write_end_array(w);

    // nb only when not contiguous
    uint64_t nb[GGML_MAX_DIMS];
    uint64_t blck, tsize;
    bool     contiguous = galloc_document_type_traits(doc, t->type, &blck, &tsize) &&
                      galloc_document_contiguous_nb(blck, tsize, t->ne, nb) && memcmp(nb, t->nb, sizeof(nb)) == 0;
    if (!contiguous) {
        json_write_key(w, "nb");
        json_write_begin_array(w);
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            json_write_u64(w, t->nb[d]);
        }
        json_write_end_array(w);
    }

    // src up to the last used slot, with null holes
    int n_src = GGML_MAX_SRC;
    while (n_src > 0 && t->src[n_src - 1] < 0) {
        n_src--;
    }
    if (n_src > 0) {
        json_write_key(w, "src");
        json_write_begin_array(w);
        for (int s = 0; s < n_src; s++) {
            if (t->src[s] < 0) {
                json_write_null(w);
            } else {
                json_write_i64(w, t->src[s]);
            }
        }
        json_write_end_array(w);
    }

    if (t->view_src >= 0) {
        json_write_key(w, "view_src");
        json_write_i64(w, t->view_src);
        json_write_key(w, "view_offs");
        json_write_u64(w, t->view_offs);
    }

    if (t->flags & ((1 << GALLOC_DOCUMENT_N_FLAGS) - 1)) {
        json_write_key(w, "flags");
        json_write_begin_array(w);
        for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) {
            if (t->flags & (1 << b)) {
                json_write_cstr(w, galloc_document_flag_names[b]);
            }
        }
        json_write_end_array(w);
    }

    int32_t row = doc->tensor_alloc_sizes != NULL ? doc->tensor_alloc_sizes[i] : -1;
    if (row >= 0) {
        const uint64_t * sizes = &doc->alloc_sizes[(size_t) row * (size_t) doc->n_buffer_types];
        json_write_key(w, "alloc_sizes");
        json_write_begin_array(w);
        for (int32_t b = 0; b < doc->n_buffer_types; b++) {
            if (sizes[b] == t->nbytes) {
                json_write_null(w);
            } else {
                json_write_u64(w, sizes[b]);
            }
        }
        json_write_end_array(w);
    } else if (t->alloc_size != t->nbytes) {
        json_write_key(w, "alloc_size");
        json_write_u64(w, t->alloc_size);
    }
    if (doc->tensor_buffer_type != NULL && doc->tensor_buffer_type[i] >= 0) {
        json_write_key(w, "buffer_type");
        json_write_i64(w, doc->tensor_buffer_type[i]);
    } else if (t->external) {
        json_write_key(w, "external");
        json_write_bool(w, true);
    }
    json_write_end_object(w);
}

char * galloc_document_write_graph(const struct galloc_document * doc, size_t * len) {
    struct json_writer w;
    json_writer_init(&w);
    write_header(&w, "galloc-graph", doc->name);

    json_write_newline(&w, 2);
    json_write_key(&w, "buffer_types");
    json_write_begin_array(&w);
    for (int32_t b = 0; b < doc->n_buffer_types; b++) {
        const struct galloc_buffer_type * bt = &doc->buffer_types[b];
        json_write_begin_object(&w);
        json_write_key(&w, "name");
        json_write_cstr(&w, doc->buffer_type_names != NULL ? doc->buffer_type_names[b] : "");
        json_write_key(&w, "alignment");
        json_write_u64(&w, bt->alignment);
        json_write_key(&w, "max_size");
        if (bt->max_size == GALLOC_NO_MAX_SIZE) {
            json_write_null(&w);
        } else {
            json_write_u64(&w, bt->max_size);
        }
        json_write_end_object(&w);
    }
    json_write_end_array(&w);

    // the block size and bytes per block of every type the tables do not know
    bool traits = false;
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        const struct galloc_unknown_name * u = &doc->unknown[k];
        if (u->kind != GALLOC_NAME_TYPE) {
            continue;
        }
        if (!traits) {
            json_write_newline(&w, 2);
            json_write_key(&w, "type_traits");
            json_write_begin_array(&w);
            traits = true;
        }
        json_write_begin_object(&w);
        json_write_key(&w, "name");
        json_write_cstr(&w, u->name);
        json_write_key(&w, "blck_size");
        json_write_i64(&w, u->blck_size);
        json_write_key(&w, "type_size");
        json_write_u64(&w, u->type_size);
        json_write_end_object(&w);
    }
    if (traits) {
        json_write_end_array(&w);
    }

    json_write_newline(&w, 2);
    json_write_key(&w, "tensors");
    json_write_begin_array(&w);
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        write_graph_tensor(&w, doc, i);
    }
    if (doc->n_tensors > 0) {
        json_write_newline(&w, 2);
    }
    json_write_end_array(&w);

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

//
// plan document
//

static void write_plan_buffer(struct json_writer * w, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t b) {
    const struct galloc_buffer_plan * bp = &plan->buffers[b];
    const struct galloc_buffer_type * bt = &doc->buffer_types[b];
    json_write_newline(w, 4);
    json_write_begin_object(w);
    json_write_key(w, "buffer_type");
    json_write_i64(w, b);
    json_write_key(w, "name");
    json_write_cstr(w, doc->buffer_type_names != NULL ? doc->buffer_type_names[b] : "");
    json_write_key(w, "alignment");
    json_write_u64(w, bt->alignment);
    json_write_key(w, "max_size");
    if (bt->max_size == GALLOC_NO_MAX_SIZE) {
        json_write_null(w);
    } else {
        json_write_u64(w, bt->max_size);
    }
    json_write_key(w, "chunk_sizes");
    json_write_begin_array(w);
    for (int32_t c = 0; c < bp->n_chunks && c < GALLOC_MAX_CHUNKS; c++) {
        json_write_u64(w, bp->chunk_sizes[c]);
    }
    json_write_end_array(w);
    json_write_key(w, "size");
    json_write_u64(w, bp->size);
    json_write_key(w, "peak_live");
    json_write_u64(w, bp->peak_live);
    json_write_key(w, "shared_with");
    if (bp->shared_with < 0) {
        json_write_null(w);
    } else {
        json_write_i64(w, bp->shared_with);
    }
    json_write_end_object(w);
}

static void write_plan_tensor(struct json_writer * w, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t i) {
    const struct galloc_place * p = &plan->places[i];
    json_write_newline(w, 4);
    if (p->buffer < 0) {
        json_write_null(w);
        return;
    }
    json_write_begin_object(w);
    json_write_key(w, "buffer");
    json_write_i64(w, p->buffer);
    json_write_key(w, "chunk");
    json_write_i64(w, p->chunk);
    json_write_key(w, "offset");
    json_write_u64(w, p->offset);
    json_write_key(w, "size");
    json_write_u64(w, p->size);
    if (doc->tensors[i].view_src >= 0) {
        json_write_key(w, "view");
        json_write_bool(w, true);
    }
    json_write_key(w, "how");
    json_write_cstr(w, galloc_how_name((enum galloc_how) p->how));
    if (p->how == GALLOC_HOW_INPLACE || p->how == GALLOC_HOW_VIEW) {
        json_write_key(w, "parent");
        json_write_i64(w, p->parent);
    }
    json_write_key(w, "first");
    json_write_i64(w, p->first_step);
    json_write_key(w, "last");
    json_write_i64(w, p->last_step);
    json_write_end_object(w);
}

char * galloc_document_write_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    if (len != NULL) {
        *len = 0;
    }
    if (plan->n_tensors != doc->n_tensors || plan->n_buffer_types != doc->n_buffer_types) {
        return NULL; // not a plan of this document
    }
    struct json_writer w;
    json_writer_init(&w);
    write_header(&w, "galloc-plan", doc->name);
    json_write_newline(&w, 2);
    json_write_key(&w, "n_steps");
    json_write_i64(&w, plan->n_steps);
    json_write_newline(&w, 2);
    json_write_key(&w, "n_inplace");
    json_write_i64(&w, plan->n_inplace);

    json_write_newline(&w, 2);
    json_write_key(&w, "buffers");
    json_write_begin_array(&w);
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        write_plan_buffer(&w, doc, plan, b);
    }
    if (plan->n_buffer_types > 0) {
        json_write_newline(&w, 2);
    }
    json_write_end_array(&w);

    json_write_newline(&w, 2);
    json_write_key(&w, "tensors");
    json_write_begin_array(&w);
    for (int32_t i = 0; i < plan->n_tensors; i++) {
        write_plan_tensor(&w, doc, plan, i);
    }
    if (plan->n_tensors > 0) {
        json_write_newline(&w, 2);
    }
    json_write_end_array(&w);
    return write_finish(&w, len);
}
