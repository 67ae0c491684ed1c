// test-gguf-source.c: reading a GGUF header from a source of bytes takes time linear in its size.
//
// A header with a Llama-3-sized tokenizer (128,256 tokens with their types, 280,147 merges: about
// 8.8 MB, what every real Llama 3 GGUF carries), written here, is read through a source that counts
// its calls and bytes: each byte is read once, the reader parses at most log2(size / 1 MiB) + 2
// prefixes, and what it reads back is the tokenizer written. Sources that end inside the header or
// promise a header past the limit are refused with the status and a message naming it.

#include "check.h"
#include "galloc-gguf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    uint8_t * data;
    size_t    len, cap;
};

static void put(struct buf * b, const void * p, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}
static void put_le(struct buf * b, uint64_t v, int n) {
    uint8_t bytes[8];
    for (int i = 0; i < n; i++) {
        bytes[i] = (uint8_t) (v >> (8 * i));
    }
    put(b, bytes, (size_t) n);
}
static void put_str(struct buf * b, const char * s, size_t n) { put_le(b, n, 8); put(b, s, n); }
static void put_key(struct buf * b, const char * key, uint32_t type) { put_str(b, key, strlen(key)); put_le(b, type, 4); }

#define N_TOKENS 128256
#define N_MERGES 280147

// token i: "t<i>" padded with 'x' to 4 + i % 9 bytes at least; merge i: "<a> <b>" padded to 6 + i % 17 bytes
static size_t token_text(char * out, uint64_t i) {
    int n = snprintf(out, 32, "t%" PRIu64, i);
    while (n < (int) (4 + i % 9)) {
        out[n++] = 'x';
    }
    return (size_t) n;
}
static size_t merge_text(char * out, uint64_t i) {
    int n = snprintf(out, 48, "m%" PRIu64 " %" PRIu64, i % 1000, i / 1000);
    while (n < (int) (6 + i % 17)) {
        out[n++] = 'y';
    }
    return (size_t) n;
}

// a llama header with no tensors and a Llama-3-sized tokenizer
static void build_llama3_header(struct buf * b) {
    put(b, "GGUF", 4);
    put_le(b, 3, 4);
    put_le(b, 0, 8);  // tensors
    put_le(b, 5, 8);  // KV pairs
    put_key(b, "general.architecture", GALLOC_GGUF_TYPE_STRING);
    put_str(b, "llama", 5);
    put_key(b, "tokenizer.ggml.model", GALLOC_GGUF_TYPE_STRING);
    put_str(b, "gpt2", 4);
    char text[64];
    put_key(b, "tokenizer.ggml.tokens", GALLOC_GGUF_TYPE_ARRAY);
    put_le(b, GALLOC_GGUF_TYPE_STRING, 4);
    put_le(b, N_TOKENS, 8);
    for (uint64_t i = 0; i < N_TOKENS; i++) {
        put_str(b, text, token_text(text, i));
    }
    put_key(b, "tokenizer.ggml.token_type", GALLOC_GGUF_TYPE_ARRAY);
    put_le(b, GALLOC_GGUF_TYPE_INT32, 4);
    put_le(b, N_TOKENS, 8);
    for (uint64_t i = 0; i < N_TOKENS; i++) {
        put_le(b, i < 128000 ? 1 : 3, 4);
    }
    put_key(b, "tokenizer.ggml.merges", GALLOC_GGUF_TYPE_ARRAY);
    put_le(b, GALLOC_GGUF_TYPE_STRING, 4);
    put_le(b, N_MERGES, 8);
    for (uint64_t i = 0; i < N_MERGES; i++) {
        put_str(b, text, merge_text(text, i));
    }
}

// a source over a buffer that counts calls and bytes and checks each byte is asked for once, in order
struct counted {
    const struct buf * b;
    size_t   end;        // the source ends here (a file shorter than its header when < b->len)
    int      calls;
    uint64_t bytes;      // handed out
    uint64_t next;       // the offset the next call must start at
    int      max_calls;  // past this many calls the source ends (so a quadratic reader fails fast)
};

static size_t counted_read(void * ctx, uint64_t offset, uint8_t * dst, size_t n) {
    struct counted * c = ctx;
    c->calls++;
    CHECK(offset == c->next);
    if (c->calls > c->max_calls || offset >= c->end) {
        return 0;
    }
    size_t k = n < c->end - offset ? n : (size_t) (c->end - offset);
    memcpy(dst, c->b->data + offset, k);
    c->bytes += k;
    c->next = offset + k;
    return k;
}

static int log2_ceil(uint64_t x) {
    int k = 0;
    while (((uint64_t) 1 << k) < x) {
        k++;
    }
    return k;
}

