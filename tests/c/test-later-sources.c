// test-later-sources.c: graphs whose nodes read a source that comes later, planned as upstream does.
//
// ggml_backend_sched hands ggml_gallocr graphs where a node reads (or views) a node placed after
// it. Upstream's ggml_gallocr_alloc_graph_impl counts children and views over the whole graph,
// then, node by node, allocates the node's sources (ggml_gallocr_allocate_node on each src, in the
// node's buffer type) before the node: a later node is allocated at its first consumer's step and
// is already allocated at its own. A source released before its own step is allocated again there.
// The plans below are worked out by hand from those loops and the dynamic allocator's rules
// (spec/allocator.md), then checked through the document reader + planner and through
// ggml_gallocr on the same graph rebuilt as ggml tensors (nodes in the same order); the real
// graphs of this kind are tests/devices/placements (and ../shared/devices, scripts/check-devices.sh).

#include "check.h"
#include "galloc-document.h"
#include "galloc-explain.h"
#include "galloc-planner.h"
#include "galloc-whatif.h"
#include "gallocr-compare.h"

#include <string.h>

// one tensor's expected place: buffer type, offset (chunk 0), first and last step
struct want {
    int32_t  buffer;
    uint64_t offset;
    int32_t  first, last;
};

static bool read_and_plan(const char * text, struct galloc_document * doc, struct galloc_plan * plan) {
    struct galloc_error err;
    if (!galloc_document_read(text, strlen(text), doc, &err)) {
        CHECK(!"the document reads");
        fprintf(stderr, "  %s\n", err.message);
        return false;
    }
    if (!galloc_plan_graph(&doc->graph, plan, &err)) {
        CHECK(!"the graph plans");
        fprintf(stderr, "  %s\n", err.message);
        galloc_document_free(doc);
        return false;
    }
    return true;
}

// the first n tensors' places
static void check_places(const struct galloc_plan * plan, const struct want * want, int32_t n) {
    CHECK(plan->n_tensors >= n);
    for (int32_t t = 0; t < n && t < plan->n_tensors; t++) {
        const struct galloc_place * p = &plan->places[t];
        if (p->buffer != want[t].buffer || p->chunk != 0 || p->offset != want[t].offset || p->first_step != want[t].first ||
            p->last_step != want[t].last) {
            check_failures++;
            fprintf(stderr, "tensors[%d]: buffer %d chunk %d offset %llu steps %d..%d, expected buffer %d chunk 0 offset %llu steps %d..%d\n", t,
                    p->buffer, p->chunk, (unsigned long long) p->offset, p->first_step, p->last_step, want[t].buffer,
                    (unsigned long long) want[t].offset, want[t].first, want[t].last);
        }
    }
}

// ggml_gallocr on the same graph as ggml tensors places every tensor where the planner did
static void check_ggml_path(const struct galloc_document * doc, const struct galloc_plan * plan, const char * label) {
    struct galloc_error err;
    int differ = gallocr_compare_plan(doc, plan, label, &err);
    if (differ < 0) {
        fprintf(stderr, "  %s: %s\n", label, err.message);
    }
    CHECK(differ == 0);
}

