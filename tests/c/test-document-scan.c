// test-document-scan.c: the one-pass reader's word-at-a-time scanning against byte-at-a-time truths.
//
// The masks of galloc-document-swar.h byte by byte on chosen and random words; the tight number
// reader against a byte loop on numbers of every length up to 22 digits, at the end of the text;
// the string and table-name scanners of the one-pass reader (galloc-document-scan.h, -fast.c) on
// text that ends exactly where the heap block does (ASan sees any read past it), against a byte
// loop and a search of ggml's own name tables; and a document in the writers' layout cut short at
// every byte and with every byte changed, read every way (document_modes_agree: the tree reader is
// the truth), so that each shortcut the reader takes for that layout is checked where it ends.

#include "check.h"
#include "document-modes.h"
#include "galloc-document-impl.h"
#include "galloc-document-scan.h"
#include "rng.h"

#include <stdlib.h>
#include <string.h>

//
// words
//

// bytes a scanner cares about, and their neighbours
static const unsigned char INTERESTING[] = { 0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2C, 0x2F, 0x30, 0x31,
                                             0x38, 0x39, 0x3A, 0x40, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0,
                                             0xC2, 0xE0, 0xEF, 0xF0, 0xF4, 0xFA, 0xFF };

static unsigned char random_byte(void) {
    return rng_below(3) == 0 ? (unsigned char) rng_below(256) : INTERESTING[rng_below((int) sizeof(INTERESTING))];
}

// the mask a predicate gives byte by byte: 0x80 in byte k (bits 8k..8k+7) where it holds
static uint64_t mask_of(const unsigned char b[8], int (*holds)(unsigned char)) {
    uint64_t m = 0;
    for (int k = 0; k < 8; k++) {
        if (holds(b[k])) {
            m |= 0x80ull << (8 * k);
        }
    }
    return m;
}

static int is_zero(unsigned char c) { return c == 0; }
static int is_nonzero(unsigned char c) { return c != 0; }
static int is_quote(unsigned char c) { return c == '"'; }
static int is_nondigit(unsigned char c) { return c < '0' || c > '9'; }
static int is_not_plain(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }

static void check_word(const unsigned char b[8]) {
    uint64_t w = 0;
    for (int k = 0; k < 8; k++) {
        w |= (uint64_t) b[k] << (8 * k);
    }
    CHECK(galloc_swar_load(b) == w);
    for (size_t n = 0; n <= 8; n++) {
        uint64_t head = n == 8 ? w : w & ((1ull << (8 * n)) - 1);
        CHECK(galloc_swar_load_short(b, n) == head);
        CHECK(galloc_swar_head(w, n) == head);
    }
    CHECK(galloc_swar_zero(w) == mask_of(b, is_zero));
    CHECK(galloc_swar_nonzero(w) == mask_of(b, is_nonzero));
    CHECK(galloc_swar_equal(w, '"') == mask_of(b, is_quote));
    for (int k = 0; k < 8; k++) { // the bytes below the first flagged, for a mask flagging byte k and maybe later ones
        uint64_t flags = (mask_of(b, is_quote) & (~0ull << (8 * k))) | 0x80ull << (8 * k);
        CHECK(galloc_swar_below_first(flags) == galloc_swar_head(~0ull, (size_t) k));
    }
    uint64_t not_plain = mask_of(b, is_not_plain), first_not_plain = galloc_swar_not_plain_first(w);
    CHECK((first_not_plain == 0) == (not_plain == 0));
    CHECK(not_plain == 0 || galloc_swar_first(first_not_plain) == galloc_swar_first(not_plain));
    CHECK((first_not_plain & ~GALLOC_SWAR_HIGHS) == 0);
    uint64_t m = mask_of(b, is_nondigit);
    if (m != 0) {
        unsigned first = 0;
        while (!is_nondigit(b[first])) {
            first++;
        }
        CHECK(galloc_swar_first(m) == first);
    }
}

