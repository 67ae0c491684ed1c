// test-gguf.c: the GGUF header reader on real files and on hand-built good and bad ones.
//
// Real files (tests/models-real/gguf, a copy of ../shared/models-real/gguf) must read with the tensor
// count and full length their index.tsv gives, from every prefix (short prefixes ask for more bytes
// and name an offset; asking again with what they ask for ends in the same reading). Hand-built files
// (written by the small GGUF writer below, not by the reader's code) cover every value type and each
// rule gguf.cpp enforces, one case per refusal, each checking the status, the byte offset and the
// key or tensor in the message. Under ASan the reader's peak heap is bounded by its input's length.

#include "check.h"
#include "files.h"
#include "galloc-gguf.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "tests/models-real/gguf"

//
// heap accounting through the sanitizer's hooks (ASan builds only)
//

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_HEAP_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_HEAP_HOOKS 1
#endif
#endif

#ifdef HAVE_HEAP_HOOKS
int    __sanitizer_install_malloc_and_free_hooks(void (*on_malloc)(const volatile void *, size_t),
                                                 void (*on_free)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void * p);
static size_t heap_now, heap_peak;
static bool heap_counting;
static void on_malloc(const volatile void * p, size_t size) {
    if (!heap_counting) {
        return;
    }
    (void) p;
    heap_now += size;
    if (heap_now > heap_peak) {
        heap_peak = heap_now;
    }
}
static void on_free(const volatile void * p) {
    if (!heap_counting) {
        return;
    }
    size_t size = p ? __sanitizer_get_allocated_size(p) : 0;
    heap_now = size <= heap_now ? heap_now - size : 0;
}
#endif

//
// a GGUF writer, little-endian, for the hand-built files
//

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
    for (int i = 0; i < n; i++) {
        uint8_t byte = (uint8_t) (v >> (8 * i));
        put(b, &byte, 1);
    }
}
static void put_u8 (struct buf * b, uint8_t v)  { put_le(b, v, 1); }
static void put_u32(struct buf * b, uint32_t v) { put_le(b, v, 4); }
static void put_u64(struct buf * b, uint64_t v) { put_le(b, v, 8); }
static void put_str(struct buf * b, const char * s) { put_u64(b, strlen(s)); put(b, s, strlen(s)); }
static void put_header(struct buf * b, uint32_t version, int64_t n_tensors, int64_t n_kv) {
    put(b, "GGUF", 4);
    put_u32(b, version);
    put_u64(b, (uint64_t) n_tensors);
    put_u64(b, (uint64_t) n_kv);
}
// key + type
static void put_key(struct buf * b, const char * key, uint32_t type) { put_str(b, key); put_u32(b, type); }
static void put_kv_u32(struct buf * b, const char * key, uint32_t v) { put_key(b, key, GALLOC_GGUF_TYPE_UINT32); put_u32(b, v); }
static void put_kv_str(struct buf * b, const char * key, const char * v) { put_key(b, key, GALLOC_GGUF_TYPE_STRING); put_str(b, v); }
// a tensor info with n_dims dims from ne
static void put_tensor(struct buf * b, const char * name, uint32_t n_dims, const int64_t * ne, int32_t type, uint64_t offset) {
    put_str(b, name);
    put_u32(b, n_dims);
    for (uint32_t i = 0; i < n_dims; i++) {
        put_u64(b, (uint64_t) ne[i]);
    }
    put_u32(b, (uint32_t) type);
    put_u64(b, offset);
}

//
// helpers
//

// reads a whole file (the length is known), returns the status; err filled
static enum galloc_gguf_status read_all(const struct buf * b, struct galloc_gguf * g, struct galloc_error * err) {
    uint64_t need = 0;
    return galloc_gguf_read_prefix(b->data, b->len, b->len, g, &need, err);
}

// the whole file must be refused with a message holding each of the fragments (offset, key, reason)
static void expect_invalid(const struct buf * b, const char * frag1, const char * frag2, const char * frag3) {
    struct galloc_gguf g;
    struct galloc_error err;
    enum galloc_gguf_status st = read_all(b, &g, &err);
    CHECK(st == GALLOC_GGUF_INVALID);
    CHECK(err.status == GALLOC_STATUS_INVALID); // typed: callers decide by the status, not the text
    const char * frags[3] = { frag1, frag2, frag3 };
    for (int i = 0; i < 3; i++) {
        if (frags[i] && !strstr(err.message, frags[i])) {
            check_failures++;
            fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", err.message, frags[i]);
        }
    }
    CHECK(g.impl == NULL && g.kv == NULL && g.n_kv == 0);
    galloc_gguf_free(&g);
}

