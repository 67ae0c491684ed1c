// test-llama.c: the llama-style decoder graphs (llama-synthetic.h) and the presets made from them.
//
// Every llama preset is built through the ggml API and planned by ggml_gallocr on
// virtual buffer types: all nodes placed, no overlap (tiny graphs, independent checker), and
// the exported document planned by galloc_plan_graph puts every node at the same chunk and
// offset; ggml_gallocr is built on that planner, so this part is self-consistency only (the
// exporter and the ggml API path), not truth. Graphs with an upstream-planned twin in
// tests/golden are compared with upstream's plan itself: ggml_gallocr's place of every tensor
// and every chunk size (run from the repo root).

#include "check.h"
#include "files.h"
#include "galloc-document.h"
#include "galloc-export.h"
#include "llama-synthetic.h"
#include "galloc-planner.h"
#include "galloc-presets.h"
#include "golden-compare.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// read + plan a document; false (and a message) on failure
static bool plan_document(const char * json, size_t len, struct galloc_document * doc, struct galloc_plan * plan) {
    struct galloc_error err;
    if (!galloc_document_read(json, len, doc, &err)) {
        fprintf(stderr, "  document: %s\n", err.message);
        return false;
    }
    if (!galloc_plan_graph(&doc->graph, plan, &err)) {
        fprintf(stderr, "  plan: %s\n", err.message);
        galloc_document_free(doc);
        return false;
    }
    return true;
}

// ggml_gallocr's placement of every node equals the exported document's plan
// (json: the graph exported before ggml_gallocr placed it; freed here)
static void check_round_trip(struct galloc_llama_graph * g, ggml_gallocr_t galloc, const char * name, char * json, size_t len) {
    CHECK(json != NULL);
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!json || !plan_document(json, len, &doc, &plan)) {
        check_failures++;
        free(json);
        return;
    }
    free(json);
    struct ggml_cgraph * gf = g->graph;
    CHECK_EQ_U64(doc.n_nodes, gf->n_nodes);
    for (int b = 0; b < g->n_bufts && b < plan.n_buffer_types; b++) {
        CHECK_EQ_U64(ggml_gallocr_get_buffer_size(galloc, b), plan.buffers[b].size);
    }

    // chunk (b, c) of the plan <-> the ggml buffer holding it, one to one
    ggml_backend_buffer_t chunk_buf[GALLOC_LLAMA_MAX_BUFTS][GALLOC_MAX_CHUNKS] = { { 0 } };
    int bad = 0, compared = 0;
    for (int i = 0; i < gf->n_nodes && i < doc.n_nodes && bad < 5; i++) {
        struct ggml_tensor * t = gf->nodes[i];
        const struct galloc_place * pl = &plan.places[doc.nodes[i]];
        if (pl->buffer < 0) {
            // only views of tensors allocated beforehand (the KV cache) are left to their root
            if (!(t->view_src && t->view_src->op == GGML_OP_NONE && t->view_src->buffer)) {
                fprintf(stderr, "  %s: node %d (%s) not placed by the planner\n", name, i, t->name);
                bad++;
            }
            continue;
        }
        if (!t->buffer || pl->buffer >= GALLOC_LLAMA_MAX_BUFTS || pl->chunk < 0 || pl->chunk >= GALLOC_MAX_CHUNKS) {
            fprintf(stderr, "  %s: node %d (%s) has no buffer\n", name, i, t->name);
            bad++;
            continue;
        }
        ggml_backend_buffer_t * slot = &chunk_buf[pl->buffer][pl->chunk];
        if (!*slot) {
            for (int b = 0; b < GALLOC_LLAMA_MAX_BUFTS; b++) {
                for (int c = 0; c < GALLOC_MAX_CHUNKS; c++) {
                    if (chunk_buf[b][c] == t->buffer) {
                        fprintf(stderr, "  %s: node %d (%s): one ggml buffer for two chunks\n", name, i, t->name);
                        bad++;
                    }
                }
            }
            *slot = t->buffer;
        }
        compared++;
        const size_t offset = (size_t) ((char *) t->data - (char *) ggml_backend_buffer_get_base(t->buffer));
        if (*slot != t->buffer || offset != pl->offset || ggml_backend_buffer_get_type(t->buffer) != g->bufts[pl->buffer]) {
            fprintf(stderr, "  %s: node %d (%s): ggml offset %zu, plan buffer %d chunk %d offset %llu\n", name, i, t->name,
                    offset, pl->buffer, pl->chunk, (unsigned long long) pl->offset);
            bad++;
        }
    }
    check_failures += bad;
    CHECK(compared > gf->n_nodes / 2); // most nodes live in the compute buffers
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