static void test_words(void) {
    unsigned char b[8];
    // every interesting byte at every place of a word of digits, of spaces and of letters
    static const unsigned char fills[] = { '7', ' ', 'a', 0x00, 0xFF };
    for (size_t f = 0; f < sizeof(fills); f++) {
        for (int at = 0; at < 8; at++) {
            for (size_t i = 0; i < sizeof(INTERESTING); i++) {
                memset(b, fills[f], 8);
                b[at] = INTERESTING[i];
                check_word(b);
            }
        }
    }
    // digit runs of every length, then anything
    rng_seed(16);
    for (int k = 0; k < 20000; k++) {
        unsigned digits = (unsigned) rng_below(9);
        for (unsigned j = 0; j < 8; j++) {
            b[j] = j < digits ? (unsigned char) ('0' + rng_below(10)) : random_byte();
        }
        check_word(b);
    }
    for (int k = 0; k < 20000; k++) {
        for (unsigned j = 0; j < 8; j++) {
            b[j] = random_byte();
        }
        check_word(b);
    }
}

//
// strings, at the very end of the text
//

// the text in a heap block of exactly len bytes (ASan: a read past it is an error)
static unsigned char * exact_copy(const unsigned char * text, size_t len) {
    unsigned char * copy = malloc(len > 0 ? len : 1);
    if (copy != NULL && len > 0) {
        memcpy(copy, text, len);
    }
    return copy;
}

