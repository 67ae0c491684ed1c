// galloc-gguf.c: the GGUF header reader (see galloc-gguf.h).
//
// One pass over the bytes, in gguf.cpp's order and with its checks, so a file is refused where and
// why gguf.cpp refuses it. Everything read is copied into an arena of blocks that never move; a
// count in the input is only used to size memory once the bytes behind it are known to be there
// (n elements of at least k bytes each need n*k bytes of input first). Keys and tensor names are
// indexed by open-addressing hash tables for the duplicate checks and the lookups.

#include "galloc-gguf.h"

#include "ggml.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// sizeof(struct gguf_kv) and sizeof(struct gguf_tensor_info) in a 64-bit llama.cpp build: gguf.cpp
// refuses counts above SIZE_MAX / these before reading anything else
#define GGUF_CPP_KV_BYTES          88
#define GGUF_CPP_TENSOR_INFO_BYTES 344

// the fewest bytes of input behind one array element of each kind
#define MIN_STRING_BYTES 8   // its length
#define MIN_ARRAY_BYTES  12  // element type + count

static const char * const TYPE_NAMES[GALLOC_GGUF_TYPE_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64",
};
// bytes of one element; 0 for STRING and ARRAY
static const uint8_t TYPE_SIZES[GALLOC_GGUF_TYPE_COUNT] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

const char * galloc_gguf_type_name(enum galloc_gguf_type type) {
    return (int) type >= 0 && type < GALLOC_GGUF_TYPE_COUNT ? TYPE_NAMES[type] : "?";
}

const char * galloc_gguf_status_name(enum galloc_gguf_status status) {
    switch (status) {
        case GALLOC_GGUF_OK:        return "ok";
        case GALLOC_GGUF_NEED_MORE: return "need more bytes";
        case GALLOC_GGUF_INVALID:   return "invalid";
        case GALLOC_GGUF_NO_MEMORY: return "out of memory";
    }
    return "?";
}

static bool type_is_valid(int32_t t) { return t >= 0 && t < GALLOC_GGUF_TYPE_COUNT; }

//
// arena: blocks that never move, freed together
//

struct arena_block {
    struct arena_block * next;
    size_t cap;
    size_t used;
};
#define ARENA_HEADER ((sizeof(struct arena_block) + 15) & ~(size_t) 15)
#define ARENA_MIN_BLOCK ((size_t) 64 << 10)

struct arena {
    struct arena_block * head;
    size_t next_cap;
};

static void * arena_alloc(struct arena * a, uint64_t size) {
    size = (size + 7) & ~(uint64_t) 7;
    if (size > SIZE_MAX / 2) {
        return NULL;
    }
    struct arena_block * b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = a->next_cap < ARENA_MIN_BLOCK ? ARENA_MIN_BLOCK : a->next_cap;
        if (cap < size) {
            cap = (size_t) size;
        }
        b = malloc(ARENA_HEADER + cap);
        if (!b) {
            return NULL;
        }
        b->next = a->head;
        b->cap = cap;
        b->used = 0;
        a->head = b;
        a->next_cap = cap <= SIZE_MAX / 4 ? cap * 2 : cap; // blocks double: few of them, at most 2x waste
    }
    void * p = (uint8_t *) b + ARENA_HEADER + b->used;
    b->used += (size_t) size;
    return p;
}