// Two buffer types (CPU 0, GPU 1; alignment 32, f32 tensors), nodes in this order:
//   step 0  v = VIEW(b, offs 32)  [8]   a view of b, a later node (b is its src[0] too)
//   step 1  c = CONT(v)           [8]
//   step 2  b = CONT(a)           [16]
//   step 3  d = MUL_MAT(c, e)     [8]   e is a later node
//   step 4  e = CONT(a)           [16]  assigned to GPU, but allocated by d, in d's CPU
//   step 5  f = MUL_MAT(b, d)     [8]
//   step 6  g = MUL_MAT(e, f)     [8]   GPU, output
// and leaf a [16]. Children over the whole graph: a 2 (b, e), b 2 (v, f), v 1, c 1, e 2 (d, g),
// d 1, f 1; views: b 1 (v). Upstream's pass, CPU allocator (the last block grows):
//   leafs   a -> [0, 64)
//   step 0  src b -> [64, 128) (allocated before its own step); v is a view; b: 1 child left
//   step 1  c -> [128, 160); v consumed: b's view count 0, one child left: kept
//   step 2  b already allocated; a: 1 child left
//   step 3  src e -> [160, 224) in CPU; d -> [224, 256); c released [128, 160); e: 1 child left
//   step 4  e already allocated; a released [0, 64)
//   step 5  f -> best fit among [0, 64) and [128, 160): [128, 160); b released [64, 128)
//           (joins [0, 64)), d released [224, 256) (joins the last block)
//   step 6  g -> GPU [0, 32); CPU: e and f released
// CPU: one chunk of 256 bytes; GPU: one chunk of 32. v is at b's 64 + 32 = 96.
static const char * MINIMAL =
    "{\"format\": \"galloc-graph\", \"version\": 1, \"name\": \"later-sources\","
    " \"buffer_types\": [{\"name\": \"CPU\", \"alignment\": 32}, {\"name\": \"GPU\", \"alignment\": 32}],"
    " \"tensors\": ["
    "  {\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [16]},"
    "  {\"name\": \"v\", \"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [8], \"src\": [3], \"view_src\": 3, \"view_offs\": 32},"
    "  {\"name\": \"c\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [8], \"src\": [1]},"
    "  {\"name\": \"b\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [16], \"src\": [0]},"
    "  {\"name\": \"d\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [8], \"src\": [2, 5]},"
    "  {\"name\": \"e\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [16], \"src\": [0]},"
    "  {\"name\": \"f\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [8], \"src\": [3, 4]},"
    "  {\"name\": \"g\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [8], \"src\": [5, 6], \"flags\": [\"output\"]}],"
    " \"nodes\": [1, 2, 3, 4, 5, 6, 7], \"leafs\": [0],"
    " \"node_buffer_ids\": [0, 0, 0, 0, 1, 0, 1], \"leaf_buffer_ids\": [0]}";

static void test_minimal(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan(MINIMAL, &doc, &plan)) {
        return;
    }
    static const struct want want[] = {
        { 0, 0, -1, 4 },    // a: released at step 4
        { 0, 96, 0, 1 },    // v: a view, at b + 32, over its uses
        { 0, 128, 1, 3 },   // c
        { 0, 64, 0, 5 },    // b: from step 0, before its own step 2
        { 0, 224, 3, 5 },   // d
        { 0, 160, 3, 6 },   // e: from step 3, in d's buffer type
        { 0, 128, 5, 6 },   // f
        { 1, 0, 6, 6 },     // g
    };
    check_places(&plan, want, 8);
    CHECK(plan.places[1].how == GALLOC_HOW_VIEW && plan.places[1].parent == 3);
    CHECK_EQ_U64(plan.buffers[0].n_chunks, 1);
    CHECK_EQ_U64(plan.buffers[0].chunk_sizes[0], 256);
    CHECK_EQ_U64(plan.buffers[1].n_chunks, 1);
    CHECK_EQ_U64(plan.buffers[1].chunk_sizes[0], 32);
    CHECK_EQ_U64(plan.n_replaced, 0);
    CHECK(check_plan_no_overlap(&doc.graph, &plan) == 0);
    check_ggml_path(&doc, &plan, "later-sources");

    // the lifetime reports take it: the peak of CPU is at step 3 (a, b, c, d, e: 64 + 64 + 32 + 32 + 64)
    struct galloc_explain ex;
    struct galloc_error   err;
    bool explained = galloc_explain_plan(&doc, &plan, &ex, &err);
    CHECK(explained);
    if (explained) {
        CHECK_EQ_U64(ex.buffers[0].peak_live, 256);
        CHECK_EQ_U64(ex.buffers[0].peak_live, plan.buffers[0].peak_live);
        CHECK_EQ_U64(ex.buffers[0].peak_step, 3);
        galloc_explain_free(&ex);
    } else {
        fprintf(stderr, "  %s\n", err.message);
    }
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// A source whose only consumer comes before it is allocated there, released there, and allocated
// again at its own step (upstream's hash_node is no longer "allocated" after the release):
//   step 0  d = MUL_MAT(e)  [8]  output
//   step 1  x = CONT(a)     [8]  output
//   step 2  e = CONT(a)     [16]
// leaf a [16]; children: a 2 (x, e), e 1 (d). One buffer type, alignment 32:
//   leafs   a -> [0, 64)
//   step 0  src e -> [64, 128); d -> [128, 160); e released [64, 128)
//   step 1  x -> best fit [64, 96)
//   step 2  e allocated again: [96, 128) is too small, the last block: [160, 224); a released
// One chunk of 224. e's place is its second placement (steps 2..2); the lifetime reports, which
// hold one lifetime per tensor, refuse the plan rather than miss the first.
static const char * PLACED_TWICE =
    "{\"format\": \"galloc-graph\", \"version\": 1, \"name\": \"placed-twice\","
    " \"buffer_types\": [{\"name\": \"CPU\", \"alignment\": 32}],"
    " \"tensors\": ["
    "  {\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [16]},"
    "  {\"name\": \"d\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [8], \"src\": [3], \"flags\": [\"output\"]},"
    "  {\"name\": \"x\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [8], \"src\": [0], \"flags\": [\"output\"]},"
    "  {\"name\": \"e\", \"op\": \"CONT\", \"type\": \"f32\", \"ne\": [16], \"src\": [0]}],"
    " \"nodes\": [1, 2, 3], \"leafs\": [0]}";

