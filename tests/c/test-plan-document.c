// test-plan-document.c: plan documents read back (galloc_plan_document_read) and the
// streaming JSON parse under it.
//
// A bad-input table (each entry refused with the place named), the fields kept from a
// golden plan against numbers read off the file by hand, and galloc_json_parse_stream: items
// in order with their keys, the streamed arrays empty in the DOM, a callback's error kept.

#include "check.h"
#include "files.h"
#include "galloc-error.h"
#include "galloc-plan-document.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define PLAN_HEAD "{\"format\": \"galloc-plan\", \"version\": 1, "
#define ONE_BUFFER "\"buffers\": [{\"chunk_sizes\": [64, 32]}], "

static void test_bad_plans(void) {
    static const struct {
        const char * text;
        const char * message;
    } cases[] = {
        { "[]", "expected an object, got an array" },
        { "{\"format\": \"galloc-graph\", \"version\": 1, \"buffers\": [], \"tensors\": []}", "format: \"galloc-graph\", not a galloc-plan" },
        { "{\"format\": \"galloc-plan\\u0000zzz\", \"version\": 1, \"buffers\": [], \"tensors\": []}", "not a galloc-plan document" },
        { "{\"format\": \"galloc-plan\", \"version\": 99, \"buffers\": [], \"tensors\": []}", "version: 99 is not supported" },
        { "{\"format\": \"galloc-plan\", \"version\": \"1\", \"buffers\": [], \"tensors\": []}", "version: \"1\" is not supported (expected the number 1)" },
        { PLAN_HEAD "\"tensors\": []}", "buffers: expected an array, got nothing" },
        { PLAN_HEAD "\"buffers\": {}, \"tensors\": []}", "buffers: expected an array, got an object" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": 5}", "tensors: expected an array, got a number" },
        { PLAN_HEAD "\"buffers\": [{\"chunk_sizes\": [\"x\"]}], \"tensors\": []}", "buffers[0].chunk_sizes[0]: \"x\" is not an integer" },
        { PLAN_HEAD "\"buffers\": [{\"chunk_sizes\": [-1]}], \"tensors\": []}", "buffers[0].chunk_sizes[0]: -1 is not an integer" },
        { PLAN_HEAD "\"buffers\": [{}], \"tensors\": []}", "buffers[0].chunk_sizes: expected an array, got nothing" },
        { PLAN_HEAD "\"buffers\": [5], \"tensors\": []}", "buffers[0]: expected an object, got a number" },
        { PLAN_HEAD "\"buffers\": [{\"chunk_sizes\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}], \"tensors\": []}", "17 chunks, more than 16" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [5]}", "tensors[0]: expected an object or null, got a number" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [null, \"x\"]}", "tensors[1]: expected an object or null, got a string" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 0, \"offset\": \"abc\"}]}", "tensors[0].offset: \"abc\" is not an integer" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 0, \"offset\": -5}]}", "tensors[0].offset: -5 is not an integer" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 0}]}", "tensors[0]: no \"offset\"" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 0, \"offset\": 1.5}]}", "tensors[0].offset: 1.5 is not an integer" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 1, \"chunk\": 0, \"offset\": 0}]}", "tensors[0].buffer: 1, but the plan has 1 buffers" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 2, \"offset\": 0}]}", "tensors[0].chunk: 2, but buffers[0] has 2 chunks" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [{\"buffer\": 0, \"chunk\": 16, \"offset\": 0}]}", "tensors[0].chunk: 16 is not an integer in [0, 15]" },
        { "{\"tensors\": [{\"op\": \"NONE\"}], \"format\": \"galloc-graph\", \"version\": 1}", "format: \"galloc-graph\"" }, // format checked first
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [null,]}", "line 1, column" },
        { PLAN_HEAD ONE_BUFFER "\"tensors\": [], \"tensors\": []}", "duplicate key" },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct galloc_plan_document p;
        struct galloc_error err;
        bool                        ok       = galloc_plan_document_read(cases[k].text, strlen(cases[k].text), &p, &err);
        CHECK(!ok);
        if (ok || !strstr(err.message, cases[k].message)) {
            fprintf(stderr, "  case %zu: %s\n    got '%s', expected '%s'\n", k, cases[k].text, ok ? "(accepted)" : err.message, cases[k].message);
            check_failures += ok ? 0 : 1;
        }
        CHECK(p.tensors == NULL && p.buffers == NULL); // nothing kept on failure
        galloc_plan_document_free(&p);
    }
}

