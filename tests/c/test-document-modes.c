// test-document-modes.c: the fast graph document reader against the whole-tree reader.
//
// galloc_document_read checks the "tensors" entries while it parses and reads them again from
// the text, plain ones by the fast entry reader (galloc-document-fast.c). Here every golden,
// golden-real and models-real graph and a table of entries, each member varied one way at a time
// (valid, invalid, and shapes only the checked reader takes), are read all three ways
// (document_modes_agree: same verdict, status, message and document). The fast reader must take
// the plain entries (the golden graphs' shapes) itself, documents of short entries are read whole
// as the tensors' arrays grow, and the 8 MB array of zeros is refused at
// tensors[0] having allocated little (the reader's allocations counted through a malloc wrapper
// is not portable; the tree it no longer builds is: see wasm-hostile's heap bound).

#include "check.h"
#include "document-modes.h"
#include "files.h"
#include "galloc-document-impl.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

// read every way, alike; whether the one-pass reader alone took it
static bool agree(const char * what, const char * text, size_t len) {
    char why[512];
    bool took = false;
    bool ok   = document_modes_agree_taken(text, len, &took, why, sizeof(why));
    if (!ok) {
        fprintf(stderr, "%s: %s\n", what, why);
    }
    CHECK(ok);
    return took;
}

// a graph document read every way (ctx: the count the one pass alone took)
static void agree_file(const char * path, const char * text, size_t len, void * ctx) {
    CHECK(text != NULL);
    if (text != NULL) {
        bool took = agree(path, text, len);
        if (!took) {
            fprintf(stderr, "test-document-modes: the one-pass reader declines %s\n", path);
        }
        *(int *) ctx += took;
    }
}

// every *.graph.json of dir read every way; the number of graphs (*taken: by the one pass alone)
static int agree_dir(const char * dir, int * taken) {
    return graph_files_each(dir, agree_file, taken);
}

static void test_graph_files(void) {
    int taken = 0;
    int n     = agree_dir("tests/golden", &taken) + agree_dir("tests/golden-real", &taken) + agree_dir("tests/models-real/graphs", &taken);
    printf("test-document-modes: %d graph documents read alike four ways, %d of them by the one-pass reader alone\n", n, taken);
    CHECK(n > 250);
    CHECK(taken == n); // the one pass takes every real document itself (a decline would only show in the benchmark)
}

// entries, each one member varied; tensors 0 and 1 come first, the entry is tensors[2] (3 tensors).
// What the readers do with an entry, by hand: the one-pass reader takes it (PLAIN); it is
// valid but its name has an escape, which the fast entry reader leaves to the checked reader
// (ESCAPED); valid in a shape only the checked reader takes (CHECKED); refused (INVALID)
enum entry_kind { ENTRY_PLAIN, ENTRY_ESCAPED, ENTRY_CHECKED, ENTRY_INVALID };

