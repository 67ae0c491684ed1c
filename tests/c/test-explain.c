// test-explain.c: the explanation of a plan (galloc-explain.h) and layer names (galloc-layer.h).
//
// Small graphs whose peak, live set, series and chunk-raising tensors are derived by hand
// (the derivation is written next to each case), a comparison of two of them, the layer
// parser's table, and on every golden graph the invariants against the planner's own
// counting: the live series' maximum is the plan's peak_live, the last high-water mark is
// the allocator's size, the live set at every step sums to the series.

#include "check.h"
#include "files.h"
#include "galloc-document.h"
#include "galloc-explain.h"
#include "galloc-layer.h"
#include "galloc-planner.h"
#include "galloc-whatif.h"
#include "read-plan.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// a series kept where it changes: points from index 0, increasing, each a change; its n entries
static void check_series(const struct galloc_explain_series * s, const uint64_t * want, int n) {
    CHECK(s->n >= 1 && s->at[0] == 0);
    for (int32_t k = 1; k < s->n; k++) {
        CHECK(s->at[k] > s->at[k - 1] && s->at[k] < n && s->bytes[k] != s->bytes[k - 1]);
    }
    uint64_t * got = malloc((size_t) n * sizeof(uint64_t));
    galloc_explain_series_expand(s, n, got);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_U64(got[i], want[i]);
        CHECK_EQ_U64(galloc_explain_series_at(s, i), want[i]);
    }
    free(got);
}

// both series of every allocator against a dense count of its own, from the plan's places and
// galloc-explain.h's rules alone: live at index i = the rounded sizes of the tensors held over
// step i - 1 (one placed in place from the step after its placement); high water at i = per chunk
// the highest end placed at a step before i, summed. Steps x buffer types: small graphs only.
static void check_series_dense(const struct galloc_document * doc, const struct galloc_plan * plan, const struct galloc_explain * ex) {
    int32_t    ns   = ex->n_steps + 1;
    uint64_t * live = calloc((size_t) ns, sizeof(uint64_t));
    uint64_t * high = calloc((size_t) ns, sizeof(uint64_t));
    uint64_t * ends = calloc((size_t) ns * GALLOC_MAX_CHUNKS, sizeof(uint64_t)); // per index and chunk: highest end placed there
    for (int32_t b = 0; b < ex->n_buffers; b++) {
        const struct galloc_explain_buffer * eb = &ex->buffers[b];
        if (eb->shared_with >= 0) {
            CHECK(eb->live_bytes.n == 0 && eb->high_water.n == 0);
            continue;
        }
        memset(live, 0, (size_t) ns * sizeof(uint64_t));
        memset(ends, 0, (size_t) ns * GALLOC_MAX_CHUNKS * sizeof(uint64_t));
        for (int32_t t = 0; t < plan->n_tensors; t++) {
            const struct galloc_place * p = &plan->places[t];
            bool inplace = p->how == GALLOC_HOW_INPLACE;
            if ((!galloc_how_allocates(p->how) && !inplace) || doc->buffer_types[p->buffer].allocator != b) {
                continue;
            }
            uint64_t bytes = (p->size + eb->alignment - 1) / eb->alignment * eb->alignment;
            for (int32_t s = inplace ? p->first_step + 1 : p->first_step; s <= p->last_step; s++) {
                live[s + 1] += bytes;
            }
            if (!inplace) {
                uint64_t * e = &ends[(size_t) (p->first_step + 1) * GALLOC_MAX_CHUNKS + (size_t) p->chunk];
                *e = p->offset + bytes > *e ? p->offset + bytes : *e;
            }
        }
        uint64_t highest[GALLOC_MAX_CHUNKS] = { 0 };
        for (int32_t i = 0; i < ns; i++) {
            high[i] = 0;
            for (int c = 0; c < GALLOC_MAX_CHUNKS; c++) {
                uint64_t e = ends[(size_t) i * GALLOC_MAX_CHUNKS + (size_t) c];
                highest[c] = e > highest[c] ? e : highest[c];
                high[i] += highest[c];
            }
        }
        check_series(&eb->live_bytes, live, ns);
        check_series(&eb->high_water, high, ns);
    }
    free(live);
    free(high);
    free(ends);
}

// A chain, alignment 16, no max size. Bytes (rounded): inp 16, x-0 32, y-0 64, x-1 16, out 16.
//   step -1: inp @0                      live 16  high water 16
//   step  0: x-0 @16 (last block)        live 48  hw 48    then inp freed: [0,16) free
//   step  1: y-0 @48 ([0,16) too small)  live 96  hw 112   then x-0 freed: [0,48) free
//   step  2: x-1 @0 (best fit)           live 80  hw 112   then y-0 freed: [16, ...) free
//   step  3: out @16 (last block)        live 32  hw 112   then x-1 freed
// Peak 96 at step 1: y-0 64 (57.14 % of 112), x-0 32. Chunk 0 last raised by y-0 at step 1.
static const char * chain_json(int y_elements) {
    static char buf[1024];
    snprintf(buf, sizeof(buf),
        "{\"buffer_types\": [{\"name\": \"dev\", \"alignment\": 16, \"max_size\": null}],"
        " \"tensors\": ["
        "{\"name\": \"inp\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]},"
        "{\"name\": \"x-0\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [8], \"src\": [0, 0]},"
        "{\"name\": \"y-0\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [%d], \"src\": [1, 1]},"
        "{\"name\": \"x-1\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [2, 2]},"
        "{\"name\": \"out\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [2], \"src\": [3], \"flags\": [\"output\"]}],"
        " \"leafs\": [0], \"nodes\": [1, 2, 3, 4]}", y_elements);
    return buf;
}

