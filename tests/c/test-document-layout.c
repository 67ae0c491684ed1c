// test-document-layout.c: the documents this project writes are read by the reader's shortest way.
//
// The one-pass reader takes an entry in the writers' layout (members in the writers' order, ", "
// between them) by a short path, and any other text by the scanner's rules; both give the same
// tensor, so a writer whose order drifts from the reader's would only make reading slower, which
// no other test sees. Here every entry is offered to the short path alone
// (galloc_document_fast_writers_entry) and must be taken, up to its '}': every graph document of
// the test data (written by the exporter and the graph writer), a document with every member the
// graph writer writes (unary_op, glu_op, nb, null sources, views, flags, alloc_size with
// buffer_type or external) written by galloc_document_write_graph, and a ggml graph with unary and
// gated ops, views, permutes, flags and external data written by galloc_export_graph. Each written
// document is also read alike every way (document_modes_agree).

#include "check.h"
#include "document-modes.h"
#include "files.h"
#include "galloc-document-impl.h"
#include "galloc-document.h"
#include "galloc-export.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

// the entries of the document's "tensors" array the short path leaves to the scanner (the first few
// named on stderr unless quiet); -1 when the text is no document with such an array
static int entries_left(const char * what, const char * text, size_t len, bool quiet) {
    struct galloc_error        err;
    struct galloc_json_skipped skipped;
    struct galloc_document     doc;
    if (!galloc_document_read(text, len, &doc, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.message);
        return -1;
    }
    struct galloc_json_doc * parsed = galloc_json_parse_skipping(text, len, "tensors", &skipped, &err);
    if (parsed == NULL || !skipped.found || skipped.count != (size_t) doc.n_tensors) {
        galloc_json_doc_free(parsed);
        galloc_document_free(&doc);
        return -1;
    }
    struct galloc_fast_names names;
    galloc_fast_names_build(&names);
    int    left = 0;
    size_t pos  = skipped.start + 1;
    for (size_t i = 0; i < skipped.count; i++) {
        while (text[pos] == ' ' || text[pos] == '\n' || text[pos] == ',') {
            pos++;
        }
        size_t end  = galloc_document_fast_writers_entry(&names, text, len, pos, doc.n_tensors, doc.n_buffer_types);
        size_t next = galloc_json_skip_valid(text, len, pos);
        if (end != next) {
            if (!quiet && left < 3) { // (the first few)
                fprintf(stderr, "%s: tensors[%zu] %s: %.*s\n", what, i, end == 0 ? "left to the scanner" : "taken to the wrong end",
                        (int) (next - pos), text + pos);
            }
            left++;
        }
        pos = next;
    }
    galloc_json_doc_free(parsed);
    galloc_document_free(&doc);
    return left;
}

static void check_file(const char * path, const char * text, size_t len, void * ctx) {
    (void) ctx;
    CHECK(text != NULL && entries_left(path, text, len, false) == 0);
}

// every *.graph.json of dir; the number of documents
static int check_dir(const char * dir) {
    return graph_files_each(dir, check_file, NULL);
}

static void test_graph_files(void) {
    int n = check_dir("tests/golden") + check_dir("tests/golden-real") + check_dir("tests/models-real/graphs") +
            check_dir("tests/models-captured/graphs");
    printf("test-document-layout: %d graph documents, each entry offered to the short path alone\n", n);
    CHECK(n > 300);
}

