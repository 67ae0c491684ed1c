// galloc-explain-json.c: an explanation and a comparison as JSON, for the web UI.
//
// The numbers are those of galloc-explain.h (nothing is derived here but text): per buffer
// type the peak, the live set at the peak with each tensor's name, op, type, shape, bytes and
// share of the buffer, the folded rows, the chunk-raising tensors and both series; per
// tensor its layer and holding interval (so the UI shows the live set of any hovered step).

#include "galloc-explain.h"
#include "json.h"

#include <stdlib.h>

static void key(struct galloc_json_writer * w, int32_t indent, const char * k) {
    galloc_json_write_newline(w, indent);
    galloc_json_write_key(w, k);
}

static void write_tensor_ref(struct galloc_json_writer * w, const struct galloc_document * doc, const struct galloc_explain * ex,
                             int32_t t, uint64_t bytes, uint64_t size) {
    galloc_json_write_begin_object(w);
    galloc_json_write_key_i64(w, "tensor", t);
    galloc_json_write_key_cstr(w, "name", doc->tensor_names[t]);
    galloc_json_write_key_cstr(w, "op", galloc_document_op_desc(doc, t));
    galloc_json_write_key_cstr(w, "type", ggml_type_name((enum ggml_type) doc->tensors[t].type));
    galloc_json_write_key(w, "ne");
    galloc_json_write_i64_array(w, doc->tensors[t].ne, GGML_MAX_DIMS);
    galloc_json_write_key_u64(w, "bytes", bytes);
    galloc_json_write_key_f64(w, "percent", galloc_explain_percent(bytes, size));
    galloc_json_write_key_i64(w, "layer", ex->layer[t]);
}

// a series' n entries, from the points where it changes
static void write_series(struct galloc_json_writer * w, const struct galloc_explain_series * s, int32_t n) {
    galloc_json_write_begin_array(w);
    for (int32_t i = 0, k = 0; i < n; i++) {
        while (k + 1 < s->n && s->at[k + 1] <= i) {
            k++;
        }
        galloc_json_write_u64(w, s->n > 0 ? s->bytes[k] : 0);
    }
    galloc_json_write_end_array(w);
}

static void write_buffer(struct galloc_json_writer * w, const struct galloc_document * doc, const struct galloc_explain * ex,
                         const struct galloc_explain_buffer * b) {
    galloc_json_write_newline(w, 4);
    galloc_json_write_begin_object(w);
    key(w, 6, "buffer_type");
    galloc_json_write_i64(w, b->buffer_type);
    galloc_json_write_key_cstr(w, "name", doc->buffer_type_names[b->buffer_type]);
    galloc_json_write_key(w, "shared_with");
    if (b->shared_with >= 0) {
        galloc_json_write_i64(w, b->shared_with);
    } else {
        galloc_json_write_null(w);
    }
    galloc_json_write_key_u64(w, "alignment", b->alignment);
    key(w, 6, "size");
    galloc_json_write_u64(w, b->size);
    galloc_json_write_key_u64(w, "peak_live", b->peak_live);
    galloc_json_write_key_i64(w, "peak_step", b->peak_step);
    galloc_json_write_key_u64(w, "overhead", b->overhead);
    galloc_json_write_key_f64(w, "overhead_percent", galloc_explain_percent(b->overhead, b->peak_live));
    key(w, 6, "chunks");
    galloc_json_write_begin_array(w);
    for (int32_t c = 0; c < b->n_chunks; c++) {
        galloc_json_write_newline(w, 8);
        galloc_json_write_begin_object(w);
        galloc_json_write_key_i64(w, "chunk", c);
        galloc_json_write_key_u64(w, "size", b->chunk_sizes[c]);
        galloc_json_write_key(w, "raiser");
        if (b->chunk_raiser[c] >= 0) {
            write_tensor_ref(w, doc, ex, b->chunk_raiser[c], b->chunk_raiser_bytes[c], b->size);
            galloc_json_write_key_u64(w, "offset", b->chunk_raiser_offset[c]);
            galloc_json_write_key_i64(w, "step", b->chunk_raiser_step[c]);
            galloc_json_write_end_object(w);
        } else {
            galloc_json_write_null(w);
        }
        galloc_json_write_end_object(w);
    }
    galloc_json_write_end_array(w);
    key(w, 6, "live");
    galloc_json_write_begin_array(w);
    for (int32_t i = 0; i < b->n_live; i++) {
        galloc_json_write_newline(w, 8);
        write_tensor_ref(w, doc, ex, b->live[i].tensor, b->live[i].bytes, b->size);
        galloc_json_write_end_object(w);
    }
    galloc_json_write_end_array(w);
    key(w, 6, "groups");
    galloc_json_write_begin_array(w);
    for (int32_t i = 0; i < b->n_groups; i++) {
        const struct galloc_explain_group * g = &b->groups[i];
        galloc_json_write_newline(w, 8);
        galloc_json_write_begin_object(w);
        galloc_json_write_key_cstr(w, "name", g->name);
        galloc_json_write_key_i64(w, "count", g->count);
        galloc_json_write_key_u64(w, "bytes", g->bytes);
        galloc_json_write_key_f64(w, "percent", galloc_explain_percent(g->bytes, b->size));
        galloc_json_write_key_i64(w, "tensor", g->tensor);
        galloc_json_write_key_i64(w, "first_layer", g->first_layer);
        galloc_json_write_key_i64(w, "last_layer", g->last_layer);
        galloc_json_write_end_object(w);
    }
    galloc_json_write_end_array(w);
    int32_t n = b->shared_with >= 0 ? 0 : ex->n_steps + 1;
    key(w, 6, "live_bytes");
    write_series(w, &b->live_bytes, n);
    key(w, 6, "high_water");
    write_series(w, &b->high_water, n);
    galloc_json_write_newline(w, 4);
    galloc_json_write_end_object(w);
}