static void test_chain(void) {
    struct explained p;
    if (!explain_doc_text(chain_json(16), &p)) { CHECK(false); return; }
    const struct galloc_explain_buffer * b = &p.ex.buffers[0];
    CHECK_EQ_U64(p.ex.n_steps, 4);
    CHECK_EQ_U64(b->size, 112);
    CHECK_EQ_U64(b->peak_live, 96);
    CHECK_EQ_U64(b->overhead, 16);
    CHECK(b->peak_step == 1);
    CHECK_EQ_U64(b->n_live, 2);
    CHECK(b->live[0].tensor == 2 && b->live[0].bytes == 64);
    CHECK(b->live[1].tensor == 1 && b->live[1].bytes == 32);
    CHECK_EQ_U64(b->n_chunks, 1);
    CHECK(b->chunk_raiser[0] == 2 && b->chunk_raiser_step[0] == 1);
    check_series(&b->live_bytes, (uint64_t[]) { 16, 48, 96, 80, 32 }, 5);
    check_series(&b->high_water, (uint64_t[]) { 16, 48, 112, 112, 112 }, 5);
    // layers: inp -, x-0 0, y-0 0, x-1 1, out -
    CHECK(p.ex.layer[0] == -1 && p.ex.layer[1] == 0 && p.ex.layer[2] == 0 && p.ex.layer[3] == 1 && p.ex.layer[4] == -1);
    CHECK(p.ex.n_layers == 2);
    // folded: y-* (64, layer 0), x-* (32, layer 0)
    CHECK(b->n_groups == 2);
    CHECK(strcmp(b->groups[0].name, "y-*") == 0 && b->groups[0].bytes == 64 && b->groups[0].tensor == 2);
    CHECK(strcmp(b->groups[1].name, "x-*") == 0 && b->groups[1].count == 1 && b->groups[1].first_layer == 0 && b->groups[1].last_layer == 0);
    // live at step 2: x-1 16 and y-0 64 (y-0 is freed after step 2's node ran)
    struct galloc_explain_live live[4];
    CHECK(galloc_explain_live_at(&p.ex, 0, 2, live, 4) == 2);
    CHECK(live[0].tensor == 2 && live[1].tensor == 3);
    CHECK(galloc_explain_live_at(&p.ex, 0, 2, live, 1) == 2); // counts beyond max, writes one
    CHECK(galloc_explain_live_at(&p.ex, 1, 2, live, 4) == 0);  // no such buffer type
    explained_free(&p);
}

// In place with a shrinking tail, alignment 32. w 64 B (leaf), big 128 B asking 192 B
// (alloc_size), small = scale(big) 128 B, c 32 B.
//   step -1: w @0                                live 64   hw 64
//   step  0: big @64                             live 256  hw 256   then w freed: [0,64) free
//   step  1: small in place of big, [192,256) given back; during the step big still counts whole:
//                                                live 192  hw 256
//   step  2: c @0 (best fit in [0,64))           live 160 (small 128 + c 32)   then small freed
// Peak 256 at step 0: big 192, w 64. small holds memory from step 2 on.
static const char * shrink_json =
    "{\"buffer_types\": [{\"name\": \"dev\", \"alignment\": 32, \"max_size\": null}],"
    " \"tensors\": ["
    "{\"name\": \"w\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [16]},"
    "{\"name\": \"big\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [32], \"src\": [0, 0], \"alloc_size\": 192},"
    "{\"name\": \"small\", \"op\": \"SCALE\", \"type\": \"f32\", \"ne\": [32], \"src\": [1]},"
    "{\"name\": \"c\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [8], \"src\": [2, 2]}],"
    " \"leafs\": [0], \"nodes\": [1, 2, 3]}";

static void test_inplace_shrinking(void) {
    struct explained p;
    if (!explain_doc_text(shrink_json, &p)) { CHECK(false); return; }
    const struct galloc_explain_buffer * b = &p.ex.buffers[0];
    CHECK(p.plan.places[2].how == GALLOC_HOW_INPLACE);
    CHECK_EQ_U64(b->size, 256);
    CHECK_EQ_U64(b->peak_live, 256);
    CHECK(b->peak_step == 0);
    CHECK(b->n_live == 2 && b->live[0].tensor == 1 && b->live[0].bytes == 192 && b->live[1].tensor == 0);
    check_series(&b->live_bytes, (uint64_t[]) { 64, 256, 192, 160 }, 4);
    check_series(&b->high_water, (uint64_t[]) { 64, 256, 256, 256 }, 4);
    CHECK(p.ex.hold_first[2] == 2 && p.ex.hold_last[2] == 2 && p.ex.hold_bytes[2] == 128);
    CHECK(p.ex.hold_first[1] == 0 && p.ex.hold_last[1] == 1);
    CHECK(b->chunk_raiser[0] == 1 && b->chunk_raiser_step[0] == 0);
    CHECK(p.ex.n_layers == 0);
    explained_free(&p);
}