// reads from growing prefixes as the reader asks; returns the final status and the number of rounds
static enum galloc_gguf_status read_growing(const uint8_t * data, size_t len, struct galloc_gguf * g, int * rounds) {
    uint64_t have = 0;
    struct galloc_error err;
    for (*rounds = 1;; ++*rounds) {
        uint64_t need = 0;
        enum galloc_gguf_status st = galloc_gguf_read(data, (size_t) have, g, &need, &err);
        if (st != GALLOC_GGUF_NEED_MORE) {
            return st;
        }
        CHECK(need > have);
        if (need <= have || need > len) {
            return st;
        }
        have = need;
    }
}

//
// real files
//

struct index_row {
    char     file[96];
    char     arch[32];
    uint64_t bytes, n_tensors, full_length;
};

static int read_index(struct index_row * rows, int max_rows) {
    size_t len;
    char * text = read_whole_file(FIXTURES "/index.tsv", &len);
    CHECK(text != NULL);
    if (!text) {
        return 0;
    }
    int n = 0;
    char * save = NULL;
    for (char * line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        struct index_row r;
        if (strncmp(line, "file\t", 5) == 0 || n == max_rows) {
            continue;
        }
        if (sscanf(line, "%95s %31s %" SCNu64 " %" SCNu64 " %" SCNu64, r.file, r.arch, &r.bytes, &r.n_tensors, &r.full_length) == 5) {
            rows[n++] = r;
        }
    }
    free(text);
    return n;
}

static void test_real_files(void) {
    struct index_row rows[16];
    const int n = read_index(rows, 16);
    CHECK(n == 10);
    for (int i = 0; i < n; i++) {
        char path[160];
        snprintf(path, sizeof(path), FIXTURES "/%s", rows[i].file);
        size_t len;
        uint8_t * data = (uint8_t *) read_whole_file(path, &len);
        CHECK(data && len == rows[i].bytes);
        if (!data) {
            continue;
        }
        struct galloc_gguf g;
        uint64_t need = 0;
        struct galloc_error err;
        enum galloc_gguf_status st = galloc_gguf_read_prefix(data, len, len, &g, &need, &err);
        CHECK(st == GALLOC_GGUF_OK);
        if (st != GALLOC_GGUF_OK) {
            fprintf(stderr, "  %s: %s\n", rows[i].file, err.message);
            free(data);
            continue;
        }
        CHECK_EQ_U64(g.version, 3);
        CHECK_EQ_U64(g.n_tensors, rows[i].n_tensors);
        CHECK_EQ_U64(g.file_size, rows[i].full_length);
        CHECK_EQ_U64(g.alignment, 32);
        CHECK(g.data_offset == len); // these files end where the tensor data would start
        CHECK(g.header_size <= g.data_offset && g.data_offset - g.header_size < 32);
        CHECK(g.llama_refusal[0] == '\0');
        const char * arch = galloc_gguf_get_str(&g, "general.architecture");
        CHECK(arch && strcmp(arch, rows[i].arch) == 0);
        CHECK(galloc_gguf_find_tensor(&g, "token_embd.weight") != NULL);
        CHECK(galloc_gguf_find_tensor(&g, "no.such.tensor") == NULL);
        // every tensor's data follows the previous one's, padded to 32
        uint64_t end = 0;
        for (int64_t t = 0; t < g.n_tensors; t++) {
            CHECK_EQ_U64(g.tensors[t].offset, end);
            end += (g.tensors[t].nbytes + 31) / 32 * 32;
        }
        CHECK_EQ_U64(end, g.data_size);
        galloc_gguf_free(&g);
        free(data);
    }
}

// llama3-8b against the model card's numbers (README of models-real)
static void test_real_values(void) {
    size_t len;
    uint8_t * data = (uint8_t *) read_whole_file(FIXTURES "/llama3-8b.meta.gguf", &len);
    CHECK(data != NULL);
    if (!data) {
        return;
    }
    struct galloc_gguf g;
    uint64_t need;
    struct galloc_error err;
    CHECK(galloc_gguf_read(data, len, &g, &need, &err) == GALLOC_GGUF_OK);
    uint64_t u = 0;
    int64_t i = 0;
    double f = 0;
    CHECK(galloc_gguf_get_u64(&g, "llama.block_count", &u) && u == 32);
    CHECK(galloc_gguf_get_u64(&g, "llama.embedding_length", &u) && u == 4096);
    CHECK(galloc_gguf_get_u64(&g, "llama.feed_forward_length", &u) && u == 14336);
    CHECK(galloc_gguf_get_i64(&g, "llama.attention.head_count", &i) && i == 32);
    CHECK(galloc_gguf_get_i64(&g, "llama.attention.head_count_kv", &i) && i == 8);
    CHECK(galloc_gguf_get_f64(&g, "llama.rope.freq_base", &f) && f == 500000.0);
    CHECK(galloc_gguf_get_u64(&g, "general.file_type", &u) && u == 1);
    CHECK(galloc_gguf_get_str(&g, "tokenizer.ggml.model") && strcmp(galloc_gguf_get_str(&g, "tokenizer.ggml.model"), "no_vocab") == 0);
    const struct galloc_gguf_tensor_info * t = galloc_gguf_find_tensor(&g, "token_embd.weight");
    CHECK(t && t->n_dims == 2 && t->ne[0] == 4096 && t->ne[1] == 128256 && t->ne[2] == 1 && t->type == GGML_TYPE_F16);
    CHECK(t && t->nbytes == 4096ull * 128256 * 2);
    galloc_gguf_free(&g);
    free(data);
}

