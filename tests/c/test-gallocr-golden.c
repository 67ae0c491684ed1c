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
#include "galloc-document-ggml.h"
#include "galloc-document.h"
#include "galloc-planner.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// which (buffer type, chunk) of the plan each ggml buffer stands for, learned as tensors are seen
struct chunk_map {
    ggml_backend_buffer_t buffers[64];
    int32_t               type[64];
    int32_t               chunk[64];
    int                   n;
};

// false when buffer was already seen as another (type, chunk), or (type, chunk) as another buffer
static bool chunk_map_agrees(struct chunk_map * m, ggml_backend_buffer_t buffer, int32_t type, int32_t chunk) {
    for (int i = 0; i < m->n; i++) {
        if (m->buffers[i] == buffer || (m->type[i] == type && m->chunk[i] == chunk)) {
            return m->buffers[i] == buffer && m->type[i] == type && m->chunk[i] == chunk;
        }
    }
    if (m->n == 64) {
        return false;
    }
    m->buffers[m->n] = buffer;
    m->type[m->n]    = type;
    m->chunk[m->n]   = chunk;
    m->n++;
    return true;
}

// plan one golden graph both ways; the number of tensors whose placement differs
static int compare_one(const char * name) {
    size_t len  = 0;
    char * text = golden_read(name, "graph", &len);
    CHECK(text != NULL);
    if (!text) {
        return 1;
    }
    char                   err[256];
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_ggml_graph g;
    bool read = galloc_document_read(text, len, &doc, err, sizeof(err));
    free(text);
    CHECK(read);
    if (!read) {
        fprintf(stderr, "  %s: %s\n", name, err);
        return 1;
    }
    bool planned = galloc_plan_graph(&doc.graph, &plan, err, sizeof(err));
    bool built   = planned && galloc_document_to_ggml(&doc, &g, err, sizeof(err));
    CHECK(planned && built);
    if (!built) {
        fprintf(stderr, "  %s: %s\n", name, err);
        if (planned) {
            galloc_plan_free(&plan);
        }
        galloc_document_free(&doc);
        return 1;
    }

    ggml_gallocr_t ga = ggml_gallocr_new_n(g.bufts, g.n_bufts);
    bool ok = ggml_gallocr_reserve_n(ga, g.graph, g.node_buffer_ids, g.leaf_buffer_ids) && ggml_gallocr_alloc_graph(ga, g.graph);
    CHECK(ok);
    int differ = ok ? 0 : 1;
    for (int b = 0; ok && b < g.n_bufts; b++) {
        if (ggml_gallocr_get_buffer_size(ga, b) != (size_t) plan.buffers[b].size) {
            fprintf(stderr, "  %s: buffer type %d: ggml_gallocr needs %zu bytes, the plan %llu\n", name, b,
                    ggml_gallocr_get_buffer_size(ga, b), (unsigned long long) plan.buffers[b].size);
            differ++;
        }
    }
    struct chunk_map map = { .n = 0 };
    for (int32_t i = 0; ok && i < doc.n_tensors; i++) {
        const struct galloc_place * place = &plan.places[i];
        const struct ggml_tensor *  t     = g.tensors[i];
        if (place->buffer < 0 || doc.tensors[i].external) {
            continue; // not placed by the allocator (outside the graph, or memory of its own)
        }
        const struct galloc_buffer_type * bt = &doc.buffer_types[place->buffer];
        bool placed = t->buffer != NULL && t->data != NULL;
        size_t offset = placed ? (size_t) ((const char *) t->data - (const char *) ggml_backend_buffer_get_base(t->buffer)) : 0;
        if (!placed || offset != place->offset || !chunk_map_agrees(&map, t->buffer, bt->allocator, place->chunk)) {
            if (differ < 3) {
                fprintf(stderr, "  %s: tensors[%d] (%s): ggml_gallocr put it at offset %zu%s, the plan at buffer %d chunk %d offset %llu\n",
                        name, i, doc.tensor_names[i], offset, placed ? "" : " (not placed)", place->buffer, place->chunk,
                        (unsigned long long) place->offset);
            }
            differ++;
        }
    }
    ggml_gallocr_free(ga);
    galloc_ggml_graph_free(&g);
    galloc_plan_free(&plan);
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
    char                   err[256];
    struct galloc_document doc;
    bool read = galloc_document_read(text, strlen(text), &doc, err, sizeof(err));
    CHECK(read);
    if (!read) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    struct galloc_ggml_graph g;
    CHECK(!galloc_document_to_ggml(&doc, &g, err, sizeof(err)));
    CHECK(strncmp(err, "tensors[0].alloc_size: 64 differs from nbytes (16)", 50) == 0);
    CHECK(g.ctx == NULL && g.tensors == NULL);
    galloc_document_free(&doc);
}

int main(void) {
    RUN(test_every_golden_graph);
    RUN(test_alloc_size_refused);
    return check_report("test-gallocr-golden");
}