static void arena_free(struct arena * a) {
    for (struct arena_block * b = a->head, * next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->head = NULL;
}

//
// hash index of names (keys, tensor names): slot holds index + 1, 0 when empty
//

struct name_index {
    uint64_t * slots;
    uint64_t   cap;     // power of two, or 0
    uint64_t   count;
};

static uint64_t name_hash(const char * s, uint64_t len) {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (uint64_t i = 0; i < len; i++) {
        h = (h ^ (uint8_t) s[i]) * 1099511628211ull;
    }
    return h;
}

// looks a name up; names_of(i) gives entry i's name and length
typedef const char * (*name_of_fn)(const void * owner, uint64_t i, uint64_t * len);

static int64_t name_index_find(const struct name_index * ix, const void * owner, name_of_fn name_of,
                               const char * s, uint64_t len) {
    if (ix->cap == 0) {
        return -1;
    }
    for (uint64_t h = name_hash(s, len) & (ix->cap - 1);; h = (h + 1) & (ix->cap - 1)) {
        if (ix->slots[h] == 0) {
            return -1;
        }
        uint64_t other_len;
        const char * other = name_of(owner, ix->slots[h] - 1, &other_len);
        if (other_len == len && memcmp(other, s, len) == 0) {
            return (int64_t) (ix->slots[h] - 1);
        }
    }
}

static bool name_index_insert(struct name_index * ix, const void * owner, name_of_fn name_of, uint64_t i) {
    if ((ix->count + 1) * 2 > ix->cap) {
        uint64_t cap = ix->cap ? ix->cap * 2 : 64;
        uint64_t * slots = cap <= SIZE_MAX / sizeof(uint64_t) ? calloc((size_t) cap, sizeof(uint64_t)) : NULL;
        if (!slots) {
            return false;
        }
        for (uint64_t k = 0; k < ix->cap; k++) {
            if (ix->slots[k]) {
                uint64_t len;
                const char * s = name_of(owner, ix->slots[k] - 1, &len);
                uint64_t h = name_hash(s, len) & (cap - 1);
                while (slots[h]) {
                    h = (h + 1) & (cap - 1);
                }
                slots[h] = ix->slots[k];
            }
        }
        free(ix->slots);
        ix->slots = slots;
        ix->cap = cap;
    }
    uint64_t len;
    const char * s = name_of(owner, i, &len);
    uint64_t h = name_hash(s, len) & (ix->cap - 1);
    while (ix->slots[h]) {
        h = (h + 1) & (ix->cap - 1);
    }
    ix->slots[h] = i + 1;
    ix->count++;
    return true;
}

//
// what a read galloc_gguf owns
//

struct gguf_impl {
    struct arena arena;
    struct galloc_gguf_kv *          kv;
    uint64_t                         kv_cap;
    struct galloc_gguf_tensor_info * tensors;
    uint64_t                         tensors_cap;
    struct name_index                kv_index;
    struct name_index                tensor_index;
};

static const char * kv_name_of(const void * owner, uint64_t i, uint64_t * len) {
    const struct gguf_impl * impl = owner;
    *len = impl->kv[i].key_len;
    return impl->kv[i].key;
}

static const char * tensor_name_of(const void * owner, uint64_t i, uint64_t * len) {
    const struct gguf_impl * impl = owner;
    *len = strlen(impl->tensors[i].name);
    return impl->tensors[i].name;
}

static void impl_free(struct gguf_impl * impl) {
    if (impl) {
        arena_free(&impl->arena);
        free(impl->kv);
        free(impl->tensors);
        free(impl->kv_index.slots);
        free(impl->tensor_index.slots);
        free(impl);
    }
}

// grows a vector of elem-byte entries to hold n + 1 (doubling)
static bool grow(void ** vec, uint64_t * cap, uint64_t n, size_t elem) {
    if (n < *cap) {
        return true;
    }
    uint64_t new_cap = *cap ? *cap * 2 : 16;
    if (new_cap > SIZE_MAX / elem) {
        return false;
    }
    void * p = realloc(*vec, (size_t) new_cap * elem);
    if (!p) {
        return false;
    }
    *vec = p;
    *cap = new_cap;
    return true;
}

//
// the cursor
//

struct parser {
    const uint8_t * data;
    uint64_t        len;        // bytes available
    uint64_t        file_size;  // GALLOC_GGUF_SIZE_UNKNOWN or the file's length
    uint64_t        pos;
    struct gguf_impl * impl;
    uint64_t *      need_bytes;
    struct galloc_error * err;
    char            where[128]; // what is being read: "key 'general.name'", "tensor 3 'output.weight'"
    char            refusal[256];
};

GGML_ATTRIBUTE_FORMAT(4, 5)
static enum galloc_gguf_status fail(struct parser * p, enum galloc_gguf_status st, uint64_t offset, const char * fmt, ...) {
    if (p->err) {
        // a prefix too short is an incomplete file to a caller that cannot give more
        p->err->status = st == GALLOC_GGUF_NO_MEMORY ? GALLOC_STATUS_NO_MEMORY : GALLOC_STATUS_INVALID;
        char * msg = p->err->message;
        const size_t size = sizeof(p->err->message);
        int n = snprintf(msg, size, "offset %" PRIu64 ": %s%s", offset, p->where, p->where[0] ? ": " : "");
        if (n >= 0 && (size_t) n < size) {
            va_list args;
            va_start(args, fmt);
            vsnprintf(msg + n, size - (size_t) n, fmt, args);
            va_end(args);
        }
    }
    return st;
}

// a name for messages: printable ASCII kept, other bytes as '?', long names cut
static void describe(char * out, size_t out_size, const char * s, uint64_t len) {
    size_t n = 0;
    for (uint64_t i = 0; i < len && n + 4 < out_size; i++) {
        if (n >= 64) {
            memcpy(out + n, "...", 3);
            n += 3;
            break;
        }
        unsigned char c = (unsigned char) s[i];
        out[n++] = c >= 0x20 && c < 0x7f && c != '\'' ? (char) c : '?';
    }
    out[n] = '\0';
}

// n more bytes must be there: OK, NEED_MORE (the prefix is short) or INVALID (the file is)
static enum galloc_gguf_status have(struct parser * p, uint64_t n, const char * what) {
    if (n <= p->len - p->pos) {
        return GALLOC_GGUF_OK;
    }
    uint64_t end = p->pos + n < p->pos ? UINT64_MAX : p->pos + n;
    if (end > p->file_size) {
        return fail(p, GALLOC_GGUF_INVALID, p->pos, "%s (%" PRIu64 " bytes) runs past the end of the file (%" PRIu64 " bytes)",
                    what, n, p->file_size);
    }
    if (p->need_bytes) {
        *p->need_bytes = end;
    }
    return fail(p, GALLOC_GGUF_NEED_MORE, p->pos, "%s (%" PRIu64 " bytes) runs past the %" PRIu64 " bytes read; need %" PRIu64,
                what, n, p->len, end);
}

static uint64_t load_le(const uint8_t * b, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) {
        v = (v << 8) | b[i];
    }
    return v;
}

