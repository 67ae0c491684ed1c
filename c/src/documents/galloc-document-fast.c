// galloc-document-fast.c: one "tensors" entry read straight from the document's text into the tensor.
//
// Member names by length and bytes, numbers into 64 bits at once, op and type names by hash (built
// from ggml's tables; a name an earlier entry gave, by the 8 bytes after its quote), no value tree.
// The text is read strictly (galloc-document-scan.h), so this reader serves both the one-pass
// reader (galloc-document-walk.c, text never parsed) and the second pass over text that parsed.
// It takes only the common shape: known members once each, plain strings, integers, names in
// ggml's tables, and every check of the checked reader (galloc-document-read.c, read_tensor)
// passing. For anything else it answers false and changes nothing, and the entry (or the whole
// document) is left to the checked reader, so every verdict and message stays that reader's.

#include "galloc-document-impl.h"
#include "galloc-document-scan.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#    define FAST_NOINLINE __attribute__((noinline)) // kept out of the readers of the common forms
#else
#    define FAST_NOINLINE
#endif

//
// names: one open-addressing table of ggml's names of every kind (galloc-document-impl.h)
//

#define NAME_SLOT_MASK (GALLOC_FAST_NAME_SLOTS - 1)

// a name's tag: its kind and length (names are 1 to 255 bytes)
static inline uint16_t name_tag(int kind, size_t n) {
    return (uint16_t) ((unsigned) kind << 8 | (unsigned) n);
}

// a name's slot to start probing at, from its first 16 bytes (two words, zero past its end) and its tag
static inline uint32_t name_hash(uint64_t w0, uint64_t w1, uint16_t tag) {
    return (uint32_t) (((w0 ^ (w1 >> 3) ^ tag) * 0x9E3779B97F4A7C15ull) >> 32) & NAME_SLOT_MASK;
}

static const char * kind_name(int kind, int32_t id) {
    switch (kind) {
        case GALLOC_NAME_OP:       return ggml_op_name((enum ggml_op) id);
        case GALLOC_NAME_TYPE:     return ggml_type_name((enum ggml_type) id);
        case GALLOC_NAME_UNARY_OP: return ggml_unary_op_name((enum ggml_unary_op) id);
        case GALLOC_NAME_GLU_OP:   return ggml_glu_op_name((enum ggml_glu_op) id);
    }
    return NULL;
}

// bytes 0-7 and 8-15 of the n bytes at s as words, zero past n
static void name_words(const unsigned char * s, size_t n, uint64_t * w0, uint64_t * w1) {
    *w0 = galloc_swar_load_short(s, n < 8 ? n : 8);
    *w1 = n > 8 ? galloc_swar_load_short(s + 8, n < 16 ? n - 8 : 8) : 0;
}

static void names_insert(struct galloc_fast_names * names, int kind, int32_t id) {
    const char * name = kind_name(kind, id);
    size_t       n    = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > UINT8_MAX) {
        return; // none, or none the text could name
    }
    uint64_t w0, w1;
    name_words((const unsigned char *) name, n, &w0, &w1);
    uint16_t tag = name_tag(kind, n);
    for (uint32_t k = 0, h = name_hash(w0, w1, tag); k < GALLOC_FAST_NAME_SLOTS; k++) {
        struct galloc_fast_name_slot * slot = &names->slots[(h + k) & NAME_SLOT_MASK];
        if (slot->id == 0) {
            slot->word[0] = w0;
            slot->word[1] = w1;
            slot->tag     = tag;
            slot->id      = (int16_t) (id + 1);
            return;
        }
        if (slot->tag == tag && strcmp(kind_name(kind, slot->id - 1), name) == 0) {
            return; // the first id of a name stands, as in the checked reader's search
        }
    }
}

void galloc_fast_names_build(struct galloc_fast_names * names) {
    for (uint32_t k = 0; k < GALLOC_FAST_NAME_SLOTS; k++) {
        names->slots[k].id = 0; // empty (the rest of a slot is set when it is filled)
    }
    memset(names->flag_of, 0, sizeof(names->flag_of));
    memset(names->blck_size, 0, sizeof(names->blck_size));
    memset(names->type_size, 0, sizeof(names->type_size));
    for (int32_t op = 0; op < GGML_OP_COUNT; op++) {
        names_insert(names, GALLOC_NAME_OP, op);
    }
    for (int32_t type = 0; type < GGML_TYPE_COUNT; type++) {
        if (ggml_blck_size((enum ggml_type) type) > 0 && ggml_type_size((enum ggml_type) type) > 0) {
            names_insert(names, GALLOC_NAME_TYPE, type); // the types the checked reader knows
            names->blck_size[type] = (uint32_t) ggml_blck_size((enum ggml_type) type);
            names->type_size[type] = (uint32_t) ggml_type_size((enum ggml_type) type);
        }
    }
    for (int32_t u = 0; u < GGML_UNARY_OP_COUNT; u++) {
        names_insert(names, GALLOC_NAME_UNARY_OP, u);
    }
    for (int32_t g = 0; g < GGML_GLU_OP_COUNT; g++) {
        names_insert(names, GALLOC_NAME_GLU_OP, g);
    }
    for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) { // the flag names start with distinct letters
        const char *  name = galloc_document_flag_names[b];
        unsigned char with_quote[8];
        size_t        n = strlen(name); // 4 to 7 bytes
        memcpy(with_quote, name, n);
        with_quote[n]                          = '"';
        names->flag_of[(unsigned char) name[0]] = (int8_t) (b + 1);
        names->flag_word[b]                    = galloc_swar_load_short(with_quote, n + 1);
        names->flag_mask[b]                    = n + 1 == 8 ? ~0ull : (1ull << (8 * (n + 1))) - 1;
        names->flag_len[b]                     = (uint8_t) n;
    }
}

