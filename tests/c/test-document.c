// test-document.c: tests of the JSON reader/writer and of graph and plan documents.
//
// JSON cases (escapes, UTF-8, exact integers, depth, duplicates, layout), a table
// of bad graph documents with the exact error each must give, round trips of
// every golden graph, graphs built from "outputs", and plans of the golden graphs
// compared with upstream's. Run from the repository root (reads tests/golden).

#include "galloc-document.h"
#include "galloc-planner.h"
#include "files.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_cases    = 0; // cases run
static int g_failures = 0; // failed checks

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            g_failures++;                                                 \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
        }                                                                 \
    } while (0)

//
// helpers
//

// parse text; NULL and the message in err on failure
static struct galloc_json_doc * parse(const char * text, struct galloc_error * err) {
    return galloc_json_parse(text, strlen(text), err);
}

static void check_parse_error(const char * text, size_t len, const char * expected) {
    g_cases++;
    struct galloc_error err;
    struct galloc_json_doc * doc = galloc_json_parse(text, len, &err);
    CHECK(doc == NULL, "parsed: %.60s", text);
    CHECK(doc != NULL || strcmp(err.message, expected) == 0, "error \"%s\", expected \"%s\"", err.message, expected);
    galloc_json_doc_free(doc);
}

static void check_parse_ok(const char * text) {
    g_cases++;
    struct galloc_error err;
    struct galloc_json_doc * doc = parse(text, &err);
    CHECK(doc != NULL, "%.60s: %s", text, err.message);
    galloc_json_doc_free(doc);
}

// the decoded string of a document that is one JSON string
static void check_string(const char * text, const char * expected, size_t expected_len) {
    g_cases++;
    struct galloc_error err;
    struct galloc_json_doc * doc = parse(text, &err);
    CHECK(doc != NULL, "%s: %s", text, err.message);
    if (doc != NULL) {
        size_t       len = 0;
        const char * s   = galloc_json_get_string(galloc_json_doc_root(doc), &len);
        CHECK(s != NULL && len == expected_len && memcmp(s, expected, len) == 0 && s[len] == '\0', "%s decoded wrong", text);
    }
    galloc_json_doc_free(doc);
}

static void check_u64(const char * text, enum galloc_json_int_status status, uint64_t expected) {
    g_cases++;
    struct galloc_error err;
    struct galloc_json_doc * doc = parse(text, &err);
    CHECK(doc != NULL, "%s: %s", text, err.message);
    if (doc != NULL) {
        uint64_t             v  = 12345;
        enum galloc_json_int_status st = galloc_json_get_u64(galloc_json_doc_root(doc), &v);
        CHECK(st == status, "%s: status %d, expected %d", text, (int) st, (int) status);
        CHECK(st != JSON_INT_OK || v == expected, "%s: %llu", text, (unsigned long long) v);
        CHECK(st == JSON_INT_OK || v == 12345, "%s: output touched on failure", text);
    }
    galloc_json_doc_free(doc);
}

static void check_i64(const char * text, enum galloc_json_int_status status, int64_t expected) {
    g_cases++;
    struct galloc_error err;
    struct galloc_json_doc * doc = parse(text, &err);
    CHECK(doc != NULL, "%s: %s", text, err.message);
    if (doc != NULL) {
        int64_t              v  = 0;
        enum galloc_json_int_status st = galloc_json_get_i64(galloc_json_doc_root(doc), &v);
        CHECK(st == status, "%s: status %d, expected %d", text, (int) st, (int) status);
        CHECK(st != JSON_INT_OK || v == expected, "%s: %lld", text, (long long) v);
    }
    galloc_json_doc_free(doc);
}

static char * repeat(const char * a, int n, const char * b, int m) {
    size_t la = strlen(a), lb = strlen(b);
    char * s  = malloc(la * (size_t) n + lb * (size_t) m + 1);
    size_t k  = 0;
    for (int i = 0; i < n; i++, k += la) {
        memcpy(s + k, a, la);
    }
    for (int i = 0; i < m; i++, k += lb) {
        memcpy(s + k, b, lb);
    }
    s[k] = '\0';
    return s;
}

// text of a writer run; "(null)" when it failed
static void check_writer(struct galloc_json_writer * w, const char * expected) {
    g_cases++;
    size_t len  = 0;
    char * text = galloc_json_writer_finish(w, &len);
    if (expected == NULL) {
        CHECK(text == NULL, "writer should have failed, wrote %s", text);
    } else {
        CHECK(text != NULL && strcmp(text, expected) == 0 && len == strlen(expected), "wrote\n%s\nexpected\n%s", text ? text : "(null)",
              expected);
    }
    free(text);
}

//
// documents
//

static bool doc_read(const char * text, struct galloc_document * doc, struct galloc_error * err) {
    return galloc_document_read(text, strlen(text), doc, err);
}

static const char * const GOOD_DOC =
    "{ \"tensors\": [ { \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"] },"
    "                { \"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [4], \"src\": [0] } ],"
    "  \"nodes\": [1], \"leafs\": [0] }";

// what a bad document's row expects: its message whole or only its start, and the status
enum bad_expect {
    EXACT  = 0,     // the whole message; GALLOC_STATUS_INVALID
    PREFIX = 1 << 0, // the message starts with the expected text
    LIMIT  = 1 << 1, // GALLOC_STATUS_LIMIT: a limit of the reader, not a broken rule
};

// the bad document must fail with exactly `expected` (or, with PREFIX, a message starting with it)
// and the status the row gives; a good document must still read right after it
static void check_bad_document(const char * text, const char * expected, unsigned how) {
    bool               prefix = (how & PREFIX) != 0;
    enum galloc_status status = (how & LIMIT) ? GALLOC_STATUS_LIMIT : GALLOC_STATUS_INVALID;
    g_cases++;
    struct galloc_document doc;
    struct galloc_error err;
    bool                   ok = doc_read(text, &doc, &err);
    CHECK(!ok, "accepted: %s", text);
    if (!ok) {
        bool match = prefix ? strncmp(err.message, expected, strlen(expected)) == 0 : strcmp(err.message, expected) == 0;
        CHECK(err.status == status, "status %s, expected %s, for \"%s\"", galloc_status_name(err.status), galloc_status_name(status), err.message);
        CHECK(match, "error\n    \"%s\"\nexpected%s\n    \"%s\"\nfor %s", err.message, prefix ? " prefix" : "", expected, text);
        CHECK(strchr(err.message, '\n') == NULL, "multi-line error: %s", err.message);
        CHECK(doc.tensors == NULL && doc.n_tensors == 0 && doc.name == NULL, "failed doc not zeroed");
    }
    galloc_document_free(&doc); // zeroed: must be harmless
    ok = doc_read(GOOD_DOC, &doc, &err);
    CHECK(ok, "good document after a bad one: %s", err.message);
    galloc_document_free(&doc);
}

static bool tensors_equal(const struct galloc_tensor * a, const struct galloc_tensor * b) {
    if (a->type != b->type || a->op != b->op || a->flags != b->flags || a->view_src != b->view_src ||
        a->view_offs != b->view_offs || a->nbytes != b->nbytes || a->alloc_size != b->alloc_size || a->external != b->external) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] != b->ne[d] || a->nb[d] != b->nb[d]) {
            return false;
        }
    }
    for (int s = 0; s < GGML_MAX_SRC; s++) {
        if (a->src[s] != b->src[s]) {
            return false;
        }
    }
    return true;
}

static bool ids_equal(const int32_t * a, const int32_t * b, int32_t n) {
    if ((a == NULL) != (b == NULL)) {
        return false;
    }
    return a == NULL || n == 0 || memcmp(a, b, (size_t) n * sizeof(int32_t)) == 0;
}