// Two chunks: alignment 16, max size 64. a-0 32 B (leaf), b-0 64 B, c-1 16 B (output).
//   step -1: a-0 chunk 0 @0                          live 32  hw 32
//   step  0: b-0 does not fit chunk 0's last 32 B: chunk 1 @0
//                                                    live 96  hw 96   then a-0 freed
//   step  1: c-1 chunk 0 @0 (last block, reuse)      live 80  hw 96   then b-0 freed
// Chunks [32, 64]: chunk 0 last raised by a-0 (step -1), chunk 1 by b-0 (step 0).
static const char * chunks_json =
    "{\"buffer_types\": [{\"name\": \"dev\", \"alignment\": 16, \"max_size\": 64}],"
    " \"tensors\": ["
    "{\"name\": \"a-0\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [8]},"
    "{\"name\": \"b-0\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [16], \"src\": [0, 0]},"
    "{\"name\": \"c-1\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [1, 1], \"flags\": [\"output\"]}],"
    " \"leafs\": [0], \"nodes\": [1, 2]}";

static void test_chunks(void) {
    struct explained p;
    if (!explain_doc_text(chunks_json, &p)) { CHECK(false); return; }
    const struct galloc_explain_buffer * b = &p.ex.buffers[0];
    CHECK(b->n_chunks == 2);
    CHECK_EQ_U64(b->chunk_sizes[0], 32);
    CHECK_EQ_U64(b->chunk_sizes[1], 64);
    CHECK_EQ_U64(b->size, 96);
    CHECK(b->chunk_raiser[0] == 0 && b->chunk_raiser_step[0] == -1);
    CHECK(b->chunk_raiser[1] == 1 && b->chunk_raiser_step[1] == 0);
    check_series(&b->live_bytes, (uint64_t[]) { 32, 96, 80 }, 3);
    check_series(&b->high_water, (uint64_t[]) { 32, 96, 96 }, 3);
    CHECK(b->peak_step == 0);
    explained_free(&p);
}

// The chain (A) against the same chain with y-0 of 8 elements (B): in B, y-0 is 32 B @48,
//   live [16, 48, 64, 48, 32], high water 80, peak 64 at step 1 (y-0 32, x-0 32).
// Sizes 112 -> 80 (-32) = peaks 96 -> 64 (-32) + overheads 16 -> 16 (0); one row: y-0 64 -> 32.
static void test_compare(void) {
    struct explained a, b;
    if (!explain_doc_text(chain_json(16), &a)) { CHECK(false); return; }
    if (!explain_doc_text(chain_json(8), &b)) { CHECK(false); return; }
    struct galloc_explain_diff d;
    struct galloc_error err;
    CHECK(galloc_explain_compare(&a.doc, &a.ex, &b.doc, &b.ex, false, &d, &err));
    CHECK(d.n_buffers == 1);
    CHECK_EQ_U64(d.total_a, 112);
    CHECK_EQ_U64(d.total_b, 80);
    const struct galloc_explain_diff_buffer * db = &d.buffers[0];
    CHECK(strcmp(db->name, "dev") == 0 && db->buffer_a == 0 && db->buffer_b == 0);
    CHECK(db->size_diff == -32 && db->peak_diff == -32 && db->overhead_diff == 0);
    CHECK(db->peak_step_a == 1 && db->peak_step_b == 1);
    CHECK(db->n_rows == 1);
    CHECK(strcmp(db->rows[0].name, "y-0") == 0);
    CHECK_EQ_U64(db->rows[0].bytes_a, 64);
    CHECK_EQ_U64(db->rows[0].bytes_b, 32);
    CHECK(db->rows[0].tensor_a == 2 && db->rows[0].tensor_b == 2);
    // A's tensors above B's 80 B: only y-0 [48, 112), 32 B of it; none of B's above A's 112 B
    CHECK(db->n_above_a == 1 && db->n_above_b == 0);
    CHECK(db->above_a[0].tensor == 2 && strcmp(db->above_a[0].name, "y-0") == 0 && db->above_a[0].chunk == 0);
    CHECK_EQ_U64(db->above_a[0].offset, 48);
    CHECK_EQ_U64(db->above_a[0].bytes, 64);
    CHECK_EQ_U64(db->above_a[0].above, 32);
    CHECK(db->above_a[0].step == 1);
    galloc_explain_diff_free(&d);

    // folded: the rows group x-0/x-1 as "x-*"; still only y-* differs
    CHECK(galloc_explain_compare(&a.doc, &a.ex, &b.doc, &b.ex, true, &d, &err));
    CHECK(d.n_buffers == 1 && d.buffers[0].n_rows == 1 && strcmp(d.buffers[0].rows[0].name, "y-*") == 0);
    galloc_explain_diff_free(&d);

    // against the two-chunk graph (other names, other buffer limits): rows x-0 32 -> 0, y-0 64 -> 0,
    // a-0 0 -> 32, b-0 0 -> 64; largest difference first, then by name
    struct explained c;
    if (!explain_doc_text(chunks_json, &c)) { CHECK(false); return; }
    CHECK(galloc_explain_compare(&a.doc, &a.ex, &c.doc, &c.ex, false, &d, &err));
    db = &d.buffers[0];
    CHECK(db->n_rows == 4);
    CHECK(strcmp(db->rows[0].name, "b-0") == 0 && strcmp(db->rows[1].name, "y-0") == 0);
    CHECK(strcmp(db->rows[2].name, "a-0") == 0 && strcmp(db->rows[3].name, "x-0") == 0);
    CHECK(db->peak_diff == 0 && db->size_diff == -16);
    int64_t sum = 0;
    for (int32_t i = 0; i < db->n_rows; i++) {
        sum += (int64_t) db->rows[i].bytes_b - (int64_t) db->rows[i].bytes_a;
    }
    CHECK(sum == db->peak_diff);
    galloc_explain_diff_free(&d);
    explained_free(&c);
    explained_free(&a);
    explained_free(&b);
}

