// test-plan-write.c: the plan document's bytes (galloc_document_write_plan) against a rendering
// of this test's own, built with snprintf from the plan's fields (the format page's layout).
//
// Golden graphs planned as they are, and then with every place rewritten to awkward numbers:
// each power of ten and its neighbours, 2^32 and 2^53 on both sides (past 2^53 a quoted string),
// the largest u64, negative and extreme steps, every `how`, views and nulls, an empty plan; and
// seeded random numbers of every length (1 to 20 digits), about 50,000 entries. The project's
// integer formatter and scanner (galloc-decimal.h) on their own against snprintf for every number
// below 10^6 and at each power of ten, and a few entries against lines written out by hand.

#include "check.h"
#include "files.h"
#include "galloc-decimal.h"
#include "galloc-document.h"
#include "galloc-planner.h"
#include "rng.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

// a growable text for the reference rendering
struct ref_text {
    char * buf;
    size_t len, cap;
};

static void ref_printf(struct ref_text * t, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
static void ref_printf(struct ref_text * t, const char * fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t) n < t->cap - t->len) {
            t->len += (size_t) n;
            return;
        }
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->buf = realloc(t->buf, t->cap);
        if (!t->buf) {
            abort();
        }
    }
}

// an unsigned number as the format page has it: past 2^53 a decimal string
static void ref_u64(struct ref_text * t, uint64_t v) {
    ref_printf(t, v > ((uint64_t) 1 << 53) ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
}

// a JSON string of the test documents' names (plain printable ASCII, checked)
static void ref_name(struct ref_text * t, const char * s) {
    for (const char * c = s; *c; c++) {
        CHECK(*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\');
    }
    ref_printf(t, "\"%s\"", s);
}

static const char * const how_names[] = { "none", "external", "best_fit", "last_block", "grow", "new_chunk", "inplace", "view" };

static char * ref_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    struct ref_text t = { 0 };
    ref_printf(&t, "{\n  \"format\": \"galloc-plan\",\n  \"version\": 1,\n  \"name\": ");
    ref_name(&t, doc->name);
    ref_printf(&t, ",\n  \"n_steps\": %d,\n  \"n_inplace\": %d,\n  \"buffers\": [", plan->n_steps, plan->n_inplace);
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        const struct galloc_buffer_plan * bp = &plan->buffers[b];
        ref_printf(&t, "%s\n    { \"buffer_type\": %d, \"name\": ", b > 0 ? "," : "", b);
        ref_name(&t, doc->buffer_type_names[b]);
        ref_printf(&t, ", \"alignment\": ");
        ref_u64(&t, doc->buffer_types[b].alignment);
        ref_printf(&t, ", \"max_size\": ");
        if (doc->buffer_types[b].max_size == GALLOC_NO_MAX_SIZE) {
            ref_printf(&t, "null");
        } else {
            ref_u64(&t, doc->buffer_types[b].max_size);
        }
        ref_printf(&t, ", \"chunk_sizes\": [");
        for (int32_t c = 0; c < bp->n_chunks; c++) {
            ref_printf(&t, "%s", c > 0 ? ", " : "");
            ref_u64(&t, bp->chunk_sizes[c]);
        }
        ref_printf(&t, "], \"size\": ");
        ref_u64(&t, bp->size);
        ref_printf(&t, ", \"peak_live\": ");
        ref_u64(&t, bp->peak_live);
        ref_printf(&t, ", \"overhead\": ");
        ref_u64(&t, bp->size > bp->peak_live ? bp->size - bp->peak_live : 0);
        ref_printf(&t, bp->shared_with < 0 ? ", \"shared_with\": null }" : ", \"shared_with\": %d }", bp->shared_with);
    }
    ref_printf(&t, "%s],\n  \"tensors\": [", plan->n_buffer_types > 0 ? "\n  " : "");
    for (int32_t i = 0; i < plan->n_tensors; i++) {
        const struct galloc_place * p = &plan->places[i];
        ref_printf(&t, "%s\n    ", i > 0 ? "," : "");
        if (p->buffer < 0) {
            ref_printf(&t, "null");
            continue;
        }
        ref_printf(&t, "{ \"buffer\": %d, \"chunk\": %d, \"offset\": ", p->buffer, p->chunk);
        ref_u64(&t, p->offset);
        ref_printf(&t, ", \"size\": ");
        ref_u64(&t, p->size);
        if (doc->tensors[i].view_src >= 0) {
            ref_printf(&t, ", \"view\": true");
        }
        ref_printf(&t, ", \"how\": \"%s\"", p->how >= 0 && p->how < 8 ? how_names[p->how] : "none");
        if (p->how == GALLOC_HOW_INPLACE || p->how == GALLOC_HOW_VIEW) {
            ref_printf(&t, ", \"parent\": %d", p->parent);
        }
        ref_printf(&t, ", \"first\": %d, \"last\": %d }", p->first_step, p->last_step);
    }
    ref_printf(&t, "%s]\n}\n", plan->n_tensors > 0 ? "\n  " : "");
    *len = t.len;
    return t.buf;
}

