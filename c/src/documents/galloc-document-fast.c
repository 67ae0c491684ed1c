// galloc-document-fast.c: one "tensors" entry read straight from the document's text into the tensor.
//
// The text has already parsed as JSON (galloc_json_parse_skipping checked every entry), so this
// reader only interprets it: member names by length and bytes, numbers into 64 bits at once, no
// value tree. It takes only the common shape: known members, plain strings, integers, names in
// ggml's tables, and every check of the checked reader (galloc-document-read.c, read_tensor)
// passing. For anything else it answers 0 and changes nothing, and the checked reader builds the
// entry and reads it, so every verdict and message stays that reader's.

#include "galloc-document-impl.h"

#include <string.h>

//
// names: small open-addressing tables of ids (+1, 0 empty), per kind
//

static uint32_t name_hash(const char * s, size_t n) {
    uint32_t h = (uint32_t) n;
    for (size_t k = 0; k < n; k++) {
        h = h * 31u + (unsigned char) s[k];
    }
    return h;
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

static void names_insert(struct galloc_fast_names * names, int kind, int32_t id) {
    const char * name = kind_name(kind, id);
    if (name == NULL) {
        return;
    }
    size_t   n = strlen(name);
    uint32_t h = name_hash(name, n);
    for (uint32_t k = 0; k < GALLOC_FAST_NAME_SLOTS; k++) {
        int16_t * slot = &names->ids[kind][(h + k) % GALLOC_FAST_NAME_SLOTS];
        if (*slot == 0) {
            *slot = (int16_t) (id + 1);
            return;
        }
        const char * other = kind_name(kind, *slot - 1);
        if (strcmp(other, name) == 0) {
            return; // the first id of a name stands, as in the checked reader's search
        }
    }
}

void galloc_fast_names_build(struct galloc_fast_names * names) {
    memset(names, 0, sizeof(*names));
    for (int32_t op = 0; op < GGML_OP_COUNT; op++) {
        names_insert(names, GALLOC_NAME_OP, op);
    }
    for (int32_t type = 0; type < GGML_TYPE_COUNT; type++) {
        if (ggml_blck_size((enum ggml_type) type) > 0 && ggml_type_size((enum ggml_type) type) > 0) {
            names_insert(names, GALLOC_NAME_TYPE, type); // the types the checked reader knows
        }
    }
    for (int32_t u = 0; u < GGML_UNARY_OP_COUNT; u++) {
        names_insert(names, GALLOC_NAME_UNARY_OP, u);
    }
    for (int32_t g = 0; g < GGML_GLU_OP_COUNT; g++) {
        names_insert(names, GALLOC_NAME_GLU_OP, g);
    }
}

// the id of a name in ggml's table of that kind, -1 when it has none
static int32_t names_find(const struct galloc_fast_names * names, int kind, const char * s, size_t n) {
    uint32_t h = name_hash(s, n);
    for (uint32_t k = 0; k < GALLOC_FAST_NAME_SLOTS; k++) {
        int16_t slot = names->ids[kind][(h + k) % GALLOC_FAST_NAME_SLOTS];
        if (slot == 0) {
            return -1;
        }
        const char * name = kind_name(kind, slot - 1);
        if (strncmp(name, s, n) == 0 && name[n] == '\0') {
            return slot - 1;
        }
    }
    return -1;
}

//
// scanning text known to be valid JSON
//

struct scan {
    const char * t;
    size_t       len;
    size_t       i;
};

static void scan_ws(struct scan * s) {
    while (s->i < s->len && (s->t[s->i] == ' ' || s->t[s->i] == '\n' || s->t[s->i] == '\r' || s->t[s->i] == '\t')) {
        s->i++;
    }
}

// a string without escapes (its bytes are then its value): false for anything else
static bool scan_string(struct scan * s, const char ** out, size_t * n) {
    if (s->i >= s->len || s->t[s->i] != '"') {
        return false;
    }
    size_t start = ++s->i;
    while (s->i < s->len && s->t[s->i] != '"') {
        if (s->t[s->i] == '\\') {
            return false;
        }
        s->i++;
    }
    if (s->i >= s->len) {
        return false;
    }
    *out = s->t + start;
    *n   = s->i - start;
    s->i++;
    return true;
}

// `null`: consumed, true
static bool scan_null(struct scan * s) {
    if (s->i < s->len && s->t[s->i] == 'n') {
        s->i += 4;
        return true;
    }
    return false;
}

// an integer written as one (no fraction, exponent or quotes) whose magnitude fits 64 bits
static bool scan_integer(struct scan * s, bool * neg, uint64_t * mag) {
    *neg = false;
    *mag = 0;
    if (s->i < s->len && s->t[s->i] == '-') {
        *neg = true;
        s->i++;
    }
    size_t start = s->i;
    while (s->i < s->len && s->t[s->i] >= '0' && s->t[s->i] <= '9') {
        unsigned d = (unsigned) (s->t[s->i] - '0');
        if (*mag > (UINT64_MAX - d) / 10) {
            return false;
        }
        *mag = *mag * 10 + d;
        s->i++;
    }
    if (s->i == start || (s->i < s->len && (s->t[s->i] == '.' || s->t[s->i] == 'e' || s->t[s->i] == 'E'))) {
        return false;
    }
    if (*mag == 0) {
        *neg = false; // -0
    }
    return true;
}

static bool scan_u64(struct scan * s, uint64_t * out) {
    bool neg;
    return scan_integer(s, &neg, out) && !neg;
}

static bool scan_i64(struct scan * s, int64_t * out) {
    bool     neg;
    uint64_t mag;
    if (!scan_integer(s, &neg, &mag)) {
        return false;
    }
    if (!neg) {
        if (mag > (uint64_t) INT64_MAX) {
            return false;
        }
        *out = (int64_t) mag;
    } else {
        if (mag > (uint64_t) INT64_MAX + 1) {
            return false;
        }
        *out = mag == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) mag;
    }
    return true;
}