// ggml's plan of the chain (A) against greedy-by-size's (B), derived by hand in
// tests/explain/README.md: items inp 16 [-1,0], x-0 32 [0,1], y-0 64 [1,2], x-1 16 [2,3],
// out 16 [3,3]; greedy-by-size puts y-0 @0, x-0 @64, x-1 @64, inp @0, out @0: 96 B.
// Same peak (96 at step 1); -16 B of packing; A's y-0 [48, 112) is 16 B above B's 96.
static void test_offline_chain(void) {
    struct explained a;
    if (!explain_doc_text(chain_json(16), &a)) { CHECK(false); return; }
    struct galloc_whatif_result r;
    struct galloc_error err;
    CHECK(galloc_whatif_from_plan(&a.doc.graph, &a.plan, 0, 0, &r, &err));
    const struct galloc_whatif_plan * gs = &r.plans[GALLOC_WHATIF_GREEDY_SIZE];
    struct galloc_plan plan_b;
    CHECK(galloc_whatif_apply(&a.doc.graph, &a.plan, &r, gs->chunks, gs->offsets, r.problem.n_items, &plan_b, &err));
    const uint64_t want_offset[5] = { 0, 64, 0, 64, 0 }; // inp, x-0, y-0, x-1, out
    for (int t = 0; t < 5; t++) {
        CHECK(plan_b.places[t].chunk == 0);
        CHECK_EQ_U64(plan_b.places[t].offset, want_offset[t]);
        CHECK(plan_b.places[t].first_step == a.plan.places[t].first_step && plan_b.places[t].last_step == a.plan.places[t].last_step);
    }
    CHECK_EQ_U64(plan_b.buffers[0].size, 96);
    CHECK(plan_b.buffers[0].n_chunks == 1);
    struct galloc_explain ex;
    CHECK(galloc_explain_plan(&a.doc, &plan_b, &ex, &err));
    CHECK_EQ_U64(ex.buffers[0].size, 96);
    CHECK_EQ_U64(ex.buffers[0].peak_live, 96);
    check_series(&ex.buffers[0].high_water, (uint64_t[]) { 16, 96, 96, 96, 96 }, 5);
    CHECK(ex.buffers[0].chunk_raiser[0] == 1); // x-0 @64 ends at 96 first (step 0)
    struct galloc_explain_diff d;
    CHECK(galloc_explain_compare(&a.doc, &a.ex, &a.doc, &ex, false, &d, &err));
    const struct galloc_explain_diff_buffer * db = &d.buffers[0];
    CHECK(db->size_diff == -16 && db->peak_diff == 0 && db->overhead_diff == -16 && db->n_rows == 0);
    CHECK(db->n_above_a == 1 && db->n_above_b == 0);
    CHECK(db->above_a[0].tensor == 2);
    CHECK_EQ_U64(db->above_a[0].above, 16);
    galloc_explain_diff_free(&d);
    galloc_explain_free(&ex);
    galloc_plan_free(&plan_b);

    // placements that are no plan: all at 0 (y-0 and x-0 overlap), one item short
    int32_t  chunks[5]  = { 0, 0, 0, 0, 0 };
    uint64_t offsets[5] = { 0, 0, 0, 0, 0 };
    CHECK(!galloc_whatif_apply(&a.doc.graph, &a.plan, &r, chunks, offsets, r.problem.n_items, &plan_b, &err));
    CHECK(err.status == GALLOC_STATUS_INVALID);
    CHECK(!galloc_whatif_apply(&a.doc.graph, &a.plan, &r, gs->chunks, gs->offsets, r.problem.n_items - 1, &plan_b, &err));
    CHECK(err.status == GALLOC_STATUS_ARGUMENT);
    offsets[0] = 8; // misaligned (alignment 16), the rest greedy's
    memcpy(offsets + 1, gs->offsets + 1, 4 * sizeof(uint64_t));
    CHECK(!galloc_whatif_apply(&a.doc.graph, &a.plan, &r, gs->chunks, offsets, r.problem.n_items, &plan_b, &err));
    CHECK(err.status == GALLOC_STATUS_INVALID);
    galloc_whatif_free(&r);
    explained_free(&a);
}