// a document with every member the graph writer writes, in any order the reader takes: written
// again by the graph writer, every entry is in the writers' layout
static const char * const EVERY_MEMBER =
    "{\"buffer_types\": [{\"name\": \"cpu\", \"alignment\": 32}], \"tensors\": ["
    "{\"name\": \"w\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8, 4], \"buffer_type\": 0, \"alloc_size\": 256},"
    "{\"name\": \"x\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8, 4], \"flags\": [\"input\"]},"
    "{\"name\": \"e\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"external\": true, \"alloc_size\": 64},"
    "{\"name\": \"s\", \"op\": \"UNARY\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [8, 4], \"src\": [1]},"
    "{\"name\": \"g\", \"op\": \"GLU\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [4, 4], \"src\": [3, null, 0]},"
    "{\"name\": \"v\", \"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4, 4], \"nb\": [4, 32, 128, 128], \"src\": [3], \"view_src\": 3,"
    " \"view_offs\": 16},"
    "{\"name\": \"t\", \"op\": \"PERMUTE\", \"type\": \"f32\", \"ne\": [4, 8], \"nb\": [32, 4, 128, 128], \"src\": [1], \"view_src\": 1,"
    " \"view_offs\": 0},"
    "{\"name\": \"o\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [8, 4], \"src\": [3, 1], \"flags\": [\"output\", \"compute\"]},"
    "{\"name\": \"m\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [8, 4], \"src\": [0, 1], \"alloc_size\": 4096},"
    "{\"name\": \"\", \"op\": \"SCALE\", \"type\": \"f16\", \"ne\": [8, 4, 2, 3], \"src\": [8], \"flags\": [\"param\", \"loss\"], \"external\": true}"
    "], \"nodes\": [3, 4, 5, 6, 7, 8, 9], \"leafs\": [0, 1, 2]}";

static void check_written(const char * what, const char * text, size_t len) {
    char why[512];
    bool ok = document_modes_agree(text, len, why, sizeof(why));
    if (!ok) {
        fprintf(stderr, "%s: %s\n", what, why);
    }
    CHECK(ok);
    CHECK(entries_left(what, text, len, false) == 0);
}

static void test_graph_writer(void) {
    struct galloc_document doc;
    struct galloc_error    err;
    CHECK(galloc_document_read(EVERY_MEMBER, strlen(EVERY_MEMBER), &doc, &err));
    // the hand-written text is not in the writers' layout (no spaces): the short path leaves all ten
    CHECK(entries_left("every member, as written by hand", EVERY_MEMBER, strlen(EVERY_MEMBER), true) == 10);
    size_t len  = 0;
    char * text = galloc_document_write_graph(&doc, &len);
    CHECK(text != NULL);
    if (text != NULL) {
        CHECK(strstr(text, "\"alloc_size\": 256") && strstr(text, "\"unary_op\"") && strstr(text, "\"glu_op\"") && strstr(text, "\"nb\"") &&
              strstr(text, "\"external\": true") && strstr(text, "null"));
        check_written("every member, written by galloc_document_write_graph", text, len);
    }
    free(text);
    galloc_document_free(&doc);
}

// a ggml graph written by the exporter: sub-ops, views, permutes, flags and data outside any buffer
static void test_exporter(void) {
    struct ggml_init_params params = { 64 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context *   ctx    = ggml_init(params);
    struct ggml_tensor *    x      = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor *    w      = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 4, 4);
    static float            outside[16];
    w->data = outside; // data with no buffer: "external"
    ggml_set_name(x, "x");
    ggml_set_input(x);
    struct ggml_tensor * s = ggml_silu(ctx, x);
    struct ggml_tensor * g = ggml_swiglu(ctx, s);
    struct ggml_tensor * p = ggml_permute(ctx, s, 1, 0, 2, 3);
    struct ggml_tensor * v = ggml_view_2d(ctx, s, 4, 4, s->nb[1], 16);
    struct ggml_tensor * m = ggml_mul_mat(ctx, w, ggml_cont(ctx, p));
    struct ggml_tensor * o = ggml_add(ctx, ggml_cont(ctx, v), g);
    ggml_set_output(o);
    ggml_set_output(m);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, o);
    ggml_build_forward_expand(gf, m);
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    size_t                     len  = 0;
    char *                     text = galloc_export_graph(gf, "layout", &buft, 1, NULL, NULL, &len);
    CHECK(text != NULL);
    if (text != NULL) {
        CHECK(strstr(text, "\"unary_op\"") && strstr(text, "\"glu_op\"") && strstr(text, "\"nb\"") && strstr(text, "\"view_offs\": 16") &&
              strstr(text, "\"external\": true") && strstr(text, "\"output\""));
        check_written("a ggml graph, written by galloc_export_graph", text, len);
    }
    free(text);
    ggml_free(ctx);
}

int main(void) {
    RUN(test_graph_files);
    RUN(test_graph_writer);
    RUN(test_exporter);
    return check_report("document-layout");
}
