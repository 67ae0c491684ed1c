// test-real-graphs.c: what real graphs bring that hand-made ones did not, read and planned exactly.
//
// Ops, unary ops, GLU ops and types newer than the tables are kept by name, planned as
// ops that may not run in place, warned about once and written back; zero-element
// tensors get 0-byte allocations; a size per buffer type ("alloc_sizes") sizes a node
// that takes over its parent in place with the parent's buffer type, as upstream's
// ggml_gallocr_allocate_node / ggml_gallocr_free_extra_space do. Expected plans are
// derived by hand in the comments (the dynamic allocator rules of spec/allocator.md).

#include "check.h"
#include "galloc-document.h"
#include "galloc-export.h"
#include "galloc-planner.h"
#include "galloc-virtual.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "read-plan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t chunk0(const struct galloc_plan * plan, int b) {
    return plan->buffers[b].n_chunks > 0 ? plan->buffers[b].chunk_sizes[0] : 0;
}

// x0 (input, f32[8] = 32 bytes) consumed once by x1 = OP(x0), f32[8]; x1 is the output.
// An op that may run in place takes over x0: one chunk of 32. Any other op gets fresh bytes
// while x0 is still live: x1 at 32, chunk 64.
#define X0_X1(op) \
    "{\"tensors\": [{\"name\": \"x0\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]}," \
    " {\"name\": \"x1\", \"op\": \"" op "\", \"type\": \"f32\", \"ne\": [8], \"src\": [0], \"flags\": [\"output\"]}], \"outputs\": [1]}"