// what a plain string at text is, byte by byte: its value's length and the bytes read, or false
static bool string_truth(const unsigned char * text, size_t len, size_t * n, size_t * consumed) {
    if (len == 0 || text[0] != '"') {
        return false;
    }
    size_t i = 1;
    while (i < len) {
        unsigned char c = text[i];
        if (c == '"') {
            *n        = i - 1;
            *consumed = i + 1;
            return true;
        }
        if (c == '\\' || c < 0x20) {
            return false;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t seq = galloc_json_utf8_length(text + i, len - i);
        if (seq == 0) {
            return false;
        }
        i += seq;
    }
    return false;
}

static void check_string(const unsigned char * text, size_t len) {
    unsigned char *    copy = exact_copy(text, len);
    struct galloc_scan s    = { copy, copy + len };
    const char *       v    = NULL;
    size_t             n = 0, want_n = 0, want_consumed = 0;
    bool               ok   = galloc_scan_string(&s, &v, &n);
    bool               want = string_truth(text, len, &want_n, &want_consumed);
    CHECK(ok == want);
    if (ok && want) {
        CHECK(n == want_n && v == (const char *) copy + 1 && s.p == copy + want_consumed);
    }
    free(copy);
}

static void test_strings(void) {
    static const unsigned char pieces[][4] = { "a", "Z", " ", "_", "\x7f", "\"", "\\", "\x01", "\x1f", "\xc3\xa9", "\xe2\x82\xac",
                                               "\xf0\x9f\x98\x80", "\xc3", "\xe2\x82", "\xff", "\xed\xa0\x80", "\xc0\xaf" };
    rng_seed(17);
    unsigned char text[96];
    for (int k = 0; k < 30000; k++) {
        size_t len = 0;
        text[len++] = '"';
        int n_pieces = rng_below(24);
        for (int j = 0; j < n_pieces; j++) {
            // mostly plain bytes, so that the special one lands anywhere in a word
            const unsigned char * piece = rng_below(4) != 0 ? pieces[rng_below(4)] : pieces[rng_below((int) (sizeof(pieces) / sizeof(pieces[0])))];
            size_t                pl    = strlen((const char *) piece);
            memcpy(text + len, piece, pl);
            len += pl;
        }
        if (rng_below(4) != 0) {
            text[len++] = '"';
        }
        size_t tail = (size_t) rng_below(12);
        for (size_t j = 0; j < tail; j++) {
            text[len++] = (unsigned char) "}, \"x\"]"[rng_below(7)];
        }
        check_string(text, len);
        for (size_t cut = 0; cut < len; cut += 1 + (size_t) rng_below(5)) {
            check_string(text, cut); // cut short: ends inside the string
        }
    }
}

//
// the tight number reader, at the very end of the text
//

// what galloc_scan_tight_u64 takes at text, byte by byte: a lone 0 (a digit after it is left for
// the caller to refuse), or 1 to 18 digits without a leading zero; the value and the bytes read
static bool tight_u64_truth(const unsigned char * text, size_t len, uint64_t * v, size_t * consumed) {
    if (len == 0 || text[0] < '0' || text[0] > '9') {
        return false;
    }
    if (text[0] == '0') {
        *v        = 0;
        *consumed = 1;
        return true;
    }
    size_t n = 0;
    *v       = 0;
    while (n < len && text[n] >= '0' && text[n] <= '9') {
        if (n == 18) {
            return false; // a 19th digit
        }
        *v = *v * 10 + (uint64_t) (text[n] - '0');
        n++;
    }
    *consumed = n;
    return true;
}

// digits then tail (whose last byte is no digit, as the tight readers want), in a block of exactly
// their bytes: read as the byte loop reads them
static bool check_tight_u64(const char * digits, const char * tail) {
    size_t          dl = strlen(digits), tl = strlen(tail), len = dl + tl;
    unsigned char   text[64];
    memcpy(text, digits, dl);
    memcpy(text + dl, tail, tl);
    unsigned char *       copy = exact_copy(text, len);
    const unsigned char * p    = copy;
    uint64_t              v = 0, want_v = 0;
    size_t                want_consumed = 0;
    bool                  ok            = galloc_scan_tight_u64(&p, copy + len, &v);
    bool                  want          = tight_u64_truth(text, len, &want_v, &want_consumed);
    bool                  agree         = ok == want && (!ok || (v == want_v && p == copy + want_consumed)) && (ok || p == copy);
    if (!agree) {
        fprintf(stderr, "  \"%s%s\": read %d (%llu, %td bytes), want %d (%llu, %zu bytes)\n", digits, tail, ok, (unsigned long long) v,
                p - copy, want, (unsigned long long) want_v, want_consumed);
    }
    free(copy);
    return agree;
}

static void test_tight_numbers(void) {
    static const char * const tails[] = { "}", ",", ", 7]", "]", " }", "x", ".5,", "e3]", "-", "\"" };
    char                      digits[32];
    int                       failures = 0;
    rng_seed(18);
    for (size_t n = 0; n <= 22; n++) { // every length: none, the one-by-one digits, the loop, 18, 19, 20 digits
        for (int k = 0; k < 200; k++) {
            for (size_t j = 0; j < n; j++) {
                digits[j] = (char) ('0' + rng_below(10));
            }
            if (k == 0) {
                memset(digits, '9', n); // the largest of n digits (18: under 10^18)
            } else if (k == 1) {
                memset(digits, '0', n); // zeros: a lone 0 is all that is read
            } else if (k == 2 && n > 0) {
                memset(digits, '0', n); // 10^(n-1)
                digits[0] = '1';
            } else if (k == 3 && n > 0) {
                digits[0] = '0'; // a leading zero
            } else if (n > 0 && digits[0] == '0') {
                digits[0] = '5';
            }
            digits[n] = '\0';
            for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
                failures += !check_tight_u64(digits, tails[t]);
            }
        }
    }
    CHECK(failures == 0);
}

//
// ggml's names
//

#define N_KINDS 4 // enum galloc_name_kind

static const char * kind_name(int kind, int32_t id) {
    switch (kind) {
        case GALLOC_NAME_OP:       return ggml_op_name((enum ggml_op) id);
        case GALLOC_NAME_TYPE:     return ggml_blck_size((enum ggml_type) id) > 0 && ggml_type_size((enum ggml_type) id) > 0 ? ggml_type_name((enum ggml_type) id) : NULL;
        case GALLOC_NAME_UNARY_OP: return ggml_unary_op_name((enum ggml_unary_op) id);
        case GALLOC_NAME_GLU_OP:   return ggml_glu_op_name((enum ggml_glu_op) id);
        default:                   return NULL;
    }
}

