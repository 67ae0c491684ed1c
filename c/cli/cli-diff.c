// cli-diff.c: plan comparison (see cli-diff.h).
//
// Parses both plan documents with the library's JSON reader and compares
// exactly the fields that define plan equality; extra fields are ignored.

#include "cli-diff.h"
#include "galloc-error.h"
#include "json.h"

#include <inttypes.h>
#include <string.h>

// value of key in object as u64 (numbers or decimal strings); false when absent or not one
static bool get_u64(const struct json_value * obj, const char * key, uint64_t * out) {
    const struct json_value * v = json_object_get(obj, key);
    return v && json_get_u64(v, out) == JSON_INT_OK;
}

static bool check_plan(const struct json_doc * doc, const char * which, struct galloc_error * err) {
    const struct json_value * root = json_doc_root(doc);
    const struct json_value * fmt  = json_object_get(root, "format");
    const char * s = fmt ? json_get_string(fmt, NULL) : NULL;
    if (!s || strcmp(s, "galloc-plan") != 0) {
        galloc_fail(err, GALLOC_STATUS_INVALID, "%s: not a galloc-plan document", which);
        return false;
    }
    if (json_type_of(json_object_get(root, "buffers")) != JSON_TYPE_ARRAY || json_type_of(json_object_get(root, "tensors")) != JSON_TYPE_ARRAY) {
        galloc_fail(err, GALLOC_STATUS_INVALID, "%s: buffers and tensors must be arrays", which);
        return false;
    }
    return true;
}

int cli_diff_plans(const char * a, size_t a_len, const char * b, size_t b_len, FILE * out, int max_report, struct galloc_error * err) {
    struct galloc_error sub;
    struct json_doc * da = json_parse(a, a_len, &sub);
    if (!da) {
        galloc_fail(err, sub.status, "first plan: %s", sub.message);
        return -1;
    }
    struct json_doc * db = json_parse(b, b_len, &sub);
    if (!db) {
        galloc_fail(err, sub.status, "second plan: %s", sub.message);
        json_doc_free(da);
        return -1;
    }
    if (!check_plan(da, "first plan", err) || !check_plan(db, "second plan", err)) {
        json_doc_free(da);
        json_doc_free(db);
        return -1;
    }

    int n = 0;
    const struct json_value * ba = json_object_get(json_doc_root(da), "buffers");
    const struct json_value * bb = json_object_get(json_doc_root(db), "buffers");
    if (json_array_size(ba) != json_array_size(bb)) {
        fprintf(out, "buffers: %zu vs %zu entries\n", json_array_size(ba), json_array_size(bb));
        n++;
    }
    for (size_t i = 0; i < json_array_size(ba) && i < json_array_size(bb); i++) {
        const struct json_value * ca = json_object_get(json_array_at(ba, i), "chunk_sizes");
        const struct json_value * cb = json_object_get(json_array_at(bb, i), "chunk_sizes");
        size_t na = json_array_size(ca), nb = json_array_size(cb);
        if (na != nb) {
            fprintf(out, "buffers[%zu]: %zu chunks vs %zu\n", i, na, nb);
            n++;
            continue;
        }
        for (size_t c = 0; c < na; c++) {
            uint64_t x = 0, y = 0;
            json_get_u64(json_array_at(ca, c), &x);
            json_get_u64(json_array_at(cb, c), &y);
            if (x != y) {
                fprintf(out, "buffers[%zu].chunk_sizes[%zu]: %" PRIu64 " vs %" PRIu64 "\n", i, c, x, y);
                n++;
            }
        }
    }

    const struct json_value * ta = json_object_get(json_doc_root(da), "tensors");
    const struct json_value * tb = json_object_get(json_doc_root(db), "tensors");
    if (json_array_size(ta) != json_array_size(tb)) {
        fprintf(out, "tensors: %zu vs %zu entries\n", json_array_size(ta), json_array_size(tb));
        n++;
    }
    for (size_t i = 0; i < json_array_size(ta) && i < json_array_size(tb); i++) {
        const struct json_value * x = json_array_at(ta, i);
        const struct json_value * y = json_array_at(tb, i);
        bool xn = json_type_of(x) == JSON_TYPE_NULL, yn = json_type_of(y) == JSON_TYPE_NULL;
        if (xn || yn) {
            if (xn != yn && n++ < max_report) {
                fprintf(out, "tensors[%zu]: %s vs %s\n", i, xn ? "null" : "placed", yn ? "null" : "placed");
            }
            continue;
        }
        static const char * fields[] = { "buffer", "chunk", "offset" };
        for (int f = 0; f < 3; f++) {
            uint64_t vx = UINT64_MAX, vy = UINT64_MAX;
            bool ok_x = get_u64(x, fields[f], &vx), ok_y = get_u64(y, fields[f], &vy);
            if (ok_x != ok_y || vx != vy) {
                if (n++ < max_report) {
                    fprintf(out, "tensors[%zu].%s: %" PRIu64 " vs %" PRIu64 "\n", i, fields[f], vx, vy);
                }
            }
        }
    }
    if (n > max_report) {
        fprintf(out, "... %d differences in all\n", n);
    }
    json_doc_free(da);
    json_doc_free(db);
    return n ? 1 : 0;
}