// the table of the process: 0 not built, 1 being built (by the thread that set it), 2 built
static struct galloc_fast_names shared_names;
static atomic_int               shared_names_state;

const struct galloc_fast_names * galloc_fast_names_shared(struct galloc_fast_names * scratch) {
    if (atomic_load_explicit(&shared_names_state, memory_order_acquire) == 2) {
        return &shared_names;
    }
    int unbuilt = 0;
    if (atomic_compare_exchange_strong_explicit(&shared_names_state, &unbuilt, 1, memory_order_acq_rel, memory_order_acquire)) {
        galloc_fast_names_build(&shared_names);
        atomic_store_explicit(&shared_names_state, 2, memory_order_release);
        return &shared_names;
    }
    galloc_fast_names_build(scratch); // another thread is building it (or just built it)
    return scratch;
}

// whether the bytes of a name past its 16th (n > 16 bytes at s) are those of the table's name id of
// that kind (kept out of line: few names are so long, and the call would cost the common case)
static FAST_NOINLINE bool name_tail_equal(int kind, int32_t id, const unsigned char * s, size_t n) {
    return memcmp(kind_name(kind, id) + 16, s + 16, n - 16) == 0;
}

// the id of the name of n bytes at s (w0, w1: its first 16 bytes as name_words gives them) in
// ggml's table of that kind, -1 when it has none. A name equal to one of the table holds only its
// letters, digits and '_', so no other byte needs a look
static inline int32_t names_find(const struct galloc_fast_names * names, int kind, const unsigned char * s, size_t n, uint64_t w0,
                                 uint64_t w1) {
    if (n > UINT8_MAX) {
        return -1; // longer than any name of the table (and than a tag holds)
    }
    uint16_t tag = name_tag(kind, n);
    for (uint32_t k = 0, h = name_hash(w0, w1, tag); k < GALLOC_FAST_NAME_SLOTS; k++) {
        const struct galloc_fast_name_slot * slot = &names->slots[(h + k) & NAME_SLOT_MASK];
        if (slot->id == 0) {
            return -1; // an empty slot (the only field set in one): the name is in none
        }
        if (slot->word[0] == w0 && slot->word[1] == w1 && slot->tag == tag &&
            (n <= 16 || name_tail_equal(kind, slot->id - 1, s, n))) {
            return slot->id - 1;
        }
    }
    return -1;
}

// the slot of recent for a name whose quote is followed by the 8 bytes raw
static inline struct galloc_fast_recent_slot * recent_slot(struct galloc_fast_recent * recent, int kind, uint64_t raw) {
    return &recent->slots[kind][(raw * 0x9E3779B97F4A7C15ull) >> (64 - GALLOC_FAST_RECENT_BITS)];
}

// a string naming an entry of one of ggml's tables: the bytes up to the first '"' compared with the
// table's names (which hold no '"', '\\', control or non-ASCII byte, so a string with one is in none)
static inline bool table_name_at(const unsigned char ** at, const unsigned char * end, const struct galloc_fast_names * names,
                                 struct galloc_fast_recent * recent, int kind, int32_t * out) {
    const unsigned char * p = *at;
    if (p >= end || *p != '"') {
        return false;
    }
    p++;
    size_t   n;
    uint64_t w0, w1 = 0;
    if (end - p >= 16) { // the common case: the name and its closing quote in the next 16 bytes
        w0 = galloc_swar_load(p);
        if (recent != NULL) {
            const struct galloc_fast_recent_slot * r = recent_slot(recent, kind, w0);
            if (r->raw == w0 && r->len_1 != 0) { // the name of an entry before, and its quote
                *out = r->id;
                *at  = p + r->len_1;
                return true;
            }
        }
        uint64_t q0 = galloc_swar_equal(w0, '"');
        if (q0 != 0) {
            n  = galloc_swar_first(q0);
            w0 &= galloc_swar_below_first(q0);
        } else {
            w1          = galloc_swar_load(p + 8);
            uint64_t q1 = galloc_swar_equal(w1, '"');
            if (q1 == 0) {
                const unsigned char * close = memchr(p + 16, '"', (size_t) (end - p - 16));
                if (close == NULL) {
                    return false;
                }
                n = (size_t) (close - p);
            } else {
                n  = 8 + galloc_swar_first(q1);
                w1 &= galloc_swar_below_first(q1);
            }
        }
    } else {
        const unsigned char * close = memchr(p, '"', (size_t) (end - p));
        if (close == NULL) {
            return false;
        }
        n = (size_t) (close - p);
        name_words(p, n, &w0, &w1);
    }
    int32_t id = names_find(names, kind, p, n, w0, w1);
    if (id < 0) {
        return false;
    }
    if (recent != NULL && n < 8 && end - p >= 16) { // its quote among the 8 bytes (as loaded above)
        struct galloc_fast_recent_slot * r = recent_slot(recent, kind, galloc_swar_load(p));
        r->raw                             = galloc_swar_load(p);
        r->id                              = id;
        r->len_1                           = (uint32_t) n + 1;
    }
    *out = id;
    *at  = p + n + 1;
    return true;
}