// the writer's bytes equal the reference's; the first difference shown
static void check_same_text(const char * what, const struct galloc_document * doc, const struct galloc_plan * plan) {
    size_t ours_len = 0, ref_len = 0;
    char * ours     = galloc_document_write_plan(doc, plan, &ours_len);
    char * ref      = ref_plan(doc, plan, &ref_len);
    CHECK(ours != NULL);
    if (ours != NULL) {
        CHECK(strlen(ours) == ours_len); // NUL-terminated, nothing after it counted
        size_t k = 0;
        while (k < ours_len && k < ref_len && ours[k] == ref[k]) {
            k++;
        }
        if (k < ours_len || k < ref_len) {
            check_failures++;
            size_t from = k > 60 ? k - 60 : 0;
            fprintf(stderr, "%s: the plan text differs at byte %zu of %zu (reference %zu)\n  writer:    ...%.120s\n  reference: ...%.120s\n", what,
                    k, ours_len, ref_len, ours + from, ref + from);
        }
    }
    free(ours);
    free(ref);
}

static bool read_and_plan(const char * name, struct galloc_document * doc, struct galloc_plan * plan) {
    size_t              len  = 0;
    char *              text = golden_read(name, "graph", &len);
    struct galloc_error err;
    bool                ok = text != NULL && galloc_document_read(text, len, doc, &err);
    free(text);
    CHECK(ok);
    if (ok && !galloc_plan_graph(&doc->graph, plan, &err)) {
        CHECK(false);
        galloc_document_free(doc);
        return false;
    }
    return ok;
}

// golden graphs planned as they are: one and two buffer types, a maximum size, chunks
static void test_golden_plans(void) {
    static const char * const names[] = { "llama-7b-like", "llama-7b-like-2buft", "llama-7b-like-max1g", "llama-tiny-max4k", "rand-n10000-s0-a8-chunked" };
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        struct galloc_document doc;
        struct galloc_plan     plan;
        if (read_and_plan(names[k], &doc, &plan)) {
            check_same_text(names[k], &doc, &plan);
            galloc_plan_free(&plan);
            galloc_document_free(&doc);
        }
    }
}

// the numbers a digit writer gets wrong, by index: edges (2^32 and 2^53 on both sides, the largest u64),
// then 10^k - 1, 10^k and 10^k + 1 for k = 0..19, then a spread of others
static uint64_t awkward_u64(int32_t i) {
    static const uint64_t edges[] = { 0, 1, 4294967295ull, 4294967296ull, 4294967297ull, 429496729600ull, 9007199254740991ull,
                                      9007199254740992ull, 9007199254740993ull, 18446744073709551615ull, 18446744073709551614ull,
                                      12345678901234567890ull };
    const int32_t n_edges = (int32_t) (sizeof(edges) / sizeof(edges[0]));
    if (i < n_edges) {
        return edges[i];
    }
    if (i < n_edges + 60) {
        int32_t  k = (i - n_edges) / 3;
        uint64_t p = 1;
        while (k-- > 0) {
            p *= 10;
        }
        return p - 1 + (uint64_t) ((i - n_edges) % 3);
    }
    return (uint64_t) i * 2654435761ull * (uint64_t) (i % 977);
}