static void test_unknown_op_not_in_place(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (plan_doc_text(X0_X1("ADD"), &doc, &plan)) {
        CHECK_EQ_U64(chunk0(&plan, 0), 32);
        CHECK(plan.places[1].how == GALLOC_HOW_INPLACE && plan.places[1].offset == 0);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    if (plan_doc_text(X0_X1("GATED_DELTA_NET_V2"), &doc, &plan)) {
        CHECK_EQ_U64(chunk0(&plan, 0), 64);
        CHECK(plan.places[1].how != GALLOC_HOW_INPLACE);
        CHECK_EQ_U64(plan.places[1].offset, 32);
        CHECK(doc.n_unknown == 1 && doc.tensors[1].op == GALLOC_DOCUMENT_UNKNOWN);
        CHECK(strcmp(galloc_document_op_name(&doc, 1), "GATED_DELTA_NET_V2") == 0);
        char warning[256];
        CHECK(galloc_document_warning(&doc, warning, sizeof(warning)));
        CHECK(strcmp(warning, "names the tables of ggml 0.21.0 do not know (kept; such ops planned as not in place): "
                              "op GATED_DELTA_NET_V2 (1 tensor)") == 0);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    // a known document has nothing to warn about
    if (read_doc_text(X0_X1("ADD"), &doc)) {
        char warning[64] = "x";
        CHECK(!galloc_document_warning(&doc, warning, sizeof(warning)) && warning[0] == '\0');
        galloc_document_free(&doc);
    }
    // ops of ggml 0.21.0 the old tables lacked are known now, with upstream's in-place rule
    if (plan_doc_text(X0_X1("LIGHTNING_INDEXER"), &doc, &plan)) {
        CHECK(doc.n_unknown == 0 && doc.tensors[1].op == GGML_OP_LIGHTNING_INDEXER);
        CHECK_EQ_U64(chunk0(&plan, 0), 64);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
}

// names of every kind kept, counted, written back, and read again to the same document
static void test_unknown_names_round_trip(void) {
    const char * text =
        "{\"type_traits\": [{\"name\": \"fp3\", \"blck_size\": 64, \"type_size\": 26}, {\"name\": \"q4_0\", \"blck_size\": 32, \"type_size\": 18}],"
        " \"tensors\": [{\"name\": \"w\", \"op\": \"NONE\", \"type\": \"fp3\", \"ne\": [128, 3], \"flags\": [\"input\"]},"
        " {\"op\": \"UNARY\", \"unary_op\": \"SQUAREPLUS\", \"type\": \"f32\", \"ne\": [8], \"src\": [0]},"
        " {\"op\": \"GLU\", \"glu_op\": \"SOFTGLU\", \"type\": \"f32\", \"ne\": [4], \"src\": [1]},"
        " {\"op\": \"DSV9_MIX\", \"type\": \"fp3\", \"ne\": [64, 0], \"src\": [2]},"
        " {\"op\": \"DSV9_MIX\", \"type\": \"f32\", \"ne\": [4], \"src\": [3, 2]}], \"outputs\": [4]}";
    struct galloc_document doc;
    if (!read_doc_text(text, &doc)) {
        CHECK(false);
        return;
    }
    // fp3: 128/64 blocks of 26 bytes per row, 3 rows
    CHECK_EQ_U64(doc.tensors[0].nb[1], 52);
    CHECK_EQ_U64(doc.tensors[0].nbytes, 156);
    CHECK_EQ_U64(doc.tensors[3].nbytes, 0);
    CHECK(doc.n_unknown == 4);
    CHECK(strcmp(galloc_document_type_name(&doc, 0), "fp3") == 0 && strcmp(galloc_document_op_desc(&doc, 1), "SQUAREPLUS") == 0 &&
          strcmp(galloc_document_op_desc(&doc, 2), "SOFTGLU") == 0 && strcmp(galloc_document_op_name(&doc, 2), "GLU") == 0 &&
          strcmp(galloc_document_op_name(&doc, 4), "DSV9_MIX") == 0);
    char warning[512];
    CHECK(galloc_document_warning(&doc, warning, sizeof(warning)));
    CHECK(strcmp(warning, "names the tables of ggml 0.21.0 do not know (kept; such ops planned as not in place): "
                          "type fp3 (64 elements in 26 bytes per block, 2 tensors), unary op SQUAREPLUS (1 tensor), "
                          "GLU op SOFTGLU (1 tensor), op DSV9_MIX (2 tensors)") == 0);
    size_t len  = 0;
    char * out  = galloc_document_write_graph(&doc, &len);
    CHECK(out != NULL && strstr(out, "\"type_traits\": [ { \"name\": \"fp3\", \"blck_size\": 64, \"type_size\": 26 } ]") != NULL);
    CHECK(out != NULL && strstr(out, "\"op\": \"UNARY\", \"unary_op\": \"SQUAREPLUS\", \"type\": \"f32\"") != NULL);
    CHECK(out != NULL && strstr(out, "\"op\": \"GLU\", \"glu_op\": \"SOFTGLU\"") != NULL);
    CHECK(out != NULL && strstr(out, "\"op\": \"DSV9_MIX\", \"type\": \"fp3\", \"ne\": [64, 0]") != NULL);
    struct galloc_document again;
    if (out != NULL && read_doc_text(out, &again)) {
        size_t len2 = 0;
        char * out2 = galloc_document_write_graph(&again, &len2);
        CHECK(out2 != NULL && len2 == len && memcmp(out, out2, len) == 0);
        CHECK(again.n_unknown == 4 && again.tensors[0].nbytes == 156);
        free(out2);
        galloc_document_free(&again);
    } else {
        CHECK(false);
    }
    free(out);
    galloc_document_free(&doc);
}

// zero-element tensors: 0 bytes, placed as upstream places a 0-byte allocation; a view without
// bytes may sit at any offset, as ggml checks no range for it
static void test_zero_elements(void) {
    // a (input, 32 bytes) at 0. z = GET_ROWS(a) of 0 rows: alloc(0) takes the last free block at
    // offset 32 (reuse = 32 - 32 - 0 = 0) and uses none of it. v: a 0-byte view of a at 1000 (past a's
    // end: allowed). y = ADD(a, z, v): a is consumed for the last time but still has the view v, z has
    // another shape, v is a view: no take-over; y grows the chunk at 32: chunk 64.
    const char * text =
        "{\"buffer_types\": [{\"name\": \"cpu\", \"alignment\": 32}],"
        " \"tensors\": [{\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]},"
        " {\"name\": \"z\", \"op\": \"GET_ROWS\", \"type\": \"f32\", \"ne\": [8, 0], \"src\": [0]},"
        " {\"name\": \"v\", \"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [0], \"src\": [0], \"view_src\": 0, \"view_offs\": 1000},"
        " {\"name\": \"y\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [8], \"src\": [0, 1, 2], \"flags\": [\"output\"]}],"
        " \"outputs\": [3]}";
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!plan_doc_text(text, &doc, &plan)) {
        CHECK(false);
        return;
    }
    CHECK_EQ_U64(doc.tensors[1].nbytes, 0);
    CHECK_EQ_U64(plan.places[1].size, 0);
    CHECK_EQ_U64(plan.places[1].offset, 32);
    CHECK(plan.places[3].how != GALLOC_HOW_INPLACE);
    CHECK_EQ_U64(plan.places[3].offset, 32);
    CHECK_EQ_U64(chunk0(&plan, 0), 64);
    galloc_plan_free(&plan);
    galloc_document_free(&doc);

    // a view with bytes is still held to its root's range
    struct galloc_document bad;
    struct galloc_error    err;
    const char *           past =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]},"
        " {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [1], \"src\": [0], \"view_src\": 0, \"view_offs\": 32}], \"outputs\": [1]}";
    CHECK(!galloc_document_read(past, strlen(past), &bad, &err));
    const char * far =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]},"
        " {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [0], \"src\": [0], \"view_src\": 0, \"view_offs\": 1099511627777}], \"outputs\": [1]}";
    CHECK(!galloc_document_read(far, strlen(far), &bad, &err));
    CHECK(strcmp(err.message, "tensors[1].view_offs: 1099511627777 is over the limit of 1099511627776 bytes (2^40)") == 0);
}