static inline bool scan_table_name(struct galloc_scan * s, const struct galloc_fast_names * names, int kind, int32_t * out) {
    return table_name_at(&s->p, s->end, names, NULL, kind, out);
}

bool galloc_fast_scan_table_name(struct galloc_scan * s, const struct galloc_fast_names * names, struct galloc_fast_recent * recent, int kind,
                                 int32_t * out) {
    return table_name_at(&s->p, s->end, names, recent, kind, out);
}

//
// the entry
//

enum member {
    M_NAME, M_OP, M_TYPE, M_NE, M_NB, M_ALLOC_SIZE, M_ALLOC_SIZES, M_SRC, M_VIEW_SRC, M_VIEW_OFFS, M_FLAGS, M_BUFFER_TYPE,
    M_EXTERNAL, M_UNARY_OP, M_GLU_OP, M_COUNT
};

// the member a key names, by its length and then its bytes; -1 for one this reader does not take
static int member_of(const char * k, size_t n) {
#define IS(lit) (memcmp(k, lit, sizeof(lit) - 1) == 0)
    switch (n) {
        case 2:  return IS("op") ? M_OP : IS("ne") ? M_NE : IS("nb") ? M_NB : -1;
        case 3:  return IS("src") ? M_SRC : -1;
        case 4:  return IS("name") ? M_NAME : IS("type") ? M_TYPE : -1;
        case 5:  return IS("flags") ? M_FLAGS : -1;
        case 6:  return IS("glu_op") ? M_GLU_OP : -1;
        case 8:  return IS("view_src") ? M_VIEW_SRC : IS("unary_op") ? M_UNARY_OP : IS("external") ? M_EXTERNAL : -1;
        case 9:  return IS("view_offs") ? M_VIEW_OFFS : -1;
        case 10: return IS("alloc_size") ? M_ALLOC_SIZE : -1;
        case 11: return IS("alloc_sizes") ? M_ALLOC_SIZES : IS("buffer_type") ? M_BUFFER_TYPE : -1;
    }
    return -1;
#undef IS
}

// what the members say, before the checks
struct entry {
    unsigned     present;   // 1 << member: given and not null
    const char * name;      // M_NAME
    size_t       name_len;
    int32_t      op, type, sub_op;
    int64_t      ne[GGML_MAX_DIMS];
    int          n_ne;
    uint64_t     nb[GGML_MAX_DIMS];
    uint64_t     alloc_size, view_offs;
    int32_t      src[GGML_MAX_SRC];
    int          n_src;
    int32_t      src_top; // the largest of src[0..n_src), -1 for none
    int32_t      view_src, buffer_type, flags;
    bool         external;
};

static bool scan_flags(struct galloc_scan * s, const struct galloc_fast_names * names, int32_t * flags) {
    *flags = 0;
    int more = galloc_scan_open(s, '[', ']');
    for (; more == 1; more = galloc_scan_next(s, ']')) {
        const char * v;
        size_t       n;
        if (!galloc_scan_string(s, &v, &n) || n == 0) {
            return false;
        }
        int bit = names->flag_of[(unsigned char) v[0] & 0x7f] - 1;
        if (bit < 0 || strlen(galloc_document_flag_names[bit]) != n || memcmp(galloc_document_flag_names[bit], v, n) != 0) {
            return false;
        }
        *flags |= 1 << bit;
    }
    return more == 0;
}

// an array of integers or nulls (null: -1 in ITEM_INDEX_OR_NULL arrays); up to max items; *n items read
enum item_kind { ITEM_I64, ITEM_U64, ITEM_INDEX_OR_NULL };

static inline bool scan_int_array(struct galloc_scan * s, enum item_kind kind, int32_t index_n, void * out, int max, int * n) {
    *n       = 0;
    int more = galloc_scan_open(s, '[', ']');
    for (; more == 1; more = galloc_scan_next(s, ']')) {
        if (*n == max) {
            return false;
        }
        bool ok;
        switch (kind) {
            case ITEM_I64: ok = galloc_scan_i64(s, &((int64_t *) out)[*n]); break;
            case ITEM_U64: ok = galloc_scan_u64(s, &((uint64_t *) out)[*n]); break;
            default:
                ok = galloc_scan_literal(s, "null", 4) ? (((int32_t *) out)[*n] = -1, true)
                                                       : galloc_scan_index(s, index_n, &((int32_t *) out)[*n]);
                break;
        }
        if (!ok) {
            return false;
        }
        (*n)++;
    }
    return more == 0;
}

