// galloc-plan-document.c: reads "galloc-plan" documents back, checked (see galloc-plan-document.h).
//
// The JSON reader streams the items of the root's arrays (buffers, tensors) to read_item,
// which checks each one and keeps only its place; everything else of the document is
// checked from the small DOM that remains.

#include "galloc-plan-document.h"
#include "galloc-error.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

struct plan_reader {
    struct galloc_plan_document * out;
    size_t                        cap_tensors;
    bool                          item_failed; // item_err holds the first bad entry's status and message
    struct galloc_error           item_err;
};

// value of obj.key as u64 at most max; path names obj in messages
static bool read_u64(const struct galloc_json_value * obj, const char * path, const char * key, uint64_t max, uint64_t * out, struct galloc_error * err) {
    const struct galloc_json_value * v = galloc_json_object_get(obj, key);
    if (!v) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: no \"%s\"", path, key);
    }
    uint64_t             x  = 0;
    enum galloc_json_int_status st = galloc_json_get_u64(v, &x);
    if (st != JSON_INT_OK || x > max) {
        char what[64];
        galloc_json_describe(v, what, sizeof(what));
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s.%s: %s is not an integer in [0, %llu]", path, key, what, (unsigned long long) max);
    }
    *out = x;
    return true;
}

static bool read_buffer(struct plan_reader * r, size_t i, const struct galloc_json_value * v, struct galloc_error * err) {
    char path[48];
    snprintf(path, sizeof(path), "buffers[%zu]", i);
    if (i >= GALLOC_PLAN_DOCUMENT_MAX_BUFFERS) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "buffers: more than %d entries", GALLOC_PLAN_DOCUMENT_MAX_BUFFERS);
    }
    if (galloc_json_type_of(v) != JSON_TYPE_OBJECT) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: expected an object, got %s", path, galloc_json_type_name(galloc_json_type_of(v)));
    }
    const struct galloc_json_value * cs = galloc_json_object_get(v, "chunk_sizes");
    if (galloc_json_type_of(cs) != JSON_TYPE_ARRAY) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s.chunk_sizes: expected an array, got %s", path, cs ? galloc_json_type_name(galloc_json_type_of(cs)) : "nothing");
    }
    size_t n = galloc_json_array_size(cs);
    if (n > GALLOC_MAX_CHUNKS) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "%s.chunk_sizes: %zu chunks, more than %d", path, n, GALLOC_MAX_CHUNKS);
    }
    struct galloc_plan_document * p = r->out;
    if (p->n_buffers == 0) {
        p->buffers = calloc(GALLOC_PLAN_DOCUMENT_MAX_BUFFERS, sizeof(*p->buffers)); // 136 KiB, once the first entry is read
        if (!p->buffers) {
            return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        }
    }
    struct galloc_plan_document_buffer * b = &p->buffers[i];
    b->n_chunks = (int32_t) n;
    for (size_t c = 0; c < n; c++) {
        const struct galloc_json_value * x  = galloc_json_array_at(cs, c);
        enum galloc_json_int_status      st = galloc_json_get_u64(x, &b->chunk_sizes[c]);
        if (st != JSON_INT_OK) {
            char what[64];
            galloc_json_describe(x, what, sizeof(what));
            return galloc_fail(err, GALLOC_STATUS_INVALID, "%s.chunk_sizes[%zu]: %s is not an integer in [0, 2^64 - 1]", path, c, what);
        }
    }
    p->n_buffers = (int32_t) i + 1;
    return true;
}

static bool read_tensor(struct plan_reader * r, size_t i, const struct galloc_json_value * v, struct galloc_error * err) {
    if (i >= GALLOC_DOCUMENT_MAX_TENSORS) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "tensors: more than %d entries", GALLOC_DOCUMENT_MAX_TENSORS);
    }
    struct galloc_plan_document * p = r->out;
    if (i == r->cap_tensors) {
        size_t cap = r->cap_tensors ? 2 * r->cap_tensors : 1024;
        struct galloc_plan_document_tensor * grown = realloc(p->tensors, cap * sizeof(*grown));
        if (!grown) {
            return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        }
        p->tensors     = grown;
        r->cap_tensors = cap;
    }
    struct galloc_plan_document_tensor * t = &p->tensors[i];
    *t = (struct galloc_plan_document_tensor) { 0, -1, -1 };
    p->n_tensors = (int32_t) i + 1;
    if (galloc_json_type_of(v) == JSON_TYPE_NULL) {
        return true;
    }
    char path[48];
    snprintf(path, sizeof(path), "tensors[%zu]", i);
    if (galloc_json_type_of(v) != JSON_TYPE_OBJECT) {
        return galloc_fail(err, GALLOC_STATUS_INVALID, "%s: expected an object or null, got %s", path, galloc_json_type_name(galloc_json_type_of(v)));
    }
    uint64_t buffer = 0, chunk = 0;
    if (!read_u64(v, path, "buffer", GALLOC_PLAN_DOCUMENT_MAX_BUFFERS - 1, &buffer, err) ||
        !read_u64(v, path, "chunk", GALLOC_MAX_CHUNKS - 1, &chunk, err) ||
        !read_u64(v, path, "offset", UINT64_MAX, &t->offset, err)) {
        return false;
    }
    t->buffer = (int32_t) buffer;
    t->chunk  = (int32_t) chunk;
    return true;
}

