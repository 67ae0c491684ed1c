// test-binary.c: the binary graph and plan (galloc-binary.h) under the sanitizers.
//
// Every golden and golden-real graph, read and planned, written as binary and walked here by the
// layout the header documents (a reader of its own, not web/src/core/galloc-binary.js): the header
// adds up, the string ends grow and end at the text's UTF-16 length, every string index is in
// range, the body is read to its last word, and what it carries is the document's and the plan's
// (names, ops, types, sources, nodes; each tensor's buffer, chunk, offset and size). The value
// checks against the JSON documents are tests/js/wasm-binary.test.js's, on the real module. One small
// plan word for word against words written out by hand.

#include "check.h"
#include "files.h"
#include "galloc-binary.h"
#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdlib.h>
#include <string.h>

// a walk over a binary: the words, the body's end, the strings' byte ranges
struct walk {
    const uint32_t * w;
    size_t           at, end;
    uint32_t         n_strings;
    const char *     text;
    size_t *         from; // byte range of each string, found from the UTF-16 ends by walking the text
    size_t *         to;
    bool             bad;
};

static uint32_t next(struct walk * k) {
    if (k->at >= k->end) {
        k->bad = true;
        return 0;
    }
    return k->w[k->at++];
}

static uint64_t next_u64(struct walk * k) {
    uint64_t lo = next(k);
    return lo | (uint64_t) next(k) << 32;
}

// string i equals s
static bool str_is(struct walk * k, uint32_t i, const char * s) {
    if (i >= k->n_strings) {
        k->bad = true;
        return false;
    }
    return k->to[i] - k->from[i] == strlen(s) && memcmp(k->text + k->from[i], s, strlen(s)) == 0;
}

// check the header and the strings; false when they do not add up
static bool walk_open(struct walk * k, const uint8_t * bytes, size_t len, uint32_t kind) {
    memset(k, 0, sizeof(*k));
    const uint32_t * w = (const uint32_t *) (const void *) bytes;
    CHECK(len % 4 == 0 && len >= 4 * GALLOC_BINARY_HEADER_WORDS);
    if (len % 4 != 0 || len < 4 * GALLOC_BINARY_HEADER_WORDS) {
        return false;
    }
    const size_t words = len / 4;
    CHECK(w[0] == GALLOC_BINARY_MAGIC && w[1] == GALLOC_BINARY_VERSION && w[2] == kind);
    CHECK(w[9] == len && w[4] == GALLOC_BINARY_HEADER_WORDS && w[4] + w[3] <= words);
    CHECK(w[5] % 4 == 0 && w[5] + w[6] <= len && w[7] + w[8] == words && w[7] * 4 >= w[5] + w[6]);
    if (w[9] != len || w[4] + w[3] > words || w[5] + w[6] > len || w[7] + w[8] != words) {
        return false;
    }
    k->w = w;
    k->at = w[7];
    k->end = w[7] + w[8];
    k->n_strings = w[3];
    k->text = (const char *) bytes + w[5];
    k->from = calloc(w[3] + 1, sizeof(size_t));
    k->to = calloc(w[3] + 1, sizeof(size_t));
    if (!k->from || !k->to) {
        return false;
    }
    // ends in UTF-16 units: walk the text's UTF-8 sequences alongside
    size_t byte = 0;
    uint32_t units = 0;
    for (uint32_t i = 0; i < w[3]; i++) {
        const uint32_t end = w[w[4] + i];
        CHECK(end >= units);
        k->from[i] = byte;
        while (units < end && byte < w[6]) {
            const unsigned char c = (unsigned char) k->text[byte];
            const size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            units += n == 4 ? 2 : 1;
            byte += n;
        }
        CHECK(units == end);
        k->to[i] = byte;
    }
    CHECK(byte == w[6]); // the last string ends where the text does
    return true;
}

static void walk_close(struct walk * k) {
    free(k->from);
    free(k->to);
}

