// galloc-binary.c: graph and plan documents as compact binary words (layout in galloc-binary.h).
//
// The same content, in the same order, as galloc-document-write.c writes in JSON; the choices of
// what a tensor carries (ne without trailing 1s, nb only when not contiguous, src up to the last
// slot used, ...) are the JSON writer's, made here with the same helpers. Out of memory gives
// NULL, never an abort.

#include "galloc-binary.h"
#include "galloc-document-impl.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NULL_INDEX 0xFFFFFFFFu

// a growable array of words; `failed` once an allocation failed (later writes do nothing)
struct words {
    uint32_t * w;
    size_t     n, cap;
    bool       failed;
};

// a string that repeats (ops, types, flag and how names), kept once: where its bytes are, its index
struct interned {
    size_t   from, len;
    uint32_t id;
};

// the strings: their UTF-8 bytes, where each ends in UTF-16 units, and an index by content of
// the interned ones
struct strings {
    char *            bytes;
    size_t            n_bytes, cap_bytes;
    struct words      ends;
    uint32_t          utf16;   // UTF-16 units so far
    struct interned * interned;
    size_t            n_interned;
    uint32_t *        slots;   // open addressing over interned: entry + 1, 0 empty
    size_t            n_slots; // a power of two, at least twice n_interned
    bool              failed;
};

struct binary {
    struct words   body;
    struct strings str;
};

static bool words_reserve(struct words * a, size_t more) {
    if (a->failed) {
        return false;
    }
    if (a->n + more <= a->cap) {
        return true;
    }
    size_t cap = a->cap ? a->cap : 1024;
    while (cap < a->n + more) {
        if (cap > SIZE_MAX / 2 / sizeof(uint32_t)) {
            a->failed = true;
            return false;
        }
        cap *= 2;
    }
    uint32_t * grown = realloc(a->w, cap * sizeof(uint32_t));
    if (grown == NULL) {
        a->failed = true;
        return false;
    }
    a->w   = grown;
    a->cap = cap;
    return true;
}

static void put(struct binary * b, uint32_t v) {
    if (words_reserve(&b->body, 1)) {
        b->body.w[b->body.n++] = v;
    }
}

static void put_u64(struct binary * b, uint64_t v) {
    if (words_reserve(&b->body, 2)) {
        b->body.w[b->body.n++] = (uint32_t) v;
        b->body.w[b->body.n++] = (uint32_t) (v >> 32);
    }
}

// an index, or NULL_INDEX for any negative value
static void put_index(struct binary * b, int64_t v) {
    put(b, v < 0 ? NULL_INDEX : (uint32_t) v);
}

static void put_opt_u64(struct binary * b, bool present, uint64_t v) {
    put(b, present ? 1 : 0);
    if (present) {
        put_u64(b, v);
    }
}

// UTF-16 code units of valid UTF-8: one per sequence, two for a four-byte one
static uint32_t utf16_units(const unsigned char * s, size_t len) {
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += (s[i] & 0xC0) != 0x80;
        n += s[i] >= 0xF0;
    }
    return n;
}

// append a string: its index (0 once failed: the result is thrown away then)
static uint32_t strings_add(struct strings * s, const char * text, size_t len) {
    if (s->failed || !words_reserve(&s->ends, 1)) {
        s->failed = true;
        return 0;
    }
    if (s->n_bytes + len > s->cap_bytes) {
        size_t cap = s->cap_bytes ? s->cap_bytes : 4096;
        while (cap < s->n_bytes + len) {
            cap *= 2;
        }
        char * grown = realloc(s->bytes, cap);
        if (grown == NULL) {
            s->failed = true;
            return 0;
        }
        s->bytes     = grown;
        s->cap_bytes = cap;
    }
    if (len > 0) { // (an empty first string: no bytes yet, and memcpy takes no NULL)
        memcpy(s->bytes + s->n_bytes, text, len);
        s->n_bytes += len;
    }
    s->utf16 += utf16_units((const unsigned char *) text, len);
    s->ends.w[s->ends.n] = s->utf16;
    return (uint32_t) s->ends.n++;
}