static void test_llama3_tokenizer(void) {
    struct buf b = { 0 };
    build_llama3_header(&b);
    CHECK(b.len > 8000000 && b.len < 9500000);
    int bound = log2_ceil((b.len + GALLOC_GGUF_FIRST_READ - 1) / GALLOC_GGUF_FIRST_READ) + 2; // 4 + 2 here
    struct counted c = { &b, b.len, 0, 0, 0, 64 };
    struct galloc_gguf g;
    struct galloc_error err;
    enum galloc_gguf_status st = galloc_gguf_read_source(counted_read, &c, b.len, &g, &err);
    if (st != GALLOC_GGUF_OK) {
        fprintf(stderr, "  %s\n", err.message);
    }
    CHECK(st == GALLOC_GGUF_OK);
    fprintf(stderr, "  %zu-byte header: %d reads, %" PRIu64 " bytes read (bound %d reads)\n", b.len, c.calls, c.bytes, bound);
    CHECK(c.calls <= bound);
    CHECK_EQ_U64(c.bytes, b.len);         // every byte once
    CHECK_EQ_U64(g.header_size, b.len);
    enum galloc_gguf_type t;
    uint64_t n = 0;
    CHECK(galloc_gguf_get_arr(&g, "tokenizer.ggml.tokens", &t, &n) && t == GALLOC_GGUF_TYPE_STRING && n == N_TOKENS);
    CHECK(galloc_gguf_get_arr(&g, "tokenizer.ggml.merges", &t, &n) && t == GALLOC_GGUF_TYPE_STRING && n == N_MERGES);
    char text[64];
    uint64_t len = 0;
    const char * s = galloc_gguf_get_arr_str(&g, "tokenizer.ggml.merges", N_MERGES - 1, &len);
    CHECK(s && len == merge_text(text, N_MERGES - 1) && memcmp(s, text, len) == 0);
    s = galloc_gguf_get_arr_str(&g, "tokenizer.ggml.tokens", 128255, &len);
    CHECK(s && len == token_text(text, 128255) && memcmp(s, text, len) == 0);
    galloc_gguf_free(&g);

    // the same with the size unknown (a pipe): the same reads, the last one short
    struct counted u = { &b, b.len, 0, 0, 0, 64 };
    st = galloc_gguf_read_source(counted_read, &u, GALLOC_GGUF_SIZE_UNKNOWN, &g, &err);
    CHECK(st == GALLOC_GGUF_OK);
    CHECK(u.calls <= bound);
    CHECK_EQ_U64(u.bytes, b.len);
    galloc_gguf_free(&g);
    free(b.data);
}

static void test_short_and_huge(void) {
    struct buf b = { 0 };
    build_llama3_header(&b);
    // the file ends inside the merges (its size said so too): refused, not asked again and again
    struct counted c = { &b, b.len - 1000, 0, 0, 0, 64 };
    struct galloc_gguf g;
    struct galloc_error err;
    enum galloc_gguf_status st = galloc_gguf_read_source(counted_read, &c, b.len - 1000, &g, &err);
    CHECK(st == GALLOC_GGUF_INVALID && err.status == GALLOC_STATUS_INVALID);
    CHECK(strstr(err.message, "tokenizer.ggml.merges") != NULL);
    CHECK(c.calls <= 8);
    CHECK(g.impl == NULL && g.n_kv == 0);
    // the size unknown: the source ends early
    struct counted u = { &b, b.len - 1000, 0, 0, 0, 64 };
    st = galloc_gguf_read_source(counted_read, &u, GALLOC_GGUF_SIZE_UNKNOWN, &g, &err);
    CHECK(st == GALLOC_GGUF_INVALID && err.status == GALLOC_STATUS_INVALID);
    CHECK(strstr(err.message, "ends inside its header") != NULL);
    CHECK(u.calls <= 8);
    galloc_gguf_free(&g);
    free(b.data);

    // a name said to be 512 MiB long in a file of 60 bytes (the size unknown): the source ends; and
    // one said to be 1 GiB long in a 4 GiB file: past the header limit, refused before reading it
    for (int big = 0; big < 2; big++) {
        struct buf h = { 0 };
        put(&h, "GGUF", 4);
        put_le(&h, 3, 4);
        put_le(&h, 0, 8);
        put_le(&h, 1, 8);
        put_key(&h, "general.name", GALLOC_GGUF_TYPE_STRING);
        put_le(&h, (uint64_t) 1 << (big ? 30 : 29), 8);
        put(&h, "0123456789abcdef", 16);
        struct counted s = { &h, h.len, 0, 0, 0, 64 };
        st = galloc_gguf_read_source(counted_read, &s, big ? (uint64_t) 4 << 30 : GALLOC_GGUF_SIZE_UNKNOWN, &g, &err);
        CHECK(st == GALLOC_GGUF_INVALID);
        CHECK(err.status == (big ? GALLOC_STATUS_LIMIT : GALLOC_STATUS_INVALID));
        CHECK(strstr(err.message, big ? "larger than 1024 MiB" : "general.name") != NULL);
        CHECK(s.calls == 1);
        free(h.data);
    }
}

int main(void) {
    RUN(test_llama3_tokenizer);
    RUN(test_short_and_huge);
    return check_report("test-gguf-source");
}