// equal documents; a message naming the first difference in what
static bool documents_equal(const struct galloc_document * a, const struct galloc_document * b, const char ** what) {
    *what = "name";
    if (strcmp(a->name, b->name) != 0) { return false; }
    *what = "buffer types";
    if (a->n_buffer_types != b->n_buffer_types) { return false; }
    for (int32_t i = 0; i < a->n_buffer_types; i++) {
        if (strcmp(a->buffer_type_names[i], b->buffer_type_names[i]) != 0 ||
            a->buffer_types[i].alignment != b->buffer_types[i].alignment ||
            a->buffer_types[i].max_size != b->buffer_types[i].max_size ||
            a->buffer_types[i].allocator != b->buffer_types[i].allocator) {
            return false;
        }
    }
    *what = "tensors";
    if (a->n_tensors != b->n_tensors) { return false; }
    for (int32_t i = 0; i < a->n_tensors; i++) {
        if (!tensors_equal(&a->tensors[i], &b->tensors[i]) || strcmp(a->tensor_names[i], b->tensor_names[i]) != 0 ||
            a->tensor_buffer_type[i] != b->tensor_buffer_type[i]) {
            return false;
        }
    }
    *what = "nodes";
    if (a->n_nodes != b->n_nodes || !ids_equal(a->nodes, b->nodes, a->n_nodes)) { return false; }
    *what = "leafs";
    if (a->n_leafs != b->n_leafs || !ids_equal(a->leafs, b->leafs, a->n_leafs)) { return false; }
    *what = "buffer ids";
    if (!ids_equal(a->node_buffer_ids, b->node_buffer_ids, a->n_nodes) ||
        !ids_equal(a->leaf_buffer_ids, b->leaf_buffer_ids, a->n_leafs)) {
        return false;
    }
    return true;
}

// read -> write_graph -> read gives an equal document (and, for golden files, the same text)
static void check_round_trip(const char * label, const char * text, size_t len, bool same_text) {
    g_cases++;
    struct galloc_document a, b;
    struct galloc_error err;
    if (!galloc_document_read(text, len, &a, &err)) {
        CHECK(false, "%s: %s", label, err.message);
        return;
    }
    size_t out_len = 0;
    char * out     = galloc_document_write_graph(&a, &out_len);
    CHECK(out != NULL && strlen(out) == out_len, "%s: write_graph failed", label);
    if (out != NULL) {
        bool ok = galloc_document_read(out, out_len, &b, &err);
        CHECK(ok, "%s: written graph does not read back: %s", label, err.message);
        if (ok) {
            const char * what = "";
            CHECK(documents_equal(&a, &b, &what), "%s: round trip changed the %s", label, what);
            galloc_document_free(&b);
        }
        CHECK(!same_text || (out_len == len && memcmp(out, text, len) == 0), "%s: written text differs from the file", label);
    }
    free(out);
    galloc_document_free(&a);
}

// the golden graph with "outputs" (nodes nobody consumes, in order) instead of nodes/leafs must
// build the same nodes and leafs, as ggml_build_forward_expand would
static void check_build_from_outputs(const char * name, const char * text, size_t len) {
    g_cases++;
    struct galloc_document golden, built;
    struct galloc_error err;
    if (!galloc_document_read(text, len, &golden, &err)) {
        CHECK(false, "%s: %s", name, err.message);
        return;
    }
    struct galloc_json_doc * parsed   = galloc_json_parse(text, len, &err);
    uint8_t *         consumed = calloc((size_t) golden.n_tensors + 1, 1);
    for (int32_t k = 0; k < golden.n_nodes; k++) {
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            int32_t src = golden.tensors[golden.nodes[k]].src[s];
            if (src >= 0) {
                consumed[src] = 1;
            }
        }
    }
    // copy every member but nodes and leafs, then add outputs
    struct galloc_json_writer        w;
    const struct galloc_json_value * root = galloc_json_doc_root(parsed);
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    for (size_t m = 0; m < galloc_json_object_size(root); m++) {
        const char * key = galloc_json_object_key_at(root, m, NULL);
        if (strcmp(key, "nodes") == 0 || strcmp(key, "leafs") == 0) {
            continue;
        }
        galloc_json_write_key(&w, key);
        galloc_json_write_value(&w, galloc_json_object_value_at(root, m));
    }
    galloc_json_write_key(&w, "outputs");
    galloc_json_write_begin_array(&w);
    for (int32_t k = 0; k < golden.n_nodes; k++) {
        if (!consumed[golden.nodes[k]]) {
            galloc_json_write_i64(&w, golden.nodes[k]);
        }
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_end_object(&w);
    size_t out_len = 0;
    char * out     = galloc_json_writer_finish(&w, &out_len);
    CHECK(out != NULL, "%s: writer failed", name);
    if (out != NULL && galloc_document_read(out, out_len, &built, &err)) {
        const char * what = "";
        CHECK(built.graph_from_outputs, "%s: not marked as built", name);
        CHECK(documents_equal(&golden, &built, &what), "%s: built graph differs in the %s", name, what);
        galloc_document_free(&built);
    } else {
        CHECK(false, "%s: outputs document: %s", name, err.message);
    }
    free(out);
    free(consumed);
    galloc_json_doc_free(parsed);
    galloc_document_free(&golden);
}

static bool galloc_json_u64_at(const struct galloc_json_value * obj, const char * key, uint64_t * out) {
    return galloc_json_get_u64(galloc_json_object_get(obj, key), out) == JSON_INT_OK;
}

// plan the golden graph and compare chunk sizes and every tensor's buffer/chunk/offset with upstream's plan
static void check_golden_plan(const char * name, const char * graph_text, size_t graph_len) {
    g_cases++;
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_error err;
    size_t                 plan_len = 0;
    char *                 golden_text = golden_read(name, "plan", &plan_len);
    CHECK(golden_text != NULL, "%s: no golden plan", name);
    if (golden_text == NULL || !galloc_document_read(graph_text, graph_len, &doc, &err)) {
        CHECK(golden_text == NULL, "%s: %s", name, err.message);
        free(golden_text);
        return;
    }
    if (!galloc_plan_graph(&doc.graph, &plan, &err)) {
        CHECK(false, "%s: planner: %s", name, err.message);
        galloc_document_free(&doc);
        free(golden_text);
        return;
    }
    size_t            ours_len = 0;
    char *            ours_text = galloc_document_write_plan(&doc, &plan, &ours_len);
    struct galloc_json_doc * ours      = ours_text != NULL ? galloc_json_parse(ours_text, ours_len, &err) : NULL;
    CHECK(ours != NULL, "%s: our plan document does not parse: %s", name, ours_text ? err.message : "not written");
    struct galloc_json_doc * golden = galloc_json_parse(golden_text, plan_len, &err);
    CHECK(golden != NULL, "%s: golden plan: %s", name, err.message);
    if (ours != NULL && golden != NULL) {
        const struct galloc_json_value * ob = galloc_json_object_get(galloc_json_doc_root(ours), "buffers");
        const struct galloc_json_value * gb = galloc_json_object_get(galloc_json_doc_root(golden), "buffers");
        CHECK(galloc_json_array_size(ob) == galloc_json_array_size(gb), "%s: %zu buffers, golden %zu", name, galloc_json_array_size(ob), galloc_json_array_size(gb));
        for (size_t b = 0; b < galloc_json_array_size(gb) && b < galloc_json_array_size(ob); b++) {
            const struct galloc_json_value * oc = galloc_json_object_get(galloc_json_array_at(ob, b), "chunk_sizes");
            const struct galloc_json_value * gc = galloc_json_object_get(galloc_json_array_at(gb, b), "chunk_sizes");
            bool same = galloc_json_array_size(oc) == galloc_json_array_size(gc);
            for (size_t c = 0; same && c < galloc_json_array_size(gc); c++) {
                uint64_t x = 0, y = 1;
                same = galloc_json_get_u64(galloc_json_array_at(oc, c), &x) == JSON_INT_OK && galloc_json_get_u64(galloc_json_array_at(gc, c), &y) == JSON_INT_OK && x == y;
            }
            CHECK(same, "%s: buffers[%zu].chunk_sizes differ", name, b);
        }
        const struct galloc_json_value * ot = galloc_json_object_get(galloc_json_doc_root(ours), "tensors");
        const struct galloc_json_value * gt = galloc_json_object_get(galloc_json_doc_root(golden), "tensors");
        CHECK(galloc_json_array_size(ot) == galloc_json_array_size(gt), "%s: tensor counts differ", name);
        int reported = 0;
        for (size_t i = 0; i < galloc_json_array_size(gt) && i < galloc_json_array_size(ot) && reported < 5; i++) {
            const struct galloc_json_value * o = galloc_json_array_at(ot, i);
            const struct galloc_json_value * g = galloc_json_array_at(gt, i);
            bool same = galloc_json_type_of(o) == galloc_json_type_of(g);
            if (same && galloc_json_type_of(g) == JSON_TYPE_OBJECT) {
                static const char * const keys[] = { "buffer", "chunk", "offset" };
                for (int k = 0; k < 3 && same; k++) {
                    uint64_t x = 0, y = 1;
                    same = galloc_json_u64_at(o, keys[k], &x) && galloc_json_u64_at(g, keys[k], &y) && x == y;
                }
            }
            if (!same) {
                reported++;
            }
            CHECK(same, "%s: tensors[%zu] placed differently from the golden plan", name, i);
        }
    }
    galloc_json_doc_free(ours);
    galloc_json_doc_free(golden);
    free(ours_text);
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
    free(golden_text);
}