static size_t hash_of(const char * text, size_t len) {
    uint32_t h = 2166136261u; // FNV-1a
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char) text[i]) * 16777619u;
    }
    return h;
}

// double the index (or make it)
static bool strings_grow_index(struct strings * s) {
    size_t            n     = s->n_slots ? 2 * s->n_slots : 256;
    uint32_t *        slots = calloc(n, sizeof(uint32_t));
    struct interned * items = realloc(s->interned, (n / 2) * sizeof(*items));
    if (items != NULL) {
        s->interned = items;
    }
    if (slots == NULL || items == NULL) {
        free(slots);
        s->failed = true;
        return false;
    }
    for (size_t e = 0; e < s->n_interned; e++) {
        size_t at = hash_of(s->bytes + items[e].from, items[e].len) & (n - 1);
        while (slots[at] != 0) {
            at = (at + 1) & (n - 1);
        }
        slots[at] = (uint32_t) e + 1;
    }
    free(s->slots);
    s->slots   = slots;
    s->n_slots = n;
    return true;
}

// the index of a string that repeats: added the first time only
static uint32_t strings_intern(struct strings * s, const char * text) {
    if (s->failed || (2 * (s->n_interned + 1) > s->n_slots && !strings_grow_index(s))) {
        return 0;
    }
    const size_t len = strlen(text);
    size_t       at  = hash_of(text, len) & (s->n_slots - 1);
    for (; s->slots[at] != 0; at = (at + 1) & (s->n_slots - 1)) {
        const struct interned * x = &s->interned[s->slots[at] - 1];
        if (x->len == len && memcmp(s->bytes + x->from, text, len) == 0) {
            return x->id;
        }
    }
    const size_t   from = s->n_bytes;
    const uint32_t id   = strings_add(s, text, len);
    if (s->failed) {
        return 0;
    }
    s->interned[s->n_interned] = (struct interned) { from, len, id };
    s->slots[at] = (uint32_t) ++s->n_interned;
    return id;
}

static void put_string(struct binary * b, const char * text) {
    put(b, strings_add(&b->str, text, strlen(text)));
}

static void put_interned(struct binary * b, const char * text) {
    put(b, strings_intern(&b->str, text));
}

static void binary_free(struct binary * b) {
    free(b->body.w);
    free(b->str.bytes);
    free(b->str.ends.w);
    free(b->str.interned);
    free(b->str.slots);
}

// header, string ends, string bytes (padded to a word), body, then room for `more` body words that
// the caller writes at *tail: one malloc'd block (b freed either way); NULL when out of memory or
// past 2^32 - 1 bytes
static uint8_t * binary_finish_more(struct binary * b, uint32_t kind, size_t more, uint32_t ** tail, size_t * len) {
    uint8_t * out = NULL;
    *len  = 0;
    *tail = NULL;
    if (!b->body.failed && !b->str.failed && !b->str.ends.failed && more <= UINT32_MAX / 4) {
        const size_t n_strings  = b->str.ends.n;
        const size_t text_words = (b->str.n_bytes + 3) / 4;
        const size_t body_words = b->body.n + more;
        const size_t words      = GALLOC_BINARY_HEADER_WORDS + n_strings + text_words + body_words;
        if (words <= UINT32_MAX / 4) {
            out = malloc(words * 4);
        }
        if (out != NULL) {
            uint32_t * w = (uint32_t *) (void *) out;
            const size_t ends_at = GALLOC_BINARY_HEADER_WORDS, text_at = ends_at + n_strings, body_at = text_at + text_words;
            const uint32_t header[GALLOC_BINARY_HEADER_WORDS] = {
                GALLOC_BINARY_MAGIC, GALLOC_BINARY_VERSION, kind, (uint32_t) n_strings, (uint32_t) ends_at,
                (uint32_t) (text_at * 4), (uint32_t) b->str.n_bytes, (uint32_t) body_at, (uint32_t) body_words, (uint32_t) (words * 4),
            };
            memcpy(w, header, sizeof(header));
            if (n_strings > 0) {
                memcpy(w + ends_at, b->str.ends.w, n_strings * 4);
            }
            memset(w + text_at, 0, text_words * 4);
            if (b->str.n_bytes > 0) {
                memcpy(w + text_at, b->str.bytes, b->str.n_bytes);
            }
            if (b->body.n > 0) {
                memcpy(w + body_at, b->body.w, b->body.n * 4);
            }
            *tail = w + body_at + b->body.n;
            *len  = words * 4;
        }
    }
    binary_free(b);
    return out;
}

