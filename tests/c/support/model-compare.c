// model-compare.c: an independent structural comparison of a built graph document with
// llama.cpp's (every tensor field as a parsed JSON value, the node and leaf lists), and of plans
// (chunk sizes, every tensor's buffer, chunk and offset). Used by test-models-real and
// test-model-archs; the first few differences of a row are printed.

#include "model-compare.h"

#include "check.h"
#include "galloc-status.h"
#include "ggml.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int n_reported;

void model_compare_reset(void) {
    n_reported = 0;
}

static void report(const char * row, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);
static void report(const char * row, const char * fmt, ...) {
    if (n_reported++ < 8) {
        va_list args;
        va_start(args, fmt);
        fprintf(stderr, "  %s: ", row);
        vfprintf(stderr, fmt, args);
        fprintf(stderr, "\n");
        va_end(args);
    }
}

// ne with trailing 1s dropped (documents may write them or not)
static size_t ne_dims(const struct galloc_json_value * ne, uint64_t out[4]) {
    size_t n = galloc_json_array_size(ne);
    for (size_t d = 0; d < 4; d++) {
        out[d] = 1;
        if (d < n) {
            galloc_json_get_u64(galloc_json_array_at(ne, d), &out[d]);
        }
    }
    size_t dims = 4;
    while (dims > 1 && out[dims - 1] == 1) {
        dims--;
    }
    return dims;
}

// deep equality: strings byte for byte, numbers by value (or their text, for non-integers),
// arrays element by element, objects key by key in order
static bool same_value(const struct galloc_json_value * a, const struct galloc_json_value * b) {
    if (!a || !b) {
        return a == b;
    }
    const enum galloc_json_type ta = galloc_json_type_of(a);
    if (ta != galloc_json_type_of(b)) {
        return false;
    }
    switch (ta) {
        case JSON_TYPE_STRING: {
            size_t la = 0, lb = 0;
            const char * sa = galloc_json_get_string(a, &la), * sb = galloc_json_get_string(b, &lb);
            return la == lb && (la == 0 || memcmp(sa, sb, la) == 0);
        }
        case JSON_TYPE_ARRAY:
            if (galloc_json_array_size(a) != galloc_json_array_size(b)) {
                return false;
            }
            for (size_t i = 0; i < galloc_json_array_size(a); i++) {
                if (!same_value(galloc_json_array_at(a, i), galloc_json_array_at(b, i))) {
                    return false;
                }
            }
            return true;
        case JSON_TYPE_OBJECT:
            if (galloc_json_object_size(a) != galloc_json_object_size(b)) {
                return false;
            }
            for (size_t i = 0; i < galloc_json_object_size(a); i++) {
                size_t la = 0, lb = 0;
                const char * ka = galloc_json_object_key_at(a, i, &la), * kb = galloc_json_object_key_at(b, i, &lb);
                if (la != lb || memcmp(ka, kb, la) != 0 ||
                    !same_value(galloc_json_object_value_at(a, i), galloc_json_object_value_at(b, i))) {
                    return false;
                }
            }
            return true;
        default: {
            char da[128], db[128];
            galloc_json_describe(a, da, sizeof(da));
            galloc_json_describe(b, db, sizeof(db));
            return strcmp(da, db) == 0;
        }
    }
}

// every field of tensor i: the fields a document may carry, each compared as a value
static bool same_tensor(const char * row, size_t i, const struct galloc_json_value * ta, const struct galloc_json_value * tb) {
    static const char * const fields[] = {
        "name", "op", "unary_op", "glu_op", "type", "nb", "src", "view_src", "view_offs", "flags", "alloc_size", "buffer_type",
    };
    bool ok = true;
    char where[64];
    snprintf(where, sizeof(where), "tensors[%zu]", i);
    for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
        const struct galloc_json_value * va = galloc_json_object_get(ta, fields[f]);
        const struct galloc_json_value * vb = galloc_json_object_get(tb, fields[f]);
        if (!same_value(va, vb)) {
            char da[256] = "(absent)", db[256] = "(absent)";
            if (va) {
                galloc_json_describe(va, da, sizeof(da));
            }
            if (vb) {
                galloc_json_describe(vb, db, sizeof(db));
            }
            report(row, "%s.%s: built %s, llama.cpp %s", where, fields[f], da, db);
            ok = false;
        }
    }
    uint64_t na[4], nb[4];
    size_t   da = ne_dims(galloc_json_object_get(ta, "ne"), na), db = ne_dims(galloc_json_object_get(tb, "ne"), nb);
    if (da != db || memcmp(na, nb, sizeof(na)) != 0) {
        char sa[96], sb[96];
        snprintf(sa, sizeof(sa), "[%llu, %llu, %llu, %llu]", (unsigned long long) na[0], (unsigned long long) na[1],
                 (unsigned long long) na[2], (unsigned long long) na[3]);
        snprintf(sb, sizeof(sb), "[%llu, %llu, %llu, %llu]", (unsigned long long) nb[0], (unsigned long long) nb[1],
                 (unsigned long long) nb[2], (unsigned long long) nb[3]);
        report(row, "%s.ne: built %s, llama.cpp %s", where, sa, sb);
        ok = false;
    }
    // no field the checker does not know about
    for (size_t k = 0; k < galloc_json_object_size(ta) + galloc_json_object_size(tb); k++) {
        const struct galloc_json_value * t = k < galloc_json_object_size(ta) ? ta : tb;
        size_t j = k < galloc_json_object_size(ta) ? k : k - galloc_json_object_size(ta);
        const char * key = galloc_json_object_key_at(t, j, NULL);
        bool known = strcmp(key, "ne") == 0;
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]) && !known; f++) {
            known = strcmp(key, fields[f]) == 0;
        }
        if (!known) {
            report(row, "%s: unexpected field %s", where, key);
            ok = false;
        }
    }
    return ok;
}