static enum galloc_gguf_status read_le(struct parser * p, int n, const char * what, uint64_t * out) {
    enum galloc_gguf_status st = have(p, (uint64_t) n, what);
    if (st != GALLOC_GGUF_OK) {
        return st;
    }
    *out = load_le(p->data + p->pos, n);
    p->pos += (uint64_t) n;
    return GALLOC_GGUF_OK;
}

// a string: u64 length + bytes, copied into the arena with a NUL
static enum galloc_gguf_status read_string(struct parser * p, const char * what, char ** out, uint64_t * out_len) {
    uint64_t start = p->pos, len;
    enum galloc_gguf_status st = read_le(p, 8, what, &len);
    if (st != GALLOC_GGUF_OK) {
        return st;
    }
    if (len > GALLOC_GGUF_MAX_STRING_LENGTH) {
        return fail(p, GALLOC_GGUF_INVALID, start, "%s of %" PRIu64 " bytes exceeds the maximum %" PRIu64,
                    what, len, GALLOC_GGUF_MAX_STRING_LENGTH);
    }
    if ((st = have(p, len, what)) != GALLOC_GGUF_OK) {
        return st;
    }
    char * s = arena_alloc(&p->impl->arena, len + 1);
    if (!s) {
        return fail(p, GALLOC_GGUF_NO_MEMORY, start, "%s: out of memory for a string of %" PRIu64 " bytes", what, len);
    }
    memcpy(s, p->data + p->pos, (size_t) len);
    s[len] = '\0';
    p->pos += len;
    *out = s;
    *out_len = len;
    return GALLOC_GGUF_OK;
}

static enum galloc_gguf_status read_array(struct parser * p, struct galloc_gguf_value * v, int depth);

// the elements of an array whose element type and count (v->elem_type, v->n) are read
static enum galloc_gguf_status read_array_body(struct parser * p, struct galloc_gguf_value * v, int depth) {
    uint64_t start = p->pos, n = v->n;
    enum galloc_gguf_status st;
    if (n > GALLOC_GGUF_MAX_ARRAY_ELEMENTS) {
        return fail(p, GALLOC_GGUF_INVALID, start, "array of %" PRIu64 " elements exceeds the maximum %" PRIu64,
                    n, GALLOC_GGUF_MAX_ARRAY_ELEMENTS);
    }
    switch (v->elem_type) {
        case GALLOC_GGUF_TYPE_STRING: {
            if ((st = have(p, n * MIN_STRING_BYTES, "array of strings")) != GALLOC_GGUF_OK) {
                return st;
            }
            // backed: n strings take at least 8n bytes of input
            char ** strs = arena_alloc(&p->impl->arena, n * sizeof(char *));
            uint64_t * lens = arena_alloc(&p->impl->arena, n * sizeof(uint64_t));
            if (n && (!strs || !lens)) {
                return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory for an array of %" PRIu64 " strings", n);
            }
            for (uint64_t i = 0; i < n; i++) {
                char what[48];
                snprintf(what, sizeof(what), "element %" PRIu64, i);
                if ((st = read_string(p, what, &strs[i], &lens[i])) != GALLOC_GGUF_OK) {
                    return st;
                }
            }
            v->strs = (const char * const *) strs;
            v->str_lens = lens;
            return GALLOC_GGUF_OK;
        }
        case GALLOC_GGUF_TYPE_ARRAY: {
            if (depth + 1 >= GALLOC_GGUF_MAX_DEPTH) {
                return fail(p, GALLOC_GGUF_INVALID, start, "arrays nested deeper than %d", GALLOC_GGUF_MAX_DEPTH);
            }
            if ((st = have(p, n * MIN_ARRAY_BYTES, "array of arrays")) != GALLOC_GGUF_OK) {
                return st;
            }
            struct galloc_gguf_value * items = arena_alloc(&p->impl->arena, n * sizeof(*items));
            if (n && !items) {
                return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory for an array of %" PRIu64 " arrays", n);
            }
            if (n) {
                memset(items, 0, (size_t) n * sizeof(*items));
            }
            for (uint64_t i = 0; i < n; i++) {
                if ((st = read_array(p, &items[i], depth + 1)) != GALLOC_GGUF_OK) {
                    return st;
                }
            }
            v->items = items;
            return GALLOC_GGUF_OK;
        }
        default: {
            const uint64_t bytes = n * TYPE_SIZES[v->elem_type];
            if ((st = have(p, bytes, "array")) != GALLOC_GGUF_OK) {
                return st;
            }
            uint8_t * b = arena_alloc(&p->impl->arena, bytes);
            if (bytes && !b) {
                return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory for an array of %" PRIu64 " bytes", bytes);
            }
            if (bytes) {
                memcpy(b, p->data + p->pos, (size_t) bytes);
            }
            p->pos += bytes;
            v->bytes = b;
            return GALLOC_GGUF_OK;
        }
    }
}