static void check_params(const struct galloc_llama_params * p, const char * name) {
    struct galloc_llama_graph * g = galloc_llama_build(p);
    CHECK(g != NULL);
    if (!g) {
        fprintf(stderr, "  %s: build failed\n", name);
        return;
    }
    size_t len = 0;
    char * json = galloc_export_graph(g->graph, name, g->bufts, g->n_bufts, g->node_buffer_ids, g->leaf_buffer_ids, &len);
    ggml_gallocr_t galloc = ggml_gallocr_new_n(g->bufts, g->n_bufts);
    CHECK(galloc != NULL);
    CHECK(ggml_gallocr_reserve_n(galloc, g->graph, g->node_buffer_ids, g->leaf_buffer_ids));
    CHECK(ggml_gallocr_alloc_graph(galloc, g->graph));
    check_all_placed(g->graph);
    if (p->n_embd <= 64) {
        check_no_overlap(g->graph);
    }
    if (p->max_size != SIZE_MAX) {
        // compute chunks stay within max_size (cache views point into the weights type)
        for (int i = 0; i < g->graph->n_nodes; i++) {
            struct ggml_tensor * t = g->graph->nodes[i];
            if (t->buffer && ggml_backend_buffer_get_type(t->buffer) != g->bufts[g->n_bufts - 1]) {
                // a tensor larger than max_size gets a chunk of its own
                size_t offs = (size_t) ((char *) t->data - (char *) ggml_backend_buffer_get_base(t->buffer));
                CHECK(offs + ggml_nbytes(t) <= p->max_size || (offs == 0 && !t->view_src));
                if (!(offs + ggml_nbytes(t) <= p->max_size || (offs == 0 && !t->view_src))) {
                    fprintf(stderr, "  %s: %s at %zu, %zu bytes\n", name, t->name, offs, ggml_nbytes(t));
                }
            }
        }
    }
    // the logits are the output, every layer wrote K and V
    struct ggml_tensor * out = ggml_graph_node(g->graph, -1);
    CHECK(strcmp(out->name, "result_output") == 0 && (out->flags & GGML_TENSOR_FLAG_OUTPUT));
    CHECK_EQ_U64(out->ne[0], p->n_vocab);
    CHECK_EQ_U64(out->ne[1], p->n_tokens);
    check_round_trip(g, galloc, name, json, len);
    ggml_gallocr_free(galloc);
    galloc_llama_free(g);
}

static void test_presets_plan(void) {
    for (int i = 0; i < galloc_llama_preset_count(); i++) {
        struct galloc_llama_params p;
        const char * name = galloc_llama_preset_name(i);
        CHECK(galloc_llama_preset_params(name, &p));
        check_params(&p, name);
    }
}

// ggml_gallocr places the graph of p as upstream placed its golden twin: every tensor's buffer
// type, chunk and offset and every chunk size equal the golden plan's (golden-compare.h), and the
// tensors are the golden graph's, index for index (name and op)
static int twins_equal; // golden twins placed exactly as upstream's plan