// a chain of n tensors given only by its last one: the graph is built without recursion
static void check_deep_outputs(int32_t n) {
    g_cases++;
    size_t cap  = (size_t) n * 64 + 256;
    char * text = malloc(cap);
    size_t k    = (size_t) snprintf(text, cap, "{\"tensors\":[\n{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[1]}");
    for (int32_t i = 1; i < n; i++) {
        k += (size_t) snprintf(text + k, cap - k, ",\n{\"op\":\"SQR\",\"type\":\"f32\",\"ne\":[1],\"src\":[%d]}", i - 1);
    }
    k += (size_t) snprintf(text + k, cap - k, "],\"outputs\":[%d]}", n - 1);
    struct galloc_document doc;
    struct galloc_error err;
    bool                   ok = galloc_document_read(text, k, &doc, &err);
    CHECK(ok, "deep chain of %d: %s", n, err.message);
    if (ok) {
        CHECK(doc.n_nodes == n - 1 && doc.n_leafs == 1, "deep chain: %d nodes, %d leafs", doc.n_nodes, doc.n_leafs);
        bool in_order = true;
        for (int32_t i = 0; i < doc.n_nodes; i++) {
            in_order = in_order && doc.nodes[i] == i + 1;
        }
        CHECK(in_order, "deep chain: nodes out of order");
        CHECK(strcmp(doc.tensor_names[0], "leaf_0") == 0, "deep chain: first name %s", doc.tensor_names[0]);
        char expected[32];
        snprintf(expected, sizeof(expected), "node_%d", n - 2);
        CHECK(strcmp(doc.tensor_names[n - 1], expected) == 0, "deep chain: last name %s", doc.tensor_names[n - 1]);
        CHECK(doc.tensors[n - 1].flags == GGML_TENSOR_FLAG_COMPUTE && doc.tensors[0].flags == 0, "deep chain: flags");
        galloc_document_free(&doc);
    }
    free(text);
}

//
// the bad documents
//

struct bad_document {
    const char * text;     // the document
    const char * expected; // its error message
    unsigned     how;      // enum bad_expect: EXACT, PREFIX, LIMIT
};

#define T0 "{ \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4] }"                      // 16-byte leaf
#define T1 "{ \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0] }"   // node on tensor 0
#define GRAPH01 "\"nodes\": [1], \"leafs\": [0]"