static void check_graph(const struct galloc_document * doc, const uint8_t * bytes, size_t len) {
    struct walk k;
    if (!walk_open(&k, bytes, len, GALLOC_BINARY_GRAPH)) {
        walk_close(&k);
        return;
    }
    CHECK(str_is(&k, next(&k), doc->name));
    const uint32_t n_flags = next(&k);
    for (uint32_t f = 0; f < n_flags; f++) {
        CHECK(next(&k) < k.n_strings);
    }
    CHECK(next(&k) == (uint32_t) doc->n_buffer_types);
    for (int32_t b = 0; b < doc->n_buffer_types; b++) {
        CHECK(str_is(&k, next(&k), doc->buffer_type_names ? doc->buffer_type_names[b] : ""));
        CHECK(next_u64(&k) == doc->buffer_types[b].alignment);
        const bool limited = next(&k) != 0;
        CHECK(limited == (doc->buffer_types[b].max_size != GALLOC_NO_MAX_SIZE));
        if (limited) {
            CHECK(next_u64(&k) == doc->buffer_types[b].max_size);
        }
    }
    const uint32_t n_traits = next(&k);
    for (uint32_t t = 0; t < n_traits; t++) {
        CHECK(next(&k) < k.n_strings);
        next_u64(&k);
        next_u64(&k);
    }
    CHECK(next(&k) == (uint32_t) doc->n_tensors);
    for (int32_t i = 0; i < doc->n_tensors && !k.bad; i++) {
        const struct galloc_tensor * t = &doc->tensors[i];
        const uint32_t head = next(&k);
        const uint32_t n_dims = head & 7, n_src = (head >> 3) & 15;
        CHECK(n_dims >= 1 && n_dims <= GGML_MAX_DIMS && n_src <= GGML_MAX_SRC);
        CHECK(str_is(&k, next(&k), doc->tensor_names ? doc->tensor_names[i] : ""));
        CHECK(str_is(&k, next(&k), galloc_document_op_name(doc, i)));
        if (head & (1u << 7)) {
            CHECK(str_is(&k, next(&k), galloc_document_op_desc(doc, i)));
        }
        CHECK(str_is(&k, next(&k), galloc_document_type_name(doc, i)));
        for (uint32_t d = 0; d < n_dims && d < GGML_MAX_DIMS; d++) {
            CHECK(next_u64(&k) == (uint64_t) t->ne[d]);
        }
        for (uint32_t d = n_dims; d < GGML_MAX_DIMS; d++) {
            CHECK(t->ne[d] == 1); // only trailing 1s are left out
        }
        if (head & (1u << 9)) {
            for (int d = 0; d < GGML_MAX_DIMS; d++) {
                CHECK(next_u64(&k) == t->nb[d]);
            }
        }
        for (uint32_t s = 0; s < n_src && s < GGML_MAX_SRC; s++) {
            const uint32_t v = next(&k);
            CHECK(t->src[s] < 0 ? v == 0xFFFFFFFFu : v == (uint32_t) t->src[s]);
        }
        for (uint32_t s = n_src; s < GGML_MAX_SRC; s++) {
            CHECK(t->src[s] < 0); // only trailing empty slots are left out
        }
        CHECK(((head & (1u << 10)) != 0) == (t->view_src >= 0));
        if (head & (1u << 10)) {
            CHECK(next(&k) == (uint32_t) t->view_src);
            CHECK(next_u64(&k) == t->view_offs);
        }
        const uint32_t alloc = (head >> 11) & 3;
        if (alloc == 1) {
            CHECK(next_u64(&k) == t->alloc_size);
        } else if (alloc == 2) {
            for (int32_t b = 0; b < doc->n_buffer_types; b++) {
                if (next(&k) != 0) {
                    next_u64(&k);
                }
            }
        }
        if (((head >> 13) & 3) == 1) {
            CHECK(next(&k) == (uint32_t) doc->tensor_buffer_type[i]);
        }
        CHECK(((head >> 16) & 0xff) == (uint32_t) (t->flags & 0x1f));
    }
    CHECK(next(&k) == (uint32_t) doc->n_nodes);
    for (int32_t i = 0; i < doc->n_nodes; i++) {
        CHECK(next(&k) == (uint32_t) doc->nodes[i]);
    }
    CHECK(next(&k) == (uint32_t) doc->n_leafs);
    for (int32_t i = 0; i < doc->n_leafs; i++) {
        CHECK(next(&k) == (uint32_t) doc->leafs[i]);
    }
    for (int list = 0; list < 2; list++) {
        const int32_t * ids = list == 0 ? doc->node_buffer_ids : doc->leaf_buffer_ids;
        const int32_t   n   = list == 0 ? doc->n_nodes : doc->n_leafs;
        CHECK(next(&k) == (ids != NULL));
        for (int32_t i = 0; ids != NULL && i < n; i++) {
            CHECK(next(&k) == (uint32_t) ids[i]);
        }
    }
    CHECK(!k.bad && k.at == k.end);
    walk_close(&k);
}