static int32_t awkward_i32(int32_t i) {
    static const int32_t edges[] = { -1, 0, 9, 10, 99, 100, 999, 1000, 99999, 100000, 999999999, 1000000000, INT32_MAX, -10, -2147483647, INT32_MIN };
    return edges[i % (int32_t) (sizeof(edges) / sizeof(edges[0]))];
}

static void test_awkward_numbers(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan("llama-7b-like-2buft", &doc, &plan)) {
        return;
    }
    for (int32_t i = 0; i < plan.n_tensors; i++) {
        struct galloc_place * p = &plan.places[i];
        p->buffer               = i >= 100 && i % 11 == 0 ? -1 : i % 2; // nulls among them, after the edges
        p->chunk                = i % 16;
        p->offset               = awkward_u64(i);
        p->size                 = awkward_u64(plan.n_tensors - 1 - i); // the same numbers in the other order
        p->how                  = i % 10 - 1; // -1 and 8 are named "none", as galloc_how_name does
        p->parent               = awkward_i32(i + 3);
        p->first_step           = awkward_i32(i);
        p->last_step            = awkward_i32(i + 5);
    }
    plan.n_steps   = INT32_MAX;
    plan.n_inplace = -1;
    plan.buffers[0].size      = 9007199254740993ull;
    plan.buffers[0].peak_live = 10;
    check_same_text("awkward numbers", &doc, &plan);
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// a number of `digits` decimal digits (1..20), the rest of its digits random
static uint64_t random_digits(int digits) {
    uint64_t v = 1 + (uint64_t) rng_below(9);
    for (int d = 1; d < digits; d++) {
        v = v * 10 + (uint64_t) rng_below(10);
    }
    return v;
}

// seeded random numbers of every length, many of each: the digits inside a number, not only its edges
static void test_random_numbers(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan("llama-7b-like-2buft", &doc, &plan)) {
        return;
    }
    rng_seed(16);
    for (int round = 0; round < 40; round++) {
        for (int32_t i = 0; i < plan.n_tensors; i++) {
            struct galloc_place * p = &plan.places[i];
            p->buffer               = rng_below(3) - 1;
            p->chunk                = (int32_t) random_digits(1 + rng_below(10)) & INT32_MAX;
            p->offset               = random_digits(1 + rng_below(16)); // exact integers: below 2^53 ~ 9.0e15
            p->size                 = random_digits(1 + rng_below(20)); // past 2^53 a quoted string
            p->how                  = rng_below(8);
            p->parent               = (int32_t) (random_digits(1 + rng_below(9)) & INT32_MAX) * (rng_below(2) ? 1 : -1);
            p->first_step           = (int32_t) (random_digits(1 + rng_below(10)) & INT32_MAX);
            p->last_step            = (int32_t) rng_next();
        }
        check_same_text("random numbers", &doc, &plan);
    }
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// the formatter alone: every number below 10^6 and 10^k - 1, 10^k, 10^k + 1, the largest u64,
// against snprintf; and the scanner reading each back, at its max and one past it
static void check_digits(uint64_t v) {
    char ours[32], ref[32];
    memset(ours, '#', sizeof(ours));
    size_t n_ours = galloc_decimal_format_u64(ours, v);
    int    n      = snprintf(ref, sizeof(ref), "%" PRIu64, v);
    if ((int) n_ours != n || memcmp(ours, ref, (size_t) n) != 0 || ours[n] != '#') {
        check_failures++;
        fprintf(stderr, "digits of %" PRIu64 ": %.*s (%d bytes), expected %s\n", v, (int) n_ours, ours, (int) n_ours, ref);
    }
    uint64_t back = v + 1;
    CHECK(galloc_decimal_scan_u64(ref, (size_t) n, UINT64_MAX, &back) && back == v);
    CHECK(galloc_decimal_scan_u64(ref, (size_t) n, v, &back) && back == v);
    CHECK(v == 0 || !galloc_decimal_scan_u64(ref, (size_t) n, v - 1, &back));
}