// one member's value into e, in any form this reader takes; false to leave the entry to the checked reader
static FAST_NOINLINE bool scan_member_any(struct galloc_scan * s, const struct galloc_fast_names * names, const struct galloc_fast_bounds * bounds,
                                          int m, struct entry * e) {
    galloc_scan_ws(s); // after a key the writers' way, ": " and more space
    if (galloc_scan_at(s, 'n')) {
        // null: absent for every member but these three, which the checked reader refuses
        return galloc_scan_literal(s, "null", 4) && m != M_OP && m != M_TYPE && m != M_NE;
    }
    e->present |= 1u << m;
    switch (m) {
        case M_NAME:        return galloc_scan_string(s, &e->name, &e->name_len);
        case M_OP:          return galloc_fast_scan_table_name(s, names, NULL, GALLOC_NAME_OP, &e->op);
        case M_TYPE:        return galloc_fast_scan_table_name(s, names, NULL, GALLOC_NAME_TYPE, &e->type);
        case M_UNARY_OP:    return galloc_fast_scan_table_name(s, names, NULL, GALLOC_NAME_UNARY_OP, &e->sub_op);
        case M_GLU_OP:      return galloc_fast_scan_table_name(s, names, NULL, GALLOC_NAME_GLU_OP, &e->sub_op);
        case M_NE:          return scan_int_array(s, ITEM_I64, 0, e->ne, GGML_MAX_DIMS, &e->n_ne);
        case M_NB: {
            int n = 0;
            return scan_int_array(s, ITEM_U64, 0, e->nb, GGML_MAX_DIMS, &n) && n == GGML_MAX_DIMS;
        }
        case M_SRC:         return scan_int_array(s, ITEM_INDEX_OR_NULL, bounds->n_tensors, e->src, GGML_MAX_SRC, &e->n_src);
        case M_ALLOC_SIZE:  return galloc_scan_u64(s, &e->alloc_size);
        case M_VIEW_OFFS:   return galloc_scan_u64(s, &e->view_offs);
        case M_VIEW_SRC:    return galloc_scan_index(s, bounds->n_tensors, &e->view_src);
        case M_BUFFER_TYPE: return galloc_scan_index(s, bounds->n_buffer_types, &e->buffer_type);
        case M_FLAGS:       return scan_flags(s, names, &e->flags);
        case M_EXTERNAL:
            if (galloc_scan_literal(s, "true", 4)) {
                e->external = true;
                return true;
            }
            e->external = false;
            return galloc_scan_literal(s, "false", 5);
        default:            return false; // alloc_sizes: the checked reader's
    }
}

//
// the values as the writers give them (galloc-document-write.c, galloc-export.c): each taken
// here or, in any other form, by scan_member_any from the same place. A tight reader takes only
// text scan_member_any reads to the same value, so which one reads it never changes the result
//

// "ne": [4096, 512], "nb": [...]: 1 to max numbers (each below 10^18, so an int64_t holds it)
static inline bool tight_numbers(const unsigned char ** at, const unsigned char * end, int64_t * out, int max, int * n_out) {
    const unsigned char * p = *at;
    if (p >= end || *p != '[') {
        return false;
    }
    p++;
    int n = 0;
    for (;;) {
        uint64_t v;
        if (!galloc_scan_tight_u64(&p, end, &v)) {
            return false;
        }
        out[n++] = (int64_t) v;
        int more = galloc_scan_tight_next(&p, end);
        if (more == 0) {
            break;
        }
        if (more < 0 || n == max) {
            return false;
        }
    }
    *n_out = n;
    *at    = p;
    return true;
}

// "src": [0, null, 12]: up to GGML_MAX_SRC indices below n or nulls (-1)
static inline bool tight_src(const unsigned char ** at, const unsigned char * end, int32_t n_tensors, struct entry * e) {
    const unsigned char * p = *at;
    if (p >= end || *p != '[') {
        return false;
    }
    p++;
    int     n = 0, more = 1;
    int32_t top = -1;
    while (more == 1) {
        uint64_t v;
        if (n == GGML_MAX_SRC) {
            return false;
        }
        if (galloc_scan_tight_u64(&p, end, &v)) { // (nothing consumed when it is no number)
            if (v >= (uint64_t) n_tensors) {
                return false;
            }
            e->src[n++] = (int32_t) v;
            top         = (int32_t) v > top ? (int32_t) v : top;
        } else if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
            e->src[n++] = -1;
            p += 4;
        } else {
            return false;
        }
        more = galloc_scan_tight_next(&p, end);
    }
    e->n_src   = n;
    e->src_top = top;
    *at      = p;
    return more == 0;
}

// "flags": ["output", "compute"]: each name and its closing '"' compared as one word
static inline bool tight_flags(const unsigned char ** at, const unsigned char * end, const struct galloc_fast_names * names, int32_t * flags) {
    const unsigned char * p = *at;
    if (end - p < 2 || p[0] != '[' || p[1] != '"') {
        return false;
    }
    p++;
    int32_t f = 0;
    int     more = 1;
    while (more == 1) {
        if (end - p < 12 || *p != '"') { // the longest name, its quotes and the ", " after it fit
            return false;
        }
        int bit = names->flag_of[p[1] & 0x7f] - 1;
        if (bit < 0 || (galloc_swar_load(p + 1) & names->flag_mask[bit]) != names->flag_word[bit]) {
            return false;
        }
        f |= 1 << bit;
        p += names->flag_len[bit] + 2u;
        more = galloc_scan_tight_next(&p, end);
    }
    *flags = f;
    *at    = p;
    return more == 0;
}

