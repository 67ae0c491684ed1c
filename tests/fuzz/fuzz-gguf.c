// fuzz-gguf.c: libFuzzer target over the GGUF header reader.
//
// Any byte string is read as a whole file and as a prefix of a longer one of unknown length. Nothing
// may crash, leak or trip a sanitizer, and the answers must agree: a whole file that reads is also
// read from its header alone; a prefix that needs more names a longer prefix; every key and tensor
// is found by its name and every value reads through the lookups without going out of bounds.

#include "galloc-gguf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#define REQUIRE(x) do { if (!(x)) { abort(); } } while (0)

static void touch_value(const struct galloc_gguf_value * v, int depth) {
    REQUIRE(depth < GALLOC_GGUF_MAX_DEPTH);
    int64_t i;
    uint64_t u;
    double f;
    if (v->type == GALLOC_GGUF_TYPE_STRING) {
        REQUIRE(v->bytes[v->n] == '\0');
        return;
    }
    if (v->type != GALLOC_GGUF_TYPE_ARRAY) {
        REQUIRE(v->n == 1);
        (void) galloc_gguf_value_i64(v, 0, &i);
        (void) galloc_gguf_value_u64(v, 0, &u);
        (void) galloc_gguf_value_f64(v, 0, &f);
        REQUIRE(!galloc_gguf_value_i64(v, 1, &i));
        return;
    }
    for (uint64_t k = 0; k < v->n; k++) {
        if (v->elem_type == GALLOC_GGUF_TYPE_STRING) {
            REQUIRE(v->strs[k][v->str_lens[k]] == '\0');
        } else if (v->elem_type == GALLOC_GGUF_TYPE_ARRAY) {
            touch_value(&v->items[k], depth + 1);
        } else {
            (void) galloc_gguf_value_i64(v, k, &i);
            (void) galloc_gguf_value_f64(v, k, &f);
        }
    }
    REQUIRE(!galloc_gguf_value_f64(v, v->n, &f));
}

static void touch(const struct galloc_gguf * g, size_t size) {
    REQUIRE(g->header_size <= size && g->data_offset >= g->header_size);
    REQUIRE(g->alignment && (g->alignment & (g->alignment - 1)) == 0);
    for (int64_t k = 0; k < g->n_kv; k++) {
        const struct galloc_gguf_kv * kv = &g->kv[k];
        if (strlen(kv->key) == kv->key_len) {
            REQUIRE(galloc_gguf_find(g, kv->key) == kv);
        }
        touch_value(&kv->value, 0);
        uint64_t u;
        enum galloc_gguf_type t;
        (void) galloc_gguf_get_u64(g, kv->key, &u);
        (void) galloc_gguf_get_str(g, kv->key);
        if (galloc_gguf_get_arr(g, kv->key, &t, &u) && t == GALLOC_GGUF_TYPE_STRING && u) {
            REQUIRE(galloc_gguf_get_arr_str(g, kv->key, u - 1, NULL) != NULL);
        }
    }
    for (int64_t k = 0; k < g->n_tensors; k++) {
        const struct galloc_gguf_tensor_info * t = &g->tensors[k];
        REQUIRE(galloc_gguf_find_tensor(g, t->name) == t);
        REQUIRE(t->n_dims >= 0 && t->n_dims <= 4);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err;

    // as a whole file
    enum galloc_gguf_status st = galloc_gguf_read_prefix(data, size, size, &g, &need, &err);
    REQUIRE(st == GALLOC_GGUF_OK || st == GALLOC_GGUF_INVALID);
    REQUIRE(st == GALLOC_GGUF_OK || strncmp(err.message, "offset ", 7) == 0);
    if (st == GALLOC_GGUF_OK) {
        touch(&g, size);
        // its header alone reads the same
        struct galloc_gguf h;
        REQUIRE(galloc_gguf_read(data, (size_t) g.header_size, &h, &need, &err) == GALLOC_GGUF_OK);
        REQUIRE(h.n_kv == g.n_kv && h.n_tensors == g.n_tensors && h.data_offset == g.data_offset && h.data_size == g.data_size);
        galloc_gguf_free(&h);
        galloc_gguf_free(&g);
    }

    // as a prefix of a file of unknown length
    st = galloc_gguf_read(data, size, &g, &need, &err);
    REQUIRE(st != GALLOC_GGUF_NEED_MORE || need > size);
    if (st == GALLOC_GGUF_OK) {
        touch(&g, size);
    }
    galloc_gguf_free(&g);
    return 0;
}