static int32_t kind_count(int kind) {
    switch (kind) {
        case GALLOC_NAME_OP:       return GGML_OP_COUNT;
        case GALLOC_NAME_TYPE:     return GGML_TYPE_COUNT;
        case GALLOC_NAME_UNARY_OP: return GGML_UNARY_OP_COUNT;
        case GALLOC_NAME_GLU_OP:   return GGML_GLU_OP_COUNT;
        default:                   return 0;
    }
}

// the first id of ggml's table of that kind whose name is the n bytes at s, by search; -1 for none
static int32_t name_truth(int kind, const unsigned char * s, size_t n) {
    for (int32_t id = 0; id < kind_count(kind); id++) {
        const char * name = kind_name(kind, id);
        if (name != NULL && strlen(name) == n && memcmp(name, s, n) == 0) {
            return id;
        }
    }
    return -1;
}

// "<value>" then tail, at the end of the text: found as the table search finds it
static int check_table_name(const struct galloc_fast_names * names, int kind, const unsigned char * value, size_t n, const char * tail, bool closed) {
    unsigned char text[512];
    size_t        tl  = strlen(tail);
    size_t        len = 0;
    text[len++]       = '"';
    memcpy(text + len, value, n);
    len += n;
    if (closed) {
        text[len++] = '"';
    }
    memcpy(text + len, tail, tl);
    len += tl;
    unsigned char *    copy = exact_copy(text, len);
    struct galloc_scan s    = { copy, copy + len };
    int32_t            id   = -2;
    bool               ok   = galloc_fast_scan_table_name(&s, names, NULL, kind, &id);
    // the same through the recent names of the calls before (a document's entries, one after another):
    // a name given before with the same 8 bytes after its quote is not looked up
    static struct galloc_fast_recent recent; // zero: none yet
    struct galloc_scan               again     = { copy, copy + len };
    int32_t                          again_id  = -2;
    bool                             again_ok  = galloc_fast_scan_table_name(&again, names, &recent, kind, &again_id);
    CHECK(again_ok == ok && again.p == s.p && (!ok || again_id == id));
    // the truth from the text: the name is what comes before the first '"' after the opening one
    const unsigned char * quote = memchr(text + 1, '"', len - 1);
    int32_t               want  = quote != NULL ? name_truth(kind, text + 1, (size_t) (quote - text - 1)) : -1;
    CHECK(ok == (want >= 0));
    if (ok && want >= 0) {
        CHECK(id == want && s.p == copy + (quote - text) + 1);
    }
    if (ok != (want >= 0) || (ok && id != want)) {
        fprintf(stderr, "  kind %d, \"%.*s\" (%zu bytes), tail \"%s\": found %d, want %d\n", kind, (int) n, (const char *) value, n, tail, ok ? id : -1, want);
    }
    free(copy);
    return want >= 0;
}