// every prefix of each tiny file (and of llama3-8b its first and last 1024 and every 61st byte between):
// short prefixes ask for more, truncated files are refused
static void test_real_prefixes(void) {
    const char * files[] = { "llama3-tiny", "qwen3-tiny", "qwen3moe-tiny", "gemma3-tiny", "gpt-oss-tiny", "llama3-8b" };
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        char path[160];
        snprintf(path, sizeof(path), FIXTURES "/%s.meta.gguf", files[f]);
        size_t len;
        uint8_t * data = (uint8_t *) read_whole_file(path, &len);
        CHECK(data != NULL);
        if (!data) {
            continue;
        }
        struct galloc_gguf whole;
        uint64_t need;
        struct galloc_error err;
        CHECK(galloc_gguf_read(data, len, &whole, &need, &err) == GALLOC_GGUF_OK);
        int bad = 0;
        const size_t hs = (size_t) whole.header_size;
        for (size_t cut = 0; cut < hs && bad < 3; cut += (cut < 1024 || cut + 1024 >= hs || len < 8192) ? 1 : 61) {
            struct galloc_gguf g;
            need = 0;
            enum galloc_gguf_status st = galloc_gguf_read(data, cut, &g, &need, &err);
            // a prefix: more bytes needed, never more than the header, and the message says where
            if (st != GALLOC_GGUF_NEED_MORE || need <= cut || need > whole.header_size || strncmp(err.message, "offset ", 7) != 0) {
                fprintf(stderr, "  %s cut at %zu: status %d need %" PRIu64 " (%s)\n", files[f], cut, (int) st, need, err.message);
                bad++;
            }
            // a truncated file: refused, at an offset within the file
            st = galloc_gguf_read_prefix(data, cut, cut, &g, &need, &err);
            uint64_t at = UINT64_MAX;
            if (st != GALLOC_GGUF_INVALID || sscanf(err.message, "offset %" SCNu64, &at) != 1 || at > cut || !strstr(err.message, "end of the file")) {
                fprintf(stderr, "  %s truncated at %zu: status %d (%s)\n", files[f], cut, (int) st, err.message);
                bad++;
            }
        }
        CHECK(bad == 0);
        // from nothing, asking again with what it asks for reads the same header
        struct galloc_gguf g;
        int rounds = 0;
        CHECK(read_growing(data, len, &g, &rounds) == GALLOC_GGUF_OK);
        CHECK(g.n_kv == whole.n_kv && g.n_tensors == whole.n_tensors && g.data_offset == whole.data_offset);
        CHECK(rounds > 2);
        galloc_gguf_free(&g);
        galloc_gguf_free(&whole);
        free(data);
    }
}

//
// hand-built files: every value type
//

static void build_all_types(struct buf * b) {
    const int64_t ne_a[2] = { 64, 3 };
    const int64_t ne_b[1] = { 5 };
    put_header(b, 3, 2, 20);
    put_key(b, "u8", GALLOC_GGUF_TYPE_UINT8);    put_u8(b, 200);
    put_key(b, "i8", GALLOC_GGUF_TYPE_INT8);     put_u8(b, 0x80);             // -128
    put_key(b, "u16", GALLOC_GGUF_TYPE_UINT16);  put_le(b, 65535, 2);
    put_key(b, "i16", GALLOC_GGUF_TYPE_INT16);   put_le(b, 0xFFFE, 2);        // -2
    put_kv_u32(b, "u32", 4000000000u);
    put_key(b, "i32", GALLOC_GGUF_TYPE_INT32);   put_u32(b, 0xFFFFFFFFu);     // -1
    put_key(b, "f32", GALLOC_GGUF_TYPE_FLOAT32); put_u32(b, 0x3FC00000u);     // 1.5
    put_key(b, "bool", GALLOC_GGUF_TYPE_BOOL);   put_u8(b, 2);                // true (any non-zero byte)
    put_kv_str(b, "str", "hello");
    put_key(b, "u64", GALLOC_GGUF_TYPE_UINT64);  put_u64(b, UINT64_MAX);
    put_key(b, "i64", GALLOC_GGUF_TYPE_INT64);   put_u64(b, (uint64_t) INT64_MIN);
    put_key(b, "f64", GALLOC_GGUF_TYPE_FLOAT64); put_u64(b, 0xC004000000000000ull); // -2.5
    put_key(b, "arr.i32", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_INT32); put_u64(b, 3);
    put_u32(b, 7); put_u32(b, 0xFFFFFFF9u); put_u32(b, 0);
    put_key(b, "arr.f32", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_FLOAT32); put_u64(b, 2);
    put_u32(b, 0x40000000u); put_u32(b, 0xBF800000u);                           // 2, -1
    put_key(b, "arr.bool", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_BOOL); put_u64(b, 2);
    put_u8(b, 0); put_u8(b, 1);
    put_key(b, "arr.str", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_STRING); put_u64(b, 3);
    put_str(b, "<s>"); put_str(b, ""); put_u64(b, 3); put(b, "a\0b", 3);
    put_key(b, "arr.empty", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_UINT64); put_u64(b, 0);
    put_key(b, "arr.nested", GALLOC_GGUF_TYPE_ARRAY); put_u32(b, GALLOC_GGUF_TYPE_ARRAY); put_u64(b, 2);
    put_u32(b, GALLOC_GGUF_TYPE_UINT16); put_u64(b, 2); put_le(b, 1, 2); put_le(b, 2, 2);
    put_u32(b, GALLOC_GGUF_TYPE_STRING); put_u64(b, 1); put_str(b, "x");
    put_kv_u32(b, "general.alignment", 64);
    put_kv_str(b, "general.architecture", "test");
    put_tensor(b, "a", 2, ne_a, GGML_TYPE_Q8_0, 0);                         // 2 blocks x 3 rows x 34 bytes = 204
    put_tensor(b, "b", 1, ne_b, GGML_TYPE_F32, 256);                        // after 204 padded to 64
}