static void test_digit_writer(void) {
    for (uint64_t v = 0; v < 1000000; v++) {
        check_digits(v);
    }
    for (uint64_t p = 10; p <= UINT64_MAX / 10; p *= 10) {
        check_digits(p - 1);
        check_digits(p);
        check_digits(p + 1);
    }
    check_digits(UINT64_MAX);
    check_digits(UINT32_MAX);
    check_digits((uint64_t) UINT32_MAX + 1);
    // what the scanner refuses: nothing, a sign, a space, past 2^64 - 1, more than 20 digits
    uint64_t v = 7;
    CHECK(!galloc_decimal_scan_u64("", 0, UINT64_MAX, &v) && v == 7);
    CHECK(!galloc_decimal_scan_u64("-1", 2, UINT64_MAX, &v) && v == 7);
    CHECK(!galloc_decimal_scan_u64("+1", 2, UINT64_MAX, &v) && v == 7);
    CHECK(!galloc_decimal_scan_u64("1 ", 2, UINT64_MAX, &v) && v == 7);
    CHECK(!galloc_decimal_scan_u64("18446744073709551616", 20, UINT64_MAX, &v) && v == 7);
    CHECK(!galloc_decimal_scan_u64("000000000000000000001", 21, UINT64_MAX, &v) && v == 7);
    CHECK(galloc_decimal_scan_u64("00000000000000000001", 20, UINT64_MAX, &v) && v == 1);
}

// entries with chosen numbers against lines written out by hand: the edges of each digit group,
// 2^32, 2^53 (the last exact integer) and past it, the largest u64, negative and extreme steps,
// steps on both sides of 1000, large numbers
// written a second time
static void test_hand_written_lines(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan("llama-tiny", &doc, &plan)) {
        return;
    }
    static const struct galloc_place places[] = {
        { .buffer = 0, .chunk = 0, .offset = 0, .size = 9, .how = GALLOC_HOW_BEST_FIT, .parent = -1, .first_step = 10, .last_step = 99 },
        { .buffer = -1 },
        { .buffer = 0, .chunk = 12, .offset = 10, .size = 99, .how = GALLOC_HOW_VIEW, .parent = 1000, .first_step = -1, .last_step = 2147483647 },
        { .buffer = 10, .chunk = 0, .offset = 100, .size = 999, .how = GALLOC_HOW_INPLACE, .parent = 0, .first_step = 100, .last_step = 999 },
        { .buffer = 3, .chunk = 9, .offset = 1000, .size = 999999, .how = GALLOC_HOW_GROW, .parent = 5, .first_step = 999999, .last_step = 1000000 },
        { .buffer = 0, .chunk = 0, .offset = 1000000, .size = 999999999, .how = GALLOC_HOW_LAST_BLOCK, .first_step = 999999999, .last_step = 1000000000 },
        { .buffer = 0, .chunk = 1, .offset = 1000000000, .size = 4294967295u, .how = GALLOC_HOW_NEW_CHUNK, .first_step = -2147483647 - 1, .last_step = -1000 },
        { .buffer = 0, .chunk = 0, .offset = 4294967296u, .size = 999999999999u, .how = GALLOC_HOW_EXTERNAL, .first_step = 0, .last_step = 9 },
        { .buffer = 0, .chunk = 0, .offset = 1000000000000u, .size = 9007199254740992u, .how = GALLOC_HOW_NONE, .first_step = 1, .last_step = 1001 },
        { .buffer = 0, .chunk = 0, .offset = 9007199254740993u, .size = UINT64_MAX, .how = GALLOC_HOW_BEST_FIT, .first_step = 1000001, .last_step = 1000000001 },
        { .buffer = 0, .chunk = 0, .offset = 999999999, .size = 1000000, .how = GALLOC_HOW_BEST_FIT, .first_step = 5, .last_step = 6 },
        { .buffer = 0, .chunk = 0, .offset = 1, .size = 2, .how = GALLOC_HOW_INPLACE, .parent = 999, .first_step = 1000, .last_step = 999 },
        { .buffer = 0, .chunk = 0, .offset = 3, .size = 4, .how = GALLOC_HOW_GROW, .first_step = 999, .last_step = 0 },
    };
    static const char expected[] =
        "\"tensors\": [\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 0, \"size\": 9, \"how\": \"best_fit\", \"first\": 10, \"last\": 99 },\n"
        "    null,\n"
        "    { \"buffer\": 0, \"chunk\": 12, \"offset\": 10, \"size\": 99, \"view\": true, \"how\": \"view\", \"parent\": 1000, \"first\": -1, \"last\": 2147483647 },\n"
        "    { \"buffer\": 10, \"chunk\": 0, \"offset\": 100, \"size\": 999, \"how\": \"inplace\", \"parent\": 0, \"first\": 100, \"last\": 999 },\n"
        "    { \"buffer\": 3, \"chunk\": 9, \"offset\": 1000, \"size\": 999999, \"how\": \"grow\", \"first\": 999999, \"last\": 1000000 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 1000000, \"size\": 999999999, \"how\": \"last_block\", \"first\": 999999999, \"last\": 1000000000 },\n"
        "    { \"buffer\": 0, \"chunk\": 1, \"offset\": 1000000000, \"size\": 4294967295, \"how\": \"new_chunk\", \"first\": -2147483648, \"last\": -1000 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 4294967296, \"size\": 999999999999, \"how\": \"external\", \"first\": 0, \"last\": 9 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 1000000000000, \"size\": 9007199254740992, \"how\": \"none\", \"first\": 1, \"last\": 1001 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": \"9007199254740993\", \"size\": \"18446744073709551615\", \"how\": \"best_fit\", \"first\": 1000001, \"last\": 1000000001 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 999999999, \"size\": 1000000, \"how\": \"best_fit\", \"first\": 5, \"last\": 6 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 1, \"size\": 2, \"how\": \"inplace\", \"parent\": 999, \"first\": 1000, \"last\": 999 },\n"
        "    { \"buffer\": 0, \"chunk\": 0, \"offset\": 3, \"size\": 4, \"how\": \"grow\", \"first\": 999, \"last\": 0 }\n"
        "  ]\n"
        "}\n";
    const int32_t n = (int32_t) (sizeof(places) / sizeof(places[0]));
    const int32_t n_tensors = doc.n_tensors;
    CHECK(n_tensors >= n);
    if (n_tensors >= n) {
        doc.n_tensors = plan.n_tensors = n;
        for (int32_t i = 0; i < n; i++) {
            plan.places[i]         = places[i];
            doc.tensors[i].view_src = i == 2 ? 0 : -1;
        }
        size_t len  = 0;
        char * text = galloc_document_write_plan(&doc, &plan, &len);
        const char * tensors = text != NULL ? strstr(text, "\"tensors\": [") : NULL;
        CHECK(tensors != NULL && strcmp(tensors, expected) == 0);
        if (tensors != NULL && strcmp(tensors, expected) != 0) {
            fprintf(stderr, "writer:\n%s\nexpected:\n%s\n", tensors, expected);
        }
        free(text);
        doc.n_tensors = plan.n_tensors = n_tensors;
    }
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