static uint8_t * binary_finish(struct binary * b, uint32_t kind, size_t * len) {
    uint32_t * tail;
    return binary_finish_more(b, kind, 0, &tail, len);
}

//
// graph
//

// head word bits of a graph tensor (galloc-binary.h)
#define HEAD_SUB       (1u << 7)
#define HEAD_GLU       (1u << 8)
#define HEAD_NB        (1u << 9)
#define HEAD_VIEW      (1u << 10)
#define HEAD_ALLOC_ONE (1u << 11)
#define HEAD_ALLOC_ROW (2u << 11)
#define HEAD_BUFFER    (1u << 13)
#define HEAD_EXTERNAL  (2u << 13)

static void graph_tensor(struct binary * b, const struct galloc_document * doc, int32_t i) {
    const struct galloc_tensor * t = &doc->tensors[i];
    int n_dims = GGML_MAX_DIMS; // ne without trailing 1s (at least one number)
    while (n_dims > 1 && t->ne[n_dims - 1] == 1) {
        n_dims--;
    }
    uint64_t nb[GGML_MAX_DIMS];
    uint64_t blck, tsize;
    const bool contiguous = galloc_document_type_traits(doc, t->type, &blck, &tsize) &&
                            galloc_document_contiguous_nb(blck, tsize, t->ne, nb) && memcmp(nb, t->nb, sizeof(nb)) == 0;
    int n_src = GGML_MAX_SRC; // up to the last used slot
    while (n_src > 0 && t->src[n_src - 1] < 0) {
        n_src--;
    }
    const bool    sub = doc->tensor_sub_op != NULL && doc->tensor_sub_op[i] >= 0;
    const int32_t row = doc->tensor_alloc_sizes != NULL ? doc->tensor_alloc_sizes[i] : -1;
    const bool    own = doc->tensor_buffer_type != NULL && doc->tensor_buffer_type[i] >= 0;
    uint32_t head = (uint32_t) n_dims | (uint32_t) n_src << 3;
    head |= sub ? HEAD_SUB | (t->op == GGML_OP_UNARY ? 0 : HEAD_GLU) : 0;
    head |= contiguous ? 0 : HEAD_NB;
    head |= t->view_src >= 0 ? HEAD_VIEW : 0;
    head |= row >= 0 ? HEAD_ALLOC_ROW : t->alloc_size != t->nbytes ? HEAD_ALLOC_ONE : 0;
    head |= own ? HEAD_BUFFER : t->external ? HEAD_EXTERNAL : 0;
    head |= (uint32_t) (t->flags & ((1 << GALLOC_DOCUMENT_N_FLAGS) - 1)) << 16;

    put(b, head);
    put_string(b, doc->tensor_names != NULL ? doc->tensor_names[i] : "");
    put_interned(b, galloc_document_op_name(doc, i));
    if (sub) {
        put_interned(b, galloc_document_op_desc(doc, i));
    }
    put_interned(b, galloc_document_type_name(doc, i));
    for (int d = 0; d < n_dims; d++) {
        put_u64(b, (uint64_t) t->ne[d]);
    }
    if (!contiguous) {
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            put_u64(b, t->nb[d]);
        }
    }
    for (int s = 0; s < n_src; s++) {
        put_index(b, t->src[s]);
    }
    if (t->view_src >= 0) {
        put(b, (uint32_t) t->view_src);
        put_u64(b, t->view_offs);
    }
    if (row >= 0) {
        const uint64_t * sizes = &doc->alloc_sizes[(size_t) row * (size_t) doc->n_buffer_types];
        for (int32_t k = 0; k < doc->n_buffer_types; k++) {
            put_opt_u64(b, sizes[k] != t->nbytes, sizes[k]);
        }
    } else if (t->alloc_size != t->nbytes) {
        put_u64(b, t->alloc_size);
    }
    if (own) {
        put(b, (uint32_t) doc->tensor_buffer_type[i]);
    }
}