static void check_like_golden(const struct galloc_llama_params * p, const char * golden) {
    struct galloc_llama_graph * g = galloc_llama_build(p);
    CHECK(g != NULL);
    char path[256];
    snprintf(path, sizeof(path), "%s/%s.graph.json", GOLDEN_DIR, golden);
    size_t glen  = 0;
    char * gjson = read_whole_file(path, &glen);
    CHECK(gjson != NULL);
    struct galloc_document      gdoc;
    struct galloc_plan_document gplan;
    struct galloc_error         err;
    bool have_doc = gjson && galloc_document_read(gjson, glen, &gdoc, &err);
    free(gjson);
    snprintf(path, sizeof(path), "%s/%s.plan.json", GOLDEN_DIR, golden);
    bool have_plan = golden_plan_read(path, &gplan);
    CHECK(have_doc && have_plan);
    if (g && have_doc && have_plan) {
        ggml_gallocr_t ga = ggml_gallocr_new_n(g->bufts, g->n_bufts);
        CHECK(ggml_gallocr_reserve_n(ga, g->graph, g->node_buffer_ids, g->leaf_buffer_ids));
        CHECK(ggml_gallocr_alloc_graph(ga, g->graph));
        int32_t               n       = 0;
        struct ggml_tensor ** tensors = galloc_export_tensor_order(g->graph, &n);
        CHECK(tensors != NULL);
        CHECK_EQ_U64(n, gdoc.n_tensors);
        int named = 0;
        for (int32_t i = 0; tensors && i < n && i < gdoc.n_tensors; i++) {
            named += strcmp(tensors[i]->name, gdoc.tensor_names[i]) != 0 || (int) tensors[i]->op != (int) gdoc.tensors[i].op;
        }
        if (named) {
            fprintf(stderr, "  %s: %d tensors differ from the golden graph's by name or op\n", golden, named);
            check_failures++;
        }
        int differ = tensors ? gallocr_compare_golden(ga, g->bufts, g->n_bufts, tensors, n, &gplan, golden, NULL) : 1;
        if (differ) {
            fprintf(stderr, "  %s: %d differences from the golden plan\n", golden, differ);
            check_failures++;
        }
        twins_equal += !differ && !named;
        free(tensors);
        ggml_gallocr_free(ga);
    }
    if (have_doc) {
        galloc_document_free(&gdoc);
    }
    if (have_plan) {
        galloc_plan_document_free(&gplan);
    }
    galloc_llama_free(g);
}

static void test_golden_twins(void) {
    static const char * twins[][2] = {
        { "llama-tiny", "llama-tiny" },
        { "llama-tiny-setrows", "llama-tiny-setrows" },
        { "llama-tiny-2buft", "llama-tiny-2buft" },
        { "llama-tiny-max4k", "llama-tiny-max4k" },
        { "llama-7b-pp512", "llama-7b-like" },
        { "llama-7b-decode", "llama-7b-decode" },
    };
    struct galloc_llama_params p;
    for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++) {
        CHECK(galloc_llama_preset_params(twins[i][0], &p)); // through the preset list
        check_like_golden(&p, twins[i][1]);
    }
    // 7B split over two devices, and with a 1 GiB max buffer size
    CHECK(galloc_llama_preset_params("llama-7b-pp512", &p));
    p.n_bufts = 2;
    check_like_golden(&p, "llama-7b-like-2buft");
    CHECK(galloc_llama_preset_params("llama-7b-pp512", &p));
    p.max_size = (size_t) 1 << 30;
    check_like_golden(&p, "llama-7b-like-max1g");
    printf("llama: %d/8 preset graphs placed by ggml_gallocr as upstream placed their golden twins, tensor for tensor; "
           "the other presets and variants only as the planner plans their exported document (self-consistency)\n", twins_equal);
}