static void check_plan(const struct galloc_document * doc, const struct galloc_plan * plan, const uint8_t * bytes, size_t len) {
    struct walk k;
    if (!walk_open(&k, bytes, len, GALLOC_BINARY_PLAN)) {
        walk_close(&k);
        return;
    }
    CHECK(str_is(&k, next(&k), doc->name));
    CHECK(next(&k) == (uint32_t) plan->n_steps);
    CHECK(next(&k) == (uint32_t) plan->n_inplace);
    CHECK(next(&k) == (uint32_t) plan->n_buffer_types);
    for (int32_t b = 0; b < plan->n_buffer_types && !k.bad; b++) {
        const struct galloc_buffer_plan * bp = &plan->buffers[b];
        CHECK(next(&k) == (uint32_t) b);
        CHECK(next(&k) < k.n_strings);
        CHECK(next_u64(&k) == doc->buffer_types[b].alignment);
        if (next(&k) != 0) {
            CHECK(next_u64(&k) == doc->buffer_types[b].max_size);
        }
        const uint32_t n_chunks = next(&k);
        CHECK(n_chunks == (uint32_t) bp->n_chunks);
        for (uint32_t c = 0; c < n_chunks && c < GALLOC_MAX_CHUNKS; c++) {
            CHECK(next_u64(&k) == bp->chunk_sizes[c]);
        }
        CHECK(next_u64(&k) == bp->size);
        CHECK(next_u64(&k) == bp->peak_live);
        CHECK(next_u64(&k) == galloc_overhead_bytes(bp->size, bp->peak_live));
        const uint32_t shared = next(&k);
        CHECK(bp->shared_with < 0 ? shared == 0xFFFFFFFFu : shared == (uint32_t) bp->shared_with);
    }
    CHECK(next(&k) == (uint32_t) plan->n_tensors);
    for (int32_t i = 0; i < plan->n_tensors && !k.bad; i++) {
        const struct galloc_place * p = &plan->places[i];
        const uint32_t head = next(&k);
        CHECK((head == 0) == (p->buffer < 0));
        if (head == 0) {
            continue;
        }
        CHECK(((head & 2) != 0) == (doc->tensors[i].view_src >= 0));
        CHECK(next(&k) == (uint32_t) p->buffer);
        CHECK(next(&k) == (uint32_t) p->chunk);
        CHECK(next_u64(&k) == p->offset);
        CHECK(next_u64(&k) == p->size);
        CHECK(str_is(&k, next(&k), galloc_how_name((enum galloc_how) p->how)));
        if (head & 4) {
            CHECK(next(&k) == (uint32_t) p->parent);
        }
        CHECK(next(&k) == (uint32_t) p->first_step);
        CHECK(next(&k) == (uint32_t) p->last_step);
    }
    CHECK(!k.bad && k.at == k.end);
    walk_close(&k);
}

static int check_folder(const char * dir) {
    int    n     = 0;
    char ** names = golden_names_in(dir, &n);
    CHECK(names != NULL && n > 10);
    int done = 0;
    for (int g = 0; names != NULL && g < n; g++) {
        size_t len  = 0;
        char * text = golden_read_in(dir, names[g], "graph", &len);
        struct galloc_planned p;
        struct galloc_error   err;
        if (text == NULL || !galloc_planned_read(text, len, &p, &err)) {
            free(text);
            continue; // a graph the 64-bit build declines is the document tests' business
        }
        size_t gl = 0, pl = 0;
        uint8_t * gb = galloc_binary_write_graph(&p.doc, &gl);
        uint8_t * pb = galloc_binary_write_plan(&p.doc, &p.plan, &pl);
        CHECK(gb != NULL && pb != NULL);
        if (gb && pb) {
            check_graph(&p.doc, gb, gl);
            check_plan(&p.doc, &p.plan, pb, pl);
            done++;
        }
        free(gb);
        free(pb);
        galloc_planned_free(&p);
        free(text);
    }
    golden_names_free(names);
    return done;
}

static void test_golden(void) {
    CHECK(check_folder("tests/golden") > 10);
}

static void test_golden_real(void) {
    CHECK(check_folder("tests/golden-real") > 10);
}

// names past ASCII (two-, three- and four-byte UTF-8: U+00E9, U+20AC, U+1F600, which is two UTF-16
// units) and an empty one, walked by their UTF-16 ends; ops and types written once however often used
static void test_strings(void) {
    static const char text[] =
        "{\"tensors\": [{\"name\": \"caf\xC3\xA9\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]},"
        " {\"name\": \"\xE2\x82\xAC\xF0\x9F\x98\x80x\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]},"
        " {\"name\": \"\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1], \"flags\": [\"output\"]}], \"outputs\": [2]}";
    struct galloc_planned p;
    struct galloc_error   err;
    CHECK(galloc_planned_read(text, strlen(text), &p, &err));
    size_t len = 0;
    uint8_t * b = galloc_binary_write_graph(&p.doc, &len);
    CHECK(b != NULL);
    if (b != NULL) {
        check_graph(&p.doc, b, len);
        // 1 + 5 + 1 + 3 strings (the document's and the buffer type's name, the flag names, the tensors'
        // names) and NONE, f32 and ADD once each
        const uint32_t * w = (const uint32_t *) (const void *) b;
        CHECK_EQ_U64(w[3], 1 + 5 + 1 + 3 + 3);
    }
    free(b);
    galloc_planned_free(&p);
}