// one member's value into e: the writers' form here, any other by scan_member_any; false to leave
// the entry to the checked reader
static inline bool scan_member(struct galloc_scan * s, const struct galloc_fast_names * names, const struct galloc_fast_bounds * bounds, int m,
                               struct entry * e) {
    const unsigned char * p = s->p;
    uint64_t              v;
    bool                  ok;
    switch (m) {
        case M_NAME:        ok = galloc_scan_string(s, &e->name, &e->name_len); p = s->p; break;
        case M_OP:          ok = scan_table_name(s, names, GALLOC_NAME_OP, &e->op); p = s->p; break;
        case M_TYPE:        ok = scan_table_name(s, names, GALLOC_NAME_TYPE, &e->type); p = s->p; break;
        case M_NE:          ok = tight_numbers(&p, s->end, e->ne, GGML_MAX_DIMS, &e->n_ne); break;
        case M_NB: {
            int64_t nb[GGML_MAX_DIMS];
            int     n = 0;
            ok        = tight_numbers(&p, s->end, nb, GGML_MAX_DIMS, &n) && n == GGML_MAX_DIMS;
            for (int d = 0; ok && d < GGML_MAX_DIMS; d++) {
                e->nb[d] = (uint64_t) nb[d];
            }
            break;
        }
        case M_SRC:         ok = tight_src(&p, s->end, bounds->n_tensors, e); break;
        case M_FLAGS:       ok = tight_flags(&p, s->end, names, &e->flags); break;
        case M_VIEW_SRC:
            ok = galloc_scan_tight_u64(&p, s->end, &v) && v < (uint64_t) bounds->n_tensors;
            e->view_src = ok ? (int32_t) v : -1;
            break;
        case M_VIEW_OFFS:   ok = galloc_scan_tight_u64(&p, s->end, &e->view_offs); break;
        case M_BUFFER_TYPE:
            ok = galloc_scan_tight_u64(&p, s->end, &v) && v < (uint64_t) bounds->n_buffer_types;
            e->buffer_type = ok ? (int32_t) v : -1;
            break;
        default:            ok = false; break;
    }
    if (ok) {
        e->present |= 1u << m;
        s->p = p;
        return true;
    }
    return scan_member_any(s, names, bounds, m, e); // s->p where the value starts: no tight reader moved it
}

#define HAS(e, m) (((e)->present >> (m)) & 1u)

// the checks of read_tensor, in its order; all must pass. The tensor is filled as it would fill it
static bool entry_check(const struct entry * e, const struct galloc_fast_names * names, int32_t i, struct galloc_tensor * t) {
    if (!HAS(e, M_OP) || !HAS(e, M_TYPE) || !HAS(e, M_NE)) {
        return false;
    }
    if (HAS(e, M_NAME) && e->name_len > GGML_MAX_NAME - 1) {
        return false; // (a plain string holds no NUL)
    }
    t->op   = e->op;
    t->type = e->type;
    // shape
    if (e->n_ne < 1) {
        return false;
    }
    uint64_t nelements = 1;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        t->ne[d] = d < e->n_ne ? e->ne[d] : 1;
        if (t->ne[d] < 0 || !galloc_mul_u64(nelements, (uint64_t) t->ne[d], &nelements) || nelements > (uint64_t) INT64_MAX) {
            return false;
        }
    }
    // the type is one of ggml's table (galloc_fast_scan_table_name): its traits as galloc_document_type_traits gives them
    uint64_t blck = names->blck_size[t->type], tsize = names->type_size[t->type];
    if (blck == 0 || (uint64_t) t->ne[0] % blck != 0) {
        return false;
    }
    if (HAS(e, M_NB)) {
        memcpy(t->nb, e->nb, sizeof(t->nb));
        if (!galloc_document_nbytes(blck, tsize, t->ne, t->nb, &t->nbytes)) {
            return false;
        }
    } else if (nelements <= GALLOC_DOCUMENT_MAX_TENSOR_BYTES && nelements > 0 && tsize <= UINT16_MAX) {
        // contiguous, every ne at least 1 and tsize * nelements below 2^56: no product overflows, and
        // ggml_nbytes' sum telescopes to the last stride times ne[3] (ne[0] is a multiple of blck)
        t->nb[0]  = tsize;
        t->nb[1]  = tsize * ((uint64_t) t->ne[0] / blck);
        t->nb[2]  = t->nb[1] * (uint64_t) t->ne[1];
        t->nb[3]  = t->nb[2] * (uint64_t) t->ne[2];
        t->nbytes = t->nb[3] * (uint64_t) t->ne[3];
    } else if (!galloc_document_contiguous_nb(blck, tsize, t->ne, t->nb) || !galloc_document_nbytes(blck, tsize, t->ne, t->nb, &t->nbytes)) {
        return false;
    }
    if (t->nbytes > GALLOC_DOCUMENT_MAX_TENSOR_BYTES) {
        return false;
    }
    t->alloc_size = t->nbytes;
    if (HAS(e, M_ALLOC_SIZE)) {
        if (e->alloc_size > GALLOC_DOCUMENT_MAX_TENSOR_BYTES || e->alloc_size < t->nbytes) {
            return false;
        }
        t->alloc_size = e->alloc_size;
    }
    if (HAS(e, M_ALLOC_SIZES)) {
        return false;
    }
    // links
    memcpy(t->src, e->src, sizeof(t->src)); // the slots not given are -1 already
    for (int s = 0; e->src_top >= i && s < e->n_src; s++) { // (most name only earlier tensors)
        if (t->src[s] == i && !(t->op == GGML_OP_CPY && s == 1)) {
            return false;
        }
    }
    t->view_src  = HAS(e, M_VIEW_SRC) ? e->view_src : -1;
    t->view_offs = 0;
    if (t->view_src == i) {
        return false;
    }
    if (HAS(e, M_VIEW_OFFS)) {
        if (t->view_src < 0) {
            return false;
        }
        t->view_offs = e->view_offs;
    }
    t->flags    = HAS(e, M_FLAGS) ? e->flags : 0;
    t->external = HAS(e, M_BUFFER_TYPE) ? 1 : 0;
    if (HAS(e, M_EXTERNAL) && e->external) {
        if (t->view_src >= 0) {
            return false;
        }
        t->external = 1;
    }
    // unary_op / glu_op: only on UNARY / GLU tensors, one of them
    if (HAS(e, M_UNARY_OP) && (t->op != GGML_OP_UNARY || HAS(e, M_GLU_OP))) {
        return false;
    }
    if (HAS(e, M_GLU_OP) && t->op != GGML_OP_GLU) {
        return false;
    }
    return true;
}

