// test-gallocr-golden.c: ggml_gallocr itself places every tensor of every golden graph as upstream did.
//
// Each graph document of tests/golden (58 graphs) and tests/golden-real (244 graphs real
// llama.cpp code built, copied from ../shared) and tests/devices/placements (4 graphs llama.cpp's
// scheduler handed to ggml_gallocr, with the placement ggml made) is rebuilt as ggml tensors and a ggml_cgraph
// (galloc-document-ggml.h) and planned through the ggml API (ggml_gallocr_new_n + reserve_n +
// alloc_graph) on virtual buffer types. Every tensor's buffer type, chunk and offset (read back
// from its data pointer) and every chunk's size are compared with upstream's plan document
// next to it (golden-compare.h): the project's own planner is not consulted. Then the same
// graph is placed again without a reserve (the recorded assignment) and compared again.

#include "check.h"
#include "files.h"
#include "galloc-document-ggml.h"
#include "galloc-document.h"
#include "golden-compare.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct golden_compare_stats stats;

// plan dir/name.graph.json through ggml_gallocr and compare with dir/name.plan.json; the differences
static int compare_one(const char * dir, const char * name) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.graph.json", dir, name);
    size_t len  = 0;
    char * text = read_whole_file(path, &len);
    CHECK(text != NULL);
    if (!text) {
        return 1;
    }
    struct galloc_error    err;
    struct galloc_document doc;
    bool read = galloc_document_read(text, len, &doc, &err);
    free(text);
    CHECK(read);
    if (!read) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
        return 1;
    }
    struct galloc_plan_document golden;
    snprintf(path, sizeof(path), "%s/%s.plan.json", dir, name);
    bool have_golden = golden_plan_read(path, &golden);
    CHECK(have_golden);
    struct galloc_ggml_graph g;
    bool built = have_golden && galloc_document_to_ggml(&doc, &g, &err);
    CHECK(!have_golden || built);
    int differ = 1;
    if (built) {
        ggml_gallocr_t ga = ggml_gallocr_new_n(g.bufts, g.n_bufts);
        bool ok = ggml_gallocr_reserve_n(ga, g.graph, g.node_buffer_ids, g.leaf_buffer_ids) && ggml_gallocr_alloc_graph(ga, g.graph);
        CHECK(ok);
        differ = ok ? gallocr_compare_golden(ga, g.bufts, g.n_bufts, g.tensors, doc.n_tensors, &golden, name, &stats) : 1;
        // placed again from the recorded assignment: the same places
        ok = ok && ggml_gallocr_alloc_graph(ga, g.graph);
        CHECK(ok);
        differ += ok ? gallocr_compare_golden(ga, g.bufts, g.n_bufts, g.tensors, doc.n_tensors, &golden, name, NULL) : 1;
        ggml_gallocr_free(ga);
        galloc_ggml_graph_free(&g);
    } else if (have_golden) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
    }
    if (have_golden) {
        galloc_plan_document_free(&golden);
    }
    galloc_document_free(&doc);
    return differ;
}

static void compare_dir(const char * dir, int expected) {
    int     n     = 0;
    char ** names = golden_names_in(dir, &n);
    CHECK(names != NULL);
    CHECK_EQ_U64(n, expected);
    int equal = 0;
    for (int i = 0; i < n; i++) {
        int differ = compare_one(dir, names[i]);
        CHECK(differ == 0);
        equal += differ == 0;
    }
    printf("gallocr-golden: ggml_gallocr places every tensor of %d/%d graphs of %s as upstream's plan does\n", equal, n, dir);
    golden_names_free(names);
}

static void test_golden(void) {
    compare_dir(GOLDEN_DIR, 58);
}

static void test_golden_real(void) {
    compare_dir("tests/golden-real", 244);
    compare_dir("tests/devices/placements", 4); // the scheduler's graphs, sources after their consumer among them
    printf("gallocr-golden: over the three sets, %d tensor places and %d chunk sizes compared with upstream's; %d chunks without a tensor in them "
           "checked through their buffer's total only\n", stats.placed, stats.chunks, stats.chunks_by_sum);
}

// what a document that ggml's buffer types cannot express gives
static void test_alloc_size_refused(void) {
    const char * text =
        "{\"format\": \"galloc-graph\", \"version\": 1, \"buffer_types\": [{\"name\": \"cpu\", \"alignment\": 8}],"
        " \"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"], \"alloc_size\": 64},"
        "               {\"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [4], \"src\": [0]}],"
        " \"outputs\": [1]}";
    struct galloc_error err;
    struct galloc_document doc;
    bool read = galloc_document_read(text, strlen(text), &doc, &err);
    CHECK(read);
    if (!read) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    struct galloc_ggml_graph g;
    CHECK(!galloc_document_to_ggml(&doc, &g, &err));
    CHECK(err.status == GALLOC_STATUS_INVALID);
    CHECK(strncmp(err.message, "tensors[0].alloc_size: ", 23) == 0); // the message names the place
    CHECK(g.ctx == NULL && g.tensors == NULL);
    galloc_document_free(&doc);
}

int main(void) {
    RUN(test_golden);
    RUN(test_golden_real);
    RUN(test_alloc_size_refused);
    return check_report("test-gallocr-golden");
}