static const struct entry {
    enum entry_kind kind;
    const char *    text;
} ENTRIES[] = {
    // plain: the one-pass reader takes these itself
    { ENTRY_PLAIN, "{\"name\": \"x\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}" },
    { ENTRY_PLAIN, "{\"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [4, 1, 1, 1], \"src\": [0, 1, null]}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f16\", \"ne\": [4096, 4096], \"buffer_type\": 0}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"i32\", \"ne\": [512], \"flags\": [\"input\", \"output\", \"param\", \"loss\", \"compute\"]}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": []}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [ ]}" },
    { ENTRY_PLAIN, "{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"view_src\": 0, \"view_offs\": 8, \"src\": [0]}" },
    { ENTRY_PLAIN, "{\"op\": \"TRANSPOSE\", \"type\": \"f32\", \"ne\": [1, 4], \"nb\": [4, 4, 16, 16], \"view_src\": 0, \"src\": [0]}" },
    { ENTRY_PLAIN, "{\"op\": \"UNARY\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [4], \"src\": [0]}" },
    { ENTRY_PLAIN, "{\"op\": \"GLU\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}" },
    { ENTRY_PLAIN, "{\"op\": \"CPY\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 2]}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"q4_0\", \"ne\": [64, 2], \"alloc_size\": 200}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"external\": true}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"external\": false, \"name\": null, \"nb\": null, \"src\": null}" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [0], \"view_src\": null, \"view_offs\": null, \"alloc_size\": null}" },
    { ENTRY_PLAIN, "{ \"op\" : \"NONE\" ,\n\t\"type\":\"f32\",\r\n\"ne\":[ 4 , 2 ] , \"flags\" : null , \"buffer_type\" : null , \"external\" : null }" },
    { ENTRY_PLAIN, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [-0]}" },
    { ENTRY_ESCAPED, "{\"name\": \"\\u00e9t\\u00e9\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_PLAIN, "{\"name\": \"\xc3\xa9t\xc3\xa9\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_PLAIN, "{\"name\": \"123456789012345678901234567890123456789012345678901234567890123\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    // shapes only the checked reader takes (still valid)
    { ENTRY_CHECKED, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [\"4\"], \"alloc_size\": \"100\"}" },
    { ENTRY_CHECKED, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"future\": {\"a\": [1, 2.5]}}" },
    { ENTRY_CHECKED, "{\"op\": \"N\\u004fNE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_CHECKED, "{\"op\": \"MY_OP\", \"type\": \"f32\", \"ne\": [4], \"src\": [0]}" },
    { ENTRY_CHECKED, "{\"op\": \"UNARY\", \"unary_op\": \"MY_UNARY\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_CHECKED, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [null]}" },
    { ENTRY_CHECKED, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_sizes\": [64]}" },
    { ENTRY_CHECKED, "{\"op\": \"GLU\", \"glu_op\": \"SILU\", \"type\": \"f32\", \"ne\": [4]}" }, // a GLU op name ggml lacks, as MY_UNARY
    { ENTRY_CHECKED, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"x\": [[[[[[1]]]]]]}" }, // an unknown member, as "future"
    // invalid: each refused with the checked reader's message
    { ENTRY_INVALID, "0" },
    { ENTRY_INVALID, "null" },
    { ENTRY_INVALID, "[]" },
    { ENTRY_INVALID, "{}" },
    { ENTRY_INVALID, "\"x\"" },
    { ENTRY_INVALID, "{\"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": null, \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f99\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\"}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": null}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": []}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1, 1, 1, 1, 1]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [-1]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4.0]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1e2]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [18446744073709551616]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [9223372036854775808]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4294967296, 4294967296]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1099511627776]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"q4_0\", \"ne\": [33]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"nb\": [4, 16, 16]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"nb\": [4, 16, 16, 16, 16]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"nb\": [4, 16, 16, -16]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4, 4], \"nb\": [4, 18446744073709551615, 16, 16]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 15}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 1099511627777}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"alloc_size\": 64, \"alloc_sizes\": [64]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [3]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [-1]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [2]}" },
    { ENTRY_INVALID, "{\"op\": \"CPY\", \"type\": \"f32\", \"ne\": [4], \"src\": [2]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": 0}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [\"a\"]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 2}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 9}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_offs\": 4}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 0, \"view_offs\": -4}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"inputs\"]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"inpu\"]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": \"input\"}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [1]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 1}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": -1}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"external\": 1}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 0, \"external\": true}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"UNARY\", \"unary_op\": \"SILU\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"UNARY\", \"unary_op\": 5, \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"name\": 5, \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"name\": \"a\\u0000b\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"name\": \"1234567890123456789012345678901234567890123456789012345678901234\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"ADD\\u0000XYZ\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"name\": \"\\ud800\"}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"name\": \"\xff\"}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"name\": \"a\tb\"}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [01]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4],}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4] \"src\": [0]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"src\": [0 1]}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"external\": tru}" },
    { ENTRY_INVALID, "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]" },
};

static const char * const FIRST = "{\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]}";
static const char * const SECOND = "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]}";

// every entry read every way alike; refused exactly when marked invalid, and taken by the
// one-pass reader alone exactly when marked plain
static void test_entries(void) {
    const size_t n = sizeof(ENTRIES) / sizeof(ENTRIES[0]);
    for (size_t k = 0; k < n; k++) {
        const struct entry * e = &ENTRIES[k];
        char text[2048];
        snprintf(text, sizeof(text), "{\"format\": \"galloc-graph\", \"tensors\": [%s, %s, %s], \"outputs\": [2]}", FIRST, SECOND, e->text);
        bool took   = agree(e->text, text, strlen(text));
        struct galloc_document doc;
        struct galloc_error    err;
        bool valid = galloc_document_read_mode(text, strlen(text), &doc, &err, GALLOC_READ_TREE);
        galloc_document_free(&doc);
        if (took != (e->kind == ENTRY_PLAIN) || valid != (e->kind != ENTRY_INVALID)) {
            fprintf(stderr, "the one-pass reader %s, the checked reader %s: %s\n", took ? "takes" : "declines", valid ? "takes" : "refuses", e->text);
        }
        CHECK(took == (e->kind == ENTRY_PLAIN));
        CHECK(valid == (e->kind != ENTRY_INVALID));
        // the same entry first (forward sources), and in a document with two buffer types and nodes/leafs
        snprintf(text, sizeof(text),
                 "{\"buffer_types\": [{\"name\": \"a\", \"alignment\": 32}, {\"name\": \"b\", \"alignment\": 64}], \"tensors\": [%s, %s, %s],"
                 " \"nodes\": [0], \"leafs\": [1, 2]}", e->text, FIRST, SECOND);
        agree(e->text, text, strlen(text));
    }
}

// the fast reader takes plain entries itself (were it to decline everything, the documents would
// still agree, and only the benchmark would show it)
static void test_fast_takes_plain(void) {
    struct galloc_fast_names names;
    galloc_fast_names_build(&names);
    struct galloc_document doc;
    memset(&doc, 0, sizeof(doc));
    struct galloc_tensor tensors[3];
    char                 tnames[3][GGML_MAX_NAME];
    int32_t              bt[3], sub[3], as[3];
    memset(tensors, 0, sizeof(tensors));
    memset(tnames, 0, sizeof(tnames));
    doc.n_tensors = 3;
    doc.n_buffer_types = 1;
    doc.tensors = tensors;
    doc.tensor_names = tnames;
    doc.tensor_buffer_type = bt;
    doc.tensor_sub_op = sub;
    doc.tensor_alloc_sizes = as;
    int taken = 0, plain = 0;
    for (size_t k = 0; k < sizeof(ENTRIES) / sizeof(ENTRIES[0]); k++) {
        const struct entry * e = &ENTRIES[k];
        if (e->kind != ENTRY_PLAIN && e->kind != ENTRY_ESCAPED) {
            continue;
        }
        size_t len    = strlen(e->text);
        size_t end    = galloc_document_fast_tensor(&names, &doc, e->text, len, 0, 2);
        bool   expect = e->kind == ENTRY_PLAIN; // an escape is the checked reader's
        if ((end != 0) != expect) {
            fprintf(stderr, "fast reader %s %s\n", end ? "took" : "declined", e->text);
        }
        CHECK((end != 0) == expect);
        CHECK(end == 0 || end == len);
        taken += end != 0;
        plain += expect;
    }
    CHECK(taken == plain && plain == 19);
    // and a golden graph's entries, all of them
    size_t len  = 0;
    char * text = golden_read("llama-7b-like", "graph", &len);
    CHECK(text != NULL);
    struct galloc_error        err;
    struct galloc_json_skipped skipped;
    struct galloc_document     real;
    if (text != NULL && galloc_document_read(text, len, &real, &err)) {
        struct galloc_json_doc * parsed = galloc_json_parse_skipping(text, len, "tensors", &skipped, &err);
        CHECK(parsed != NULL && skipped.found && skipped.count == (size_t) real.n_tensors);
        size_t pos = skipped.start + 1, declined = 0;
        for (size_t i = 0; parsed != NULL && i < skipped.count; i++) {
            while (text[pos] == ' ' || text[pos] == '\n' || text[pos] == ',') {
                pos++;
            }
            size_t end = galloc_document_fast_tensor(&names, &real, text, len, pos, (int32_t) i);
            declined += end == 0;
            pos = end ? end : galloc_json_skip_valid(text, len, pos);
        }
        CHECK(declined == 0);
        galloc_json_doc_free(parsed);
        galloc_document_free(&real);
    }
    free(text);
}

// whole documents, each varied one way from a plain one: read alike every way, and the one-pass
// reader alone takes exactly the ones marked (the others it declines: errors, and shapes only the
// checked reader takes). A and B are plain tensors, the third one varies
#define T_A "{\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]}"
#define T_B "{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 0}"
#define T_ADD(srcs) "{\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": " srcs "}"
static const struct {
    const char * text;
    bool         one_pass_takes;
} DOCUMENTS[] = {
    { "{\"format\": \"galloc-graph\", \"version\": 1, \"name\": \"d\", \"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"outputs\": [2]}", true },
    // sources that name later tensors: checked after the walk
    { "{\"tensors\": [" T_ADD("[1, 2]") ", " T_A ", " T_B "], \"outputs\": [0]}", true },
    { "{\"tensors\": [" T_ADD("[1, 2]") ", " T_A ", " T_B "], \"nodes\": [0], \"leafs\": [1, 2]}", true },
    { "{\"tensors\": [" T_ADD("[1, 3]") ", " T_A ", " T_B "], \"outputs\": [0]}", false },  // out of range after the walk
    { "{\"tensors\": [" T_ADD("[1, 2147483647]") ", " T_A ", " T_B "], \"outputs\": [0]}", false },
    { "{\"tensors\": [" T_ADD("[1, 2147483648]") ", " T_A ", " T_B "], \"outputs\": [0]}", false },
    { "{\"tensors\": [{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"view_src\": 1, \"src\": [1]}, " T_A ", " T_B "], \"outputs\": [0]}", true },
    { "{\"tensors\": [{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [2], \"view_src\": 3, \"src\": [1]}, " T_A ", " T_B "], \"outputs\": [0]}", false },
    { "{\"tensors\": [" T_ADD("[1, 2]") ", " T_ADD("[0, 2]") ", " T_B "], \"outputs\": [0]}", false }, // a cycle through a later tensor
    { "{\"tensors\": [" T_ADD("[1, 2]") ", " T_ADD("[0, 2]") ", " T_B "], \"outputs\": [2]}", false }, // the same, outside the graph
    { "{\"tensors\": [" T_ADD("[1, 2]") ", " T_ADD("[0, 2]") ", " T_B "], \"nodes\": [], \"leafs\": [2]}", false },
    { "{\"tensors\": [" T_ADD("[1]") ", " T_ADD("[0]") ", " T_B "], \"outputs\": [2]}", false }, // its one forward edge to the next tensor
    { "{\"tensors\": [" T_B ", " T_ADD("[0, 2]") ", " T_ADD("[0]") ", " T_ADD("[2]") "], \"outputs\": [3]}", true },
    { "{\"tensors\": [{\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"view_src\": 1}, " T_ADD("[0]") ", " T_B "], \"outputs\": [2]}", false }, // through a view
    { "{\"tensors\": [" T_ADD("[2, 2]") ", " T_ADD("[0, 2]") ", " T_B "], \"outputs\": [1]}", true },  // forward and back, no cycle
    // buffer types, before or after the tensors
    { "{\"tensors\": [" T_A ", " T_B ", {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 1}], \"outputs\": [2],"
      " \"buffer_types\": [{\"name\": \"x\", \"alignment\": 64, \"max_size\": 4096}, {\"max_size\": null, \"alignment\": 32, \"name\": \"y\"}]}", true },
    { "{\"tensors\": [" T_A ", " T_B ", {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"buffer_type\": 1}], \"outputs\": [2]}", false },
    { "{\"buffer_types\": [{\"name\": \"x\", \"alignment\": 64}, {\"name\": \"x\", \"alignment\": 64}], \"tensors\": [" T_A "], \"outputs\": [0]}", true },
    { "{\"buffer_types\": [{\"name\": \"x\", \"alignment\": 64}, {\"name\": \"x\", \"alignment\": 32}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"buffer_types\": [{\"name\": \"x\", \"alignment\": 48}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"buffer_types\": [{\"name\": \"x\", \"alignment\": 2147483648}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"buffer_types\": [{\"name\": \"x\"}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"buffer_types\": [], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"buffer_types\": [{\"name\": \"x\", \"alignment\": 64, \"colour\": 1}], \"tensors\": [" T_A "], \"outputs\": [0]}", false }, // taken by the checked reader
    { "{\"buffer_types\": null, \"name\": null, \"tensors\": [" T_A "], \"outputs\": [0], \"nodes\": null, \"leafs\": null}", true },
    // nodes, leafs, outputs and buffer ids
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2], \"leafs\": [0, 1], \"node_buffer_ids\": [0], \"leaf_buffer_ids\": [0, 0]}", true },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2], \"leafs\": [0, 1], \"node_buffer_ids\": [0, 0]}", false },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2], \"leafs\": [0, 1], \"node_buffer_ids\": [1]}", false },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2], \"leafs\": [0, 1], \"outputs\": [7]}", true }, // outputs unused
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2]}", false },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2, 2], \"leafs\": [0, 1]}", false },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"nodes\": [2], \"leafs\": [0, 3]}", false },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"outputs\": [2, 2, 2]}", true },
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "], \"outputs\": [2, 2, 2, 2]}", false }, // longer than the tensors: the checked reader's
    { "{\"outputs\": [0], \"tensors\": [" T_A "]}", false }, // lists before the tensors: the checked reader's
    { "{\"tensors\": [" T_A ", " T_B ", " T_ADD("[0, 1]") "]}", false },
    { "{\"tensors\": [], \"outputs\": []}", true },
    // type traits: those of ggml's table are taken, any other is the checked reader's
    { "{\"type_traits\": [{\"name\": \"f32\", \"blck_size\": 1, \"type_size\": 4}, {\"type_size\": 18, \"blck_size\": 32, \"name\": \"q4_0\"}], \"tensors\": [" T_A "], \"outputs\": [0]}", true },
    { "{\"type_traits\": [{\"name\": \"f32\", \"blck_size\": 1, \"type_size\": 2}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"type_traits\": [{\"name\": \"f33\", \"blck_size\": 1, \"type_size\": 4}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"type_traits\": [{\"name\": \"f32\", \"blck_size\": 1}], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    // the header, duplicates, numbers, what only the checked reader takes
    { "{\"format\": \"galloc-grapH\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"version\": 2, \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"version\": 01, \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"version\": 1.0, \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"version\": \"1\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"version\": 18446744073709551617, \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"name\": \"d\", \"name\": \"e\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"name\": null, \"name\": \"e\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"tensors\": [" T_A "], \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"tensors\": [" T_A "], \"outputs\": [0], \"outputs\": [0]}", false },
    { "{\"tensors\": [{\"name\": null, \"name\": \"x\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}], \"outputs\": [0]}", false },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [12345678901234567890]}], \"outputs\": [0]}", false },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [1234567890123456789]}], \"outputs\": [0]}", false },
    { "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"view_offs\": 99999999999999999999}], \"outputs\": [0]}", false },
    { "{\"name\": \"\\u0064\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"name\": \"\xc3\xa9\", \"tensors\": [" T_A "], \"outputs\": [0]}", true },
    { "{\"name\": \"\xc3\", \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"future\": 1, \"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "\xef\xbb\xbf{\"tensors\": [" T_A "], \"outputs\": [0]}", false },
    { "{\"tensors\": [" T_A "], \"outputs\": [0]} x", false },
    { "{\"tensors\": [" T_A "], \"outputs\": [0]}\n\t \r\n", true },
    { "{\"tensors\":[{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[4]},{\"name\":\"b\",\"op\":\"ADD\",\"type\":\"f32\",\"ne\":[4],\"src\":[0,0]}],\"outputs\":[1]}", true },
    { "{ \"tensors\" :\t[\r\n" T_A " ,\n" T_ADD("[ 0 , null , 0 ]") " ] , \"outputs\" : [ 1 ] }", true },
    { "{\"tensors\": [" T_A "], \"outputs\": [0],}", false },
    { "{\"tensors\": [" T_A "], \"outputs\": [0]", false },
    { "{\"tensors\": [" T_A ",], \"outputs\": [0]}", false },
    { "{\"tensors\": null, \"outputs\": [0]}", false },
    { "{\"tensors\": {}, \"outputs\": [0]}", false },
    { "{}", false },
    { "[]", false },
    { "", false },
};