// more entries than a graph may have tensors: refused at the first one past the limit
static void test_too_many_tensors(void) {
    size_t n    = (size_t) GALLOC_DOCUMENT_MAX_TENSORS + 1;
    size_t head = strlen(PLAN_HEAD ONE_BUFFER "\"tensors\": [");
    char * text = malloc(head + 5 * n + 8);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    memcpy(text, PLAN_HEAD ONE_BUFFER "\"tensors\": [", head);
    size_t len = head;
    for (size_t i = 0; i < n; i++) {
        memcpy(text + len, i ? ",null" : "null", i ? 5 : 4);
        len += i ? 5 : 4;
    }
    memcpy(text + len, "]}", 2);
    len += 2;
    struct galloc_plan_document p;
    struct galloc_error err;
    CHECK(!galloc_plan_document_read(text, len, &p, &err));
    CHECK(strstr(err.message, "tensors: more than 4194304 entries") != NULL);
    // one fewer is fine
    memcpy(text + len - 7, "]}", 2);
    CHECK(galloc_plan_document_read(text, len - 5, &p, &err));
    CHECK(p.n_tensors == GALLOC_DOCUMENT_MAX_TENSORS && p.tensors[12].buffer == -1);
    galloc_plan_document_free(&p);
    free(text);
}

// llama-tiny's golden plan: numbers read off the file
static void test_golden_plan(void) {
    size_t len  = 0;
    char * text = read_whole_file("tests/golden/llama-tiny.plan.json", &len);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    struct galloc_plan_document p;
    struct galloc_error err;
    CHECK(galloc_plan_document_read(text, len, &p, &err));
    CHECK(p.n_buffers == 1 && p.buffers[0].n_chunks == 1);
    CHECK_EQ_U64(p.buffers[0].chunk_sizes[0], 21696);
    CHECK(p.tensors[0].buffer == -1 && p.tensors[1].buffer == -1);               // null, null
    CHECK(p.tensors[2].buffer == 0 && p.tensors[2].chunk == 0 && p.tensors[2].offset == 0);
    CHECK(p.tensors[4].buffer == 0 && p.tensors[4].offset == 32);
    CHECK(p.tensors[13].buffer == 0 && p.tensors[13].offset == 64);
    CHECK(p.tensors[29].offset == 3136);
    galloc_plan_document_free(&p);
    free(text);
}

struct seen {
    int    n;
    char   keys[8][16];
    size_t index[8];
    int    type[8];
};

static bool collect(void * user, const char * key, size_t index, const struct galloc_json_value * item, struct galloc_error * err) {
    struct seen * s = user;
    if (galloc_json_type_of(item) == JSON_TYPE_STRING && strcmp(galloc_json_get_string(item, NULL), "stop") == 0) {
        galloc_fail(err, GALLOC_STATUS_INVALID, "%s[%zu]: told to stop", key, index);
        return false;
    }
    if (s->n < 8) {
        snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
        s->index[s->n] = index;
        s->type[s->n]  = (int) galloc_json_type_of(item);
        if (galloc_json_type_of(item) == JSON_TYPE_OBJECT) {
            uint64_t a = 0;
            CHECK(galloc_json_get_u64(galloc_json_object_get(item, "a"), &a) == JSON_INT_OK && a == 7); // whole while handed over
        }
    }
    s->n++;
    return true;
}

static void test_stream(void) {
    const char * text = "{\"x\": [1, {\"a\": 7, \"b\": [\"long string\", {}]}], \"y\": {\"z\": [3]}, \"w\": [null]}";
    struct seen  s;
    memset(&s, 0, sizeof(s));
    struct galloc_error err;
    struct galloc_json_doc * d = galloc_json_parse_stream(text, strlen(text), collect, &s, &err);
    CHECK(d != NULL);
    CHECK(s.n == 3); // x[0], x[1], w[0]; y.z is not a member of the root
    CHECK(strcmp(s.keys[0], "x") == 0 && s.index[0] == 0 && s.type[0] == JSON_TYPE_NUMBER);
    CHECK(strcmp(s.keys[1], "x") == 0 && s.index[1] == 1 && s.type[1] == JSON_TYPE_OBJECT);
    CHECK(strcmp(s.keys[2], "w") == 0 && s.index[2] == 0 && s.type[2] == JSON_TYPE_NULL);
    const struct galloc_json_value * root = galloc_json_doc_root(d);
    CHECK(galloc_json_type_of(galloc_json_object_get(root, "x")) == JSON_TYPE_ARRAY && galloc_json_array_size(galloc_json_object_get(root, "x")) == 0);
    CHECK(galloc_json_array_size(galloc_json_object_get(galloc_json_object_get(root, "y"), "z")) == 1); // kept
    galloc_json_doc_free(d);

    const char * stop = "{\"x\": [1, \"stop\", 3]}";
    memset(&s, 0, sizeof(s));
    CHECK(galloc_json_parse_stream(stop, strlen(stop), collect, &s, &err) == NULL);
    CHECK(strcmp(err.message, "x[1]: told to stop") == 0 && s.n == 1);
    // a syntax error after streamed items is still the parser's, with its place
    const char * broken = "{\"x\": [1, 2, }";
    CHECK(galloc_json_parse_stream(broken, strlen(broken), collect, &s, &err) == NULL);
    CHECK(strstr(err.message, "line 1, column 14") != NULL);
}

int main(void) {
    RUN(test_bad_plans);
    RUN(test_too_many_tensors);
    RUN(test_golden_plan);
    RUN(test_stream);
    return check_report("test-plan-document");
}