static void test_placed_twice(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan(PLACED_TWICE, &doc, &plan)) {
        return;
    }
    static const struct want want[] = {
        { 0, 0, -1, 2 },   // a
        { 0, 128, 0, 2 },  // d
        { 0, 64, 1, 2 },   // x
        { 0, 160, 2, 2 },  // e: its second placement, kept to the end
    };
    check_places(&plan, want, 4);
    CHECK_EQ_U64(plan.buffers[0].chunk_sizes[0], 224);
    CHECK_EQ_U64(plan.buffers[0].peak_live, 192); // a + x + d + e at step 2 (e's first placement: 160 at step 0)
    CHECK_EQ_U64(plan.n_replaced, 1);
    CHECK(plan.places[3].freed == 0);
    check_ggml_path(&doc, &plan, "placed-twice");

    struct galloc_explain ex;
    struct galloc_error   err;
    bool explained = galloc_explain_plan(&doc, &plan, &ex, &err);
    CHECK(!explained);
    if (explained) {
        galloc_explain_free(&ex);
    } else {
        CHECK(err.status == GALLOC_STATUS_DECLINED && strstr(err.message, "1 tensors placed twice") != NULL);
    }
    struct galloc_whatif_tensors tensors;
    bool built = galloc_whatif_tensors_build(&doc.graph, &plan, &tensors, &err);
    CHECK(!built);
    if (built) {
        galloc_whatif_tensors_free(&tensors);
    } else {
        CHECK(err.status == GALLOC_STATUS_DECLINED && strstr(err.message, "placed twice") != NULL);
    }
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// The reader refused these before ("which comes later"). One buffer type (host, alignment 32),
// 16-byte tensors: leaf 0, node 1 = ADD(0, 0), and nodes [2, 1]:
//   2 = SCALE(1): step 0 allocates 1 -> [32, 64) (not in place: 0 has 2 children), then SCALE
//     takes 1 over in place (its only child); step 1 allocates 1 again (no longer allocated)
//     -> [64, 96), and 0 is released. Chunk 96, one tensor placed twice.
//   2 = VIEW of 1 (src 0): nothing at step 0; 1 -> [32, 64) at step 1. Chunk 64. The view gets
//     no memory: ggml_gallocr_alloc_graph meets it (its sources, then it) at step 0 only, when
//     its root has no buffer yet, and upstream's ggml_gallocr_init_tensor then leaves it alone.
static void test_formerly_refused(void) {
    static const char * scale =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}, {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0]},"
        " {\"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [4], \"src\": [1]}], \"nodes\": [2, 1], \"leafs\": [0]}";
    static const char * view =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}, {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 0]},"
        " {\"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [4], \"src\": [0], \"view_src\": 1}], \"nodes\": [2, 1], \"leafs\": [0]}";
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (read_and_plan(scale, &doc, &plan)) {
        static const struct want want[] = { { 0, 0, -1, 1 }, { 0, 64, 1, 1 }, { 0, 32, 0, 1 } };
        check_places(&plan, want, 3);
        CHECK(plan.places[2].how == GALLOC_HOW_INPLACE && plan.places[2].parent == 1);
        CHECK_EQ_U64(plan.buffers[0].chunk_sizes[0], 96);
        CHECK_EQ_U64(plan.n_inplace, 1);
        CHECK_EQ_U64(plan.n_replaced, 1);
        check_ggml_path(&doc, &plan, "scale-of-later");
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
    if (read_and_plan(view, &doc, &plan)) {
        static const struct want want[] = { { 0, 0, -1, 1 }, { 0, 32, 1, 1 } };
        check_places(&plan, want, 2);
        CHECK(plan.places[2].how == GALLOC_HOW_VIEW && plan.places[2].parent == 1 && plan.places[2].buffer == -1);
        CHECK(plan.places[2].first_step == 0 && plan.places[2].last_step == 0);
        CHECK_EQ_U64(plan.buffers[0].chunk_sizes[0], 64);
        CHECK_EQ_U64(plan.n_replaced, 0);
        check_ggml_path(&doc, &plan, "view-of-later");
        galloc_plan_free(&plan);
        galloc_document_free(&doc);
    }
}