static void test_documents(void) {
    const size_t n = sizeof(DOCUMENTS) / sizeof(DOCUMENTS[0]);
    for (size_t k = 0; k < n; k++) {
        bool took = agree(DOCUMENTS[k].text, DOCUMENTS[k].text, strlen(DOCUMENTS[k].text));
        if (took != DOCUMENTS[k].one_pass_takes) {
            fprintf(stderr, "the one-pass reader %s %s\n", took ? "takes" : "declines", DOCUMENTS[k].text);
        }
        CHECK(took == DOCUMENTS[k].one_pass_takes);
    }
}

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

// the skipped array: the same errors at the same places as the tree reader
static void test_hostile_arrays(void) {
    char * text = repeat_zeros(4194304);
    CHECK(text != NULL);
    if (text != NULL) {
        agree("4,194,304 zeros", text, strlen(text));
        struct galloc_document doc;
        struct galloc_error    err;
        CHECK(!galloc_document_read(text, strlen(text), &doc, &err));
        CHECK(strcmp(err.message, "tensors[0]: expected an object, got a number") == 0);
        text[strlen(text) - 2] = ','; // "0,}": now a syntax error at the end wins over tensors[0]
        CHECK(!galloc_document_read(text, strlen(text), &doc, &err));
        CHECK(strncmp(err.message, "line 1, column ", 15) == 0);
        agree("4,194,304 zeros, then a syntax error", text, strlen(text));
    }
    free(text);
    text = repeat_zeros(4194305);
    if (text != NULL) {
        agree("4,194,305 zeros", text, strlen(text));
    }
    free(text);
}