//
// the writers' layout: "{ \"name\": ...", the members in their order, ", " between them and " }"
// after the last, each value in its writers' form. Read by the shortest way, or not at all
//

// the text between members is compared a word at a time: the 8 bytes at p when the longest such
// text (", \"buffer_type\": ", 17 bytes) and a few after it are there (p at most limit, which is
// WRITER_SEP_BYTES before the text's end), else 0 (which begins none)
#define WRITER_SEP_BYTES 24
static inline uint64_t writer_word(const unsigned char * p, const unsigned char * limit) {
    return p <= limit ? galloc_swar_load(p) : 0;
}

// the n bytes of text (8 to 17, a constant) at p, whose first word is w (writer_word: they are there)
static inline bool writer_sep_key(uint64_t w, const unsigned char * p, const char * text, size_t n) {
    return w == galloc_swar_load((const unsigned char *) text) && memcmp(p + 8, text + 8, n - 8) == 0;
}

// an index below n
static inline bool tight_index(const unsigned char ** at, const unsigned char * end, int32_t n, int32_t * out) {
    uint64_t v;
    if (!galloc_scan_tight_u64(at, end, &v) || v >= (uint64_t) n) {
        return false;
    }
    *out = (int32_t) v;
    return true;
}

static inline bool tight_strides(const unsigned char ** at, const unsigned char * end, uint64_t nb[GGML_MAX_DIMS]) {
    int64_t v[GGML_MAX_DIMS];
    int     n = 0;
    if (!tight_numbers(at, end, v, GGML_MAX_DIMS, &n) || n != GGML_MAX_DIMS) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        nb[d] = (uint64_t) v[d];
    }
    return true;
}

static inline bool tight_bool(const unsigned char ** at, const unsigned char * end, bool * out) {
    const unsigned char * p = *at;
    if (end - p >= 4 && memcmp(p, "true", 4) == 0) {
        *out = true;
        *at  = p + 4;
        return true;
    }
    if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
        *out = false;
        *at  = p + 5;
        return true;
    }
    return false;
}

// a name of plain ASCII bytes (one with UTF-8 in it is the scanner's)
static inline bool tight_ascii_string(const unsigned char ** at, const unsigned char * end, const char ** out, size_t * n) {
    const unsigned char * p = *at;
    if (p >= end || *p != '"') {
        return false;
    }
    const unsigned char * q = galloc_scan_plain_run(p + 1, end);
    if (q >= end || *q != '"') {
        return false;
    }
    *out = (const char *) p + 1;
    *n   = (size_t) (q - p - 1);
    *at  = q + 1;
    return true;
}