static void test_all_value_types(void) {
    struct buf b = { 0 };
    build_all_types(&b);
    struct galloc_gguf g;
    struct galloc_error err;
    CHECK(read_all(&b, &g, &err) == GALLOC_GGUF_INVALID); // the data section starts past the end
    CHECK(strstr(err.message, "data section") != NULL);
    const size_t header = b.len;
    while (b.len % 64) {
        put_u8(&b, 0);
    }
    uint64_t need = 0;
    CHECK(galloc_gguf_read_prefix(b.data, header, b.len, &g, &need, &err) == GALLOC_GGUF_OK);
    CHECK(err.status == GALLOC_STATUS_OK && err.message[0] == '\0');
    galloc_gguf_free(&g);
    const enum galloc_gguf_status st = read_all(&b, &g, &err);
    CHECK(st == GALLOC_GGUF_OK);
    if (st != GALLOC_GGUF_OK) {
        fprintf(stderr, "  %s\n", err.message);
        free(b.data);
        return;
    }
    CHECK_EQ_U64(g.n_kv, 20);
    CHECK_EQ_U64(g.alignment, 64);
    CHECK_EQ_U64(g.header_size, header);
    CHECK_EQ_U64(g.data_offset, b.len);
    CHECK_EQ_U64(g.data_size, 256 + 64);
    CHECK_EQ_U64(g.tensors[0].nbytes, 204);
    CHECK(strstr(g.llama_refusal, "arr.nested") && strstr(g.llama_refusal, "invalid GGUF type 9"));

    uint64_t u;
    int64_t i;
    double f;
    bool flag;
    CHECK(galloc_gguf_get_u64(&g, "u8", &u) && u == 200);
    CHECK(galloc_gguf_get_i64(&g, "i8", &i) && i == -128);
    CHECK(!galloc_gguf_get_u64(&g, "i8", &u));                 // negative
    CHECK(galloc_gguf_get_u64(&g, "u16", &u) && u == 65535);
    CHECK(galloc_gguf_get_i64(&g, "i16", &i) && i == -2);
    CHECK(galloc_gguf_get_u64(&g, "u32", &u) && u == 4000000000u);
    CHECK(galloc_gguf_get_i64(&g, "i32", &i) && i == -1);
    CHECK(galloc_gguf_get_f64(&g, "f32", &f) && f == 1.5);
    CHECK(!galloc_gguf_get_i64(&g, "f32", &i));
    CHECK(galloc_gguf_get_bool(&g, "bool", &flag) && flag);
    CHECK(galloc_gguf_get_u64(&g, "bool", &u) && u == 1);
    CHECK(!galloc_gguf_get_bool(&g, "u8", &flag));
    CHECK(strcmp(galloc_gguf_get_str(&g, "str"), "hello") == 0);
    CHECK(galloc_gguf_get_str(&g, "u8") == NULL);
    CHECK(galloc_gguf_get_u64(&g, "u64", &u) && u == UINT64_MAX);
    CHECK(!galloc_gguf_get_i64(&g, "u64", &i));                // does not fit
    CHECK(galloc_gguf_get_i64(&g, "i64", &i) && i == INT64_MIN);
    CHECK(galloc_gguf_get_f64(&g, "f64", &f) && f == -2.5);
    CHECK(galloc_gguf_get_f64(&g, "u32", &f) && f == 4000000000.0);
    CHECK(!galloc_gguf_get_u64(&g, "missing", &u));
    CHECK(!galloc_gguf_get_u64(&g, "arr.i32", &u));            // an array is not a scalar

    enum galloc_gguf_type et;
    uint64_t n;
    CHECK(galloc_gguf_get_arr(&g, "arr.i32", &et, &n) && et == GALLOC_GGUF_TYPE_INT32 && n == 3);
    CHECK(galloc_gguf_get_arr_i64(&g, "arr.i32", 1, &i) && i == -7);
    CHECK(!galloc_gguf_get_arr_i64(&g, "arr.i32", 3, &i));     // out of range
    CHECK(galloc_gguf_get_arr_f64(&g, "arr.f32", 1, &f) && f == -1.0);
    CHECK(galloc_gguf_get_arr_i64(&g, "arr.bool", 1, &i) && i == 1);
    CHECK(!galloc_gguf_get_arr(&g, "u8", &et, &n));
    uint64_t slen;
    CHECK(galloc_gguf_get_arr(&g, "arr.str", &et, &n) && et == GALLOC_GGUF_TYPE_STRING && n == 3);
    CHECK(strcmp(galloc_gguf_get_arr_str(&g, "arr.str", 0, &slen), "<s>") == 0 && slen == 3);
    CHECK(galloc_gguf_get_arr_str(&g, "arr.str", 1, &slen)[0] == '\0' && slen == 0);
    CHECK(memcmp(galloc_gguf_get_arr_str(&g, "arr.str", 2, &slen), "a\0b", 4) == 0 && slen == 3);
    CHECK(galloc_gguf_get_arr_str(&g, "arr.str", 3, &slen) == NULL);
    CHECK(!galloc_gguf_get_arr_i64(&g, "arr.str", 0, &i));
    CHECK(galloc_gguf_get_arr(&g, "arr.empty", &et, &n) && et == GALLOC_GGUF_TYPE_UINT64 && n == 0);
    const struct galloc_gguf_kv * kv = galloc_gguf_find(&g, "arr.nested");
    CHECK(kv && galloc_gguf_kv_type(kv) == GALLOC_GGUF_TYPE_ARRAY && kv->value.elem_type == GALLOC_GGUF_TYPE_ARRAY && kv->value.n == 2);
    if (kv && kv->value.items) {
        CHECK(kv->value.items[0].elem_type == GALLOC_GGUF_TYPE_UINT16 && kv->value.items[0].n == 2);
        CHECK(galloc_gguf_value_u64(&kv->value.items[0], 1, &u) && u == 2);
        CHECK(kv->value.items[1].elem_type == GALLOC_GGUF_TYPE_STRING && strcmp(kv->value.items[1].strs[0], "x") == 0);
    }
    CHECK(g.kv[0].offset == 24 && strcmp(g.kv[0].key, "u8") == 0);
    // the JSON summary: numbers exact (past 2^53 as strings), floats shortest, arrays cut to 2 items
    size_t json_len = 0;
    char * json = galloc_gguf_write_summary(&g, 2, &json_len);
    CHECK(json && strlen(json) == json_len);
    const char * expected[] = {
        "\"key\": \"u8\", \"type\": \"u8\", \"offset\": 24, \"value\": 200 }",
        "\"key\": \"i8\", \"type\": \"i8\", \"offset\": 39, \"value\": -128 }",
        "\"value\": 1.5 }", "\"value\": true }", "\"value\": \"hello\" }",
        "\"value\": \"18446744073709551615\" }", "\"value\": \"-9223372036854775808\" }", "\"value\": -2.5 }",
        "\"value\": { \"elem_type\": \"i32\", \"n\": 3, \"items\": [7, -7] } }",
        "\"value\": { \"elem_type\": \"str\", \"n\": 3, \"items\": [\"<s>\", \"\"] } }",
        "\"items\": [ { \"elem_type\": \"u16\", \"n\": 2, \"items\": [1, 2] }, { \"elem_type\": \"str\", \"n\": 1, \"items\": [\"x\"] } ]",
        "{ \"name\": \"a\", \"type\": \"q8_0\", \"ne\": [64, 3], \"nbytes\": 204, \"offset\": 0 }",
        "{ \"type\": \"q8_0\", \"count\": 1, \"bytes\": 204 }",
    };
    for (size_t k = 0; json && k < sizeof(expected) / sizeof(expected[0]); k++) {
        if (!strstr(json, expected[k])) {
            check_failures++;
            fprintf(stderr, "  summary lacks %s\n", expected[k]);
        }
    }
    free(json);
    const struct galloc_gguf_tensor_info * t = galloc_gguf_find_tensor(&g, "b");
    CHECK(t && t->offset == 256 && t->ne[0] == 5 && t->ne[1] == 1 && t->n_dims == 1 && t->type == GGML_TYPE_F32);
    galloc_gguf_free(&g);
    galloc_gguf_free(&g); // twice is harmless
    free(b.data);
}