// a document of n short entries (compact, ~40 bytes each: more than the walk first makes room for,
// which counts on the writers' longer ones): the tensors' arrays grow as they are read, every entry kept
static void test_growing_arrays(void) {
    static const int counts[] = { 1, 2, 4095, 4097, 20000, 40000 };
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        int    n    = counts[c];
        size_t size = (size_t) n * 64 + 256, len = 0;
        char * text = malloc(size);
        CHECK(text != NULL);
        if (text == NULL) {
            return;
        }
        len += (size_t) snprintf(text + len, size - len, "{\"tensors\": [");
        for (int k = 0; k < n; k++) {
            len += (size_t) snprintf(text + len, size - len, "%s{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[%d]}", k > 0 ? "," : "", k + 1);
        }
        len += (size_t) snprintf(text + len, size - len, "], \"outputs\": [%d]}", n - 1);
        CHECK(len < size);
        char what[64];
        snprintf(what, sizeof(what), "%d short entries", n);
        CHECK(agree(what, text, len)); // (taken by the one pass alone)
        struct galloc_document doc;
        struct galloc_error    err;
        CHECK(galloc_document_read(text, len, &doc, &err) && doc.n_tensors == n);
        for (int k = 0; k < doc.n_tensors; k++) { // each entry where it belongs, after every growth
            if (doc.tensors[k].ne[0] != k + 1 || doc.tensors[k].nbytes != 4 * (uint64_t) (k + 1)) {
                CHECK(false);
                break;
            }
        }
        galloc_document_free(&doc);
        free(text);
    }
}

int main(void) {
    RUN(test_graph_files);
    RUN(test_entries);
    RUN(test_documents);
    RUN(test_fast_takes_plain);
    RUN(test_hostile_arrays);
    RUN(test_growing_arrays);
    return check_report("test-document-modes");
}