static const struct bad_document BAD_DOCUMENTS[] = {
    // JSON itself
    { "{\"tensors\": [}", "line 1, column 14: expected a value, got '}'", EXACT },
    { "{\"tensors\": []} x", "line 1, column 17: unexpected data after the document", EXACT },
    { "{\n  \"tensors\": [],\n  \"tensors\": []\n}", "line 3, column 3: duplicate key \"tensors\"", EXACT },
    { "{\"name\": \"a\xC3\"}", "line 1, column 12: invalid UTF-8 in a string (byte 0xC3)", EXACT },
    { "", "line 1, column 1: unexpected end of input, expected a value", EXACT },
    // top level
    { "[]", "document: expected an object, got an array", EXACT },
    { "{}", "document: missing \"tensors\"", EXACT },
    { "{\"tensors\": {}}", "tensors: expected an array, got an object", EXACT },
    { "{\"format\": \"galloc-plan\", \"tensors\": []}", "format: \"galloc-plan\", expected \"galloc-graph\"", EXACT },
    { "{\"format\": 1, \"tensors\": []}", "format: expected a string, got a number", EXACT },
    { "{\"version\": 2, \"tensors\": []}", "version: version 2 is not supported (only 1)", EXACT },
    { "{\"version\": 1.5, \"tensors\": []}", "version: 1.5 is not an integer", EXACT },
    { "{\"name\": 7, \"tensors\": []}", "name: expected a string, got a number", EXACT },
    { "{\"name\": \"a\\u0000b\", \"tensors\": []}", "name: contains a NUL character", EXACT },
    // buffer types
    { "{\"buffer_types\": [], \"tensors\": []}", "buffer_types: empty (at least one buffer type is needed)", EXACT },
    { "{\"buffer_types\": {}, \"tensors\": []}", "buffer_types: expected an array, got an object", EXACT },
    { "{\"buffer_types\": [3], \"tensors\": []}", "buffer_types[0]: expected an object, got a number", EXACT },
    { "{\"buffer_types\": [{\"alignment\": 8}], \"tensors\": []}", "buffer_types[0]: missing \"name\"", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\"}], \"tensors\": []}", "buffer_types[0]: missing \"alignment\"", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 24}], \"tensors\": []}",
      "buffer_types[0].alignment: 24 is not a power of two", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 0}], \"tensors\": []}",
      "buffer_types[0].alignment: 0 is not a power of two", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 2147483648}], \"tensors\": []}",
      "buffer_types[0].alignment: 2147483648 is over the limit of 1073741824 (2^30)", LIMIT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": -8}], \"tensors\": []}",
      "buffer_types[0].alignment: -8 is negative", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 18446744073709551616}], \"tensors\": []}",
      "buffer_types[0].alignment: 18446744073709551616 is past 2^64 - 1", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": \"18446744073709551616\"}], \"tensors\": []}",
      "buffer_types[0].alignment: \"18446744073709551616\" is past 2^64 - 1", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 8, \"max_size\": \"lots\"}], \"tensors\": []}",
      "buffer_types[0].max_size: \"lots\" is not an integer", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 8}, {\"name\": \"a\", \"alignment\": 16}], \"tensors\": []}",
      "buffer_types[1]: named \"a\" like buffer_types[0] (the same buffer type) but alignment 16 differs from 8", EXACT },
    { "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 8}, {\"name\": \"a\", \"alignment\": 8, \"max_size\": 64}], \"tensors\": []}",
      "buffer_types[1]: named \"a\" like buffer_types[0] (the same buffer type) but max_size differs", EXACT },
    { "{\"buffer_types\": [{\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\", \"alignment\": 8}], \"tensors\": []}",
      "buffer_types[0].name: 64 bytes, longer than 63", LIMIT },
    // one tensor
    { "{\"tensors\": [3]}", "tensors[0]: expected an object, got a number", EXACT },
    { "{\"tensors\": [{\"type\": \"f32\", \"ne\": [1]}]}", "tensors[0]: missing \"op\"", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"ne\": [1]}]}", "tensors[0]: missing \"type\"", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\"}]}", "tensors[0]: missing \"ne\"", EXACT },
    { "{\"tensors\": [{\"op\": \"FOO BAR\", \"type\": \"f32\", \"ne\": [1]}]}",
      "tensors[0].op: unknown op \"FOO BAR\" (a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_')", EXACT },
    { "{\"tensors\": [{\"op\": \"\", \"type\": \"f32\", \"ne\": [1]}]}",
      "tensors[0].op: unknown op \"\" (a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_')", EXACT },
    { "{\"tensors\": [{\"op\": 2, \"type\": \"f32\", \"ne\": [1]}]}", "tensors[0].op: expected a string, got a number", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"q4_2\", \"ne\": [1]}]}", "tensors[0].type: unknown type \"q4_2\": its block size and bytes per block must be given in \"type_traits\"", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"F32\", \"ne\": [1]}]}", "tensors[0].type: unknown type \"F32\": its block size and bytes per block must be given in \"type_traits\"", EXACT },
    { "{\"type_traits\": [{\"name\": \"q4_0\", \"blck_size\": 32, \"type_size\": 20}], \"tensors\": []}",
      "type_traits[0].name: type q4_0 has 32 elements in 18 bytes per block in ggml, not 32 in 20", EXACT },
    { "{\"type_traits\": [{\"name\": \"nvfp5\", \"blck_size\": 0, \"type_size\": 20}], \"tensors\": []}",
      "type_traits[0].blck_size: 0 elements per block, expected 1 to 1024", EXACT },
    { "{\"type_traits\": [{\"name\": \"nvfp5\", \"blck_size\": 64, \"type_size\": 100000}], \"tensors\": []}",
      "type_traits[0].type_size: 100000 bytes per block, expected 1 to 65536", EXACT },
    { "{\"type_traits\": [{\"name\": \"nvfp5\", \"blck_size\": 64}], \"tensors\": []}",
      "type_traits[0]: missing \"type_size\"", EXACT },
    { "{\"type_traits\": [{\"name\": \"nv-fp5\", \"blck_size\": 64, \"type_size\": 36}], \"tensors\": []}",
      "type_traits[0].name: unknown type \"nv-fp5\" (a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_')", EXACT },
    { "{\"type_traits\": [{\"name\": \"x9\", \"blck_size\": 64, \"type_size\": 36}, {\"name\": \"x9\", \"blck_size\": 64, \"type_size\": 36}], \"tensors\": []}",
      "type_traits[1].name: type x9 is described twice", EXACT },
    { "{\"type_traits\": [{\"name\": \"x9\", \"blck_size\": 64, \"type_size\": 36}], \"tensors\": [{\"op\": \"NONE\", \"type\": \"x9\", \"ne\": [32]}]}",
      "tensors[0].ne[0]: 32 is not a multiple of the block size 64 of x9", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [16, 32]}]}",
      "tensors[0].alloc_sizes: 2 entries for 1 buffer types", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [8]}]}",
      "tensors[0].alloc_sizes[0]: 8 is less than the tensor's 16 bytes (ggml_nbytes)", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [\"x\"]}]}",
      "tensors[0].alloc_sizes[0]: \"x\" is not an integer", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": 16}]}",
      "tensors[0].alloc_sizes: expected an array, got a number", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 16, \"alloc_sizes\": [16]}]}",
      "tensors[0].alloc_sizes: given with \"alloc_size\" (one or the other)", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [1099511627777]}]}",
      "tensors[0].alloc_sizes[0]: 1099511627777 is over the limit of one tensor, 1099511627776 bytes (2^40)", LIMIT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": 4}]}", "tensors[0].ne: expected an array, got a number", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": []}]}", "tensors[0].ne: 0 numbers, expected 1 to 4", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1, 1, 1, 1, 1]}]}", "tensors[0].ne: 5 numbers, expected 1 to 4", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [-4]}]}", "tensors[0].ne[0]: -4 elements, must be 0 or more", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1.5]}]}", "tensors[0].ne[0]: 1.5 is not an integer", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1e3]}]}", "tensors[0].ne[0]: 1e3 is not an integer", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [9223372036854775808]}]}",
      "tensors[0].ne[0]: 9223372036854775808 is out of the 64-bit integer range", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4611686018427387904, 4]}]}",
      "tensors[0].ne: the element count overflows 64 bits", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1073741824, 1024]}]}",
      "tensors[0]: byte size 4398046511104 is over the limit of one tensor, 1099511627776 bytes (2^40)", LIMIT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f64\", \"ne\": [2147483648, 2147483648]}]}",
      "tensors[0]: byte size overflows 64 bits (the limit of one tensor is 1099511627776 bytes, 2^40)", LIMIT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"q4_0\", \"ne\": [33]}]}",
      "tensors[0].ne[0]: 33 is not a multiple of the block size 32 of q4_0", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1, 8], \"nb\": [4, 4611686018427387904, 32, 32]}]}",
      "tensors[0].nb: byte size overflows 64 bits (the limit of one tensor is 1099511627776 bytes, 2^40)", LIMIT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1, 8], \"nb\": [4, 4, 32]}]}",
      "tensors[0].nb: 3 numbers, expected 4", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 8}]}",
      "tensors[0].alloc_size: 8 is less than the tensor's 16 bytes (ggml_nbytes)", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 1099511627777}]}",
      "tensors[0].alloc_size: 1099511627777 is over the limit of one tensor, 1099511627776 bytes (2^40)", LIMIT },
    { "{\"tensors\": [{\"name\": \"0123456789012345678901234567890123456789012345678901234567890123\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].name: 64 bytes, longer than 63", LIMIT },
    { "{\"tensors\": [{\"name\": [], \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].name: expected a string, got an array", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\", \"weight\"]}]}",
      "tensors[0].flags[1]: unknown flag \"weight\" (known: input, output, param, loss, compute)", EXACT },
    { "{\"tensors\": [{\"op\": \"ADD\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].unary_op: only UNARY tensors have one (this one is ADD)", EXACT },
    { "{\"tensors\": [{\"op\": \"UNARY\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].glu_op: only GLU tensors have one (this one is UNARY)", EXACT },
    { "{\"tensors\": [{\"op\": \"UNARY\", \"unary_op\": \"si lu\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].unary_op: unknown unary_op \"si lu\" (a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_')", EXACT },
    { "{\"tensors\": [{\"op\": \"FANCY\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].unary_op: only UNARY tensors have one (this one is FANCY)", EXACT },
    { "{\"tensors\": [{\"op\": \"GLU\", \"glu_op\": 3, \"type\": \"f32\", \"ne\": [4]}]}",
      "tensors[0].glu_op: expected a string, got a number", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": \"input\"}]}",
      "tensors[0].flags: expected an array, got a string", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [1]}]}",
      "tensors[0].flags[0]: expected a string, got a number", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"buffer_types\": [{\"name\": \"a\", \"alignment\": 8}], \"x\": 0, \"tensors2\": 0, " GRAPH01 ","
      " \"node_buffer_ids\": [1]}", "node_buffer_ids[0]: index 1 out of range (1 buffer types)", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 1}]}",
      "tensors[0].buffer_type: index 1 out of range (1 buffer types)", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": \"x\"}]}",
      "tensors[0].buffer_type: \"x\" is not an integer", EXACT },
    // links between tensors
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 40]}], " GRAPH01 "}",
      "tensors[1].src[1]: index 40 out of range (2 tensors)", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [-1]}], " GRAPH01 "}",
      "tensors[1].src[0]: index -1 out of range (2 tensors)", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [null, 1]}], " GRAPH01 "}",
      "tensors[1].src[1]: the tensor itself", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0,0,0,0,0,0,0,0,0,0,0]}], " GRAPH01 "}",
      "tensors[1].src: 11 sources, more than 10 (GGML_MAX_SRC)", LIMIT },
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": 0}], " GRAPH01 "}",
      "tensors[1].src: expected an array, got a number", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"src\": [0], \"view_src\": 2}], " GRAPH01 "}",
      "tensors[1].view_src: index 2 out of range (2 tensors)", EXACT },
    // a view of a tensor in no list and not allocated outside: its memory is nowhere
    { "{\"tensors\": [" T0 ", " T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"src\": [0], \"view_src\": 1}], \"nodes\": [2], \"leafs\": [0]}",
      "nodes[0]: tensors[2].view_src = 1 is neither a node, a leaf, nor external (tensors missing)", EXACT },
    // strings with NUL are refused, not read up to the NUL
    { "{\"format\": \"galloc-graph\\u0000zzz\", \"tensors\": []}", "format: contains a NUL character", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"ADD\\u0000XYZ\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0]}], " GRAPH01 "}",
      "tensors[1].op: contains a NUL character", EXACT },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\\u0000\", \"ne\": [4]}, " T1 "], " GRAPH01 "}",
      "tensors[0].type: contains a NUL character", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"UNARY\", \"unary_op\": \"SILU\\u0000x\", \"type\": \"f32\", \"ne\": [4], \"src\": [0]}], " GRAPH01 "}",
      "tensors[1].unary_op: contains a NUL character", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"src\": [0], \"view_src\": 1}], " GRAPH01 "}",
      "tensors[1].view_src: the tensor itself", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"src\": [0], \"view_offs\": 4}], " GRAPH01 "}",
      "tensors[1].view_offs: given without view_src", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"src\": [0], \"view_src\": 0, \"view_offs\": 12}], " GRAPH01 "}",
      "tensors[1]: the view's bytes [12, 12 + 8) reach past the 16 bytes of its view_src 0", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"src\": [0], \"view_src\": 0, \"view_offs\": 18446744073709551615}], " GRAPH01 "}",
      "tensors[1]: the view's bytes [18446744073709551615, 18446744073709551615 + 8) reach past the 16 bytes of its view_src 0", EXACT },
    { "{\"tensors\": [" T0 ", {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"src\": [0], \"view_src\": 0},"
      " {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [1], \"src\": [1], \"view_src\": 1}], \"nodes\": [1, 2], \"leafs\": [0]}",
      "tensors[2].view_src: tensor 1 is itself a view (of tensor 0): view_src must name the root", EXACT },
    // views of later tensors
    { "{\"tensors\": [{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [8], \"view_src\": 1}, {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}],"
      " \"nodes\": [0], \"leafs\": [1]}",
      "tensors[0]: the view's bytes [0, 0 + 32) reach past the 16 bytes of its view_src 1", EXACT },
    { "{\"tensors\": [{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [1], \"view_src\": 1}, {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"view_src\": 2},"
      " {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}], \"nodes\": [0, 1], \"leafs\": [2]}",
      "tensors[0].view_src: tensor 1 is itself a view (of tensor 2): view_src must name the root", EXACT },
    { "{\"tensors\": [{\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [1]}, {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0]}],"
      " \"nodes\": [0, 1], \"leafs\": []}",
      "tensors[1].src[0]: 0 closes a cycle (tensor 0 already depends on tensor 1)", EXACT },
    { "{\"tensors\": [{\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [1]}, {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 0}],"
      " \"outputs\": [0]}",
      "tensors[1].view_src: 0 closes a cycle (tensor 0 already depends on tensor 1)", EXACT },
    { "{\"tensors\": [{\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [2]}, " T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [1, 0]}],"
      " \"outputs\": [2]}",
      "tensors[2].src[1]: 0 closes a cycle (tensor 0 already depends on tensor 2)", EXACT },
    // the graph
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [1]}", "nodes: given without \"leafs\" (both or neither)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"leafs\": [0]}", "leafs: given without \"nodes\" (both or neither)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "]}", "document: needs \"nodes\" and \"leafs\", or \"outputs\"", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": {}, \"leafs\": []}", "nodes: expected an array, got an object", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [1, 1], \"leafs\": [0]}", "nodes[1]: tensor 1 is already nodes[0]", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [1], \"leafs\": [0, 0]}", "leafs[1]: tensor 0 is already leafs[0]", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [0, 1], \"leafs\": [0]}", "leafs[0]: tensor 0 is also nodes[0]", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [1], \"leafs\": [2]}", "leafs[0]: index 2 out of range (2 tensors)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"nodes\": [1], \"leafs\": []}",
      "nodes[0]: tensors[1].src[0] = 0 is neither a node, a leaf, nor external (tensors missing)", EXACT },
    // every source slot is checked (check_graph looks at slots 2 on only when one of them is given)
    { "{\"tensors\": [" T0 ", " T1 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}], \"nodes\": [2], \"leafs\": [0]}",
      "nodes[0]: tensors[2].src[1] = 1 is neither a node, a leaf, nor external (tensors missing)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, null, 1]}], \"nodes\": [2], \"leafs\": [0]}",
      "nodes[0]: tensors[2].src[2] = 1 is neither a node, a leaf, nor external (tensors missing)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, null, null, null, null, null, null, null, null, 1]}], \"nodes\": [2], \"leafs\": [0]}",
      "nodes[0]: tensors[2].src[9] = 1 is neither a node, a leaf, nor external (tensors missing)", EXACT },
    // a repeated leaf names the entry it repeats
    { "{\"tensors\": [" T0 ", " T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}], \"nodes\": [2], \"leafs\": [0, 1, 1]}",
      "leafs[2]: tensor 1 is already leafs[1]", EXACT },
    { "{\"tensors\": [" T0 ", " T0 ", " T1 "], \"nodes\": [2], \"leafs\": [1, 0, 1]}", "leafs[2]: tensor 1 is already leafs[0]", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], " GRAPH01 ", \"node_buffer_ids\": [0, 0]}", "node_buffer_ids: 2 entries for 1 nodes", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], " GRAPH01 ", \"leaf_buffer_ids\": []}", "leaf_buffer_ids: 0 entries for 1 leafs", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], " GRAPH01 ", \"leaf_buffer_ids\": [-1]}", "leaf_buffer_ids[0]: index -1 out of range (1 buffer types)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"outputs\": [2]}", "outputs[0]: index 2 out of range (2 tensors)", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"outputs\": 1}", "outputs: expected an array, got a number", EXACT },
    { "{\"tensors\": [" T0 ", " T1 "], \"outputs\": [1], \"node_buffer_ids\": [0, 0]}", "node_buffer_ids: 2 entries for 1 nodes", EXACT },
};