static void test_table_names(void) {
    // the table every reader of the process shares (built by this first call: single-threaded, so not into scratch)
    struct galloc_fast_names         scratch;
    const struct galloc_fast_names * names = galloc_fast_names_shared(&scratch);
    CHECK(names != &scratch && galloc_fast_names_shared(&scratch) == names);
    // first, while the recent names are all empty slots: eight zero bytes after the quote (the bytes
    // an empty slot holds) are no name
    static const unsigned char zeros[8] = { 0 };
    for (int kind = 0; kind < N_KINDS; kind++) {
        check_table_name(names, kind, zeros, sizeof(zeros), ", \"type\": \"f32\", \"ne\": [4] }", true);
        check_table_name(names, kind, zeros, sizeof(zeros), ", \"type\": \"f32\", \"ne\": [4] }", true);
    }
    static const char * const tails[]   = { "", "}", ", \"type\": \"f32\", \"ne\": [4] }", "\"" };
    static const unsigned char changes[] = { 'A', 'z', '_', '0', '"', '\\', 0x00, 0x1f, 0x7f, 0xc3, 0xff };
    int                        found    = 0;
    for (int kind = 0; kind < N_KINDS; kind++) {
        for (int32_t id = 0; id < kind_count(kind); id++) {
            const char * name = kind_name(kind, id);
            if (name == NULL) {
                continue;
            }
            const unsigned char * v = (const unsigned char *) name;
            size_t                n = strlen(name);
            for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
                found += check_table_name(names, kind, v, n, tails[t], true);
                check_table_name(names, kind, v, n, tails[t], false); // never closed
                check_table_name(names, kind, v, n - 1, tails[t], true);
                unsigned char longer[80];
                memcpy(longer, v, n);
                longer[n] = '_';
                check_table_name(names, kind, longer, n + 1, tails[t], true);
            }
            // each byte changed: some give another name of the table, most none
            for (size_t at = 0; at < n; at++) {
                for (size_t c = 0; c < sizeof(changes); c++) {
                    unsigned char changed[80];
                    memcpy(changed, v, n);
                    changed[at] = changes[c];
                    check_table_name(names, kind, changed, n, tails[rng_below(3)], true);
                }
            }
            // the name as another kind: found only where that kind has it too
            check_table_name(names, (kind + 1) % N_KINDS, v, n, "}", true);
        }
    }
    CHECK(found > 4 * (GGML_OP_COUNT + GGML_UNARY_OP_COUNT + 30)); // every name, found with every tail
    static const char * const others[] = { "", "x", "f3", "f322", "ADD ", " ADD", "add", "MUL_MAT_ID_X", "CROSS_ENTROPY_LOSS_BACKX",
                                           "CROSS_ENTROPY_LOSS_BACK_", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" };
    // a known name then NUL bytes: the same first words as the name, and a length past any tag
    unsigned char nul_tail[300];
    memset(nul_tail, 0, sizeof(nul_tail));
    memcpy(nul_tail, "f32", 3);
    for (size_t n = 4; n < sizeof(nul_tail) - 40; n += n >= 250 && n < 270 ? 1 : 1 + n / 8) { // 259 bytes: a tag of kind + 1 and length 3
        for (int kind = 0; kind < N_KINDS; kind++) {
            check_table_name(names, kind, nul_tail, n, "}", true);
        }
    }
    for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
        for (int kind = 0; kind < N_KINDS; kind++) {
            check_table_name(names, kind, (const unsigned char *) others[k], strlen(others[k]), "}", true);
        }
    }
}

//
// a document in the writers' layout, cut and changed everywhere
//

static const char WRITER_DOCUMENT[] =
    "{\n  \"format\": \"galloc-graph\",\n  \"version\": 1,\n  \"name\": \"scan\",\n"
    "  \"buffer_types\": [ { \"name\": \"dev0\", \"alignment\": 32, \"max_size\": null }, { \"name\": \"dev1\", \"alignment\": 64, \"max_size\": 1073741824 } ],\n"
    "  \"tensors\": [\n"
    "    { \"name\": \"weights.with.a.long.name.0123456789\", \"op\": \"NONE\", \"type\": \"q4_0\", \"ne\": [4096, 11008], \"buffer_type\": 0 },\n"
    "    { \"name\": \"inp\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4096, 512, 1, 2], \"flags\": [\"input\"], \"external\": false },\n"
    "    { \"name\": \"x\", \"op\": \"NONE\", \"type\": \"i32\", \"ne\": [512], \"flags\": [\"input\", \"output\", \"param\", \"loss\"], \"external\": true },\n"
    "    { \"name\": \"node_3.mul_mat\", \"op\": \"MUL_MAT\", \"type\": \"f32\", \"ne\": [11008, 512, 2], \"src\": [0, 1], \"flags\": [\"compute\"], \"buffer_type\": 1 },\n"
    "    { \"name\": \"\", \"op\": \"UNARY\", \"unary_op\": \"SILU\", \"type\": \"f32\", \"ne\": [11008, 512, 2], \"src\": [3], \"flags\": [\"compute\"] },\n"
    "    { \"name\": \"g\", \"op\": \"GLU\", \"glu_op\": \"SWIGLU\", \"type\": \"f32\", \"ne\": [11008, 512, 2], \"src\": [3, 4], \"flags\": [\"output\", \"compute\"] },\n"
    "    { \"name\": \"v (view)\", \"op\": \"VIEW\", \"type\": \"f32\", \"ne\": [11008, 256], \"nb\": [4, 44032, 22544384, 22544384], \"src\": [5], \"view_src\": 5, \"view_offs\": 0, \"flags\": [\"compute\"] },\n"
    "    { \"name\": \"t\", \"op\": \"TRANSPOSE\", \"type\": \"f32\", \"ne\": [256, 11008], \"nb\": [44032, 4, 11272192, 11272192], \"src\": [6], \"view_src\": 5, \"view_offs\": 4, \"flags\": [\"compute\"] },\n"
    "    { \"name\": \"fa\", \"op\": \"FLASH_ATTN_EXT\", \"type\": \"f32\", \"ne\": [128, 32, 512], \"src\": [1, 1, 1, null, null], \"flags\": [\"compute\"], \"alloc_size\": 999999999999 },\n"
    "    { \"name\": \"ce\", \"op\": \"CROSS_ENTROPY_LOSS_BACK\", \"type\": \"f32\", \"ne\": [1], \"src\": [8, 1, 8], \"flags\": [\"output\", \"compute\"] },\n"
    "    { \"name\": \"caf\xc3\xa9\", \"op\": \"NONE\", \"type\": \"f16\", \"ne\": [64], \"buffer_type\": 1 }\n"
    "  ],\n"
    "  \"nodes\": [3, 4, 5, 6, 7, 8, 9],\n"
    "  \"leafs\": [0, 1, 2, 10],\n"
    "  \"node_buffer_ids\": [1, 0, 0, 0, 0, 0, 0],\n"
    "  \"leaf_buffer_ids\": [0, 0, 0, 1]\n"
    "}\n";