//
// hand-built files: each refusal
//

static void test_bad_header(void) {
    struct buf b = { 0 };
    put(&b, "GGML", 4); put_u32(&b, 3); put_u64(&b, 0); put_u64(&b, 0);
    expect_invalid(&b, "offset 0:", "magic 'GGML'", NULL);
    const uint32_t versions[] = { 0, 1, 4, 0x30000000u };
    const char * why[] = { "version 0", "version 1 is no longer", "newer than 3", "byte order" };
    for (int v = 0; v < 4; v++) {
        b.len = 0;
        put_header(&b, versions[v], 0, 0);
        expect_invalid(&b, "offset 4:", why[v], NULL);
    }
    b.len = 0;
    put_header(&b, 2, 0, 0); // version 2 reads like 3
    struct galloc_gguf g;
    struct galloc_error err;
    CHECK(read_all(&b, &g, &err) == GALLOC_GGUF_OK && g.version == 2 && g.data_offset == 24);
    galloc_gguf_free(&g);
    b.len = 0;
    put_header(&b, 3, -1, 0);
    expect_invalid(&b, "offset 8:", "tensor count -1", NULL);
    b.len = 0;
    put_header(&b, 3, 0, INT64_MAX);
    expect_invalid(&b, "offset 16:", "key-value count", NULL);
    free(b.data);
}