// the entry at p in the writers' layout: its members into e (as the scanner would read them) and the
// text just after its '}' returned. NULL at the first text that is not so (e then partly filled):
// the caller reads the entry again from p by the scanner's rules. Each member is tried once, in the
// writers' order, so none is taken twice
static const unsigned char * writers_entry(const unsigned char * p, const unsigned char * end, const struct galloc_fast_names * names,
                                           struct galloc_fast_recent * recent, const struct galloc_fast_bounds * bounds, struct entry * e) {
    if (end - p < WRITER_SEP_BYTES) {
        return NULL;
    }
    const unsigned char * limit = end - WRITER_SEP_BYTES; // (p only moves on: limit is in the text)
    uint64_t              w     = writer_word(p, limit);
    if (w != galloc_swar_load((const unsigned char *) "{ \"name\"") || p[8] != ':' || p[9] != ' ') {
        return NULL;
    }
    p += 10;
    if (!tight_ascii_string(&p, end, &e->name, &e->name_len)) {
        return NULL;
    }
    e->present = 1u << M_NAME;
    w          = writer_word(p, limit);
#define IN_ORDER(m, key, read)                                              \
    if (writer_sep_key(w, p, ", \"" key "\": ", sizeof(key) + 5)) {        \
        p += sizeof(key) + 5;                                               \
        if (!(read)) {                                                      \
            return NULL;                                                    \
        }                                                                   \
        e->present |= 1u << (m);                                            \
        w = writer_word(p, limit);                                          \
    }
// whether the next text begins ", \"key" (its first word: the key's first 5 bytes at most), to pass
// over members that cannot be next: the same word never begins the text of another key
#define NEXT_IS(key) (w == galloc_swar_load((const unsigned char *) ", \"" key))
#define AT_CLOSE     ((w & 0xFFFF) == galloc_swar_load_short((const unsigned char *) " }", 2))
    IN_ORDER(M_OP, "op", table_name_at(&p, end, names, recent, GALLOC_NAME_OP, &e->op))
    if (!NEXT_IS("type\"")) {
        IN_ORDER(M_UNARY_OP, "unary_op", table_name_at(&p, end, names, recent, GALLOC_NAME_UNARY_OP, &e->sub_op))
        IN_ORDER(M_GLU_OP, "glu_op", table_name_at(&p, end, names, recent, GALLOC_NAME_GLU_OP, &e->sub_op))
    }
    IN_ORDER(M_TYPE, "type", table_name_at(&p, end, names, recent, GALLOC_NAME_TYPE, &e->type))
    IN_ORDER(M_NE, "ne", tight_numbers(&p, end, e->ne, GGML_MAX_DIMS, &e->n_ne))
    IN_ORDER(M_NB, "nb", tight_strides(&p, end, e->nb))
    IN_ORDER(M_SRC, "src", tight_src(&p, end, bounds->n_tensors, e))
    if (!NEXT_IS("flags")) {
        IN_ORDER(M_VIEW_SRC, "view_src", tight_index(&p, end, bounds->n_tensors, &e->view_src))
        IN_ORDER(M_VIEW_OFFS, "view_offs", galloc_scan_tight_u64(&p, end, &e->view_offs))
    }
    IN_ORDER(M_FLAGS, "flags", tight_flags(&p, end, names, &e->flags))
    if (!AT_CLOSE) {
        IN_ORDER(M_ALLOC_SIZE, "alloc_size", galloc_scan_tight_u64(&p, end, &e->alloc_size)) // (the graph writer's order)
        IN_ORDER(M_BUFFER_TYPE, "buffer_type", tight_index(&p, end, bounds->n_buffer_types, &e->buffer_type))
        IN_ORDER(M_EXTERNAL, "external", tight_bool(&p, end, &e->external))
        if (!AT_CLOSE) {
            return NULL;
        }
    }
#undef IN_ORDER
#undef NEXT_IS
#undef AT_CLOSE
    return p + 2;
}

static void entry_init(struct entry * e) {
    e->present = 0;
    e->n_ne    = 0;
    e->n_src   = 0;
    e->src_top = -1;
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        e->src[k] = -1;
    }
}

// at a key as the writers give one ("op": then the value, no other space), 16 bytes there at least:
// the member it names, *at just past the key, ':' and ' '; -1 for any other text (*at unchanged)
static inline int writer_key(const unsigned char ** at) {
    const unsigned char * p = *at;
    int                   m = -1;
    size_t                n = 0; // the key's bytes with its quotes
#define KEY(lit, member) (memcmp(p, "\"" lit "\"", sizeof(lit) + 1) == 0 ? (n = sizeof(lit) + 1, m = (member), true) : false)
    switch (p[1]) {
        case 'n': (void) (KEY("name", M_NAME) || KEY("ne", M_NE) || KEY("nb", M_NB)); break;
        case 'o': (void) KEY("op", M_OP); break;
        case 't': (void) KEY("type", M_TYPE); break;
        case 's': (void) KEY("src", M_SRC); break;
        case 'f': (void) KEY("flags", M_FLAGS); break;
        case 'v': (void) (KEY("view_src", M_VIEW_SRC) || KEY("view_offs", M_VIEW_OFFS)); break;
        case 'b': (void) KEY("buffer_type", M_BUFFER_TYPE); break;
        case 'u': (void) KEY("unary_op", M_UNARY_OP); break;
        case 'g': (void) KEY("glu_op", M_GLU_OP); break;
        case 'e': (void) KEY("external", M_EXTERNAL); break;
        case 'a': (void) KEY("alloc_size", M_ALLOC_SIZE); break;
        default: break;
    }
#undef KEY
    if (m >= 0 && p[n] == ':' && p[n + 1] == ' ' && p[n + 2] > ' ') {
        *at = p + n + 2;
        return m;
    }
    return -1;
}

#define WRITER_KEY_BYTES 16 // the longest key, its quotes, ": " and the value's first byte

// at a key: the member it names, the key, ':' and the whitespace after them consumed; -1 when the key
// names no member this reader takes (or is no plain string)
static int scan_member_key(struct galloc_scan * s) {
    if (s->end - s->p >= WRITER_KEY_BYTES) {
        int m = writer_key(&s->p);
        if (m >= 0) {
            return m;
        }
    }
    const char * key;
    size_t       key_len;
    return galloc_scan_key(s, &key, &key_len) ? member_of(key, key_len) : -1;
}

// all GGML_MAX_NAME bytes of a tensor's name: the n bytes at name (n < GGML_MAX_NAME; name may be NULL
// when n is 0), zeros after them (the one-pass reader's arrays are not zeroed). Eight bytes at a
// time where the text has them
static inline void copy_name(char dst[GGML_MAX_NAME], const unsigned char * name, size_t n, const unsigned char * end) {
    if (n - 1 < 16 && end - name >= 16) { // most names: 1 to 16 bytes, two words
        uint64_t w1 = n > 8 ? galloc_swar_head(galloc_swar_load(name + 8), n - 8) : 0;
        galloc_swar_store((unsigned char *) dst, galloc_swar_head(galloc_swar_load(name), n));
        galloc_swar_store((unsigned char *) dst + 8, w1);
        memset(dst + 16, 0, GGML_MAX_NAME - 16);
        return;
    }
    memset(dst, 0, GGML_MAX_NAME);
    if (n == 0) {
        return;
    }
    if ((size_t) (end - name) < n + 8) {
        memcpy(dst, name, n);
        return;
    }
    for (size_t k = 0; k < n; k += 8) {
        galloc_swar_store((unsigned char *) dst + k, galloc_swar_head(galloc_swar_load(name + k), n - k));
    }
}