// a plan's binary word for word against words written out by hand from the layout in galloc-binary.h:
// the how names in the order the tensors first use them ("view" before "best_fit"), u64s split
// low then high, a null tensor, a view with its parent, the text padded to a word with zeros
static void test_plan_words(void) {
    static const char text[] =
        "{\"name\": \"w\", \"buffer_types\": [{\"name\": \"b\", \"alignment\": 32, \"max_size\": null}],"
        " \"tensors\": [{\"name\": \"a\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]},"
        " {\"name\": \"c\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4], \"flags\": [\"input\"]},"
        " {\"name\": \"d\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1], \"flags\": [\"output\"]}], \"outputs\": [2]}";
    struct galloc_planned p;
    struct galloc_error   err;
    if (!galloc_planned_read(text, strlen(text), &p, &err)) {
        CHECK(false);
        return;
    }
    CHECK(p.doc.n_tensors == 3 && p.plan.n_buffer_types == 1);
    if (p.doc.n_tensors != 3 || p.plan.n_buffer_types != 1) {
        galloc_planned_free(&p);
        return;
    }
    p.plan.n_steps   = 7;
    p.plan.n_inplace = 1;
    struct galloc_buffer_plan * bp = &p.plan.buffers[0];
    bp->n_chunks       = 1;
    bp->chunk_sizes[0] = 0x100000040ull;
    bp->size           = 0x100000040ull;
    bp->peak_live      = 0x100000000ull;
    bp->shared_with    = -1;
    p.plan.places[0]   = (struct galloc_place) { .buffer = 0, .chunk = 0, .offset = 0x200000001ull, .size = 64, .how = GALLOC_HOW_VIEW, .parent = 2, .first_step = 1, .last_step = 5 };
    p.plan.places[1]   = (struct galloc_place) { .buffer = -1, .how = GALLOC_HOW_NONE, .parent = -1, .first_step = -1, .last_step = -1 };
    p.plan.places[2]   = (struct galloc_place) { .buffer = 0, .chunk = 3, .offset = 96, .size = 0x300000020ull, .how = GALLOC_HOW_BEST_FIT, .parent = -1, .first_step = 0, .last_step = 6 };
    p.doc.tensors[0].view_src = 2;
    p.doc.tensors[2].view_src = -1;
    static const uint32_t expected[] = {
        // header: 4 strings, their ends at word 10, their 14 bytes at byte 56, 42 body words at word 18, 240 bytes
        GALLOC_BINARY_MAGIC, GALLOC_BINARY_VERSION, GALLOC_BINARY_PLAN, 4, 10, 56, 14, 18, 42, 240,
        // string ends in UTF-16 units: "w", "b", "view", "best_fit"
        1, 2, 6, 14,
        // "wbviewbest_fit" and two zero bytes, little-endian
        0x69766277u, 0x65627765u, 0x665f7473u, 0x00007469u,
        // name, n_steps, n_inplace, n_buffers
        0, 7, 1, 1,
        // buffer 0: its name, alignment 32, max_size null, one chunk of 2^32 + 64, size, peak 2^32, overhead 64, shared with none
        0, 1, 32, 0, 0, 1, 0x40, 1, 0x40, 1, 0, 1, 0x40, 0, 0xFFFFFFFFu,
        // three tensors: a view with its parent (head 7) at 2^33 + 1, 64 bytes, "view", parent 2, steps 1..5
        3, 7, 0, 0, 1, 2, 64, 0, 2, 2, 1, 5,
        // not placed
        0,
        // placed (head 1), chunk 3, offset 96, 3 * 2^32 + 32 bytes, "best_fit", steps 0..6
        1, 0, 3, 96, 0, 0x20, 3, 3, 0, 6,
    };
    size_t    len = 0;
    uint8_t * b   = galloc_binary_write_plan(&p.doc, &p.plan, &len);
    CHECK(b != NULL && len == sizeof(expected));
    if (b != NULL && len == sizeof(expected)) {
        const uint32_t * w = (const uint32_t *) (const void *) b;
        for (size_t i = 0; i < sizeof(expected) / 4; i++) {
            if (w[i] != expected[i]) {
                check_failures++;
                fprintf(stderr, "plan word %zu: 0x%08x, expected 0x%08x\n", i, w[i], expected[i]);
            }
        }
    }
    free(b);
    galloc_planned_free(&p);
}

int main(void) {
    RUN(test_golden);
    RUN(test_golden_real);
    RUN(test_strings);
    RUN(test_plan_words);
    return check_report("binary");
}