//
// the cases
//

// {"tensors": [0, 0, ..., 0]} with n zeros (8 MB at 4M): the reader counts the entries without
// keeping them, refuses tensors[0], and a syntax error anywhere wins over it (the heap it takes is
// bounded in the WASM module: tests/js's hostile documents)
static char * repeat_zeros(size_t n) {
    char * s = malloc(2 * n + 32);
    if (s == NULL) {
        return NULL;
    }
    size_t at = (size_t) sprintf(s, "{\"tensors\":[");
    for (size_t k = 0; k < n; k++) {
        s[at++] = '0';
        s[at++] = k + 1 < n ? ',' : ']';
    }
    s[at++] = '}';
    s[at]   = '\0';
    return s;
}

static void check_hostile_arrays(void) {
    g_cases++;
    struct galloc_document doc;
    struct galloc_error    err;
    char *                 text = repeat_zeros(4194304);
    CHECK(text != NULL, "out of memory");
    if (text != NULL) {
        CHECK(!galloc_document_read(text, strlen(text), &doc, &err) && strcmp(err.message, "tensors[0]: expected an object, got a number") == 0,
              "4,194,304 zeros: %s", err.message);
        text[strlen(text) - 2] = ','; // "0,}": now a syntax error at the end wins over tensors[0]
        CHECK(!galloc_document_read(text, strlen(text), &doc, &err) && strncmp(err.message, "line 1, column ", 15) == 0,
              "4,194,304 zeros, then a syntax error: %s", err.message);
    }
    free(text);
    text = repeat_zeros(4194305);
    if (text != NULL) {
        CHECK(!galloc_document_read(text, strlen(text), &doc, &err) && err.status == GALLOC_STATUS_LIMIT,
              "4,194,305 zeros: %s", err.message);
    }
    free(text);
}

// a document of n short entries: the tensors' arrays grow as they are read, each entry where it belongs
static void check_growing_arrays(void) {
    static const int counts[] = { 1, 2, 1023, 1024, 1025, 4097, 40000 };
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        g_cases++;
        int    n    = counts[c];
        size_t size = (size_t) n * 64 + 256, len = 0;
        char * text = malloc(size);
        CHECK(text != NULL, "out of memory");
        if (text == NULL) {
            return;
        }
        len += (size_t) snprintf(text + len, size - len, "{\"tensors\": [");
        for (int k = 0; k < n; k++) {
            len += (size_t) snprintf(text + len, size - len, "%s{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[%d]}", k > 0 ? "," : "", k + 1);
        }
        len += (size_t) snprintf(text + len, size - len, "], \"outputs\": [%d]}", n - 1);
        struct galloc_document doc;
        struct galloc_error    err;
        bool                   ok = galloc_document_read(text, len, &doc, &err);
        CHECK(ok && doc.n_tensors == n, "%d short entries: %s", n, err.message);
        for (int k = 0; ok && k < doc.n_tensors; k++) {
            if (doc.tensors[k].ne[0] != k + 1 || doc.tensors[k].nbytes != 4 * (uint64_t) (k + 1)) {
                CHECK(false, "%d short entries: tensors[%d] read wrong", n, k);
                break;
            }
        }
        galloc_document_free(&doc);
        free(text);
    }
}