// the entry at s by the scanner's rules (and the writers' forms where they are) into e; false to leave it
static FAST_NOINLINE bool scan_entry(struct galloc_scan * s, const struct galloc_fast_names * names, const struct galloc_fast_bounds * bounds,
                                     struct entry * e) {
    entry_init(e);
    unsigned seen = 0; // members given, null or not: one given twice is the parser's error
    int      more = galloc_scan_open(s, '{', '}');
    if (more != 1) {
        return false; // no object, or {}: "op" is missing
    }
    for (; more == 1; more = galloc_scan_next(s, '}')) {
        int m = scan_member_key(s);
        if (m < 0 || (seen >> m) & 1u) {
            return false;
        }
        seen |= 1u << m;
        if (!scan_member(s, names, bounds, m, e)) {
            return false;
        }
    }
    if (more != 0) {
        return false;
    }
    for (int k = 0; k < e->n_src; k++) {
        e->src_top = e->src[k] > e->src_top ? e->src[k] : e->src_top;
    }
    return true;
}

bool galloc_document_fast_entry(const struct galloc_fast_names * names, struct galloc_fast_recent * recent, const struct galloc_fast_bounds * bounds,
                               struct galloc_document * doc, struct galloc_scan * at, int32_t i, struct galloc_fast_links * links) {
    struct galloc_scan  local = *at; // kept in registers: the stores into doc cannot move it
    struct galloc_scan * s    = &local;
    struct entry         e;
    entry_init(&e);
    const unsigned char * after = writers_entry(s->p, s->end, names, recent, bounds, &e);
    if (after != NULL) {
        s->p = after;
    } else if (!scan_entry(s, names, bounds, &e)) { // any other text: every member by the scanner's rules
        return false;
    }
    // entry_check sets every field of the tensor: in place for the one-pass reader (links given), which
    // declines the whole document on false; else in a copy, as tensors[i] stays unchanged on false
    struct galloc_tensor   copy;
    struct galloc_tensor * t = links != NULL ? &doc->tensors[i] : &copy;
    if (!entry_check(&e, names, i, t)) {
        return false;
    }
    if (links == NULL) {
        doc->tensors[i] = copy;
    } else {
        int32_t top = t->view_src > e.src_top ? t->view_src : e.src_top;
        if (t->view_src >= 0 && t->view_src < i && galloc_document_view_fit(t, &doc->tensors[t->view_src]) != GALLOC_VIEW_FITS) {
            return false; // (a view of a later tensor: the one-pass reader checks all views after the walk)
        }
        links->forward |= top > i;
        links->max_tensor = top > links->max_tensor ? top : links->max_tensor;
        if (HAS(&e, M_BUFFER_TYPE) && e.buffer_type > links->max_buffer_type) {
            links->max_buffer_type = e.buffer_type;
        }
    }
    copy_name(doc->tensor_names[i], HAS(&e, M_NAME) ? (const unsigned char *) e.name : NULL, HAS(&e, M_NAME) ? e.name_len : 0, s->end);
    doc->tensor_buffer_type[i] = HAS(&e, M_BUFFER_TYPE) ? e.buffer_type : -1;
    doc->tensor_sub_op[i]      = HAS(&e, M_UNARY_OP) || HAS(&e, M_GLU_OP) ? e.sub_op : -1;
    doc->tensor_alloc_sizes[i] = -1;
    *at                        = local;
    return true;
}

size_t galloc_document_fast_tensor(const struct galloc_fast_names * names, struct galloc_document * doc, const char * text, size_t len,
                                   size_t pos, int32_t i) {
    if (galloc_scan_ends_in_digit(text, len)) {
        return 0; // (text that parsed ends with '}' or whitespace)
    }
    struct galloc_scan        s      = { (const unsigned char *) text + pos, (const unsigned char *) text + len };
    struct galloc_fast_bounds bounds = { doc->n_tensors, doc->n_buffer_types };
    galloc_scan_ws(&s);
    return galloc_document_fast_entry(names, NULL, &bounds, doc, &s, i, NULL) ? (size_t) (s.p - (const unsigned char *) text) : 0;
}

size_t galloc_document_fast_writers_entry(const struct galloc_fast_names * names, const char * text, size_t len, size_t pos, int32_t n_tensors,
                                          int32_t n_buffer_types) {
    if (galloc_scan_ends_in_digit(text, len) || pos > len) {
        return 0; // (as galloc_document_fast_tensor: the tight number readers stop at the last byte)
    }
    struct galloc_fast_recent recent;
    memset(&recent, 0, sizeof(recent));
    struct galloc_fast_bounds bounds = { n_tensors, n_buffer_types };
    struct entry              e;
    entry_init(&e);
    const unsigned char * after = writers_entry((const unsigned char *) text + pos, (const unsigned char *) text + len, names, &recent, &bounds, &e);
    return after != NULL ? (size_t) (after - (const unsigned char *) text) : 0;
}
