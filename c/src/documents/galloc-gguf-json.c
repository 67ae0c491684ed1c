// galloc-gguf-json.c: a GGUF header as a JSON summary (galloc_gguf_write_summary, see galloc-gguf.h).
//
// For the browser's model page and any tool that shows what a model file declares: counts and
// sizes, architecture and name, every KV pair (long arrays and strings cut to their first items
// and bytes, with their full count), the tensor infos and the bytes per tensor type.

#include "galloc-gguf.h"

#include "ggml.h"
#include "json.h"

#include <string.h>

#define SUMMARY_MAX_STRING ((uint64_t) 64 << 10) // bytes of one string value shown

static bool write_text(struct galloc_json_writer * w, const char * s, uint64_t len) {
    return galloc_json_write_string(w, s, (size_t) (len < SUMMARY_MAX_STRING ? len : SUMMARY_MAX_STRING));
}

// element i of a numeric value as a JSON number
static bool write_number(struct galloc_json_writer * w, const struct galloc_gguf_value * v, uint64_t i) {
    const enum galloc_gguf_type t = v->type == GALLOC_GGUF_TYPE_ARRAY ? v->elem_type : v->type;
    int64_t s;
    uint64_t u;
    double f;
    switch (t) {
        case GALLOC_GGUF_TYPE_BOOL:    return galloc_gguf_value_u64(v, i, &u) && galloc_json_write_bool(w, u != 0);
        case GALLOC_GGUF_TYPE_FLOAT32: return galloc_gguf_value_f64(v, i, &f) && galloc_json_write_f32(w, (float) f);
        case GALLOC_GGUF_TYPE_FLOAT64: return galloc_gguf_value_f64(v, i, &f) && galloc_json_write_f64(w, f);
        case GALLOC_GGUF_TYPE_UINT64:  return galloc_gguf_value_u64(v, i, &u) && galloc_json_write_u64(w, u);
        default:                       return galloc_gguf_value_i64(v, i, &s) && galloc_json_write_i64(w, s);
    }
}

static bool write_value(struct galloc_json_writer * w, const struct galloc_gguf_value * v, uint64_t max_items) {
    if (v->type == GALLOC_GGUF_TYPE_STRING) {
        return write_text(w, (const char *) v->bytes, v->n);
    }
    if (v->type != GALLOC_GGUF_TYPE_ARRAY) {
        return write_number(w, v, 0);
    }
    bool ok = galloc_json_write_begin_object(w) &&
              galloc_json_write_key(w, "elem_type") && galloc_json_write_cstr(w, galloc_gguf_type_name(v->elem_type)) &&
              galloc_json_write_key(w, "n") && galloc_json_write_u64(w, v->n) &&
              galloc_json_write_key(w, "items") && galloc_json_write_begin_array(w);
    for (uint64_t i = 0; ok && i < v->n && i < max_items; i++) {
        if (v->elem_type == GALLOC_GGUF_TYPE_STRING) {
            ok = write_text(w, v->strs[i], v->str_lens[i]);
        } else if (v->elem_type == GALLOC_GGUF_TYPE_ARRAY) {
            ok = write_value(w, &v->items[i], max_items);
        } else {
            ok = write_number(w, v, i);
        }
    }
    return ok && galloc_json_write_end_array(w) && galloc_json_write_end_object(w);
}

char * galloc_gguf_write_summary(const struct galloc_gguf * g, uint64_t max_items, size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    const char * arch = galloc_gguf_get_str(g, "general.architecture");
    const char * name = galloc_gguf_get_str(g, "general.name");
    galloc_json_write_begin_object(&w);
    galloc_json_write_key(&w, "format");      galloc_json_write_cstr(&w, "galloc-gguf-summary");
    galloc_json_write_key(&w, "version");     galloc_json_write_u64(&w, g->version);
    galloc_json_write_key(&w, "architecture"); arch ? galloc_json_write_cstr(&w, arch) : galloc_json_write_null(&w);
    galloc_json_write_key(&w, "name");        name ? galloc_json_write_cstr(&w, name) : galloc_json_write_null(&w);
    galloc_json_write_key(&w, "n_kv");        galloc_json_write_i64(&w, g->n_kv);
    galloc_json_write_key(&w, "n_tensors");   galloc_json_write_i64(&w, g->n_tensors);
    galloc_json_write_key(&w, "alignment");   galloc_json_write_u64(&w, g->alignment);
    galloc_json_write_key(&w, "header_size"); galloc_json_write_u64(&w, g->header_size);
    galloc_json_write_key(&w, "data_offset"); galloc_json_write_u64(&w, g->data_offset);
    galloc_json_write_key(&w, "data_size");   galloc_json_write_u64(&w, g->data_size);
    galloc_json_write_key(&w, "file_size");   galloc_json_write_u64(&w, g->file_size);
    galloc_json_write_key(&w, "llama_refusal"); galloc_json_write_cstr(&w, g->llama_refusal);

    // bytes per tensor type
    uint64_t count[GGML_TYPE_COUNT] = { 0 }, bytes[GGML_TYPE_COUNT] = { 0 };
    for (int64_t i = 0; i < g->n_tensors; i++) {
        count[g->tensors[i].type]++;
        bytes[g->tensors[i].type] += g->tensors[i].nbytes;
    }
    galloc_json_write_key(&w, "tensor_types");
    galloc_json_write_begin_array(&w);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (count[t]) {
            galloc_json_write_newline(&w, 2);
            galloc_json_write_begin_object(&w);
            galloc_json_write_key(&w, "type");  galloc_json_write_cstr(&w, ggml_type_name((enum ggml_type) t));
            galloc_json_write_key(&w, "count"); galloc_json_write_u64(&w, count[t]);
            galloc_json_write_key(&w, "bytes"); galloc_json_write_u64(&w, bytes[t]);
            galloc_json_write_end_object(&w);
        }
    }
    galloc_json_write_end_array(&w);

    galloc_json_write_key(&w, "kv");
    galloc_json_write_begin_array(&w);
    for (int64_t i = 0; i < g->n_kv; i++) {
        const struct galloc_gguf_kv * kv = &g->kv[i];
        galloc_json_write_newline(&w, 2);
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "key");    galloc_json_write_string(&w, kv->key, (size_t) kv->key_len);
        galloc_json_write_key(&w, "type");   galloc_json_write_cstr(&w, galloc_gguf_type_name(kv->value.type));
        galloc_json_write_key(&w, "offset"); galloc_json_write_u64(&w, kv->offset);
        galloc_json_write_key(&w, "value");  write_value(&w, &kv->value, max_items);
        galloc_json_write_end_object(&w);
    }
    galloc_json_write_end_array(&w);

    galloc_json_write_key(&w, "tensors");
    galloc_json_write_begin_array(&w);
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const struct galloc_gguf_tensor_info * t = &g->tensors[i];
        galloc_json_write_newline(&w, 2);
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "name"); galloc_json_write_cstr(&w, t->name);
        galloc_json_write_key(&w, "type"); galloc_json_write_cstr(&w, ggml_type_name((enum ggml_type) t->type));
        galloc_json_write_key(&w, "ne");
        galloc_json_write_i64_array(&w, t->ne, (size_t) (t->n_dims > 0 ? t->n_dims : 1));
        galloc_json_write_key(&w, "nbytes"); galloc_json_write_u64(&w, t->nbytes);
        galloc_json_write_key(&w, "offset"); galloc_json_write_u64(&w, t->offset);
        galloc_json_write_end_object(&w);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    return galloc_json_writer_finish(&w, len);
}
