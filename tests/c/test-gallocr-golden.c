// test-gallocr-golden.c: ggml_gallocr itself, on every golden graph, places each tensor as upstream did.
//
// Each golden graph document is rebuilt as ggml tensors and a ggml_cgraph
// (galloc-document-ggml.h) and planned through the ggml API
// (ggml_gallocr_new_n + reserve_n + alloc_graph) on virtual buffer types.
// Every tensor's buffer, chunk and offset (read back from its data pointer)
// and every buffer size must equal the planner's plan of the same document,
// which scripts/check-golden.sh proves equal to upstream's golden plan.

#include "check.h"
#include "files.h"
#include "gallocr-compare.h"
#include "galloc-document-ggml.h"
#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// plan one golden graph both ways; the number of tensors whose placement differs
static int compare_one(const char * name) {
    size_t len  = 0;
    char * text = golden_read(name, "graph", &len);
    CHECK(text != NULL);
    if (!text) {
        return 1;
    }
    struct galloc_error err;
    struct galloc_document doc;
    struct galloc_plan     plan;
    bool read = galloc_document_read(text, len, &doc, &err);
    free(text);
    CHECK(read);
    if (!read) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
        return 1;
    }
    bool planned = galloc_plan_graph(&doc.graph, &plan, &err);
    CHECK(planned);
    int differ = 1;
    if (planned) {
        differ = gallocr_compare_plan(&doc, &plan, name, &err);
        if (differ < 0) {
            fprintf(stderr, "  %s: %s\n", name, err.message);
        }
        galloc_plan_free(&plan);
    } else {
        fprintf(stderr, "  %s: %s\n", name, err.message);
    }
    galloc_document_free(&doc);
    return differ;
}

static void test_every_golden_graph(void) {
    int     n     = 0;
    char ** names = golden_names(&n);
    CHECK(names != NULL && n >= 58);
    int equal = 0;
    for (int i = 0; i < n; i++) {
        int differ = compare_one(names[i]);
        CHECK(differ == 0);
        equal += differ == 0;
    }
    printf("gallocr-golden: ggml_gallocr places every tensor of %d/%d golden graphs as planned\n", equal, n);
    golden_names_free(names);
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
    CHECK(strncmp(err.message, "tensors[0].alloc_size: 64 differs from nbytes (16)", 50) == 0);
    CHECK(g.ctx == NULL && g.tensors == NULL);
    galloc_document_free(&doc);
}

int main(void) {
    RUN(test_every_golden_graph);
    RUN(test_alloc_size_refused);
    return check_report("test-gallocr-golden");
}