// the example: buffer types gpu (get_alloc_size = nbytes + 64) and cpu; x1 (32 bytes) on
// cpu, x2 = scale(x1) on gpu. Upstream sizes x2, taking over x1 in place, with x1's buffer type
// (cpu: 32 <= 32), so x2 lives in x1's cpu bytes: cpu chunk [32], gpu no chunk. Sized with its own
// type (gpu: 96 > 32) x2 could not take over and would get gpu [96].
const char * const PADDED_DOC =
    "{\"buffer_types\": [{\"name\": \"gpu\", \"alignment\": 32}, {\"name\": \"cpu\", \"alignment\": 32}],"
    " \"tensors\": [{\"name\": \"x1\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"], \"alloc_sizes\": [96, null]},"
    " {\"name\": \"x2\", \"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [8], \"src\": [0], \"flags\": [\"output\"], \"alloc_sizes\": [96, null]}],"
    " \"nodes\": [1], \"leafs\": [0], \"node_buffer_ids\": [0], \"leaf_buffer_ids\": [1]}";

static void test_parent_buffer_type_sizes_in_place(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!plan_doc_text(PADDED_DOC, &doc, &plan)) {
        CHECK(false);
        return;
    }
    CHECK(plan.places[1].how == GALLOC_HOW_INPLACE && plan.places[1].buffer == 1 && plan.places[1].offset == 0);
    CHECK_EQ_U64(plan.places[1].size, 32);
    CHECK(plan.buffers[0].n_chunks == 0);
    CHECK(plan.buffers[1].n_chunks == 1);
    CHECK_EQ_U64(chunk0(&plan, 1), 32);
    // written back as read
    size_t len = 0;
    char * out = galloc_document_write_graph(&doc, &len);
    CHECK(out != NULL && strstr(out, "\"alloc_sizes\": [96, null]") != NULL);
    struct galloc_document again;
    if (out != NULL && read_doc_text(out, &again)) {
        CHECK(again.tensor_alloc_sizes[0] >= 0 && again.graph.alloc_size != NULL &&
              again.graph.alloc_size(again.graph.user, 1, 0) == 96 && again.graph.alloc_size(again.graph.user, 1, 1) == 32);
        galloc_document_free(&again);
    } else {
        CHECK(false);
    }
    free(out);
    galloc_plan_free(&plan);
    galloc_document_free(&doc);

    // the same graph with x2 on gpu and one size per tensor (version 1 documents, "alloc_size": 96) cannot
    // say that x2 needs only 32 bytes on cpu: x2 does not fit x1 and gets gpu [96]
    const char * single =
        "{\"buffer_types\": [{\"name\": \"gpu\", \"alignment\": 32}, {\"name\": \"cpu\", \"alignment\": 32}],"
        " \"tensors\": [{\"name\": \"x1\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"]},"
        " {\"name\": \"x2\", \"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [8], \"src\": [0], \"flags\": [\"output\"], \"alloc_size\": 96}],"
        " \"nodes\": [1], \"leafs\": [0], \"node_buffer_ids\": [0], \"leaf_buffer_ids\": [1]}";
    if (plan_doc_text(single, &doc, &plan)) {
        CHECK(plan.places[1].how != GALLOC_HOW_INPLACE && plan.places[1].buffer == 0);
        CHECK_EQ_U64(chunk0(&plan, 0), 96);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
}