static bool agree_exact(const unsigned char * text, size_t len, bool * took) {
    unsigned char * copy = exact_copy(text, len);
    char            why[512];
    bool            ok = document_modes_agree_taken((const char *) copy, len, took, why, sizeof(why));
    if (!ok) {
        fprintf(stderr, "  %.*s\n  -> %s\n", (int) len, (const char *) text, why);
    }
    free(copy);
    return ok;
}

static void test_writer_document(void) {
    const unsigned char * doc = (const unsigned char *) WRITER_DOCUMENT;
    const size_t          len = sizeof(WRITER_DOCUMENT) - 1;
    bool                  took = false;
    CHECK(agree_exact(doc, len, &took));
    CHECK(took); // the one pass reads it all itself: its shortcuts are the ones checked below
    int failures = 0;
    for (size_t cut = 0; cut < len && failures < 5; cut++) {
        failures += !agree_exact(doc, cut, NULL);
    }
    static const unsigned char changes[] = { ' ', '\n', '0', '9', '-', '.', 'e', 'n', '"', '\\', ',', ']', '}', 'x', 0x00, 0xc3 };
    unsigned char *            changed   = malloc(len);
    CHECK(changed != NULL);
    for (size_t at = 0; changed != NULL && at < len && failures < 5; at++) {
        for (size_t c = 0; c < sizeof(changes); c++) {
            memcpy(changed, doc, len);
            changed[at] = changes[c];
            failures += !agree_exact(changed, len, NULL);
        }
    }
    // a digit more at every place (numbers of 19 and 20 digits, leading zeros)
    unsigned char * longer = malloc(len + 1);
    for (size_t at = 0; longer != NULL && at <= len && failures < 5; at++) {
        memcpy(longer, doc, at);
        longer[at] = '0';
        memcpy(longer + at + 1, doc + at, len - at);
        failures += !agree_exact(longer, len + 1, NULL);
    }
    CHECK(failures == 0);
    free(changed);
    free(longer);
}