// counts and lengths that promise more than there is: refused at once, nothing allocated for them
static void test_lying_sizes(void) {
    struct buf b = { 0 };
    struct galloc_gguf g;
    struct galloc_error err;
    uint64_t need = 0;

    put_header(&b, 3, 0, (int64_t) 1 << 40); // 2^40 KV pairs in a 24-byte file
    expect_invalid(&b, "offset 24:", "key 0", "end of the file");
    CHECK(galloc_gguf_read(b.data, b.len, &g, &need, &err) == GALLOC_GGUF_NEED_MORE && need == 32);

    b.len = 0;
    put_header(&b, 3, (int64_t) 1 << 50, 0);
    expect_invalid(&b, "offset 24:", "tensor 0", "end of the file");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_u64(&b, 1000); put(&b, "abc", 3);                                  // key claims 1000 bytes
    expect_invalid(&b, "offset 32:", "key 0", "1000 bytes");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_u64(&b, ((uint64_t) 1 << 30) + 1);                                 // key beyond the 1 GiB limit
    expect_invalid(&b, "offset 24:", "key 0", "exceeds the maximum 1073741824");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "general.name", GALLOC_GGUF_TYPE_STRING); put_u64(&b, UINT64_MAX);
    expect_invalid(&b, "offset 48:", "key 'general.name'", "exceeds the maximum");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "tokenizer.ggml.tokens", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_STRING); put_u64(&b, 1 << 30);
    put_str(&b, "a");
    expect_invalid(&b, "tokenizer.ggml.tokens", "array of strings (8589934592 bytes)", "end of the file");
    CHECK(galloc_gguf_read(b.data, b.len, &g, &need, &err) == GALLOC_GGUF_NEED_MORE);
    CHECK(need == b.len - 9 + ((uint64_t) 8 << 30));

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "tokenizer.ggml.tokens", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_STRING); put_u64(&b, 3);
    put_str(&b, "a"); put_u64(&b, 40); put(&b, "bc", 2); put_str(&b, "d");  // element 1 claims 40 bytes
    expect_invalid(&b, "offset 86:", "key 'tokenizer.ggml.tokens': element 1", "40 bytes");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "scores", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_FLOAT32); put_u64(&b, ((uint64_t) 1 << 30) + 1);
    expect_invalid(&b, "offset 54:", "key 'scores'", "1073741825 elements exceeds the maximum");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "scores", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_UINT64); put_u64(&b, 1 << 30);
    put_u64(&b, 1);
    expect_invalid(&b, "offset 54:", "key 'scores'", "8589934592 bytes");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "deep", GALLOC_GGUF_TYPE_ARRAY);
    for (int d = 0; d < 12; d++) {
        put_u32(&b, GALLOC_GGUF_TYPE_ARRAY); put_u64(&b, 1);
    }
    expect_invalid(&b, "key 'deep'", "nested deeper than 8", NULL);

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "nested", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_ARRAY); put_u64(&b, 1 << 30);
    expect_invalid(&b, "key 'nested'", "array of arrays (12884901888 bytes)", NULL);
    free(b.data);
}