static void index_list(struct binary * b, const int32_t * items, int32_t n) {
    put(b, (uint32_t) n);
    for (int32_t i = 0; i < n; i++) {
        put_index(b, items[i]);
    }
}

uint8_t * galloc_binary_write_graph(const struct galloc_document * doc, size_t * len) {
    struct binary b;
    memset(&b, 0, sizeof(b));
    put_string(&b, doc->name != NULL ? doc->name : "");
    put(&b, GALLOC_DOCUMENT_N_FLAGS);
    for (int f = 0; f < GALLOC_DOCUMENT_N_FLAGS; f++) {
        put_interned(&b, galloc_document_flag_names[f]);
    }
    put(&b, (uint32_t) doc->n_buffer_types);
    for (int32_t k = 0; k < doc->n_buffer_types; k++) {
        const struct galloc_buffer_type * bt = &doc->buffer_types[k];
        put_string(&b, doc->buffer_type_names != NULL ? doc->buffer_type_names[k] : "");
        put_u64(&b, bt->alignment);
        put_opt_u64(&b, bt->max_size != GALLOC_NO_MAX_SIZE, bt->max_size);
    }
    uint32_t n_traits = 0; // the types the tables do not know, with their traits
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        n_traits += doc->unknown[k].kind == GALLOC_NAME_TYPE;
    }
    put(&b, n_traits);
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        const struct galloc_unknown_name * u = &doc->unknown[k];
        if (u->kind == GALLOC_NAME_TYPE) {
            put_interned(&b, u->name);
            put_u64(&b, (uint64_t) u->blck_size);
            put_u64(&b, u->type_size);
        }
    }
    put(&b, (uint32_t) doc->n_tensors);
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        graph_tensor(&b, doc, i);
    }
    index_list(&b, doc->nodes, doc->n_nodes);
    index_list(&b, doc->leafs, doc->n_leafs);
    put(&b, doc->node_buffer_ids != NULL);
    for (int32_t i = 0; doc->node_buffer_ids != NULL && i < doc->n_nodes; i++) {
        put_index(&b, doc->node_buffer_ids[i]);
    }
    put(&b, doc->leaf_buffer_ids != NULL);
    for (int32_t i = 0; doc->leaf_buffer_ids != NULL && i < doc->n_leafs; i++) {
        put_index(&b, doc->leaf_buffer_ids[i]);
    }
    return binary_finish(&b, GALLOC_BINARY_GRAPH, len);
}

//
// plan
//

#define PLAN_HOW_COUNT (GALLOC_HOW_VIEW + 1)

// a placed tensor's how as an index of its name (galloc_how_name names others "none")
static inline int plan_how(const struct galloc_place * p) {
    return (uint32_t) p->how < PLAN_HOW_COUNT ? p->how : GALLOC_HOW_NONE;
}

// whether a placed tensor of that how (plan_how's) has a parent, in its words
static inline bool plan_has_parent(int how) {
    return how >= GALLOC_HOW_INPLACE;
}
_Static_assert(GALLOC_HOW_VIEW == GALLOC_HOW_INPLACE + 1 && PLAN_HOW_COUNT == GALLOC_HOW_VIEW + 1, "the hows with a parent are the last two");