// an index in [0, n)
static bool scan_index(struct scan * s, int32_t n, int32_t * out) {
    int64_t v;
    if (!scan_i64(s, &v) || v < 0 || v >= n) {
        return false;
    }
    *out = (int32_t) v;
    return true;
}

// before an array item: '[' for the first (then true unless the array is empty), ',' for the next
static bool scan_next_item(struct scan * s, bool first) {
    scan_ws(s);
    if (s->i >= s->len) {
        return false;
    }
    char c = s->t[s->i];
    if (c == ']' || c != (first ? '[' : ',')) {
        return false;
    }
    s->i++;
    scan_ws(s);
    return s->i < s->len && s->t[s->i] != ']';
}

// an array of integers or nulls (null: -1 in kind 'i' arrays); up to max items; *n items read
enum item_kind { ITEM_I64, ITEM_U64, ITEM_INDEX_OR_NULL };

static bool scan_int_array(struct scan * s, enum item_kind kind, int32_t index_n, void * out, int max, int * n) {
    *n = 0;
    scan_ws(s);
    if (s->i < s->len && s->t[s->i] == '[') {
        size_t at = s->i + 1;
        while (at < s->len && (s->t[at] == ' ' || s->t[at] == '\n' || s->t[at] == '\r' || s->t[at] == '\t')) {
            at++;
        }
        if (at < s->len && s->t[at] == ']') {
            s->i = at + 1; // []
            return true;
        }
    }
    for (bool first = true;; first = false) {
        if (!scan_next_item(s, first)) {
            return false;
        }
        if (*n == max) {
            return false;
        }
        bool ok;
        switch (kind) {
            case ITEM_I64: ok = scan_i64(s, &((int64_t *) out)[*n]); break;
            case ITEM_U64: ok = scan_u64(s, &((uint64_t *) out)[*n]); break;
            default:
                ok = scan_null(s) ? (((int32_t *) out)[*n] = -1, true) : scan_index(s, index_n, &((int32_t *) out)[*n]);
                break;
        }
        if (!ok) {
            return false;
        }
        (*n)++;
        scan_ws(s);
        if (s->i < s->len && s->t[s->i] == ']') {
            s->i++;
            return true;
        }
    }
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
    int32_t      view_src, buffer_type, flags;
    bool         external;
};

// a string member naming an entry of one of ggml's tables
static bool scan_table_name(struct scan * s, const struct galloc_fast_names * names, int kind, int32_t * out) {
    const char * v;
    size_t       n;
    return scan_string(s, &v, &n) && (*out = names_find(names, kind, v, n)) >= 0;
}

static bool scan_flags(struct scan * s, int32_t * flags) {
    *flags = 0;
    scan_ws(s);
    for (bool first = true;; first = false) {
        if (first && s->i + 1 < s->len && s->t[s->i] == '[') { // [] ?
            size_t at = s->i + 1;
            while (at < s->len && (s->t[at] == ' ' || s->t[at] == '\n' || s->t[at] == '\r' || s->t[at] == '\t')) {
                at++;
            }
            if (at < s->len && s->t[at] == ']') {
                s->i = at + 1;
                return true;
            }
        }
        if (!scan_next_item(s, first)) {
            return false;
        }
        const char * v;
        size_t       n;
        if (!scan_string(s, &v, &n)) {
            return false;
        }
        int bit = -1;
        for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) {
            if (strncmp(galloc_document_flag_names[b], v, n) == 0 && galloc_document_flag_names[b][n] == '\0') {
                bit = b;
            }
        }
        if (bit < 0) {
            return false;
        }
        *flags |= 1 << bit;
        scan_ws(s);
        if (s->i < s->len && s->t[s->i] == ']') {
            s->i++;
            return true;
        }
    }
}