static void test_bad_types_and_keys(void) {
    struct buf b = { 0 };
    put_header(&b, 3, 0, 1);
    put_key(&b, "general.name", 13); put_u32(&b, 0);
    expect_invalid(&b, "offset 44:", "key 'general.name'", "invalid GGUF type 13");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "general.name", 0xFFFFFFFFu); put_u32(&b, 0);
    expect_invalid(&b, "offset 44:", "key 'general.name'", "invalid GGUF type -1");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "a", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, 20); put_u64(&b, 0);
    expect_invalid(&b, "offset 33:", "key 'a'", "invalid GGUF type 20");

    b.len = 0;
    put_header(&b, 3, 0, 2);
    put_kv_u32(&b, "a", 1);
    put_key(&b, "b", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_ARRAY); put_u64(&b, 1);
    put_u32(&b, 99); put_u64(&b, 0);
    expect_invalid(&b, "offset 66:", "key 'b'", "invalid GGUF type 99");

    b.len = 0;
    put_header(&b, 3, 0, 2);
    put_kv_u32(&b, "x", 1);
    put_str(&b, "");
    expect_invalid(&b, "offset 41:", "key 1", "key is empty");

    b.len = 0;
    put_header(&b, 3, 0, 3);
    put_kv_u32(&b, "general.architecture", 1);
    put_kv_u32(&b, "other", 1);
    put_kv_str(&b, "general.architecture", "llama");
    expect_invalid(&b, "offset 81:", "key 'general.architecture'", "duplicate key (key 0 has it too, at offset 24)");

    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "bad\x01name'", 13); put_u8(&b, 0);
    expect_invalid(&b, "key 'bad?name?'", "invalid GGUF type 13", NULL); // unprintable bytes shown as '?'

    const struct { uint32_t type; uint64_t value; const char * why; } aligns[] = {
        { GALLOC_GGUF_TYPE_UINT64, 32, "must be of type u32 but is u64" },
        { GALLOC_GGUF_TYPE_UINT32, 0,  "alignment 0 is not a power of 2" },
        { GALLOC_GGUF_TYPE_UINT32, 48, "alignment 48 is not a power of 2" },
    };
    for (int i = 0; i < 3; i++) {
        b.len = 0;
        put_header(&b, 3, 0, 2);
        put_kv_u32(&b, "x", 1);
        put_key(&b, "general.alignment", aligns[i].type); put_le(&b, aligns[i].value, aligns[i].type == GALLOC_GGUF_TYPE_UINT64 ? 8 : 4);
        expect_invalid(&b, "offset 41:", "key 'general.alignment'", aligns[i].why);
    }
    b.len = 0;
    put_header(&b, 3, 0, 1);
    put_key(&b, "general.alignment", GALLOC_GGUF_TYPE_ARRAY); put_u32(&b, GALLOC_GGUF_TYPE_UINT32); put_u64(&b, 1); put_u32(&b, 32);
    expect_invalid(&b, "offset 24:", "must be of type u32 but is arr", NULL);
    free(b.data);
}