// the reader still refuses what upstream cannot plan: a source or view_src in no list of the
// graph (its memory is nowhere), named by its place
static void test_still_refused(void) {
    static const char * missing =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}, {\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]},"
        " {\"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}, {\"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [4], \"src\": [2]}],"
        " \"nodes\": [3, 2], \"leafs\": [0]}";
    struct galloc_document doc;
    struct galloc_error    err;
    CHECK(!galloc_document_read(missing, strlen(missing), &doc, &err));
    CHECK(strcmp(err.message, "nodes[1]: tensors[2].src[1] = 1 is neither a node, a leaf, nor external (tensors missing)") == 0);

    // a tensor reading itself plans (ggml_cast's CPY does: the reader takes nothing else) unless
    // its op may run in place, which the planner refuses for graphs made elsewhere (the ggml
    // API): upstream's allocate_node would take it over in place of itself, at an address never
    // allocated
    static const char * self_cpy =
        "{\"tensors\": [{\"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]}, {\"op\": \"CPY\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1]}],"
        " \"nodes\": [1], \"leafs\": [0]}";
    bool read = galloc_document_read(self_cpy, strlen(self_cpy), &doc, &err);
    CHECK(read);
    if (read) {
        struct galloc_plan plan;
        bool planned = galloc_plan_graph(&doc.graph, &plan, &err);
        CHECK(planned);
        if (planned) {
            galloc_plan_free(&plan);
        }
        CHECK(doc.graph.tensors == doc.tensors);
        doc.tensors[1].op = GGML_OP_ADD;
        CHECK(!galloc_plan_graph(&doc.graph, &plan, &err));
        CHECK(err.status == GALLOC_STATUS_INVALID && strncmp(err.message, "tensors[1].src[1]: reads itself, and its op may run in place", 60) == 0);
        galloc_document_free(&doc);
    }
}

int main(void) {
    RUN(test_minimal);
    RUN(test_placed_twice);
    RUN(test_formerly_refused);
    RUN(test_still_refused);
    return check_report("test-later-sources");
}