// an array value inside an array: element type, count, elements
static enum galloc_gguf_status read_array(struct parser * p, struct galloc_gguf_value * v, int depth) {
    uint64_t start = p->pos, type, n;
    enum galloc_gguf_status st;
    if ((st = read_le(p, 4, "array element type", &type)) != GALLOC_GGUF_OK ||
        (st = read_le(p, 8, "array element count", &n)) != GALLOC_GGUF_OK) {
        return st;
    }
    v->type = GALLOC_GGUF_TYPE_ARRAY;
    v->offset = start;
    v->n = n;
    if (!type_is_valid((int32_t) type)) {
        return fail(p, GALLOC_GGUF_INVALID, start, "invalid GGUF type %" PRId32, (int32_t) type);
    }
    v->elem_type = (enum galloc_gguf_type) type;
    return read_array_body(p, v, depth);
}

// a KV pair's value: type, then (for arrays) element type and count, then the bytes
static enum galloc_gguf_status read_kv_value(struct parser * p, struct galloc_gguf_value * v) {
    uint64_t start = p->pos, type, elem_type = 0, n = 1;
    enum galloc_gguf_status st;
    if ((st = read_le(p, 4, "value type", &type)) != GALLOC_GGUF_OK) {
        return st;
    }
    const bool is_array = (int32_t) type == GALLOC_GGUF_TYPE_ARRAY;
    if (is_array) {
        if ((st = read_le(p, 4, "array element type", &elem_type)) != GALLOC_GGUF_OK ||
            (st = read_le(p, 8, "array element count", &n)) != GALLOC_GGUF_OK) {
            return st;
        }
    }
    const int32_t t = (int32_t) (is_array ? elem_type : type);
    if (!type_is_valid(t) || (!is_array && t == GALLOC_GGUF_TYPE_ARRAY)) {
        return fail(p, GALLOC_GGUF_INVALID, start, "invalid GGUF type %" PRId32, t);
    }
    v->offset = start;
    if (is_array) {
        v->type = GALLOC_GGUF_TYPE_ARRAY;
        v->elem_type = (enum galloc_gguf_type) t;
        v->n = n;
        if (t == GALLOC_GGUF_TYPE_ARRAY && !p->refusal[0]) {
            snprintf(p->refusal, sizeof(p->refusal), "offset %" PRIu64 ": %s has invalid GGUF type 9 "
                     "(gguf.cpp reads no arrays of arrays)", start, p->where);
        }
        return read_array_body(p, v, 0);
    }
    v->type = (enum galloc_gguf_type) t;
    v->elem_type = v->type;
    if (t == GALLOC_GGUF_TYPE_STRING) {
        char * s;
        if ((st = read_string(p, "string", &s, &v->n)) != GALLOC_GGUF_OK) {
            return st;
        }
        v->bytes = (const uint8_t *) s;
        return GALLOC_GGUF_OK;
    }
    v->n = 1;
    if ((st = have(p, TYPE_SIZES[t], galloc_gguf_type_name((enum galloc_gguf_type) t))) != GALLOC_GGUF_OK) {
        return st;
    }
    uint8_t * b = arena_alloc(&p->impl->arena, TYPE_SIZES[t]);
    if (!b) {
        return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory");
    }
    memcpy(b, p->data + p->pos, TYPE_SIZES[t]);
    p->pos += TYPE_SIZES[t];
    v->bytes = b;
    return GALLOC_GGUF_OK;
}

//
// the file, part by part
//

static enum galloc_gguf_status read_preamble(struct parser * p, struct galloc_gguf * g) {
    enum galloc_gguf_status st;
    if ((st = have(p, 4, "magic")) != GALLOC_GGUF_OK) {
        return st;
    }
    if (memcmp(p->data, "GGUF", 4) != 0) {
        char m[8];
        for (int i = 0; i < 4; i++) {
            m[i] = p->data[i] >= 0x20 && p->data[i] < 0x7f ? (char) p->data[i] : '?';
        }
        m[4] = '\0';
        return fail(p, GALLOC_GGUF_INVALID, 0, "invalid magic '%s', expected 'GGUF'", m);
    }
    p->pos = 4;
    uint64_t version, n_tensors, n_kv;
    if ((st = read_le(p, 4, "version", &version)) != GALLOC_GGUF_OK) {
        return st;
    }
    if (version == 0) {
        return fail(p, GALLOC_GGUF_INVALID, 4, "bad GGUF version 0");
    }
    if ((version & 0xFFFF) == 0) {
        return fail(p, GALLOC_GGUF_INVALID, 4, "GGUF version %" PRIu64 " is extremely large (a file of the other byte order?)", version);
    }
    if (version == 1) {
        return fail(p, GALLOC_GGUF_INVALID, 4, "GGUF version 1 is no longer supported");
    }
    if (version > 3) {
        return fail(p, GALLOC_GGUF_INVALID, 4, "GGUF version %" PRIu64 " is newer than 3, the newest llama.cpp reads", version);
    }
    g->version = (uint32_t) version;
    if ((st = read_le(p, 8, "tensor count", &n_tensors)) != GALLOC_GGUF_OK) {
        return st;
    }
    if ((int64_t) n_tensors < 0 || n_tensors > UINT64_MAX / GGUF_CPP_TENSOR_INFO_BYTES) {
        return fail(p, GALLOC_GGUF_INVALID, 8, "tensor count %" PRId64 " is not in [0, %" PRIu64 "]",
                    (int64_t) n_tensors, UINT64_MAX / GGUF_CPP_TENSOR_INFO_BYTES);
    }
    if ((st = read_le(p, 8, "key-value count", &n_kv)) != GALLOC_GGUF_OK) {
        return st;
    }
    if ((int64_t) n_kv < 0 || n_kv > UINT64_MAX / GGUF_CPP_KV_BYTES) {
        return fail(p, GALLOC_GGUF_INVALID, 16, "key-value count %" PRId64 " is not in [0, %" PRIu64 "]",
                    (int64_t) n_kv, UINT64_MAX / GGUF_CPP_KV_BYTES);
    }
    g->n_tensors = (int64_t) n_tensors;
    g->n_kv = (int64_t) n_kv;
    return GALLOC_GGUF_OK;
}