static void test_bad_tensor_infos(void) {
    struct buf b = { 0 };
    const int64_t ne1[4] = { 32, 2, 1, 1 };

    char long_name[65];
    memset(long_name, 'n', 64);
    long_name[64] = '\0';
    put_header(&b, 3, 1, 0);
    put_tensor(&b, long_name, 2, ne1, GGML_TYPE_F32, 0);
    expect_invalid(&b, "offset 24:", "tensor 0", "name of 64 bytes is too long (at most 63)");

    b.len = 0;
    put_header(&b, 3, 2, 0);
    put_tensor(&b, "w", 2, ne1, GGML_TYPE_F32, 0);
    put_u64(&b, 3); put(&b, "w\0x", 3);                                     // ggml names it "w" too
    expect_invalid(&b, "offset 65:", "tensor 1 'w'", "duplicate tensor name (tensor 0 has it too)");

    b.len = 0;
    put_header(&b, 3, 1, 0);
    put_str(&b, "w"); put_u32(&b, 5);
    expect_invalid(&b, "offset 33:", "tensor 0 'w'", "5 dimensions, more than 4");

    b.len = 0;
    put_header(&b, 3, 1, 0);
    put_str(&b, "w"); put_u32(&b, 2); put_u64(&b, 4); put_u64(&b, (uint64_t) -3);
    expect_invalid(&b, "offset 45:", "tensor 0 'w'", "dimension 1 has -3 elements");

    const int64_t huge[4] = { (int64_t) 1 << 32, (int64_t) 1 << 31, 1, 1 };   // 2^63 elements
    b.len = 0;
    put_header(&b, 3, 1, 0);
    put_tensor(&b, "w", 2, huge, GGML_TYPE_F32, 0);
    expect_invalid(&b, "offset 33:", "tensor 0 'w'", "INT64_MAX elements or more");

    const int32_t bad_types[] = { -1, GGML_TYPE_COUNT, 4, 31 };
    const char * why[] = { "invalid ggml type -1", "invalid ggml type", "block size 0 of type 4 (removed)", "type 31 (removed)" };
    for (int i = 0; i < 4; i++) {
        b.len = 0;
        put_header(&b, 3, 1, 0);
        put_tensor(&b, "w", 2, ne1, bad_types[i], 0);
        expect_invalid(&b, "offset 53:", "tensor 0 'w'", why[i]);
    }
    const int64_t odd_row[2] = { 33, 2 };
    b.len = 0;
    put_header(&b, 3, 1, 0);
    put_tensor(&b, "w", 2, odd_row, GGML_TYPE_Q4_0, 0);
    expect_invalid(&b, "offset 53:", "33 elements per row, not a multiple of the block size 32", NULL);

    const int64_t big[1] = { (int64_t) 1 << 62 };                          // 2^62 floats = 2^64 bytes
    b.len = 0;
    put_header(&b, 3, 1, 0);
    put_tensor(&b, "w", 1, big, GGML_TYPE_F32, 0);
    expect_invalid(&b, "offset 45:", "tensor 0 'w'", "does not fit in 64 bits");

    const int64_t half[1] = { (int64_t) 1 << 61 };                         // 2^63 bytes each: the sum overflows
    b.len = 0;
    put_header(&b, 3, 2, 0);
    put_tensor(&b, "a", 1, half, GGML_TYPE_F32, 0);
    put_tensor(&b, "b", 1, half, GGML_TYPE_F32, (uint64_t) 1 << 63);
    while (b.len % 32) {
        put_u8(&b, 0);
    }
    expect_invalid(&b, "offset 57:", "tensor 1 'b'", "data size overflows");

    b.len = 0;
    put_header(&b, 3, 2, 0);
    put_tensor(&b, "a", 2, ne1, GGML_TYPE_F32, 0);
    put_tensor(&b, "b", 2, ne1, GGML_TYPE_F32, 300);                     // a's 256 bytes end at 256
    while (b.len % 32) {
        put_u8(&b, 0);
    }
    expect_invalid(&b, "offset 65:", "tensor 1 'b'", "data offset 300, expected 256");

    // zero elements: no data, accepted, whatever the other dimensions (their product would overflow)
    const int64_t zero[3] = { 32, (int64_t) 1 << 62, 0 };
    b.len = 0;
    put_header(&b, 3, 2, 0);
    put_tensor(&b, "z", 3, zero, GGML_TYPE_Q4_0, 0);
    put_tensor(&b, "a", 2, ne1, GGML_TYPE_F32, 0);
    while (b.len % 32) {
        put_u8(&b, 0);
    }
    struct galloc_gguf g;
    struct galloc_error err;
    CHECK(read_all(&b, &g, &err) == GALLOC_GGUF_OK && g.tensors[0].nbytes == 0 && g.data_size == 256);
    galloc_gguf_free(&g);
    free(b.data);
}

// the reader's heap stays within a small multiple of its input, whatever the counts in it claim
static void test_bounded_memory(void) {
#ifdef HAVE_HEAP_HOOKS
    struct buf files[4] = { { 0 } };
    put_header(&files[0], 3, (int64_t) 1 << 50, (int64_t) 1 << 50);
    put_header(&files[1], 3, 0, 1);
    put_key(&files[1], "t", GALLOC_GGUF_TYPE_ARRAY); put_u32(&files[1], GALLOC_GGUF_TYPE_STRING); put_u64(&files[1], 1 << 30);
    for (int i = 0; i < 5000; i++) {
        put_str(&files[1], "");
    }
    put_header(&files[2], 3, 0, 1);
    put_key(&files[2], "n", GALLOC_GGUF_TYPE_ARRAY); put_u32(&files[2], GALLOC_GGUF_TYPE_ARRAY); put_u64(&files[2], 1 << 30);
    for (int i = 0; i < 3000; i++) {
        put_u32(&files[2], GALLOC_GGUF_TYPE_STRING); put_u64(&files[2], 1 << 29);
    }
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); // once: each call adds a hook
    size_t len;
    files[3].data = (uint8_t *) read_whole_file(FIXTURES "/qwen3moe-30b-a3b.meta.gguf", &len);
    files[3].len = len;
    for (int f = 0; f < 4; f++) {
        struct galloc_gguf g;
        struct galloc_error err;
        uint64_t need;
        heap_now = heap_peak = 0;
        heap_counting = true;
        galloc_gguf_read(files[f].data, files[f].len, &g, &need, &err);
        galloc_gguf_free(&g);
        heap_counting = false;
        if (heap_peak > 8 * files[f].len + (256 << 10)) {
            check_failures++;
            fprintf(stderr, "  file %d: peak heap %zu bytes for %zu bytes of input\n", f, heap_peak, files[f].len);
        }
        free(files[f].data);
    }
#else
    printf("test-gguf: heap bound not checked (no ASan)\n");
#endif
}

int main(void) {
    RUN(test_real_files);
    RUN(test_real_values);
    RUN(test_real_prefixes);
    RUN(test_all_value_types);
    RUN(test_bad_header);
    RUN(test_lying_sizes);
    RUN(test_bad_types_and_keys);
    RUN(test_bad_tensor_infos);
    RUN(test_bounded_memory);
    return check_report("test-gguf");
}