bool model_same_graph(const char * row, const char * built, size_t built_len, const char * ref, size_t ref_len) {
    struct galloc_error jerr;
    struct galloc_json_doc * a = galloc_json_parse(built, built_len, &jerr);
    struct galloc_json_doc * b = a ? galloc_json_parse(ref, ref_len, &jerr) : NULL;
    const char * err = jerr.message;
    bool ok = a && b;
    if (ok) {
        const struct galloc_json_value * ra = galloc_json_doc_root(a), * rb = galloc_json_doc_root(b);
        static const char * const lists[] = { "buffer_types", "nodes", "leafs", "node_buffer_ids", "leaf_buffer_ids" };
        for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
            if (!same_value(galloc_json_object_get(ra, lists[l]), galloc_json_object_get(rb, lists[l]))) {
                report(row, "%s differ", lists[l]);
                ok = false;
            }
        }
        const struct galloc_json_value * ta = galloc_json_object_get(ra, "tensors"), * tb = galloc_json_object_get(rb, "tensors");
        const size_t n = galloc_json_array_size(ta) < galloc_json_array_size(tb) ? galloc_json_array_size(ta) : galloc_json_array_size(tb);
        if (galloc_json_array_size(ta) != galloc_json_array_size(tb)) {
            report(row, "tensors: built %zu, llama.cpp %zu", galloc_json_array_size(ta), galloc_json_array_size(tb));
            ok = false;
        }
        for (size_t i = 0; i < n; i++) {
            ok = same_tensor(row, i, galloc_json_array_at(ta, i), galloc_json_array_at(tb, i)) && ok;
        }
    } else {
        report(row, "unreadable document: %s", err);
    }
    galloc_json_doc_free(a);
    galloc_json_doc_free(b);
    return ok;
}

//
// the digest
//

static void fnv(uint64_t * h, const void * data, size_t len) {
    const unsigned char * p = data;
    for (size_t i = 0; i < len; i++) {
        *h = (*h ^ p[i]) * 0x100000001b3ull;
    }
}

// a value as same_value sees it: its type, strings' bytes, numbers' text, arrays and objects in order
static void digest_value(uint64_t * h, const struct galloc_json_value * v) {
    const unsigned char absent = 0xff;
    if (!v) {
        fnv(h, &absent, 1);
        return;
    }
    const unsigned char type = (unsigned char) galloc_json_type_of(v);
    fnv(h, &type, 1);
    switch (galloc_json_type_of(v)) {
        case JSON_TYPE_STRING: {
            size_t len = 0;
            const char * str = galloc_json_get_string(v, &len);
            fnv(h, &len, sizeof(len));
            fnv(h, str, len);
            break;
        }
        case JSON_TYPE_ARRAY: {
            const size_t n = galloc_json_array_size(v);
            fnv(h, &n, sizeof(n));
            for (size_t i = 0; i < n; i++) {
                digest_value(h, galloc_json_array_at(v, i));
            }
            break;
        }
        case JSON_TYPE_OBJECT: {
            const size_t n = galloc_json_object_size(v);
            fnv(h, &n, sizeof(n));
            for (size_t i = 0; i < n; i++) {
                size_t len = 0;
                const char * key = galloc_json_object_key_at(v, i, &len);
                fnv(h, &len, sizeof(len));
                fnv(h, key, len);
                digest_value(h, galloc_json_object_value_at(v, i));
            }
            break;
        }
        default: {
            char text[128];
            galloc_json_describe(v, text, sizeof(text));
            fnv(h, text, strlen(text) + 1);
        }
    }
}