// a document of n tensors in the writers' layout whose lists run as the writers' do: leafs 0, 1, ...
// (past 9 and 99: the guessed item a digit longer) then the last tensor, buffer ids 0, 0, ... then 1;
// the node n - 2 (or the text nodes). tail: text after the last leaf and leaf buffer id. Into buf
// (size bytes); its length
static size_t index_list_document(char * buf, size_t size, int n, const char * nodes, const char * tail) {
    size_t len = (size_t) snprintf(buf, size,
                                   "{\n  \"format\": \"galloc-graph\",\n  \"version\": 1,\n"
                                   "  \"buffer_types\": [ { \"name\": \"a\", \"alignment\": 32, \"max_size\": null }, { \"name\": \"b\", \"alignment\": 32, \"max_size\": null } ],\n"
                                   "  \"tensors\": [\n");
    for (int k = 0; k < n; k++) {
        len += (size_t) snprintf(buf + len, size - len,
                                 k == n - 2 ? "    { \"name\": \"sum\", \"op\": \"ADD\", \"type\": \"f32\", \"ne\": [4], \"src\": [0, 1], \"flags\": [\"compute\"] }%s\n"
                                            : "    { \"name\": \"l\", \"op\": \"NONE\", \"type\": \"f32\", \"ne\": [4] }%s\n",
                                 k == n - 1 ? "" : ",");
    }
    len += (size_t) snprintf(buf + len, size - len, "  ],\n  \"nodes\": [%s],\n  \"leafs\": [", nodes);
    for (int k = 0; k < n - 2; k++) {
        len += (size_t) snprintf(buf + len, size - len, "%d, ", k);
    }
    len += (size_t) snprintf(buf + len, size - len, "%d%s],\n  \"node_buffer_ids\": [0],\n  \"leaf_buffer_ids\": [", n - 1, tail);
    for (int k = 0; k < n - 2; k++) {
        len += (size_t) snprintf(buf + len, size - len, "0, ");
    }
    len += (size_t) snprintf(buf + len, size - len, "1%s]\n}\n", tail);
    CHECK(len < size);
    return len;
}

// the walk's lists against the JSON parser's: when galloc_document_walk takes the text, the text
// parses, and nodes, leafs and the buffer ids hold the parser's values, nodes and leafs below the
// tensor count (the graph checks after the walk would index by them)
static bool walk_lists_agree(const char * text, size_t len) {
    struct galloc_fast_names         scratch;
    const struct galloc_fast_names * names = galloc_fast_names_shared(&scratch);
    char *                           copy  = (char *) exact_copy((const unsigned char *) text, len);
    struct galloc_document           doc;
    struct galloc_walk               walk;
    memset(&doc, 0, sizeof(doc));
    bool took = galloc_document_walk(names, copy, len, &doc, &walk);
    bool ok   = true;
    if (took) {
        struct galloc_error      err;
        struct galloc_json_doc * json = galloc_json_parse(copy, len, &err);
        ok                            = json != NULL;
        const struct galloc_json_value * root = json != NULL ? galloc_json_doc_root(json) : NULL;
        static const char * const        keys[] = { "nodes", "leafs", "node_buffer_ids", "leaf_buffer_ids" };
        const int32_t *                  lists[] = { doc.nodes, doc.leafs, doc.node_buffer_ids, doc.leaf_buffer_ids };
        const int32_t                    counts[] = { doc.n_nodes, doc.n_leafs, walk.n_node_buffer_ids, walk.n_leaf_buffer_ids };
        for (int l = 0; ok && l < 4; l++) {
            const struct galloc_json_value * list = galloc_json_object_get(root, keys[l]);
            if (list == NULL || lists[l] == NULL) {
                ok = list == NULL && lists[l] == NULL;
                continue;
            }
            ok = galloc_json_array_size(list) == (size_t) counts[l];
            for (int32_t k = 0; ok && k < counts[l]; k++) {
                uint64_t v = 0;
                ok = galloc_json_get_u64(galloc_json_array_at(list, (size_t) k), &v) == JSON_INT_OK && v == (uint64_t) lists[l][k] &&
                     (l >= 2 || v < (uint64_t) doc.n_tensors);
            }
        }
        galloc_json_doc_free(json);
        if (!ok) {
            fprintf(stderr, "  %.*s\n  -> the walk's lists are not the parser's\n", (int) len, text);
        }
    }
    free(walk.outputs);
    galloc_document_free(&doc);
    free(copy);
    return ok;
}