// the first bad entry is kept, not reported at once: the format and version (which may come
// later in the text) are checked first, so a graph document is called one, not a bad plan
static bool read_item(void * user, const char * key, size_t index, const struct galloc_json_value * item, struct galloc_error * err) {
    (void) err;
    struct plan_reader * r = user;
    if (r->item_failed) {
        return true; // entries after the first bad one are only parsed
    }
    bool ok = true;
    if (strcmp(key, "buffers") == 0) {
        ok = read_buffer(r, index, item, &r->item_err);
    } else if (strcmp(key, "tensors") == 0) {
        ok = read_tensor(r, index, item, &r->item_err);
    } // else: the project's extras, not part of plan equality
    r->item_failed = !ok;
    return true;
}

bool galloc_plan_document_read(const char * text, size_t len, struct galloc_plan_document * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (len > GALLOC_PLAN_DOCUMENT_MAX_BYTES) {
        return galloc_fail(err, GALLOC_STATUS_LIMIT, "plan is %zu bytes, over the %zu-byte limit", len, GALLOC_PLAN_DOCUMENT_MAX_BYTES);
    }
    struct plan_reader r;
    memset(&r, 0, sizeof(r));
    r.out = out;
    struct galloc_json_doc *  d = galloc_json_parse_stream(text, len, read_item, &r, err);
    bool ok = d != NULL;
    const struct galloc_json_value * root = galloc_json_doc_root(d);
    if (ok && galloc_json_type_of(root) != JSON_TYPE_OBJECT) {
        ok = galloc_fail(err, GALLOC_STATUS_INVALID, "expected an object, got %s", galloc_json_type_name(galloc_json_type_of(root)));
    }
    if (ok) {
        size_t       n   = 0;
        const char * fmt = galloc_json_get_string(galloc_json_object_get(root, "format"), &n);
        if (!fmt || n != strlen("galloc-plan") || memcmp(fmt, "galloc-plan", n) != 0) {
            char what[64];
            galloc_json_describe(galloc_json_object_get(root, "format"), what, sizeof(what));
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "format: %s, not a galloc-plan document", what);
        }
    }
    if (ok) {
        const struct galloc_json_value * ver = galloc_json_object_get(root, "version");
        uint64_t                  v   = 0;
        if (galloc_json_type_of(ver) != JSON_TYPE_NUMBER || galloc_json_get_u64(ver, &v) != JSON_INT_OK || v != 1) {
            char what[64];
            galloc_json_describe(ver, what, sizeof(what));
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "version: %s is not supported (expected the number 1)", what);
        }
    }
    if (ok && r.item_failed) {
        ok = galloc_fail(err, r.item_err.status, "%s", r.item_err.message);
    }
    static const char * lists[] = { "buffers", "tensors" };
    for (int k = 0; ok && k < 2; k++) {
        const struct galloc_json_value * v = galloc_json_object_get(root, lists[k]);
        if (galloc_json_type_of(v) != JSON_TYPE_ARRAY) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "%s: expected an array, got %s", lists[k], v ? galloc_json_type_name(galloc_json_type_of(v)) : "nothing");
        }
    }
    // the places name buffers and chunks the plan has (the lists may come in either order)
    for (int32_t i = 0; ok && i < out->n_tensors; i++) {
        const struct galloc_plan_document_tensor * t = &out->tensors[i];
        if (t->buffer >= out->n_buffers) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].buffer: %d, but the plan has %d buffers", i, t->buffer, out->n_buffers);
        } else if (t->buffer >= 0 && t->chunk >= out->buffers[t->buffer].n_chunks) {
            ok = galloc_fail(err, GALLOC_STATUS_INVALID, "tensors[%d].chunk: %d, but buffers[%d] has %d chunks", i, t->chunk, t->buffer,
                             out->buffers[t->buffer].n_chunks);
        }
    }
    galloc_json_doc_free(d);
    if (!ok) {
        galloc_plan_document_free(out);
    }
    return ok;
}

void galloc_plan_document_free(struct galloc_plan_document * plan) {
    free(plan->buffers);
    free(plan->tensors);
    memset(plan, 0, sizeof(*plan));
}