bool model_graph_digest(const char * doc, size_t len, uint64_t * digest, size_t * n_tensors, size_t * n_nodes) {
    static const char * const fields[] = {
        "name", "op", "unary_op", "glu_op", "type", "nb", "src", "view_src", "view_offs", "flags", "alloc_size", "buffer_type",
    };
    static const char * const lists[] = { "buffer_types", "nodes", "leafs", "node_buffer_ids", "leaf_buffer_ids" };
    struct galloc_error jerr;
    struct galloc_json_doc * d = galloc_json_parse(doc, len, &jerr);
    if (!d) {
        return false;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    const struct galloc_json_value * root = galloc_json_doc_root(d);
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        digest_value(&h, galloc_json_object_get(root, lists[l]));
    }
    const struct galloc_json_value * tensors = galloc_json_object_get(root, "tensors");
    *n_tensors = galloc_json_array_size(tensors);
    *n_nodes   = galloc_json_array_size(galloc_json_object_get(root, "nodes"));
    fnv(&h, n_tensors, sizeof(*n_tensors));
    for (size_t i = 0; i < *n_tensors; i++) {
        const struct galloc_json_value * t = galloc_json_array_at(tensors, i);
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
            digest_value(&h, galloc_json_object_get(t, fields[f]));
        }
        uint64_t ne[4];
        const size_t dims = ne_dims(galloc_json_object_get(t, "ne"), ne);
        fnv(&h, &dims, sizeof(dims));
        fnv(&h, ne, sizeof(ne));
    }
    galloc_json_doc_free(d);
    *digest = h;
    return true;
}

// plan equality as the format defines it: chunk sizes, and every tensor's buffer, chunk, offset.
// A placement ggml made in a real run (`.ggml-plan.json`) also lists the buffer type the weights were
// loaded into, which the allocator never used: with extra_empty, reference buffers past the built
// plan's must be empty.
bool model_same_plan(const char * row, const char * built, size_t built_len, const char * ref, size_t ref_len, bool extra_empty) {
    struct galloc_error jerr;
    struct galloc_json_doc * a = galloc_json_parse(built, built_len, &jerr);
    struct galloc_json_doc * b = a ? galloc_json_parse(ref, ref_len, &jerr) : NULL;
    const char * err = jerr.message;
    bool ok = a && b;
    if (ok) {
        const struct galloc_json_value * ba = galloc_json_object_get(galloc_json_doc_root(a), "buffers");
        const struct galloc_json_value * bb = galloc_json_object_get(galloc_json_doc_root(b), "buffers");
        ok = extra_empty ? galloc_json_array_size(ba) <= galloc_json_array_size(bb) : galloc_json_array_size(ba) == galloc_json_array_size(bb);
        for (size_t i = 0; ok && i < galloc_json_array_size(ba); i++) {
            ok = same_value(galloc_json_object_get(galloc_json_array_at(ba, i), "chunk_sizes"), galloc_json_object_get(galloc_json_array_at(bb, i), "chunk_sizes"));
        }
        for (size_t i = galloc_json_array_size(ba); ok && i < galloc_json_array_size(bb); i++) {
            ok = galloc_json_array_size(galloc_json_object_get(galloc_json_array_at(bb, i), "chunk_sizes")) == 0;
        }
        if (!ok) {
            report(row, "plan: chunk sizes differ");
        }
        const struct galloc_json_value * ta = galloc_json_object_get(galloc_json_doc_root(a), "tensors");
        const struct galloc_json_value * tb = galloc_json_object_get(galloc_json_doc_root(b), "tensors");
        if (galloc_json_array_size(ta) != galloc_json_array_size(tb)) {
            report(row, "plan: tensor counts differ");
            ok = false;
        }
        for (size_t i = 0; i < galloc_json_array_size(ta) && i < galloc_json_array_size(tb); i++) {
            const struct galloc_json_value * x = galloc_json_array_at(ta, i), * y = galloc_json_array_at(tb, i);
            static const char * const keys[] = { "buffer", "chunk", "offset" };
            bool same = (galloc_json_type_of(x) == JSON_TYPE_NULL) == (galloc_json_type_of(y) == JSON_TYPE_NULL);
            for (size_t k = 0; same && galloc_json_type_of(x) != JSON_TYPE_NULL && k < 3; k++) {
                same = same_value(galloc_json_object_get(x, keys[k]), galloc_json_object_get(y, keys[k]));
            }
            if (!same) {
                report(row, "plan: tensors[%zu] placed differently", i);
                ok = false;
            }
        }
    } else {
        report(row, "unreadable plan: %s", err);
    }
    galloc_json_doc_free(a);
    galloc_json_doc_free(b);
    return ok;
}