static enum galloc_gguf_status read_kvs(struct parser * p, struct galloc_gguf * g) {
    struct gguf_impl * impl = p->impl;
    enum galloc_gguf_status st;
    for (int64_t i = 0; i < g->n_kv; i++) {
        const uint64_t start = p->pos;
        snprintf(p->where, sizeof(p->where), "key %" PRId64, i);
        char * key;
        uint64_t key_len;
        if ((st = read_string(p, "key", &key, &key_len)) != GALLOC_GGUF_OK) {
            return st;
        }
        if (key_len == 0) {
            return fail(p, GALLOC_GGUF_INVALID, start, "key is empty");
        }
        char name[80];
        describe(name, sizeof(name), key, key_len);
        snprintf(p->where, sizeof(p->where), "key '%s'", name);
        const int64_t dup = name_index_find(&impl->kv_index, impl, kv_name_of, key, key_len);
        if (dup >= 0) {
            return fail(p, GALLOC_GGUF_INVALID, start, "duplicate key (key %" PRId64 " has it too, at offset %" PRIu64 ")",
                        dup, impl->kv[dup].offset);
        }
        if (!grow((void **) &impl->kv, &impl->kv_cap, (uint64_t) i, sizeof(*impl->kv))) {
            return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory");
        }
        struct galloc_gguf_kv * kv = &impl->kv[i];
        memset(kv, 0, sizeof(*kv));
        kv->key = key;
        kv->key_len = key_len;
        kv->offset = start;
        if ((st = read_kv_value(p, &kv->value)) != GALLOC_GGUF_OK) {
            return st;
        }
        if (!name_index_insert(&impl->kv_index, impl, kv_name_of, (uint64_t) i)) {
            return fail(p, GALLOC_GGUF_NO_MEMORY, start, "out of memory");
        }
    }
    p->where[0] = '\0';
    g->kv = impl->kv;
    return GALLOC_GGUF_OK;
}

static enum galloc_gguf_status read_alignment(struct parser * p, struct galloc_gguf * g) {
    g->alignment = GALLOC_GGUF_DEFAULT_ALIGNMENT;
    const struct galloc_gguf_kv * kv = galloc_gguf_find(g, "general.alignment");
    if (!kv) {
        return GALLOC_GGUF_OK;
    }
    snprintf(p->where, sizeof(p->where), "key 'general.alignment'");
    if (kv->value.type != GALLOC_GGUF_TYPE_UINT32) {
        return fail(p, GALLOC_GGUF_INVALID, kv->offset, "must be of type u32 but is %s", galloc_gguf_type_name(kv->value.type));
    }
    const uint64_t a = load_le(kv->value.bytes, 4);
    if (a == 0 || (a & (a - 1)) != 0) {
        return fail(p, GALLOC_GGUF_INVALID, kv->offset, "alignment %" PRIu64 " is not a power of 2", a);
    }
    g->alignment = a;
    p->where[0] = '\0';
    return GALLOC_GGUF_OK;
}

static enum galloc_gguf_status read_tensor_info(struct parser * p, int64_t i, struct galloc_gguf_tensor_info * t) {
    struct gguf_impl * impl = p->impl;
    enum galloc_gguf_status st;
    const uint64_t start = p->pos;
    snprintf(p->where, sizeof(p->where), "tensor %" PRId64, i);
    char * name;
    uint64_t name_len;
    if ((st = read_string(p, "name", &name, &name_len)) != GALLOC_GGUF_OK) {
        return st;
    }
    if (name_len >= GGML_MAX_NAME) {
        return fail(p, GALLOC_GGUF_INVALID, start, "name of %" PRIu64 " bytes is too long (at most %d)", name_len, GGML_MAX_NAME - 1);
    }
    t->name = name; // ggml keeps what comes before a NUL
    t->info_offset = start;
    char shown[80];
    describe(shown, sizeof(shown), name, strlen(name));
    snprintf(p->where, sizeof(p->where), "tensor %" PRId64 " '%s'", i, shown);
    const int64_t dup = name_index_find(&impl->tensor_index, impl, tensor_name_of, name, strlen(name));
    if (dup >= 0) {
        return fail(p, GALLOC_GGUF_INVALID, start, "duplicate tensor name (tensor %" PRId64 " has it too)", dup);
    }