// no tensors and no buffer types: the empty arrays' own layout
static void test_empty_plan(void) {
    struct galloc_document doc;
    struct galloc_plan     plan;
    if (!read_and_plan("llama-tiny", &doc, &plan)) {
        return;
    }
    int32_t n_tensors = doc.n_tensors, n_buffer_types = doc.n_buffer_types;
    doc.n_tensors = plan.n_tensors = 0;
    check_same_text("no tensors", &doc, &plan);
    doc.n_buffer_types = plan.n_buffer_types = 0;
    check_same_text("no tensors and no buffers", &doc, &plan);
    doc.n_tensors = plan.n_tensors = n_tensors;
    check_same_text("no buffers", &doc, &plan);
    doc.n_buffer_types = plan.n_buffer_types = n_buffer_types;
    plan.n_tensors = n_tensors - 1;
    size_t n = 1;
    CHECK(galloc_document_write_plan(&doc, &plan, &n) == NULL && n == 0); // not a plan of this document
    plan.n_tensors = n_tensors;
    galloc_plan_free(&plan);
    galloc_document_free(&doc);
}

int main(void) {
    RUN(test_golden_plans);
    RUN(test_awkward_numbers);
    RUN(test_random_numbers);
    RUN(test_empty_plan);
    RUN(test_digit_writer);
    RUN(test_hand_written_lines);
    return check_report("plan-write");
}
