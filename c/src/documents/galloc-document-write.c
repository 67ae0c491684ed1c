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

//
// plan document
//

static void write_plan_buffer(struct galloc_json_writer * w, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t b) {
    const struct galloc_buffer_plan * bp = &plan->buffers[b];
    const struct galloc_buffer_type * bt = &doc->buffer_types[b];
    galloc_json_write_newline(w, 4);
    galloc_json_write_begin_object(w);
    galloc_json_write_key_i64(w, "buffer_type", b);
    galloc_json_write_key_cstr(w, "name", doc->buffer_type_names != NULL ? doc->buffer_type_names[b] : "");
    galloc_json_write_key_u64(w, "alignment", bt->alignment);
    galloc_json_write_key(w, "max_size");
    if (bt->max_size == GALLOC_NO_MAX_SIZE) {
        galloc_json_write_null(w);
    } else {
        galloc_json_write_u64(w, bt->max_size);
    }
    galloc_json_write_key(w, "chunk_sizes");
    galloc_json_write_u64_array(w, bp->chunk_sizes, (size_t) (bp->n_chunks < GALLOC_MAX_CHUNKS ? bp->n_chunks : GALLOC_MAX_CHUNKS));
    galloc_json_write_key_u64(w, "size", bp->size);
    galloc_json_write_key_u64(w, "peak_live", bp->peak_live);
    galloc_json_write_key_u64(w, "overhead", galloc_overhead_bytes(bp->size, bp->peak_live));
    galloc_json_write_key(w, "shared_with");
    if (bp->shared_with < 0) {
        galloc_json_write_null(w);
    } else {
        galloc_json_write_i64(w, bp->shared_with);
    }
    galloc_json_write_end_object(w);
}

// text of the plan's tensor entries, built in a local buffer and placed in one call (the members
// and their order as galloc_json_write_key_* would write them; keys need no escaping)
struct entry_text {
    char   buf[384]; // 10 members of at most 12 + GALLOC_JSON_INTEGER_MAX bytes, the "how" name
    size_t len;
};

static void entry_put(struct entry_text * e, const char * s, size_t n) {
    memcpy(e->buf + e->len, s, n);
    e->len += n;
}

#define ENTRY_LITERAL(e, lit) entry_put((e), (lit), sizeof(lit) - 1)

static void entry_i64(struct entry_text * e, int64_t v) {
    e->len += galloc_json_format_i64(e->buf + e->len, v);
}

static void entry_u64(struct entry_text * e, uint64_t v) {
    e->len += galloc_json_format_u64(e->buf + e->len, v);
}

static void write_plan_tensor(struct galloc_json_writer * w, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t i) {
    const struct galloc_place * p = &plan->places[i];
    galloc_json_write_newline(w, 4);
    if (p->buffer < 0) {
        galloc_json_write_null(w);
        return;
    }
    struct entry_text e;
    e.len = 0;
    ENTRY_LITERAL(&e, "{ \"buffer\": ");
    entry_i64(&e, p->buffer);
    ENTRY_LITERAL(&e, ", \"chunk\": ");
    entry_i64(&e, p->chunk);
    ENTRY_LITERAL(&e, ", \"offset\": ");
    entry_u64(&e, p->offset);
    ENTRY_LITERAL(&e, ", \"size\": ");
    entry_u64(&e, p->size);
    if (doc->tensors[i].view_src >= 0) {
        ENTRY_LITERAL(&e, ", \"view\": true");
    }
    ENTRY_LITERAL(&e, ", \"how\": \"");
    const char * how = galloc_how_name((enum galloc_how) p->how); // a short lower-case word
    entry_put(&e, how, strlen(how));
    ENTRY_LITERAL(&e, "\"");
    if (p->how == GALLOC_HOW_INPLACE || p->how == GALLOC_HOW_VIEW) {
        ENTRY_LITERAL(&e, ", \"parent\": ");
        entry_i64(&e, p->parent);
    }
    ENTRY_LITERAL(&e, ", \"first\": ");
    entry_i64(&e, p->first_step);
    ENTRY_LITERAL(&e, ", \"last\": ");
    entry_i64(&e, p->last_step);
    ENTRY_LITERAL(&e, " }");
    galloc_json_write_raw(w, e.buf, e.len, true);
}

char * galloc_document_write_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    if (len != NULL) {
        *len = 0;
    }
    if (plan->n_tensors != doc->n_tensors || plan->n_buffer_types != doc->n_buffer_types) {
        return NULL; // not a plan of this document
    }
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    write_header(&w, "galloc-plan", doc->name);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "n_steps");
    galloc_json_write_i64(&w, plan->n_steps);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "n_inplace");
    galloc_json_write_i64(&w, plan->n_inplace);

    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "buffers");
    galloc_json_write_begin_array(&w);
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        write_plan_buffer(&w, doc, plan, b);
    }
    if (plan->n_buffer_types > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);

    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "tensors");
    galloc_json_write_begin_array(&w);
    for (int32_t i = 0; i < plan->n_tensors; i++) {
        write_plan_tensor(&w, doc, plan, i);
    }
    if (plan->n_tensors > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);
    return write_finish(&w, len);
}