    // shape
    uint64_t n_dims;
    const uint64_t dims_at = p->pos;
    if ((st = read_le(p, 4, "dimension count", &n_dims)) != GALLOC_GGUF_OK) {
        return st;
    }
    if (n_dims > GGML_MAX_DIMS) {
        return fail(p, GALLOC_GGUF_INVALID, dims_at, "%" PRIu64 " dimensions, more than %d", n_dims, GGML_MAX_DIMS);
    }
    t->n_dims = (int32_t) n_dims;
    for (uint64_t j = 0; j < GGML_MAX_DIMS; j++) {
        t->ne[j] = 1;
        if (j < n_dims) {
            uint64_t ne;
            const uint64_t at = p->pos;
            if ((st = read_le(p, 8, "dimension", &ne)) != GALLOC_GGUF_OK) {
                return st;
            }
            t->ne[j] = (int64_t) ne;
            if (t->ne[j] < 0) {
                return fail(p, GALLOC_GGUF_INVALID, at, "dimension %" PRIu64 " has %" PRId64 " elements", j, t->ne[j]);
            }
        }
    }
    const int64_t * ne = t->ne;
    const bool empty = ne[0] == 0 || ne[1] == 0 || ne[2] == 0 || ne[3] == 0;
    if (!empty && (INT64_MAX / ne[1] <= ne[0] || INT64_MAX / ne[2] <= ne[0] * ne[1] ||
                   INT64_MAX / ne[3] <= ne[0] * ne[1] * ne[2])) {
        return fail(p, GALLOC_GGUF_INVALID, dims_at, "shape (%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ") has "
                    "INT64_MAX elements or more", ne[0], ne[1], ne[2], ne[3]);
    }

    // type
    uint64_t type;
    const uint64_t type_at = p->pos;
    if ((st = read_le(p, 4, "type", &type)) != GALLOC_GGUF_OK) {
        return st;
    }
    t->type = (int32_t) type;
    if (t->type < 0 || t->type >= GGML_TYPE_COUNT) {
        return fail(p, GALLOC_GGUF_INVALID, type_at, "invalid ggml type %" PRId32 " (not in [0, %d))", t->type, GGML_TYPE_COUNT);
    }
    const int64_t blck = ggml_blck_size((enum ggml_type) t->type);
    const uint64_t type_size = ggml_type_size((enum ggml_type) t->type);
    if (blck == 0 || ne[0] % blck != 0) {
        return fail(p, GALLOC_GGUF_INVALID, type_at, "%" PRId64 " elements per row, not a multiple of the block size %" PRId64
                    " of type %" PRId32 " (%s)", ne[0], blck, t->type, blck ? ggml_type_name((enum ggml_type) t->type) : "removed");
    }
    // (with a zero dimension the others may be anything: their product is not formed)
    const uint64_t blocks = empty ? 0 : (uint64_t) (ne[0] * ne[1] * ne[2] * ne[3] / blck);
    if (blocks > UINT64_MAX / type_size) {
        return fail(p, GALLOC_GGUF_INVALID, type_at, "size in bytes does not fit in 64 bits");
    }
    t->nbytes = blocks * type_size;

    uint64_t offset;
    if ((st = read_le(p, 8, "data offset", &offset)) != GALLOC_GGUF_OK) {
        return st;
    }
    t->offset = offset;
    return GALLOC_GGUF_OK;
}

static enum galloc_gguf_status read_tensor_infos(struct parser * p, struct galloc_gguf * g) {
    struct gguf_impl * impl = p->impl;
    enum galloc_gguf_status st;
    for (int64_t i = 0; i < g->n_tensors; i++) {
        if (!grow((void **) &impl->tensors, &impl->tensors_cap, (uint64_t) i, sizeof(*impl->tensors))) {
            return fail(p, GALLOC_GGUF_NO_MEMORY, p->pos, "out of memory");
        }
        memset(&impl->tensors[i], 0, sizeof(impl->tensors[i]));
        if ((st = read_tensor_info(p, i, &impl->tensors[i])) != GALLOC_GGUF_OK) {
            return st;
        }
        if (!name_index_insert(&impl->tensor_index, impl, tensor_name_of, (uint64_t) i)) {
            return fail(p, GALLOC_GGUF_NO_MEMORY, p->pos, "out of memory");
        }
    }
    p->where[0] = '\0';
    g->tensors = impl->tensors;
    return GALLOC_GGUF_OK;
}