// the one-pass reader's guess of the next list item (walk_indices): the lists cut, changed and
// lengthened at every byte, and runs that go past the tensors or the list's room
static void test_index_lists(void) {
    enum { DOC_BYTES = 131072 };
    char *          doc     = malloc(DOC_BYTES);
    unsigned char * changed = malloc(DOC_BYTES);
    CHECK(doc != NULL && changed != NULL);
    if (doc == NULL || changed == NULL) {
        free(doc);
        free(changed);
        return;
    }
    bool   took = false;
    size_t len  = index_list_document(doc, DOC_BYTES, 103, "101", "");
    CHECK(agree_exact((const unsigned char *) doc, len, &took));
    CHECK(took);
    const size_t lists    = (size_t) (strstr(doc, "\"nodes\"") - doc);
    int          failures = 0;
    for (size_t cut = lists; cut < len && failures < 5; cut++) {
        failures += !agree_exact((const unsigned char *) doc, cut, NULL);
    }
    static const unsigned char changes[] = { ' ', '0', '1', '9', ',', ']', 'e' };
    for (size_t at = lists; at < len && failures < 5; at++) {
        for (size_t c = 0; c < sizeof(changes); c++) {
            memcpy(changed, doc, len);
            changed[at] = changes[c];
            failures += !agree_exact(changed, len, NULL) + !walk_lists_agree((const char *) changed, len);
        }
        memcpy(changed, doc, at); // a digit more
        changed[at] = '0';
        memcpy(changed + at + 1, doc + at, len - at);
        failures += !agree_exact(changed, len + 1, NULL) + !walk_lists_agree((const char *) changed, len + 1);
    }
    CHECK(failures == 0);
    // runs past the tensors (the guess of an index not below n, then one below), past the list's room,
    // and broken runs
    static const char * const nodes[] = { "101, 102, 103, 2", "101, 102, 103, 104, 2", "101, 0, 1, 2", "9, 10, 11" };
    for (size_t k = 0; k < sizeof(nodes) / sizeof(nodes[0]); k++) {
        len = index_list_document(doc, DOC_BYTES, 103, nodes[k], "");
        CHECK(agree_exact((const unsigned char *) doc, len, NULL));
        CHECK(walk_lists_agree(doc, len));
    }
    static const char * const tails[] = { ", 0", ", 0, 0", ", 103", ", 1, 2, 3" };
    for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
        len = index_list_document(doc, DOC_BYTES, 103, "101", tails[t]);
        CHECK(agree_exact((const unsigned char *) doc, len, NULL));
        CHECK(walk_lists_agree(doc, len));
    }
    // node buffer ids 0, 0, ... up to the list's room (as many as the tensors, odd and even) and past it
    for (int tensors = 11; tensors <= 12; tensors++) {
        for (int zeros = tensors - 3; zeros <= tensors + 3; zeros++) {
            len               = index_list_document(doc, DOC_BYTES, tensors, tensors == 11 ? "9" : "10", "");
            const char * ids  = strstr(doc, "\"node_buffer_ids\": [0");
            size_t       head = (size_t) (ids - doc) + strlen("\"node_buffer_ids\": [0");
            size_t       n    = head;
            memcpy(changed, doc, head);
            for (int k = 1; k < zeros; k++) {
                memcpy(changed + n, ", 0", 3);
                n += 3;
            }
            memcpy(changed + n, doc + head, len - head);
            CHECK(agree_exact(changed, n + len - head, NULL));
            CHECK(walk_lists_agree((const char *) changed, n + len - head));
        }
    }
    len = index_list_document(doc, DOC_BYTES, 1003, "1001", "");
    CHECK(agree_exact((const unsigned char *) doc, len, &took));
    CHECK(took);
    free(doc);
    free(changed);
}

int main(void) {
    RUN(test_words);
    RUN(test_strings);
    RUN(test_tight_numbers);
    RUN(test_table_names);
    RUN(test_writer_document);
    RUN(test_index_lists);
    return check_report("test-document-scan");
}