// every allocator of a golden graph (up to 3000 tensors) packed by greedy-by-size into one copy
// of the plan, as `galloc explain --offline` does (galloc_whatif_apply_indexed, linear): each
// tensor ends where packing its allocator alone puts it (galloc_whatif_apply), each allocator's
// size is the packing's, no two tensors live at once share a byte (check.c's own rules), and
// every view sits at its source's place plus view_offs
static void test_offline_every_allocator(void) {
    int     n     = 0;
    char ** names = golden_names(&n);
    int     multi = 0;
    for (int g = 0; names && g < n; g++) {
        struct explained p;
        if (!explain_golden(names[g], &p)) {
            CHECK(false);
            continue;
        }
        const struct galloc_graph * gr = &p.doc.graph;
        struct galloc_whatif_tensors tensors;
        struct galloc_plan           all;
        struct galloc_error          err;
        if (p.doc.n_tensors > 3000 || !galloc_whatif_tensors_build(gr, &p.plan, &tensors, &err)) {
            explained_free(&p);
            continue;
        }
        CHECK(galloc_whatif_plan_copy(&p.plan, &all, &err));
        int32_t * owner = malloc(((size_t) p.doc.n_tensors + 1) * sizeof(int32_t)); // the allocator whose packing moved it
        struct galloc_plan * alone = calloc((size_t) p.doc.n_buffer_types + 1, sizeof(struct galloc_plan));
        for (int32_t t = 0; t < p.doc.n_tensors; t++) {
            owner[t] = -1;
        }
        int n_alloc = 0;
        for (int32_t b = 0; b < p.doc.n_buffer_types; b++) {
            struct galloc_whatif_result r;
            if (p.doc.buffer_types[b].allocator != b || !galloc_whatif_from_plan_tensors(gr, &p.plan, &tensors, b, 0, &r, &err)) {
                continue;
            }
            const struct galloc_whatif_plan * gs = &r.plans[GALLOC_WHATIF_GREEDY_SIZE];
            if (gs->valid && gs->checked) {
                n_alloc++;
                CHECK(galloc_whatif_apply_indexed(gr, &tensors, &r, gs->chunks, gs->offsets, r.problem.n_items, &all, &err));
                CHECK(galloc_whatif_apply(gr, &p.plan, &r, gs->chunks, gs->offsets, r.problem.n_items, &alone[b], &err));
                CHECK_EQ_U64(all.buffers[b].size, gs->total);
                for (int32_t t = 0; alone[b].places && t < p.doc.n_tensors; t++) {
                    const struct galloc_place * x = &alone[b].places[t], * o = &p.plan.places[t];
                    if (x->chunk != o->chunk || x->offset != o->offset) {
                        CHECK(owner[t] < 0); // one allocator's packing moves only its own tensors
                        owner[t] = b;
                    }
                }
            }
            galloc_whatif_free(&r);
        }
        multi += n_alloc > 1;
        int wrong = 0;
        for (int32_t t = 0; t < p.doc.n_tensors && wrong < 3; t++) {
            const struct galloc_place * want = owner[t] >= 0 ? &alone[owner[t]].places[t] : &p.plan.places[t];
            const struct galloc_place * got  = &all.places[t];
            bool same = got->buffer == want->buffer && got->chunk == want->chunk && got->offset == want->offset;
            const struct galloc_tensor * tt = &gr->tensors[t];
            if (got->how == GALLOC_HOW_VIEW && tt->view_src >= 0 && all.places[tt->view_src].buffer >= 0) {
                same = same && got->chunk == all.places[tt->view_src].chunk && got->offset == all.places[tt->view_src].offset + tt->view_offs;
            }
            if (!same) {
                fprintf(stderr, "%s: tensor %d at chunk %d offset %llu, packed alone chunk %d offset %llu\n", names[g], t, got->chunk,
                        (unsigned long long) got->offset, want->chunk, (unsigned long long) want->offset);
                wrong++;
            }
        }
        CHECK(wrong == 0);
        CHECK(check_plan_no_overlap(gr, &all) == 0);
        for (int32_t b = 0; b < p.doc.n_buffer_types; b++) {
            galloc_plan_free(&alone[b]);
        }
        free(alone);
        free(owner);
        galloc_plan_free(&all);
        galloc_whatif_tensors_free(&tensors);
        explained_free(&p);
    }
    CHECK(multi >= 3); // graphs with several allocators are among them
    golden_names_free(names);
}