char * galloc_explain_write_json(const struct galloc_document * doc, const struct galloc_explain * ex, size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    key(&w, 2, "format");
    galloc_json_write_cstr(&w, "galloc-explain");
    key(&w, 2, "version");
    galloc_json_write_u64(&w, 1);
    key(&w, 2, "n_steps");
    galloc_json_write_i64(&w, ex->n_steps);
    key(&w, 2, "n_tensors");
    galloc_json_write_i64(&w, ex->n_tensors);
    key(&w, 2, "n_layers");
    galloc_json_write_i64(&w, ex->n_layers);
    key(&w, 2, "buffers");
    galloc_json_write_begin_array(&w);
    for (int32_t b = 0; b < ex->n_buffers; b++) {
        write_buffer(&w, doc, ex, &ex->buffers[b]);
    }
    galloc_json_write_newline(&w, 2);
    galloc_json_write_end_array(&w);
    key(&w, 2, "layer");
    galloc_json_write_i32_array(&w, ex->layer, (size_t) ex->n_tensors);
    key(&w, 2, "hold_buffer");
    galloc_json_write_i32_array(&w, ex->hold_buffer, (size_t) ex->n_tensors);
    key(&w, 2, "hold_first");
    galloc_json_write_i32_array(&w, ex->hold_first, (size_t) ex->n_tensors);
    key(&w, 2, "hold_last");
    galloc_json_write_i32_array(&w, ex->hold_last, (size_t) ex->n_tensors);
    key(&w, 2, "hold_bytes");
    galloc_json_write_u64_array(&w, ex->hold_bytes, (size_t) ex->n_tensors);
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    return galloc_json_writer_finish(&w, len);
}

static void write_above(struct galloc_json_writer * w, const char * name, const struct galloc_explain_above * rows, int32_t n) {
    key(w, 6, name);
    galloc_json_write_begin_array(w);
    for (int32_t r = 0; r < n; r++) {
        const struct galloc_explain_above * a = &rows[r];
        galloc_json_write_newline(w, 8);
        galloc_json_write_begin_object(w);
        galloc_json_write_key_i64(w, "tensor", a->tensor);
        galloc_json_write_key_cstr(w, "name", a->name);
        galloc_json_write_key_i64(w, "chunk", a->chunk);
        galloc_json_write_key_i64(w, "step", a->step);
        galloc_json_write_key_u64(w, "offset", a->offset);
        galloc_json_write_key_u64(w, "bytes", a->bytes);
        galloc_json_write_key_u64(w, "above", a->above);
        galloc_json_write_end_object(w);
    }
    galloc_json_write_end_array(w);
}