// a node in place over a parent of a padding type is sized with the parent's type, also for what it
// gives back of the parent's tail and for freeing it later (ggml_gallocr_free_extra_space, _free_node)
static void test_in_place_sized_by_parent_type(void) {
    const char * text =
        "{\"buffer_types\": [{\"name\": \"gpu\", \"alignment\": 32}, {\"name\": \"cpu\", \"alignment\": 32}],"
        " \"tensors\": [{\"name\": \"x\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [16], \"flags\": [\"input\"], \"alloc_sizes\": [128, null]},"
        " {\"name\": \"p\", \"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [16], \"src\": [0], \"alloc_sizes\": [128, null]},"
        " {\"name\": \"n\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [16], \"src\": [1, 0], \"alloc_sizes\": [128, null]},"
        " {\"name\": \"q\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [16], \"src\": [2], \"flags\": [\"output\"], \"alloc_sizes\": [128, null]}],"
        " \"nodes\": [1, 2, 3], \"leafs\": [0], \"node_buffer_ids\": [0, 1, 0], \"leaf_buffer_ids\": [0]}";
    // x on gpu at 0 (128). p = SCALE(x) on gpu: x has 2 children (p, n): not in place; p at 128 (128).
    // n = ADD(p, x) on cpu: p consumed for the last time, same layout: in place over p on gpu, sized with
    // gpu's 128 (with cpu's 64 it would give back 64 bytes at 192). x freed after n: [0, 128) free.
    // q = CONT(n) on gpu: 128 bytes: the freed block [0, 128) fits: q at 0. gpu chunk 256, cpu none.
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!plan_doc_text(text, &doc, &plan)) {
        CHECK(false);
        return;
    }
    CHECK(plan.places[2].how == GALLOC_HOW_INPLACE && plan.places[2].buffer == 0 && plan.places[2].offset == 128);
    CHECK_EQ_U64(plan.places[2].size, 128);
    CHECK(plan.places[3].buffer == 0);
    CHECK_EQ_U64(plan.places[3].offset, 0);
    CHECK_EQ_U64(chunk0(&plan, 0), 256);
    CHECK(plan.buffers[1].n_chunks == 0);
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// the example through the ggml API: ggml_gallocr on a padding virtual type (gpu, +64)
// and a plain one (cpu) puts x2 in x1's cpu bytes; the exporter writes each type's size, and the
// document plans to the same place
static void test_padded_type_gallocr_and_export(void) {
    struct ggml_init_params params = { 8 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context *   ctx    = ggml_init(params);
    struct ggml_tensor *    x1     = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_name(x1, "x1");
    ggml_set_input(x1);
    struct ggml_tensor * x2 = ggml_scale(ctx, x1, 2.0f);
    ggml_set_name(x2, "x2");
    ggml_set_output(x2);
    struct ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, x2);
    ggml_backend_buffer_type_t bufts[2] = { galloc_virtual_buft_new_padded("gpu", 32, SIZE_MAX, 64),
                                            galloc_virtual_buft_new("cpu", 32, SIZE_MAX) };
    CHECK(ggml_backend_buft_get_alloc_size(bufts[0], x1) == 96 && ggml_backend_buft_get_alloc_size(bufts[1], x1) == 32);
    int node_ids[1] = { 0 }, leaf_ids[1] = { 1 };

    size_t len  = 0;
    char * json = galloc_export_graph(graph, "padded", bufts, 2, node_ids, leaf_ids, &len);
    CHECK(json != NULL && strstr(json, "\"name\": \"x1\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8], \"flags\": [\"input\"], \"alloc_sizes\": [96, null]") != NULL);
    CHECK(json != NULL && strstr(json, "\"type_traits\": [ { \"name\": \"f32\", \"blck_size\": 1, \"type_size\": 4 } ]") != NULL);
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (json != NULL && plan_doc_text(json, &doc, &plan)) {
        CHECK(plan.places[1].how == GALLOC_HOW_INPLACE && plan.places[1].buffer == 1 && plan.places[1].offset == 0);
        CHECK(plan.buffers[0].n_chunks == 0 && chunk0(&plan, 1) == 32);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    } else {
        CHECK(false);
    }
    free(json);

    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, 2);
    CHECK(ggml_gallocr_reserve_n(galloc, graph, node_ids, leaf_ids));
    CHECK_EQ_U64(ggml_gallocr_get_buffer_size(galloc, 0), 0);
    CHECK_EQ_U64(ggml_gallocr_get_buffer_size(galloc, 1), 32);
    CHECK(ggml_gallocr_alloc_graph(galloc, graph));
    CHECK(x2->data == x1->data && x2->buffer != NULL && ggml_backend_buffer_get_type(x2->buffer) == bufts[1]);
    ggml_gallocr_free(galloc);
    galloc_virtual_buft_free(bufts[0]);
    galloc_virtual_buft_free(bufts[1]);
    ggml_free(ctx);
}