// data section: where it starts, and every tensor's data where the previous one's ends
static enum galloc_gguf_status place_data(struct parser * p, struct galloc_gguf * g) {
    g->header_size = p->pos;
    g->data_offset = p->pos;
    if (g->n_tensors > 0) {
        g->data_offset = (p->pos + g->alignment - 1) & ~(g->alignment - 1);
        if (g->data_offset > p->file_size) {
            return fail(p, GALLOC_GGUF_INVALID, p->pos, "the data section would start at %" PRIu64 " (alignment %" PRIu64
                        "), past the end of the file (%" PRIu64 " bytes)", g->data_offset, g->alignment, p->file_size);
        }
    }
    uint64_t size = 0;
    for (int64_t i = 0; i < g->n_tensors; i++) {
        const struct galloc_gguf_tensor_info * t = &g->tensors[i];
        char shown[80];
        describe(shown, sizeof(shown), t->name, strlen(t->name));
        snprintf(p->where, sizeof(p->where), "tensor %" PRId64 " '%s'", i, shown);
        if (t->offset != size) {
            return fail(p, GALLOC_GGUF_INVALID, t->info_offset, "data offset %" PRIu64 ", expected %" PRIu64
                        " (the end of the previous tensor's data)", t->offset, size);
        }
        const uint64_t padded = (t->nbytes + g->alignment - 1) & ~(g->alignment - 1); // wraps as GGML_PAD does
        if (UINT64_MAX - size < padded) {
            return fail(p, GALLOC_GGUF_INVALID, t->info_offset, "data size overflows: %" PRIu64 " + %" PRIu64, size, padded);
        }
        size += padded;
    }
    p->where[0] = '\0';
    g->data_size = size;
    g->file_size = UINT64_MAX - g->data_offset < size ? UINT64_MAX : g->data_offset + size;
    return GALLOC_GGUF_OK;
}

enum galloc_gguf_status galloc_gguf_read_prefix(const uint8_t * data, size_t len, uint64_t file_size,
                                                struct galloc_gguf * out, uint64_t * need_bytes,
                                                struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (need_bytes) {
        *need_bytes = 0;
    }
    galloc_error_clear(err);
    struct parser p = { 0 };
    p.data = data;
    p.len = data ? (uint64_t) len : 0;
    p.file_size = file_size;
    if (p.len > file_size) {
        p.len = file_size;
    }
    p.need_bytes = need_bytes;
    p.err = err;
    p.impl = calloc(1, sizeof(*p.impl));
    if (!p.impl) {
        return fail(&p, GALLOC_GGUF_NO_MEMORY, 0, "out of memory");
    }
    out->impl = p.impl;
    enum galloc_gguf_status st;
    if ((st = read_preamble(&p, out)) != GALLOC_GGUF_OK ||
        (st = read_kvs(&p, out)) != GALLOC_GGUF_OK ||
        (st = read_alignment(&p, out)) != GALLOC_GGUF_OK ||
        (st = read_tensor_infos(&p, out)) != GALLOC_GGUF_OK ||
        (st = place_data(&p, out)) != GALLOC_GGUF_OK) {
        galloc_gguf_free(out);
        return st;
    }
    memcpy(out->llama_refusal, p.refusal, sizeof(out->llama_refusal));
    return GALLOC_GGUF_OK;
}

enum galloc_gguf_status galloc_gguf_read(const uint8_t * data, size_t len, struct galloc_gguf * out,
                                         uint64_t * need_bytes, struct galloc_error * err) {
    return galloc_gguf_read_prefix(data, len, GALLOC_GGUF_SIZE_UNKNOWN, out, need_bytes, err);
}

void galloc_gguf_free(struct galloc_gguf * g) {
    if (g) {
        impl_free(g->impl);
        memset(g, 0, sizeof(*g));
    }
}

//
// lookups
//

const struct galloc_gguf_kv * galloc_gguf_find(const struct galloc_gguf * g, const char * key) {
    if (!g || !g->impl || !key) {
        return NULL;
    }
    const struct gguf_impl * impl = g->impl;
    const int64_t i = name_index_find(&impl->kv_index, impl, kv_name_of, key, strlen(key));
    return i < 0 ? NULL : &g->kv[i];
}

enum galloc_gguf_type galloc_gguf_kv_type(const struct galloc_gguf_kv * kv) {
    return kv->value.type;
}

const struct galloc_gguf_tensor_info * galloc_gguf_find_tensor(const struct galloc_gguf * g, const char * name) {
    if (!g || !g->impl || !name) {
        return NULL;
    }
    const struct gguf_impl * impl = g->impl;
    const int64_t i = name_index_find(&impl->tensor_index, impl, tensor_name_of, name, strlen(name));
    return i < 0 ? NULL : &g->tensors[i];
}

// element i of a numeric value: its type and bytes, or false
static bool number_at(const struct galloc_gguf_value * v, uint64_t i, enum galloc_gguf_type * type, const uint8_t ** b) {
    if (!v) {
        return false;
    }
    const enum galloc_gguf_type t = v->type == GALLOC_GGUF_TYPE_ARRAY ? v->elem_type : v->type;
    if (t == GALLOC_GGUF_TYPE_STRING || t == GALLOC_GGUF_TYPE_ARRAY || i >= v->n) {
        return false;
    }
    *type = t;
    *b = v->bytes + i * TYPE_SIZES[t];
    return true;
}

static bool is_float(enum galloc_gguf_type t) { return t == GALLOC_GGUF_TYPE_FLOAT32 || t == GALLOC_GGUF_TYPE_FLOAT64; }
static bool is_signed(enum galloc_gguf_type t) {
    return t == GALLOC_GGUF_TYPE_INT8 || t == GALLOC_GGUF_TYPE_INT16 || t == GALLOC_GGUF_TYPE_INT32 || t == GALLOC_GGUF_TYPE_INT64;
}