uint8_t * galloc_binary_write_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    *len = 0;
    if (plan->n_tensors != doc->n_tensors || plan->n_buffer_types != doc->n_buffer_types) {
        return NULL; // not a plan of this document
    }
    struct binary b;
    memset(&b, 0, sizeof(b));
    put_string(&b, doc->name != NULL ? doc->name : "");
    put(&b, (uint32_t) plan->n_steps);
    put(&b, (uint32_t) plan->n_inplace);
    put(&b, (uint32_t) plan->n_buffer_types);
    for (int32_t k = 0; k < plan->n_buffer_types; k++) {
        const struct galloc_buffer_plan * bp = &plan->buffers[k];
        const struct galloc_buffer_type * bt = &doc->buffer_types[k];
        const int32_t n_chunks = bp->n_chunks < GALLOC_MAX_CHUNKS ? bp->n_chunks : GALLOC_MAX_CHUNKS;
        put(&b, (uint32_t) k);
        put_string(&b, doc->buffer_type_names != NULL ? doc->buffer_type_names[k] : "");
        put_u64(&b, bt->alignment);
        put_opt_u64(&b, bt->max_size != GALLOC_NO_MAX_SIZE, bt->max_size);
        put(&b, (uint32_t) (n_chunks > 0 ? n_chunks : 0));
        for (int32_t c = 0; c < n_chunks; c++) {
            put_u64(&b, bp->chunk_sizes[c]);
        }
        put_u64(&b, bp->size);
        put_u64(&b, bp->peak_live);
        put_u64(&b, galloc_overhead_bytes(bp->size, bp->peak_live));
        put_index(&b, bp->shared_with);
    }
    put(&b, (uint32_t) plan->n_tensors);
    // the tensors, most of the body, go straight into the finished block (no copy of them): first
    // their words are counted and each how name interned where the tensors first use it, as
    // put_interned would in order, so that the strings before the body are complete
    uint32_t how_id[PLAN_HOW_COUNT];
    bool     how_known[PLAN_HOW_COUNT] = { false };
    size_t   tensor_words              = 0; // not placed: one word (0); placed: 10 words, and its parent
    const struct galloc_place * places = plan->places;
    for (int32_t i = 0; i < plan->n_tensors; i++) {
        const struct galloc_place * p = &places[i];
        if (p->buffer < 0) {
            tensor_words += 1;
            continue;
        }
        const int how = plan_how(p);
        tensor_words += 10 + (size_t) plan_has_parent(how);
        if (!how_known[how]) {
            how_id[how]    = strings_intern(&b.str, galloc_how_name((enum galloc_how) how));
            how_known[how] = true;
        }
    }
    uint32_t * w   = NULL;
    uint8_t *  out = binary_finish_more(&b, GALLOC_BINARY_PLAN, tensor_words, &w, len);
    if (out == NULL) {
        return NULL;
    }
    const uint32_t * const end = w + tensor_words;
    for (int32_t i = 0; i < plan->n_tensors; i++) {
        const struct galloc_place * p = &places[i];
        if (p->buffer < 0) {
            *w++ = 0;
            continue;
        }
        const int  how    = plan_how(p);
        const bool parent = plan_has_parent(how);
        *w++ = 1u | (doc->tensors[i].view_src >= 0 ? 2u : 0u) | (parent ? 4u : 0u);
        *w++ = (uint32_t) p->buffer;
        *w++ = (uint32_t) p->chunk;
        *w++ = (uint32_t) p->offset;
        *w++ = (uint32_t) (p->offset >> 32);
        *w++ = (uint32_t) p->size;
        *w++ = (uint32_t) (p->size >> 32);
        *w++ = how_id[how];
        if (parent) {
            *w++ = (uint32_t) p->parent;
        }
        *w++ = (uint32_t) p->first_step;
        *w++ = (uint32_t) p->last_step;
    }
    assert(w == end); // the words counted are the words written
    (void) end;
    return out;
}