// every golden graph up to 3000 tensors, every allocator, every offline planner's checked plan
// applied: the explanation's size is the planner's total (the series end there), the peak is
// ggml's (without shrinking in-place chains), and per chunk the side with the larger size has
// tensors above the other's, the highest of them ending at its own size
static void test_offline_golden(void) {
    int    n     = 0;
    char ** names = golden_names(&n);
    int    applied = 0;
    for (int g = 0; names && g < n; g++) {
        struct explained p;
        if (!explain_golden(names[g], &p)) {
            CHECK(false);
            continue;
        }
        for (int32_t b = 0; p.doc.n_tensors <= 3000 && b < p.doc.n_buffer_types; b++) {
            struct galloc_whatif_result r;
            struct galloc_error err;
            if (p.doc.buffer_types[b].allocator != b || !galloc_whatif_from_plan(&p.doc.graph, &p.plan, b, 0, &r, &err)) {
                continue; // shared, or past the analysis' limits
            }
            for (int k = GALLOC_WHATIF_GREEDY_SIZE; k < GALLOC_WHATIF_N_PLANNERS; k++) {
                const struct galloc_whatif_plan * pl = &r.plans[k];
                if (!pl->valid || !pl->checked) {
                    continue;
                }
                struct galloc_plan q;
                struct galloc_explain ex;
                struct galloc_explain_diff d;
                if (!galloc_whatif_apply(&p.doc.graph, &p.plan, &r, pl->chunks, pl->offsets, r.problem.n_items, &q, &err)) {
                    fprintf(stderr, "%s buffer %d %s: %s\n", names[g], b, pl->name, err.message);
                    CHECK(false);
                    continue;
                }
                CHECK(galloc_explain_plan(&p.doc, &q, &ex, &err));
                const struct galloc_explain_buffer * eb = &ex.buffers[b];
                CHECK_EQ_U64(eb->size, pl->total);
                CHECK_EQ_U64(galloc_explain_series_at(&eb->high_water, ex.n_steps), pl->total);
                if (r.n_shrinking == 0) {
                    CHECK_EQ_U64(eb->peak_live, p.ex.buffers[b].peak_live);
                }
                CHECK(galloc_explain_compare(&p.doc, &p.ex, &p.doc, &ex, true, &d, &err));
                for (int32_t i = 0; i < d.n_buffers; i++) {
                    const struct galloc_explain_diff_buffer * db = &d.buffers[i];
                    if (db->buffer_a != b) {
                        CHECK(db->size_diff == 0 && db->n_above_a == 0 && db->n_above_b == 0); // other allocators untouched
                        continue;
                    }
                    CHECK(db->size_diff == (int64_t) pl->total - (int64_t) p.plan.buffers[b].size);
                    for (int32_t c = 0; c < GALLOC_MAX_CHUNKS; c++) {
                        uint64_t sa = c < p.ex.buffers[b].n_chunks ? p.ex.buffers[b].chunk_sizes[c] : 0;
                        uint64_t sb = c < eb->n_chunks ? eb->chunk_sizes[c] : 0;
                        // each side's rows: above the other's size, `above` the part past it; the highest
                        // end among them is that side's chunk size when it is the larger one
                        uint64_t top[2] = { 0, 0 };
                        for (int side = 0; side < 2; side++) {
                            const struct galloc_explain_above * rows = side ? db->above_b : db->above_a;
                            uint64_t limit = side ? sa : sb;
                            for (int32_t j = 0; j < (side ? db->n_above_b : db->n_above_a); j++) {
                                const struct galloc_explain_above * x = &rows[j];
                                if (x->chunk != c) {
                                    continue;
                                }
                                uint64_t end = x->offset + x->bytes;
                                CHECK(end > limit);
                                CHECK_EQ_U64(x->above, end - (x->offset > limit ? x->offset : limit));
                                top[side] = end > top[side] ? end : top[side];
                            }
                        }
                        CHECK_EQ_U64(top[0], sa > sb ? sa : 0);
                        CHECK_EQ_U64(top[1], sb > sa ? sb : 0);
                    }
                }
                galloc_explain_diff_free(&d);
                galloc_explain_free(&ex);
                galloc_plan_free(&q);
                applied++;
            }
            galloc_whatif_free(&r);
        }
        explained_free(&p);
    }
    golden_names_free(names);
    CHECK(applied > 50);
}

// buffer types matched by name; one only in B is listed after A's
static void test_compare_buffer_names(void) {
    struct explained a, b;
    if (!explain_doc_text(chain_json(16), &a)) { CHECK(false); return; }
    char renamed[1024];
    snprintf(renamed, sizeof(renamed), "%s", chain_json(16));
    memcpy(strstr(renamed, "\"dev\""), "\"gpu\"", 5);
    if (!explain_doc_text(renamed, &b)) { CHECK(false); return; }
    struct galloc_explain_diff d;
    struct galloc_error err;
    CHECK(galloc_explain_compare(&a.doc, &a.ex, &b.doc, &b.ex, false, &d, &err));
    CHECK(d.n_buffers == 2);
    CHECK(strcmp(d.buffers[0].name, "dev") == 0 && d.buffers[0].buffer_b == -1 && d.buffers[0].size_diff == -112);
    CHECK(strcmp(d.buffers[1].name, "gpu") == 0 && d.buffers[1].buffer_a == -1 && d.buffers[1].size_diff == 112);
    CHECK(d.buffers[0].n_rows == 2 && d.buffers[1].n_rows == 2);
    galloc_explain_diff_free(&d);
    explained_free(&a);
    explained_free(&b);
}

// Folding: a-0 (32 B) and a-1 (64 B) are both live at step 1 (a-0 freed after it): live
// [16 (w), 48, 96, 80]; at the peak one group a-* of 2 tensors, 96 B, layers 0..1, largest a-1.
static void test_fold_group(void) {
    static const char * json =
        "{\"buffer_types\": [{\"name\": \"dev\", \"alignment\": 16, \"max_size\": null}],"
        " \"tensors\": ["
        "{\"name\": \"w\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4]},"
        "{\"name\": \"a-0\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [8], \"src\": [0, 0]},"
        "{\"name\": \"a-1\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [16], \"src\": [1, 1]},"
        "{\"name\": \"b\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [2, 2]}],"
        " \"leafs\": [0], \"nodes\": [1, 2, 3]}";
    struct explained p;
    if (!explain_doc_text(json, &p)) { CHECK(false); return; }
    const struct galloc_explain_buffer * b = &p.ex.buffers[0];
    check_series(&b->live_bytes, (uint64_t[]) { 16, 48, 96, 80 }, 4);
    CHECK(b->n_live == 2 && b->n_groups == 1);
    CHECK(strcmp(b->groups[0].name, "a-*") == 0);
    CHECK(b->groups[0].count == 2 && b->groups[0].bytes == 96 && b->groups[0].tensor == 2);
    CHECK(b->groups[0].first_layer == 0 && b->groups[0].last_layer == 1);
    explained_free(&p);
}