// an integer element as (negative?, magnitude bits)
static void integer_at(enum galloc_gguf_type t, const uint8_t * b, int64_t * s, uint64_t * u) {
    const int size = TYPE_SIZES[t];
    uint64_t raw = load_le(b, size);
    if (t == GALLOC_GGUF_TYPE_BOOL) {
        raw = raw != 0;
    }
    if (is_signed(t) && size < 8 && (raw >> (size * 8 - 1)) & 1) {
        raw |= ~(uint64_t) 0 << (size * 8); // sign-extend
    }
    *u = raw;
    memcpy(s, &raw, sizeof(*s));
}

bool galloc_gguf_value_i64(const struct galloc_gguf_value * v, uint64_t i, int64_t * out) {
    enum galloc_gguf_type t;
    const uint8_t * b;
    if (!number_at(v, i, &t, &b) || is_float(t)) {
        return false;
    }
    int64_t s;
    uint64_t u;
    integer_at(t, b, &s, &u);
    if (t == GALLOC_GGUF_TYPE_UINT64 && u > INT64_MAX) {
        return false;
    }
    *out = s;
    return true;
}

bool galloc_gguf_value_u64(const struct galloc_gguf_value * v, uint64_t i, uint64_t * out) {
    enum galloc_gguf_type t;
    const uint8_t * b;
    if (!number_at(v, i, &t, &b) || is_float(t)) {
        return false;
    }
    int64_t s;
    uint64_t u;
    integer_at(t, b, &s, &u);
    if (is_signed(t) && s < 0) {
        return false;
    }
    *out = u;
    return true;
}

bool galloc_gguf_value_f64(const struct galloc_gguf_value * v, uint64_t i, double * out) {
    enum galloc_gguf_type t;
    const uint8_t * b;
    if (!number_at(v, i, &t, &b) || t == GALLOC_GGUF_TYPE_BOOL) {
        return false;
    }
    if (t == GALLOC_GGUF_TYPE_FLOAT32) {
        const uint32_t bits = (uint32_t) load_le(b, 4);
        float f;
        memcpy(&f, &bits, sizeof(f));
        *out = f;
    } else if (t == GALLOC_GGUF_TYPE_FLOAT64) {
        const uint64_t bits = load_le(b, 8);
        memcpy(out, &bits, sizeof(*out));
    } else {
        int64_t s;
        uint64_t u;
        integer_at(t, b, &s, &u);
        *out = is_signed(t) ? (double) s : (double) u;
    }
    return true;
}

static const struct galloc_gguf_value * scalar(const struct galloc_gguf * g, const char * key) {
    const struct galloc_gguf_kv * kv = galloc_gguf_find(g, key);
    return kv && kv->value.type != GALLOC_GGUF_TYPE_ARRAY ? &kv->value : NULL;
}

static const struct galloc_gguf_value * array(const struct galloc_gguf * g, const char * key) {
    const struct galloc_gguf_kv * kv = galloc_gguf_find(g, key);
    return kv && kv->value.type == GALLOC_GGUF_TYPE_ARRAY ? &kv->value : NULL;
}

bool galloc_gguf_get_u64(const struct galloc_gguf * g, const char * key, uint64_t * out) {
    return galloc_gguf_value_u64(scalar(g, key), 0, out);
}

bool galloc_gguf_get_i64(const struct galloc_gguf * g, const char * key, int64_t * out) {
    return galloc_gguf_value_i64(scalar(g, key), 0, out);
}

bool galloc_gguf_get_f64(const struct galloc_gguf * g, const char * key, double * out) {
    return galloc_gguf_value_f64(scalar(g, key), 0, out);
}

bool galloc_gguf_get_bool(const struct galloc_gguf * g, const char * key, bool * out) {
    const struct galloc_gguf_value * v = scalar(g, key);
    if (!v || v->type != GALLOC_GGUF_TYPE_BOOL) {
        return false;
    }
    *out = v->bytes[0] != 0;
    return true;
}

const char * galloc_gguf_get_str(const struct galloc_gguf * g, const char * key) {
    const struct galloc_gguf_value * v = scalar(g, key);
    return v && v->type == GALLOC_GGUF_TYPE_STRING ? (const char *) v->bytes : NULL;
}

bool galloc_gguf_get_arr(const struct galloc_gguf * g, const char * key, enum galloc_gguf_type * elem_type, uint64_t * n) {
    const struct galloc_gguf_value * v = array(g, key);
    if (!v) {
        return false;
    }
    *elem_type = v->elem_type;
    *n = v->n;
    return true;
}

bool galloc_gguf_get_arr_i64(const struct galloc_gguf * g, const char * key, uint64_t i, int64_t * out) {
    return galloc_gguf_value_i64(array(g, key), i, out);
}

bool galloc_gguf_get_arr_f64(const struct galloc_gguf * g, const char * key, uint64_t i, double * out) {
    return galloc_gguf_value_f64(array(g, key), i, out);
}

const char * galloc_gguf_get_arr_str(const struct galloc_gguf * g, const char * key, uint64_t i, uint64_t * len) {
    const struct galloc_gguf_value * v = array(g, key);
    if (!v || v->elem_type != GALLOC_GGUF_TYPE_STRING || i >= v->n) {
        return NULL;
    }
    if (len) {
        *len = v->str_lens[i];
    }
    return v->strs[i];
}