int main(void) {
    struct galloc_error err;

    // --- JSON: syntax and positions
    check_parse_ok("{\"a\": [1, -2, 3.5e-1, true, false, null, \"x\", {}, []]}");
    check_parse_ok("  \r\n\t 0 \n");
    check_parse_ok("\xEF\xBB\xBF{}");
    check_parse_error("[1,]", 4, "line 1, column 4: expected a value, got ']'");
    check_parse_error("[1 2]", 5, "line 1, column 4: expected ',' or ']'");
    check_parse_error("{\n  \"a\": 1,\n  \"b\" 2\n}", 21, "line 3, column 7: expected ':'");
    check_parse_error("{\"a\": 1 \"b\": 2}", 15, "line 1, column 9: expected ',' or '}'");
    check_parse_error("{1: 2}", 6, "line 1, column 2: expected a string key or '}'");
    check_parse_error("{\"a\": 1,}", 9, "line 1, column 9: expected a string key");
    check_parse_error("[1] 2", 5, "line 1, column 5: unexpected data after the document");
    check_parse_error("[1]\n\n  x", 8, "line 3, column 3: unexpected data after the document");
    check_parse_error("", 0, "line 1, column 1: unexpected end of input, expected a value");
    check_parse_error("   \n ", 5, "line 2, column 2: unexpected end of input, expected a value");
    check_parse_error("[1, 2", 5, "line 1, column 6: unexpected end of input, expected ',' or ']'");
    check_parse_error("{\"a\"", 4, "line 1, column 5: unexpected end of input, expected ':'");
    check_parse_error("01", 2, "line 1, column 1: invalid number: leading zero");
    check_parse_error("-", 1, "line 1, column 1: invalid number: expected a digit");
    check_parse_error("[-x]", 4, "line 1, column 2: invalid number: expected a digit");
    check_parse_error("1.", 2, "line 1, column 1: invalid number: expected a digit after '.'");
    check_parse_error("1e+", 3, "line 1, column 1: invalid number: expected a digit in the exponent");
    check_parse_error("+1", 2, "line 1, column 1: expected a value, got '+'");
    check_parse_error("tru", 3, "line 1, column 1: invalid literal (expected true, false or null)");
    check_parse_error("nulL", 4, "line 1, column 1: invalid literal (expected true, false or null)");
    check_parse_error("[\"abc", 5, "line 1, column 2: unterminated string");
    check_parse_error("\"a\\\"", 4, "line 1, column 1: unterminated string");
    check_parse_error("\"a\tb\"", 5, "line 1, column 3: control character 0x09 in a string (must be escaped)");
    check_parse_error("\"\\x\"", 4, "line 1, column 2: invalid escape: backslash followed by 'x'");
    check_parse_error("\"\\u12\"", 6, "line 1, column 2: invalid \\u escape: expected 4 hex digits");
    check_parse_error("[\"a\" \x01]", 7, "line 1, column 6: expected ',' or ']'");
    check_parse_error("\x01", 1, "line 1, column 1: expected a value, got byte 0x01");
    check_parse_error("[1]\0", 4, "line 1, column 4: unexpected data after the document");

    // --- JSON: strings, escapes, surrogates, UTF-8
    check_string("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8);
    check_string("\"\\u00e9\\u20AC\"", "\xC3\xA9\xE2\x82\xAC", 5);
    check_string("\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80", 4);
    check_string("\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF", 4);
    check_string("\"a\\u0000b\"", "a\0b", 3);
    check_string("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\x7F\"", "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\x7F", 14);
    check_string("\"\"", "", 0);
    check_parse_error("\"\\uD800\"", 8, "line 1, column 2: invalid \\u escape: high surrogate \\uD800 not followed by a low surrogate");
    check_parse_error("\"\\uD800\\u0041\"", 14, "line 1, column 2: invalid \\u escape: high surrogate \\uD800 not followed by a low surrogate");
    check_parse_error("\"\\uD800\\n\"", 10, "line 1, column 2: invalid \\u escape: high surrogate \\uD800 not followed by a low surrogate");
    check_parse_error("\"x\\uDC00\"", 9, "line 1, column 3: invalid \\u escape: low surrogate \\uDC00 without a high surrogate before it");
    check_parse_error("\"\xC0\xAF\"", 4, "line 1, column 2: invalid UTF-8 in a string (byte 0xC0)");
    check_parse_error("\"\xE0\x80\xAF\"", 5, "line 1, column 2: invalid UTF-8 in a string (byte 0xE0)");
    check_parse_error("\"\xED\xA0\x80\"", 5, "line 1, column 2: invalid UTF-8 in a string (byte 0xED)");
    check_parse_error("\"\xF4\x90\x80\x80\"", 6, "line 1, column 2: invalid UTF-8 in a string (byte 0xF4)");
    check_parse_error("\"\xF5\x80\x80\x80\"", 6, "line 1, column 2: invalid UTF-8 in a string (byte 0xF5)");
    check_parse_error("\"ab\x80\"", 5, "line 1, column 4: invalid UTF-8 in a string (byte 0x80)");
    check_parse_error("\"\xE2\x82\"", 4, "line 1, column 2: invalid UTF-8 in a string (byte 0xE2)");
    check_parse_error("\"\xE2\x82", 3, "line 1, column 1: unterminated string");
    check_parse_error("\xC3\xA9", 2, "line 1, column 1: expected a value, got byte 0xC3");

    // --- JSON: exact integers
    check_u64("0", JSON_INT_OK, 0);
    check_u64("9007199254740993", JSON_INT_OK, 9007199254740993ULL);
    check_u64("18446744073709551615", JSON_INT_OK, UINT64_MAX);
    check_u64("18446744073709551616", JSON_INT_OVERFLOW, 0);
    check_u64("123456789012345678901234567890", JSON_INT_OVERFLOW, 0);
    check_u64("\"18446744073709551615\"", JSON_INT_OK, UINT64_MAX);
    check_u64("\"18446744073709551616\"", JSON_INT_OVERFLOW, 0);
    check_u64("\"42\"", JSON_INT_OK, 42);
    check_u64("\"042\"", JSON_INT_NOT_INTEGER, 0);
    check_u64("\" 42\"", JSON_INT_NOT_INTEGER, 0);
    check_u64("\"+42\"", JSON_INT_NOT_INTEGER, 0);
    check_u64("\"\"", JSON_INT_NOT_INTEGER, 0);
    check_u64("\"1e3\"", JSON_INT_NOT_INTEGER, 0);
    check_u64("-1", JSON_INT_NEGATIVE, 0);
    check_u64("-0", JSON_INT_OK, 0);
    check_u64("-18446744073709551616", JSON_INT_NEGATIVE, 0);
    check_u64("1.5", JSON_INT_NOT_INTEGER, 0);
    check_u64("1.0", JSON_INT_NOT_INTEGER, 0);
    check_u64("1e3", JSON_INT_NOT_INTEGER, 0);
    check_u64("true", JSON_INT_WRONG_TYPE, 0);
    check_u64("[1]", JSON_INT_WRONG_TYPE, 0);
    check_i64("9223372036854775807", JSON_INT_OK, INT64_MAX);
    check_i64("9223372036854775808", JSON_INT_OVERFLOW, 0);
    check_i64("-9223372036854775808", JSON_INT_OK, INT64_MIN);
    check_i64("-9223372036854775809", JSON_INT_OVERFLOW, 0);
    check_i64("-99999999999999999999", JSON_INT_OVERFLOW, 0);
    check_i64("\"-17\"", JSON_INT_OK, -17);
    check_i64("-17", JSON_INT_OK, -17);
    check_i64("\"-\"", JSON_INT_NOT_INTEGER, 0);
    check_i64("null", JSON_INT_WRONG_TYPE, 0);

    // --- JSON: depth, duplicate keys, access
    {
        char * ok64  = repeat("[", 64, "]", 64);
        char * bad65 = repeat("[", 65, "]", 65);
        check_parse_ok(ok64);
        check_parse_error(bad65, strlen(bad65), "line 1, column 65: nesting deeper than 64");
        free(ok64);
        free(bad65);
        char * objects = repeat("{\"a\":", 64, "1", 1);
        char * deep    = malloc(strlen(objects) + 65);
        snprintf(deep, strlen(objects) + 65, "%s%.64s", objects, "}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}");
        check_parse_ok(deep);
        free(objects);
        free(deep);
        char * huge = repeat("[", 1000000, "]", 1000000); // refused at level 65, without recursion
        check_parse_error(huge, strlen(huge), "line 1, column 65: nesting deeper than 64");
        free(huge);
    }
    check_parse_error("{\"a\": 1, \"b\": 2, \"a\": 3}", 24, "line 1, column 18: duplicate key \"a\"");
    check_parse_error("{\"a\": {\"x\": 1, \"x\": 1}}", 23, "line 1, column 16: duplicate key \"x\"");
    check_parse_error("{\"\\u0061\": 1, \"a\": 2}", 22, "line 1, column 15: duplicate key \"a\"");
    check_parse_ok("{\"a\": 1, \"a\\u0000\": 2, \"A\": 3}");
    {
        // a large object: duplicates found by sorting, reported at the later key
        char   text[4096];
        size_t k = (size_t) snprintf(text, sizeof(text), "{");
        for (int i = 0; i < 40; i++) {
            k += (size_t) snprintf(text + k, sizeof(text) - k, "%s\n\"k%d\": %d", i ? "," : "", i == 33 ? 7 : i, i);
        }
        snprintf(text + k, sizeof(text) - k, "}");
        check_parse_error(text, strlen(text), "line 35, column 1: duplicate key \"k7\"");
    }
    {
        g_cases++;
        struct galloc_json_doc * doc = parse("{\"s\": \"x\", \"n\": [1, 2, 3], \"o\": {\"k\": null}, \"b\": true}", &err);
        CHECK(doc != NULL, "%s", err.message);
        const struct galloc_json_value * root = galloc_json_doc_root(doc);
        bool                      b    = false;
        CHECK(galloc_json_object_size(root) == 4 && galloc_json_array_size(galloc_json_object_get(root, "n")) == 3, "sizes");
        CHECK(galloc_json_object_get(root, "missing") == NULL && galloc_json_array_at(galloc_json_object_get(root, "n"), 3) == NULL, "absent");
        CHECK(galloc_json_type_of(galloc_json_object_get(galloc_json_object_get(root, "o"), "k")) == JSON_TYPE_NULL, "null member");
        CHECK(galloc_json_get_bool(galloc_json_object_get(root, "b"), &b) && b, "bool");
        CHECK(strcmp(galloc_json_object_key_at(root, 2, NULL), "o") == 0, "key order");
        CHECK(galloc_json_get_string(galloc_json_object_get(root, "n"), NULL) == NULL, "not a string");
        galloc_json_doc_free(doc);
        galloc_json_doc_free(NULL);
    }

    // --- JSON writer
    {
        struct galloc_json_writer w;
        galloc_json_writer_init(&w);
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "a");   galloc_json_write_u64(&w, 1);
        galloc_json_write_key(&w, "b");   galloc_json_write_begin_array(&w); galloc_json_write_i64(&w, -2); galloc_json_write_u64(&w, 3); galloc_json_write_end_array(&w);
        galloc_json_write_key(&w, "c");   galloc_json_write_begin_array(&w); galloc_json_write_begin_object(&w); galloc_json_write_key(&w, "x"); galloc_json_write_null(&w);
        galloc_json_write_end_object(&w); galloc_json_write_end_array(&w);
        galloc_json_write_key(&w, "d");   galloc_json_write_begin_object(&w); galloc_json_write_end_object(&w);
        galloc_json_write_key(&w, "e");   galloc_json_write_begin_array(&w); galloc_json_write_end_array(&w);
        galloc_json_write_key(&w, "f");   galloc_json_write_bool(&w, false);
        galloc_json_write_end_object(&w);
        check_writer(&w, "{ \"a\": 1, \"b\": [-2, 3], \"c\": [ { \"x\": null } ], \"d\": {}, \"e\": [], \"f\": false }");

        galloc_json_write_begin_object(&w);
        galloc_json_write_newline(&w, 2); galloc_json_write_key(&w, "t"); galloc_json_write_begin_array(&w);
        galloc_json_write_newline(&w, 4); galloc_json_write_begin_object(&w); galloc_json_write_key(&w, "i"); galloc_json_write_u64(&w, 0); galloc_json_write_end_object(&w);
        galloc_json_write_newline(&w, 4); galloc_json_write_null(&w);
        galloc_json_write_newline(&w, 2); galloc_json_write_end_array(&w);
        galloc_json_write_newline(&w, 2); galloc_json_write_key(&w, "n"); galloc_json_write_begin_array(&w); galloc_json_write_end_array(&w);
        galloc_json_write_newline(&w, 0); galloc_json_write_end_object(&w);
        galloc_json_write_newline(&w, 0);
        check_writer(&w, "{\n  \"t\": [\n    { \"i\": 0 },\n    null\n  ],\n  \"n\": []\n}\n");

        galloc_json_write_begin_array(&w);
        galloc_json_write_u64(&w, 9007199254740992ULL);
        galloc_json_write_u64(&w, 9007199254740993ULL);
        galloc_json_write_u64(&w, UINT64_MAX);
        galloc_json_write_i64(&w, INT64_MIN);
        galloc_json_write_i64(&w, -9007199254740992LL);
        galloc_json_write_i64(&w, INT64_MAX);
        galloc_json_write_end_array(&w);
        check_writer(&w, "[9007199254740992, \"9007199254740993\", \"18446744073709551615\", \"-9223372036854775808\", -9007199254740992, "
                         "\"9223372036854775807\"]");

        static const char raw[] = "q\"b\\s/\n\r\t\b\f\x01\x1f\x7f \xC3\xA9 \xF0\x9F\x98\x80 \xFF \xC3 \xED\xA0\x80";
        galloc_json_write_string(&w, raw, sizeof(raw) - 1);
        check_writer(&w, "\"q\\\"b\\\\s/\\n\\r\\t\\b\\f\\u0001\\u001F\x7f \xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBD \xEF\xBF\xBD "
                         "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
        galloc_json_write_string(&w, "a\0b", 3);
        check_writer(&w, "\"a\\u0000b\"");

        // misuse: value without key, mismatched end, unfinished, two top-level values
        galloc_json_write_begin_object(&w); galloc_json_write_u64(&w, 1); galloc_json_write_end_object(&w);
        check_writer(&w, NULL);
        galloc_json_write_begin_object(&w); galloc_json_write_end_array(&w);
        check_writer(&w, NULL);
        galloc_json_write_begin_array(&w);
        check_writer(&w, NULL);
        galloc_json_write_u64(&w, 1); galloc_json_write_u64(&w, 2);
        check_writer(&w, NULL);
        check_writer(&w, NULL); // nothing written
        galloc_json_write_begin_array(&w); galloc_json_write_key(&w, "k");
        check_writer(&w, NULL);
        galloc_json_write_begin_object(&w); galloc_json_write_key(&w, "k");
        galloc_json_write_end_object(&w);
        check_writer(&w, NULL);
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++) {
            galloc_json_write_begin_array(&w);
        }
        check_writer(&w, NULL);
        galloc_json_writer_free(&w);

        // a parsed value copied through the writer
        struct galloc_json_doc * doc = parse("{\"a\":[1,-2,1.5e3,123456789012345678901234567890,\"\\u00e9\\n\"],\"b\":{\"c\":[[]]},\"d\":true}", &err);
        galloc_json_write_value(&w, galloc_json_doc_root(doc));
        check_writer(&w, "{ \"a\": [1, -2, 1.5e3, 123456789012345678901234567890, \"\xC3\xA9\\n\"], \"b\": { \"c\": [ [] ] }, \"d\": true }");
        galloc_json_doc_free(doc);
    }

    // --- bad graph documents: the exact error, no leak, and a good document reads right after
    for (size_t i = 0; i < sizeof(BAD_DOCUMENTS) / sizeof(BAD_DOCUMENTS[0]); i++) {
        check_bad_document(BAD_DOCUMENTS[i].text, BAD_DOCUMENTS[i].expected, BAD_DOCUMENTS[i].how);
    }
    {
        // nesting, size and count limits
        char * deep = repeat("{\"x\": [", 33, "]}", 33);
        char * text = malloc(strlen(deep) + 64);
        snprintf(text, strlen(deep) + 64, "{\"tensors\": [], \"deep\": %s}", deep);
        check_bad_document(text, "line 1, column 248: nesting deeper than 64", LIMIT);
        free(deep);
        free(text);

        g_cases++;
        size_t big = 52428800;
        char * huge = malloc(big);
        memset(huge, ' ', big);
        struct galloc_document doc;
        CHECK(!galloc_document_read(huge, big, &doc, &err), "50 MiB accepted");
        CHECK(strcmp(err.message, "document is 52428800 bytes, over the 33554432-byte limit") == 0, "%s", err.message);
        CHECK(err.status == GALLOC_STATUS_LIMIT, "status %s", galloc_status_name(err.status));
        free(huge);

        char * many = repeat("0,", 4194305, "", 0);
        size_t n    = strlen(many);
        char * doc_text = malloc(n + 32);
        snprintf(doc_text, n + 32, "{\"tensors\": [%.*s]}", (int) (n - 1), many);
        check_bad_document(doc_text, "tensors: 4194305 entries, more than 4194304", LIMIT);
        free(many);
        free(doc_text);
    }

    // --- good documents: defaults, numbers as strings, sharing, outputs
    {
        g_cases++;
        struct galloc_document doc;
        bool ok = doc_read(
            "{\"tensors\": [{\"name\": \"q\", \"op\": \"NONE\", \"type\": \"q4_0\", \"ne\": [64, 2]},"
            " {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [3, 1, 1, 1], \"alloc_size\": \"100\"},"
            " {\"op\": \"TRANSPOSE\", \"type\": \"f32\", \"ne\": [1, 3], \"nb\": [12, 4, 12, 12], \"src\": [1], \"view_src\": 1, \"view_offs\": 0},"
            " {\"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [2, 1], \"src\": [0, 2, null], \"flags\": [\"output\", \"output\"]}],"
            " \"outputs\": [3], \"future_field\": {\"anything\": [1, 2.5]}}",
            &doc, &err);
        CHECK(ok, "%s", err.message);
        if (ok) {
            CHECK(doc.n_buffer_types == 1 && strcmp(doc.buffer_type_names[0], "host") == 0 && doc.buffer_types[0].alignment == 32 &&
                  doc.buffer_types[0].max_size == GALLOC_NO_MAX_SIZE && doc.buffer_types[0].allocator == 0, "default buffer type");
            CHECK(doc.tensors[0].nb[0] == 18 && doc.tensors[0].nb[1] == 36 && doc.tensors[0].nb[2] == 72 && doc.tensors[0].nbytes == 72,
                  "q4_0 strides %llu %llu nbytes %llu", (unsigned long long) doc.tensors[0].nb[1], (unsigned long long) doc.tensors[0].nb[2],
                  (unsigned long long) doc.tensors[0].nbytes);
            CHECK(doc.tensors[1].nbytes == 12 && doc.tensors[1].alloc_size == 100 && doc.tensors[1].ne[3] == 1, "f32 sizes");
            CHECK(doc.tensors[2].nbytes == 12 && doc.tensors[2].view_src == 1, "transposed view");
            CHECK(doc.tensors[3].src[0] == 0 && doc.tensors[3].src[1] == 2 && doc.tensors[3].src[2] == -1, "sources");
            CHECK(doc.tensors[3].flags == (GGML_TENSOR_FLAG_OUTPUT | GGML_TENSOR_FLAG_COMPUTE), "flags %d", doc.tensors[3].flags);
            CHECK(doc.graph_from_outputs && doc.n_nodes == 2 && doc.n_leafs == 2, "graph %d nodes %d leafs", doc.n_nodes, doc.n_leafs);
            CHECK(doc.leafs[0] == 0 && doc.leafs[1] == 1 && doc.nodes[0] == 2 && doc.nodes[1] == 3, "order");
            CHECK(strcmp(doc.tensor_names[0], "q") == 0 && strcmp(doc.tensor_names[1], "leaf_1") == 0 &&
                  strcmp(doc.tensor_names[2], "node_0") == 0 && strcmp(doc.tensor_names[3], "node_1") == 0, "names");
            CHECK(doc.graph.n_tensors == 4 && doc.graph.tensors == doc.tensors && doc.graph.node_buffer_ids == NULL, "graph view");
            CHECK(strcmp(doc.name, "") == 0, "no name");
            size_t n   = 0;
            char * out = galloc_document_write_graph(&doc, &n);
            CHECK(out != NULL && strstr(out, "\"alloc_size\": 100") != NULL && strstr(out, "\"nb\": [12, 4, 12, 12]") != NULL &&
                  strstr(out, "\"ne\": [3]") != NULL && strstr(out, "\"src\": [0, 2]") != NULL, "written: %s", out);
            check_round_trip("good document", out, n, true);
            free(out);
            galloc_document_free(&doc);
            galloc_document_free(&doc);
        }
    }
    {
        // which unary op / gated linear unit: read, kept, written back
        g_cases++;
        struct galloc_document doc;
        bool ok = doc_read(
            "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]},"
            " {\"op\": \"UNARY\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [8], \"src\": [0]},"
            " {\"op\": \"GLU\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [4], \"src\": [1]},"
            " {\"op\": \"UNARY\", \"type\": \"f32\", \"ne\": [4], \"src\": [2]}], \"outputs\": [3]}",
            &doc, &err);
        CHECK(ok, "%s", err.message);
        if (ok) {
            CHECK(doc.tensor_sub_op[0] == -1 && doc.tensor_sub_op[1] == GGML_UNARY_OP_SILU && doc.tensor_sub_op[2] == GGML_GLU_OP_SWIGLU &&
                  doc.tensor_sub_op[3] == -1, "sub ops %d %d %d %d", doc.tensor_sub_op[0], doc.tensor_sub_op[1], doc.tensor_sub_op[2],
                  doc.tensor_sub_op[3]);
            CHECK(strcmp(galloc_document_op_desc(&doc, 0), "NONE") == 0 && strcmp(galloc_document_op_desc(&doc, 1), "SILU") == 0 &&
                  strcmp(galloc_document_op_desc(&doc, 2), "SWIGLU") == 0 && strcmp(galloc_document_op_desc(&doc, 3), "UNARY") == 0,
                  "op descriptions");
            size_t n   = 0;
            char * out = galloc_document_write_graph(&doc, &n);
            CHECK(out != NULL && strstr(out, "\"op\": \"UNARY\", \"unary_op\": \"SILU\"") != NULL &&
                  strstr(out, "\"op\": \"GLU\", \"glu_op\": \"SWIGLU\"") != NULL &&
                  strstr(out, "\"op\": \"UNARY\", \"type\"") != NULL, "written: %s", out);
            check_round_trip("sub ops", out, n, true);
            free(out);
            galloc_document_free(&doc);
        }
    }
    {
        g_cases++;
        struct galloc_document doc;
        bool ok = doc_read(
            "{\"format\": \"galloc-graph\", \"version\": \"1\", \"name\": \"shared \\u00e9\","
            " \"buffer_types\": [{\"name\": \"a\", \"alignment\": 8, \"max_size\": \"9007199254740993\"}, {\"name\": \"b\", \"alignment\": 1, \"max_size\": null},"
            "  {\"name\": \"a\", \"alignment\": \"8\", \"max_size\": 9007199254740993}],"
            " \"tensors\": [" T0 ", " T1 ", {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 2}],"
            " \"nodes\": [1], \"leafs\": [0], \"node_buffer_ids\": [2], \"leaf_buffer_ids\": [1], \"outputs\": [\"ignored\"]}",
            &doc, &err);
        CHECK(ok, "%s", err.message);
        if (ok) {
            CHECK(doc.n_buffer_types == 3 && doc.buffer_types[2].allocator == 0 && doc.buffer_types[1].allocator == 1, "sharing");
            CHECK(doc.buffer_types[0].max_size == 9007199254740993ULL && doc.buffer_types[1].max_size == GALLOC_NO_MAX_SIZE, "max sizes");
            CHECK(doc.tensors[2].external == 1 && doc.tensor_buffer_type[2] == 2 && doc.tensor_buffer_type[0] == -1, "external");
            CHECK(doc.node_buffer_ids[0] == 2 && doc.leaf_buffer_ids[0] == 1 && !doc.graph_from_outputs, "buffer ids");
            CHECK(strcmp(doc.name, "shared \xC3\xA9") == 0, "name");
            size_t n   = 0;
            char * out = galloc_document_write_graph(&doc, &n);
            CHECK(out != NULL && strstr(out, "\"max_size\": \"9007199254740993\"") != NULL, "big max_size: %s", out);
            check_round_trip("shared buffer types", out, n, true);
            free(out);
            galloc_document_free(&doc);
        }
    }
    {
        // a source given memory outside the allocator may come later as a node, or as a leaf later in
        // "leafs"; the empty slots between used ones are skipped
        g_cases++;
        struct galloc_document doc;
        bool ok = doc_read(
            "{\"tensors\": [" T0 ", {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0], \"buffer_type\": 0}, " T0 ","
            " {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, null, null, 1, null, 2]}], \"nodes\": [3, 1], \"leafs\": [0, 2]}",
            &doc, &err);
        CHECK(ok, "%s", err.message);
        if (ok) {
            galloc_document_free(&doc);
        }
    }
    check_deep_outputs(500000);
    check_hostile_arrays();
    check_growing_arrays();

    // --- golden graphs: round trip (same text), built from outputs, planned as upstream
    {
        int     n_golden = 0;
        char ** names    = golden_names(&n_golden);
        g_cases++;
        CHECK(n_golden >= 58, "found %d golden graphs in %s (run from the repository root)", n_golden, GOLDEN_DIR);
        for (int i = 0; i < n_golden; i++) {
            size_t len  = 0;
            char * text = golden_read(names[i], "graph", &len);
            CHECK(text != NULL, "%s: unreadable", names[i]);
            if (text == NULL) {
                continue;
            }
            check_round_trip(names[i], text, len, true);
            check_build_from_outputs(names[i], text, len);
            check_golden_plan(names[i], text, len);
            free(text);
        }
        golden_names_free(names);
    }

    if (g_failures > 0) {
        printf("test-document: %d checks FAILED in %d cases\n", g_failures, g_cases);
        return 1;
    }
    printf("test-document: %d cases passed\n", g_cases);
    return 0;
}