char * galloc_explain_diff_write_json(const struct galloc_explain_diff * d, size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    key(&w, 2, "format");
    galloc_json_write_cstr(&w, "galloc-explain-diff");
    key(&w, 2, "version");
    galloc_json_write_u64(&w, 1);
    key(&w, 2, "folded");
    galloc_json_write_bool(&w, d->folded);
    key(&w, 2, "total_a");
    galloc_json_write_u64(&w, d->total_a);
    key(&w, 2, "total_b");
    galloc_json_write_u64(&w, d->total_b);
    key(&w, 2, "total_diff");
    galloc_json_write_i64(&w, (int64_t) (d->total_b - d->total_a));
    key(&w, 2, "buffers");
    galloc_json_write_begin_array(&w);
    for (int32_t i = 0; i < d->n_buffers; i++) {
        const struct galloc_explain_diff_buffer * b = &d->buffers[i];
        galloc_json_write_newline(&w, 4);
        galloc_json_write_begin_object(&w);
        key(&w, 6, "name");
        galloc_json_write_cstr(&w, b->name);
        galloc_json_write_key(&w, "buffer_a");
        galloc_json_write_i64(&w, b->buffer_a);
        galloc_json_write_key(&w, "buffer_b");
        galloc_json_write_i64(&w, b->buffer_b);
        key(&w, 6, "size_a");
        galloc_json_write_u64(&w, b->size_a);
        galloc_json_write_key(&w, "size_b");
        galloc_json_write_u64(&w, b->size_b);
        galloc_json_write_key(&w, "size_diff");
        galloc_json_write_i64(&w, b->size_diff);
        key(&w, 6, "peak_a");
        galloc_json_write_u64(&w, b->peak_a);
        galloc_json_write_key(&w, "peak_b");
        galloc_json_write_u64(&w, b->peak_b);
        galloc_json_write_key(&w, "peak_diff");
        galloc_json_write_i64(&w, b->peak_diff);
        galloc_json_write_key(&w, "peak_step_a");
        galloc_json_write_i64(&w, b->peak_step_a);
        galloc_json_write_key(&w, "peak_step_b");
        galloc_json_write_i64(&w, b->peak_step_b);
        galloc_json_write_key(&w, "overhead_diff");
        galloc_json_write_i64(&w, b->overhead_diff);
        key(&w, 6, "rows");
        galloc_json_write_begin_array(&w);
        for (int32_t r = 0; r < b->n_rows; r++) {
            const struct galloc_explain_diff_row * row = &b->rows[r];
            galloc_json_write_newline(&w, 8);
            galloc_json_write_begin_object(&w);
            galloc_json_write_key(&w, "name");
            galloc_json_write_cstr(&w, row->name);
            galloc_json_write_key(&w, "bytes_a");
            galloc_json_write_u64(&w, row->bytes_a);
            galloc_json_write_key(&w, "bytes_b");
            galloc_json_write_u64(&w, row->bytes_b);
            galloc_json_write_key(&w, "diff");
            galloc_json_write_i64(&w, (int64_t) (row->bytes_b - row->bytes_a));
            galloc_json_write_key(&w, "count_a");
            galloc_json_write_i64(&w, row->count_a);
            galloc_json_write_key(&w, "count_b");
            galloc_json_write_i64(&w, row->count_b);
            galloc_json_write_key(&w, "tensor_a");
            galloc_json_write_i64(&w, row->tensor_a);
            galloc_json_write_key(&w, "tensor_b");
            galloc_json_write_i64(&w, row->tensor_b);
            galloc_json_write_end_object(&w);
        }
        galloc_json_write_end_array(&w);
        write_above(&w, "above_a", b->above_a, b->n_above_a);
        write_above(&w, "above_b", b->above_b, b->n_above_b);
        galloc_json_write_newline(&w, 4);
        galloc_json_write_end_object(&w);
    }
    galloc_json_write_newline(&w, 2);
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    return galloc_json_writer_finish(&w, len);
}