// one member's value into e; false to leave the entry to the checked reader
static bool scan_member(struct scan * s, const struct galloc_fast_names * names, const struct galloc_document * doc, int m,
                        struct entry * e) {
    if (s->t[s->i] == 'n' && scan_null(s)) {
        // null: absent for every member but these three, which the checked reader refuses
        return m != M_OP && m != M_TYPE && m != M_NE;
    }
    e->present |= 1u << m;
    switch (m) {
        case M_NAME:        return scan_string(s, &e->name, &e->name_len);
        case M_OP:          return scan_table_name(s, names, GALLOC_NAME_OP, &e->op);
        case M_TYPE:        return scan_table_name(s, names, GALLOC_NAME_TYPE, &e->type);
        case M_UNARY_OP:    return scan_table_name(s, names, GALLOC_NAME_UNARY_OP, &e->sub_op);
        case M_GLU_OP:      return scan_table_name(s, names, GALLOC_NAME_GLU_OP, &e->sub_op);
        case M_NE:          return scan_int_array(s, ITEM_I64, 0, e->ne, GGML_MAX_DIMS, &e->n_ne);
        case M_NB: {
            int n = 0;
            return scan_int_array(s, ITEM_U64, 0, e->nb, GGML_MAX_DIMS, &n) && n == GGML_MAX_DIMS;
        }
        case M_SRC:         return scan_int_array(s, ITEM_INDEX_OR_NULL, doc->n_tensors, e->src, GGML_MAX_SRC, &e->n_src);
        case M_ALLOC_SIZE:  return scan_u64(s, &e->alloc_size);
        case M_VIEW_OFFS:   return scan_u64(s, &e->view_offs);
        case M_VIEW_SRC:    return scan_index(s, doc->n_tensors, &e->view_src);
        case M_BUFFER_TYPE: return scan_index(s, doc->n_buffer_types, &e->buffer_type);
        case M_FLAGS:       return scan_flags(s, &e->flags);
        case M_EXTERNAL:
            if (s->t[s->i] == 't' || s->t[s->i] == 'f') {
                e->external = s->t[s->i] == 't';
                s->i += e->external ? 4 : 5;
                return true;
            }
            return false;
        default:            return false; // alloc_sizes: the checked reader's
    }
}

#define HAS(e, m) (((e)->present >> (m)) & 1u)

// the checks of read_tensor, in its order; all must pass. The tensor is filled as it would fill it
static bool entry_check(const struct entry * e, const struct galloc_document * doc, int32_t i, struct galloc_tensor * t) {
    if (!HAS(e, M_OP) || !HAS(e, M_TYPE) || !HAS(e, M_NE)) {
        return false;
    }
    if (HAS(e, M_NAME) && (e->name_len > GGML_MAX_NAME - 1 || memchr(e->name, '\0', e->name_len) != NULL)) {
        return false;
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
    uint64_t blck, tsize;
    if (!galloc_document_type_traits(doc, t->type, &blck, &tsize) || (uint64_t) t->ne[0] % blck != 0) {
        return false;
    }
    if (HAS(e, M_NB)) {
        memcpy(t->nb, e->nb, sizeof(t->nb));
        if (!galloc_document_nbytes(blck, tsize, t->ne, t->nb, &t->nbytes)) {
            return false;
        }
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
    for (int s = 0; s < GGML_MAX_SRC; s++) {
        t->src[s] = s < e->n_src ? e->src[s] : -1;
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

size_t galloc_document_fast_tensor(const struct galloc_fast_names * names, struct galloc_document * doc, const char * text, size_t len,
                                   size_t pos, int32_t i) {
    struct scan  s = { text, len, pos };
    struct entry e;
    memset(&e, 0, sizeof(e));
    scan_ws(&s);
    if (s.i >= len || text[s.i] != '{') {
        return 0;
    }
    s.i++;
    scan_ws(&s);
    if (s.i < len && text[s.i] == '}') {
        return 0; // {}: "op" is missing
    }
    for (;;) {
        const char * key;
        size_t       key_len;
        if (!scan_string(&s, &key, &key_len)) {
            return 0;
        }
        int m = member_of(key, key_len);
        if (m < 0) {
            return 0;
        }
        scan_ws(&s);
        s.i++; // ':'
        scan_ws(&s);
        if (s.i >= len || !scan_member(&s, names, doc, m, &e)) {
            return 0;
        }
        scan_ws(&s);
        if (s.i >= len) {
            return 0;
        }
        if (text[s.i] == '}') {
            s.i++;
            break;
        }
        s.i++; // ','
        scan_ws(&s);
    }
    struct galloc_tensor t;
    memcpy(&t, &doc->tensors[i], sizeof(t));
    if (!entry_check(&e, doc, i, &t)) {
        return 0;
    }
    memcpy(&doc->tensors[i], &t, sizeof(t));
    if (HAS(&e, M_NAME)) {
        memcpy(doc->tensor_names[i], e.name, e.name_len);
        doc->tensor_names[i][e.name_len] = '\0';
    }
    doc->tensor_buffer_type[i] = HAS(&e, M_BUFFER_TYPE) ? e.buffer_type : -1;
    doc->tensor_sub_op[i]      = HAS(&e, M_UNARY_OP) || HAS(&e, M_GLU_OP) ? e.sub_op : -1;
    doc->tensor_alloc_sizes[i] = -1;
    return s.i;
}