// variants without presets: GQA with flash attention and set_rows, two devices with chunks
static void test_variants(void) {
    struct galloc_llama_params p;
    CHECK(galloc_llama_preset_params("llama-tiny", &p));
    p.n_head_kv  = 2;
    p.flash_attn = true;
    p.set_rows   = true;
    p.kvtype     = GGML_TYPE_F16;
    check_params(&p, "tiny-gqa-flash-setrows");
    CHECK(galloc_llama_preset_params("llama-tiny", &p));
    p.n_layer  = 5;
    p.n_bufts  = 2;
    p.max_size = 2048;
    p.n_tokens = 1;
    check_params(&p, "tiny-5-layers-2dev-chunked-decode");
}

static void test_invalid(void) {
    struct galloc_llama_params p;
    CHECK(!galloc_llama_preset_params("no-such-model", &p));
    CHECK(galloc_llama_preset_document("no-such-model", NULL) == NULL);
    CHECK(galloc_llama_preset_name(-1) == NULL && galloc_llama_preset_name(galloc_llama_preset_count()) == NULL);
    CHECK(galloc_llama_preset_params("llama-tiny", &p));
    struct galloc_llama_params q = p;
    q.n_head = 5; // 64 not divisible
    CHECK(galloc_llama_build(&q) == NULL);
    q = p;
    q.n_kv = p.n_tokens - 1;
    CHECK(galloc_llama_build(&q) == NULL);
    q = p;
    q.n_bufts = 3;
    CHECK(galloc_llama_build(&q) == NULL);
    q = p;
    q.atype = GGML_TYPE_F16;
    CHECK(galloc_llama_build(&q) == NULL);
    CHECK(galloc_llama_build(NULL) == NULL);
    galloc_llama_free(NULL);
}

// the preset list offers real models as llama.cpp's graphs (cards): of the llama-style presets it
// lists the tiny teaching decoders and the synthetic ones that are golden twins (a golden graph of
// the same name), and every synthetic one says so in its description
static void test_listed(void) {
    int listed = 0;
    for (int i = 0; i < galloc_llama_preset_count(); i++) {
        const char * name = galloc_llama_preset_name(i), * desc = galloc_llama_preset_description(i);
        const bool tiny = strncmp(name, "llama-tiny", 10) == 0;
        char path[256];
        snprintf(path, sizeof(path), "%s/%s.plan.json", GOLDEN_DIR, name);
        FILE * twin = fopen(path, "rb");
        if (twin) {
            fclose(twin);
        }
        if (!tiny) {
            CHECK(strncmp(desc, "Synthetic llama-like", 20) == 0);
        }
        if (galloc_llama_preset_listed(i)) {
            CHECK(tiny || twin != NULL);
            listed++;
        } else {
            CHECK(!tiny && twin == NULL);
        }
        // a listed one is a galloc preset kept as data (c/presets): the generator's document byte
        // for byte, with its sentence; the others are no presets
        CHECK(galloc_preset_exists(name) == galloc_llama_preset_listed(i));
        size_t len = 0, data_len = 0;
        char * built = galloc_llama_preset_document(name, &len);
        char * data  = galloc_preset_document(name, &data_len);
        CHECK(built != NULL);
        if (galloc_llama_preset_listed(i)) {
            CHECK(data != NULL && data_len == len && built && memcmp(data, built, len) == 0);
            bool same_sentence = false;
            for (int k = 0; k < galloc_preset_count(); k++) {
                same_sentence = same_sentence || (strcmp(galloc_preset_name(k), name) == 0 && strcmp(galloc_preset_description(k), desc) == 0);
            }
            CHECK(same_sentence);
        } else {
            CHECK(data == NULL);
        }
        free(built);
        free(data);
    }
    CHECK(listed == 6); // llama-tiny, -flash, -setrows, -2buft, -max4k, llama-7b-decode
    CHECK(!galloc_llama_preset_listed(-1) && !galloc_llama_preset_listed(galloc_llama_preset_count()));
}

int main(void) {
    RUN(test_presets_plan);
    RUN(test_listed);
    RUN(test_golden_twins);
    RUN(test_variants);
    RUN(test_invalid);
    return check_report("test-llama");
}