// what the exporter writes, the reader accepts: names cut inside a UTF-8 sequence, clashing long
// buffer type names, tensors with data and no buffer (external, never placed)
static void test_export_names_and_external(void) {
    struct ggml_init_params params = { 8 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context *   ctx    = ggml_init(params);
    struct ggml_tensor *    w      = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    static float            w_data[8];
    w->data = w_data; // as a context that allocates its tensors leaves them: data, no buffer
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_add(ctx, w, x);
    ggml_set_output(y);
    // 62 ASCII bytes and a 2-byte 'é': ggml_set_name keeps 63 bytes, cutting the 'é' in half
    char name[80];
    memset(name, 'a', 62);
    memcpy(name + 62, "\xC3\xA9", 3);
    ggml_set_name(y, name);
    CHECK(strlen(y->name) == 63 && (unsigned char) y->name[62] == 0xC3);
    struct ggml_cgraph * graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, y);

    // two distinct buffer types with the same 62-byte name
    char long_name[63];
    memset(long_name, 'b', 62);
    long_name[62] = '\0';
    ggml_backend_buffer_type_t bufts[2] = { galloc_virtual_buft_new(long_name, 32, SIZE_MAX), galloc_virtual_buft_new(long_name, 32, SIZE_MAX) };
    int    node_ids[1] = { 1 }, leaf_ids[2] = { 0, 0 };
    size_t len  = 0;
    char * json = galloc_export_graph(graph, "names \xF0\x9F", bufts, 2, node_ids, leaf_ids, &len);
    CHECK(json != NULL);
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (json != NULL && plan_doc_text(json, &doc, &plan)) {
        int32_t yi = doc.nodes[0], wi = doc.tensors[yi].src[0];
        CHECK(strlen(doc.tensor_names[yi]) == 63 && doc.tensor_names[yi][62] == '?');
        CHECK(strcmp(doc.name, "names ??") == 0); // each byte of the cut 4-byte sequence
        CHECK(doc.n_buffer_types == 2 && strcmp(doc.buffer_type_names[0], long_name) == 0 && strlen(doc.buffer_type_names[1]) == 63 &&
              strcmp(doc.buffer_type_names[1] + 61, "#1") == 0);
        CHECK(doc.buffer_types[1].allocator == 1); // still two allocators
        CHECK(doc.tensors[wi].external && doc.tensor_buffer_type[wi] == -1 && plan.places[wi].how == GALLOC_HOW_EXTERNAL);
        // y = ADD(w, x): w (slot 0) is external, so y takes over x (slot 1, a leaf of buffer type 0)
        CHECK(plan.places[yi].how == GALLOC_HOW_INPLACE && plan.places[yi].parent == doc.tensors[yi].src[1] && plan.places[yi].buffer == 0);
        // and back: "external": true is written and read again
        char * again = galloc_document_write_graph(&doc, NULL);
        CHECK(again != NULL && strstr(again, "\"external\": true") != NULL);
        struct galloc_document doc2;
        if (again != NULL && read_doc_text(again, &doc2)) {
            CHECK(doc2.tensors[wi].external);
            galloc_document_free(&doc2);
        } else {
            CHECK(false);
        }
        free(again);
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    } else {
        CHECK(false);
    }
    free(json);

    // ggml_gallocr leaves w alone too
    ggml_gallocr_t galloc = ggml_gallocr_new_n(bufts, 2);
    CHECK(ggml_gallocr_reserve_n(galloc, graph, node_ids, leaf_ids));
    CHECK(ggml_gallocr_alloc_graph(galloc, graph));
    CHECK(w->data == w_data && y->data == x->data && y->data != NULL);
    ggml_gallocr_free(galloc);
    galloc_virtual_buft_free(bufts[0]);
    galloc_virtual_buft_free(bufts[1]);
    ggml_free(ctx);
}

int main(void) {
    RUN(test_unknown_op_not_in_place);
    RUN(test_unknown_names_round_trip);
    RUN(test_zero_elements);
    RUN(test_parent_buffer_type_sizes_in_place);
    RUN(test_in_place_sized_by_parent_type);
    RUN(test_padded_type_gallocr_and_export);
    RUN(test_export_names_and_external);
    return check_report("test-real-graphs");
}
