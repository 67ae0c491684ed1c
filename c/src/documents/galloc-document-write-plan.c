// galloc-document-write-plan.c: the plan document out (galloc_document_write_plan).
//
// Written by the JSON writer (json.h) in the format page's layout: the head (format, name, counts,
// buffers), then one line per tensor, `null` or `{ "buffer": B, ... }`.

#include "galloc-document.h"
#include "galloc-document-impl.h"
#include "json.h"

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

// one tensor's line: null when not placed (a weight, an external)
static void write_plan_tensor(struct galloc_json_writer * w, const struct galloc_place * p, bool view) {
    galloc_json_write_newline(w, 4);
    if (p->buffer < 0) {
        galloc_json_write_null(w);
        return;
    }
    galloc_json_write_begin_object(w);
    galloc_json_write_key_i64(w, "buffer", p->buffer);
    galloc_json_write_key_i64(w, "chunk", p->chunk);
    galloc_json_write_key_u64(w, "offset", p->offset);
    galloc_json_write_key_u64(w, "size", p->size);
    if (view) {
        galloc_json_write_key_bool(w, "view", true);
    }
    galloc_json_write_key_cstr(w, "how", galloc_how_name((enum galloc_how) p->how));
    if (p->how == GALLOC_HOW_INPLACE || p->how == GALLOC_HOW_VIEW) {
        galloc_json_write_key_i64(w, "parent", p->parent);
    }
    galloc_json_write_key_i64(w, "first", p->first_step);
    galloc_json_write_key_i64(w, "last", p->last_step);
    galloc_json_write_end_object(w);
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
    galloc_json_write_begin_object(&w);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_cstr(&w, "format", "galloc-plan");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_u64(&w, "version", 1);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_cstr(&w, "name", doc->name != NULL ? doc->name : "");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_i64(&w, "n_steps", plan->n_steps);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_i64(&w, "n_inplace", plan->n_inplace);
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
        write_plan_tensor(&w, &plan->places[i], doc->tensors[i].view_src >= 0);
    }
    if (plan->n_tensors > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    galloc_json_write_newline(&w, 0);
    return galloc_json_writer_finish(&w, len);
}