static void test_plan_mismatch(void) {
    struct explained a, b;
    if (!explain_doc_text(chain_json(16), &a)) { CHECK(false); return; }
    if (!explain_doc_text(chunks_json, &b)) { CHECK(false); return; }
    struct galloc_explain ex;
    struct galloc_error err;
    CHECK(!galloc_explain_plan(&a.doc, &b.plan, &ex, &err));
    CHECK(err.status == GALLOC_STATUS_ARGUMENT);
    CHECK(strstr(err.message, "plan: 3 tensors") != NULL);
    galloc_explain_free(&ex); // zeroed on failure: safe
    explained_free(&a);
    explained_free(&b);
}

static void test_layer_names(void) {
    static const struct { const char * name; int32_t layer; const char * folded; } cases[] = {
        { "attn_norm-12",                 12, "attn_norm-*" },
        { "kq_soft_max-79",               79, "kq_soft_max-*" },
        { "Kcur-3 (reshaped)",             3, "Kcur-* (reshaped)" },
        { "blk.12.attn_q.weight",         12, "blk.*.attn_q.weight" },
        { "cache_k_l7",                    7, "cache_k_l*" },
        { "cache_v_l0 (view) (copy of Vcur-0 (reshaped))", 0, "cache_v_l* (view) (copy of Vcur-0 (reshaped))" },
        { "inp_embd",                     -1, "inp_embd" },
        { "node_12",                      -1, "node_12" },
        { "x-1e5",                        -1, "x-1e5" },
        { "-12",                          -1, "-12" },
        { "blk.a.weight",                 -1, "blk.a.weight" },
        { "blk.12",                       -1, "blk.12" },
        { "layer-1234567",                -1, "layer-1234567" },
        { "",                             -1, "" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char folded[96];
        int32_t layer = galloc_layer_fold(cases[i].name, folded, sizeof(folded));
        if (layer != cases[i].layer || strcmp(folded, cases[i].folded) != 0) {
            fprintf(stderr, "layer of '%s': %d '%s', expected %d '%s'\n", cases[i].name, layer, folded, cases[i].layer, cases[i].folded);
        }
        CHECK(layer == cases[i].layer);
        CHECK(strcmp(folded, cases[i].folded) == 0);
        CHECK(galloc_layer_parse(cases[i].name).layer == cases[i].layer);
    }
    CHECK(galloc_layer_parse(NULL).layer == -1);
    char tiny[4];
    CHECK(galloc_layer_fold("attn_norm-12", tiny, sizeof(tiny)) == 12 && strcmp(tiny, "att") == 0);
}

// appends printf-formatted text to a growing buffer
static void append(char ** buf, size_t * len, size_t * cap, const char * fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char ** buf, size_t * len, size_t * cap, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (*len + (size_t) n + 1 > *cap) {
        *cap = (*len + (size_t) n + 1) * 2;
        *buf = realloc(*buf, *cap);
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t) n;
}

// many buffer types (bench/bench-hostile.sh's 1,000, scaled down: scripts/gen-many-buffer-types.awk's
// shape, each type a chain of CONCATs of recent tensors): every series equals the dense count, and
// all of them together keep a number of points linear in the tensors, not steps x buffer types
static void test_many_buffer_types(void) {
    const int nbt = 60, per = 40;
    char * text = NULL;
    size_t len = 0, cap = 0;
    uint32_t seed = 7;
    append(&text, &len, &cap, "{\"format\":\"galloc-graph\",\"version\":1,\"buffer_types\":[");
    for (int b = 0; b < nbt; b++) {
        append(&text, &len, &cap, "%s{\"name\":\"b%d\",\"alignment\":32}", b ? "," : "", b);
    }
    append(&text, &len, &cap, "],\"tensors\":[");
    for (int b = 0; b < nbt; b++) {
        append(&text, &len, &cap, "%s{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[8],\"flags\":[\"input\"]}", b ? "," : "");
        for (int i = 1; i < per; i++) {
            int lo = i > 6 ? i - 6 : 0;
            seed = seed * 1103515245u + 12345u;
            int s1 = lo + (int) ((seed >> 16) % (uint32_t) (i - lo));
            seed = seed * 1103515245u + 12345u;
            int s2 = lo + (int) ((seed >> 16) % (uint32_t) (i - lo));
            seed = seed * 1103515245u + 12345u;
            append(&text, &len, &cap, ",{\"op\":\"CONCAT\",\"type\":\"f32\",\"ne\":[%d],\"src\":[%d,%d]}",
                   (int) (1 + (seed >> 16) % 64) * 8, b * per + s1, b * per + s2);
        }
    }
    append(&text, &len, &cap, "],\"nodes\":[");
    for (int b = 0; b < nbt; b++) {
        for (int i = 1; i < per; i++) {
            append(&text, &len, &cap, "%s%d", b || i > 1 ? "," : "", b * per + i);
        }
    }
    append(&text, &len, &cap, "],\"leafs\":[");
    for (int b = 0; b < nbt; b++) {
        append(&text, &len, &cap, "%s%d", b ? "," : "", b * per);
    }
    append(&text, &len, &cap, "],\"node_buffer_ids\":[");
    for (int b = 0; b < nbt; b++) {
        for (int i = 1; i < per; i++) {
            append(&text, &len, &cap, "%s%d", b || i > 1 ? "," : "", b);
        }
    }
    append(&text, &len, &cap, "],\"leaf_buffer_ids\":[");
    for (int b = 0; b < nbt; b++) {
        append(&text, &len, &cap, "%s%d", b ? "," : "", b);
    }
    append(&text, &len, &cap, "]}");
    struct explained p;
    CHECK(explain_doc_text(text, &p));
    free(text);
    CHECK(p.ex.n_buffers == nbt && p.ex.n_steps == nbt * (per - 1));
    check_series_dense(&p.doc, &p.plan, &p.ex);
    int64_t points = 0;
    for (int32_t b = 0; b < p.ex.n_buffers; b++) {
        points += p.ex.buffers[b].live_bytes.n + p.ex.buffers[b].high_water.n;
        CHECK_EQ_U64(p.ex.buffers[b].peak_live, p.plan.buffers[b].peak_live);
        CHECK_EQ_U64(galloc_explain_series_at(&p.ex.buffers[b].high_water, p.ex.n_steps), p.plan.buffers[b].size);
    }
    CHECK(points <= 3 * (int64_t) p.ex.n_tensors + 2 * p.ex.n_buffers); // a dense series alone has n_steps + 1
    explained_free(&p);
}

// every golden graph: the series against the planner's own counting
static void test_golden_invariants(void) {
    int    n     = 0;
    char ** names = golden_names(&n);
    CHECK(names != NULL && n > 0);
    for (int g = 0; names && g < n; g++) {
        struct explained p;
        if (!explain_golden(names[g], &p)) {
            CHECK(false);
            continue;
        }
        for (int32_t b = 0; b < p.ex.n_buffers; b++) {
            const struct galloc_explain_buffer * eb = &p.ex.buffers[b];
            if (eb->shared_with >= 0) {
                CHECK(eb->size == 0 && eb->live_bytes.n == 0);
                continue;
            }
            int32_t ns = p.ex.n_steps + 1;
            uint64_t max = 0;
            for (int32_t i = 0; i < ns; i++) {
                uint64_t live = galloc_explain_series_at(&eb->live_bytes, i), high = galloc_explain_series_at(&eb->high_water, i);
                max = live > max ? live : max;
                CHECK(high >= live);
                CHECK(i == 0 || high >= galloc_explain_series_at(&eb->high_water, i - 1));
            }
            if (max != p.plan.buffers[b].peak_live) {
                fprintf(stderr, "%s buffer %d: series max %llu, plan peak_live %llu\n", names[g], b,
                        (unsigned long long) max, (unsigned long long) p.plan.buffers[b].peak_live);
            }
            CHECK_EQ_U64(max, p.plan.buffers[b].peak_live);
            CHECK_EQ_U64(eb->peak_live, p.plan.buffers[b].peak_live);
            CHECK_EQ_U64(galloc_explain_series_at(&eb->high_water, ns - 1), p.plan.buffers[b].size);
            uint64_t sum = 0;
            for (int32_t i = 0; i < eb->n_live; i++) {
                sum += eb->live[i].bytes;
                CHECK(i == 0 || eb->live[i].bytes <= eb->live[i - 1].bytes);
            }
            CHECK_EQ_U64(sum, eb->peak_live);
            uint64_t group_sum = 0;
            int32_t  members   = 0;
            for (int32_t i = 0; i < eb->n_groups; i++) {
                group_sum += eb->groups[i].bytes;
                members += eb->groups[i].count;
                CHECK(i == 0 || eb->groups[i].bytes <= eb->groups[i - 1].bytes);
                CHECK(eb->groups[i].first_layer <= eb->groups[i].last_layer);
            }
            CHECK_EQ_U64(group_sum, eb->peak_live);
            CHECK(members == eb->n_live);
            for (int32_t c = 0; c < eb->n_chunks; c++) {
                int32_t t = eb->chunk_raiser[c];
                CHECK(t >= 0);
                if (t >= 0) { // its end is the chunk's size
                    uint64_t a   = eb->alignment;
                    uint64_t end = p.plan.places[t].offset + ((p.plan.places[t].size + a - 1) & ~(a - 1));
                    CHECK(p.plan.places[t].chunk == c);
                    CHECK_EQ_U64(end, eb->chunk_sizes[c]);
                }
            }
            // the live set of every step sums to the series (small graphs: quadratic)
            if (p.ex.n_tensors <= 2000) {
                struct galloc_explain_live * live = malloc((size_t) p.ex.n_tensors * sizeof(*live) + 1);
                for (int32_t i = 0; live && i < ns; i++) {
                    int32_t  k = galloc_explain_live_at(&p.ex, b, i - 1, live, p.ex.n_tensors);
                    uint64_t s = 0;
                    for (int32_t j = 0; j < k; j++) {
                        s += live[j].bytes;
                    }
                    CHECK_EQ_U64(s, galloc_explain_series_at(&eb->live_bytes, i));
                }
                free(live);
            }
        }
        if (strncmp(names[g], "llama-7b", 8) == 0) {
            CHECK(p.ex.n_layers == 32);
        }
        if (p.ex.n_tensors <= 20000) {
            check_series_dense(&p.doc, &p.plan, &p.ex);
        }
        explained_free(&p);
    }
    golden_names_free(names);
}

int main(void) {
    RUN(test_chain);
    RUN(test_inplace_shrinking);
    RUN(test_chunks);
    RUN(test_compare);
    RUN(test_compare_buffer_names);
    RUN(test_offline_chain);
    RUN(test_offline_golden);
    RUN(test_offline_every_allocator);
    RUN(test_fold_group);
    RUN(test_plan_mismatch);
    RUN(test_layer_names);
    RUN(test_golden_invariants);
    RUN(test_many_buffer_types);
    return check_report("test-explain");
}
