// galloc-document-walk.c: a graph document read in one pass over its text (galloc_document_walk).
//
// One walk over the bytes, strictly (galloc-document-scan.h): the members of the root object by
// length and bytes, each at most once; the tensors straight into the document's arrays (grown
// with the entries read, galloc-document-fast.c reading each); nodes, leafs, outputs and the
// buffer ids straight into int32 arrays no longer than the tensors read. A source may name a
// later tensor, so indices are checked once the walk knows the counts. Anything it does not take
// (an escape, an unknown member, a number written otherwise, an error of any kind) declines the
// whole document, which galloc_document_read then reads the checked way: every verdict and
// message is that reader's (galloc-document-read.c).

#include "galloc-document-impl.h"
#include "galloc-document-scan.h"

#include <stdlib.h>
#include <string.h>

#define WALK_MAX_BUFFER_TYPES 64 // more: declined (the checked reader takes up to 1024)

enum top_member {
    TOP_FORMAT, TOP_VERSION, TOP_NAME, TOP_BUFFER_TYPES, TOP_TYPE_TRAITS, TOP_TENSORS, TOP_NODES, TOP_LEAFS, TOP_OUTPUTS,
    TOP_NODE_BUFFER_IDS, TOP_LEAF_BUFFER_IDS,
};

// the member of the root object a key names, by its length and then its bytes; -1 for one not taken
static int top_member_of(const char * k, size_t n) {
#define IS(lit) (memcmp(k, lit, sizeof(lit) - 1) == 0)
    switch (n) {
        case 4:  return IS("name") ? TOP_NAME : -1;
        case 5:  return IS("nodes") ? TOP_NODES : IS("leafs") ? TOP_LEAFS : -1;
        case 6:  return IS("format") ? TOP_FORMAT : -1;
        case 7:  return IS("version") ? TOP_VERSION : IS("tensors") ? TOP_TENSORS : IS("outputs") ? TOP_OUTPUTS : -1;
        case 11: return IS("type_traits") ? TOP_TYPE_TRAITS : -1;
        case 12: return IS("buffer_types") ? TOP_BUFFER_TYPES : -1;
        case 15: return IS("node_buffer_ids") ? TOP_NODE_BUFFER_IDS : IS("leaf_buffer_ids") ? TOP_LEAF_BUFFER_IDS : -1;
    }
    return -1;
#undef IS
}

// a copy of n bytes, NUL-terminated (NULL when out of memory)
static char * copy_name(const char * s, size_t n) {
    char * out = malloc(n + 1);
    if (out != NULL) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

// the next member of an object whose members are keys[0..2], each at most once: its key read and
// its bit (1, 2 or 4) added to *seen; 0 for a key not among them or seen before (declined)
static unsigned walk_member_once(struct galloc_scan * s, const char * const keys[3], unsigned * seen) {
    const char * key;
    size_t       key_len;
    if (!galloc_scan_key(s, &key, &key_len)) {
        return 0;
    }
    for (unsigned i = 0; i < 3; i++) {
        unsigned bit = 1u << i;
        if (key_len == strlen(keys[i]) && memcmp(key, keys[i], key_len) == 0) {
            if ((*seen & bit) != 0) {
                return 0;
            }
            *seen |= bit;
            return bit;
        }
    }
    return 0;
}

// "buffer_types": [{ "name", "alignment", "max_size"? }, ...], at least one
static bool walk_buffer_types(struct galloc_scan * s, struct galloc_document * doc) {
    struct galloc_buffer_type bts[WALK_MAX_BUFFER_TYPES];
    const char *              names[WALK_MAX_BUFFER_TYPES];
    size_t                    lens[WALK_MAX_BUFFER_TYPES];
    int32_t                   n    = 0;
    int                       more = galloc_scan_open(s, '[', ']');
    for (; more == 1; more = galloc_scan_next(s, ']')) {
        if (n == WALK_MAX_BUFFER_TYPES) {
            return false;
        }
        struct galloc_buffer_type * bt   = &bts[n];
        unsigned                    seen = 0; // 1 name, 2 alignment, 4 max_size
        bt->max_size                     = GALLOC_NO_MAX_SIZE;
        int member                       = galloc_scan_open(s, '{', '}');
        for (; member == 1; member = galloc_scan_next(s, '}')) {
            static const char * const keys[3] = { "name", "alignment", "max_size" };
            unsigned                  bit     = walk_member_once(s, keys, &seen);
            if (bit == 0) {
                return false;
            }
            bool ok = bit == 1u ? galloc_scan_string(s, &names[n], &lens[n]) && lens[n] <= GGML_MAX_NAME - 1
                    : bit == 2u ? galloc_scan_u64(s, &bt->alignment)
                                : galloc_scan_literal(s, "null", 4) || galloc_scan_u64(s, &bt->max_size);
            if (!ok) {
                return false;
            }
        }
        if (member != 0 || (seen & 3u) != 3u || bt->alignment == 0 || (bt->alignment & (bt->alignment - 1)) != 0 ||
            bt->alignment > GALLOC_DOCUMENT_MAX_ALIGNMENT) {
            return false;
        }
        // a name seen before is the same buffer type: it shares that allocator
        bt->allocator = n;
        for (int32_t j = 0; j < n; j++) {
            if (lens[j] == lens[n] && memcmp(names[j], names[n], lens[n]) == 0) {
                if (bts[j].alignment != bt->alignment || bts[j].max_size != bt->max_size) {
                    return false;
                }
                bt->allocator = bts[j].allocator;
                break;
            }
        }
        n++;
    }
    if (more != 0 || n == 0) {
        return false;
    }
    doc->buffer_types      = malloc((size_t) n * sizeof(*doc->buffer_types));
    doc->buffer_type_names = calloc((size_t) n, sizeof(char *));
    if (doc->buffer_types == NULL || doc->buffer_type_names == NULL) {
        return false;
    }
    doc->n_buffer_types = n; // galloc_document_free frees the names given so far
    memcpy(doc->buffer_types, bts, (size_t) n * sizeof(*doc->buffer_types));
    for (int32_t i = 0; i < n; i++) {
        if ((doc->buffer_type_names[i] = copy_name(names[i], lens[i])) == NULL) {
            return false;
        }
    }
    return true;
}

// the one buffer type of a document without "buffer_types"
static bool default_buffer_type(struct galloc_document * doc) {
    doc->buffer_types      = malloc(sizeof(*doc->buffer_types));
    doc->buffer_type_names = calloc(1, sizeof(char *));
    if (doc->buffer_types == NULL || doc->buffer_type_names == NULL) {
        return false;
    }
    doc->n_buffer_types                = 1;
    doc->buffer_types[0].alignment     = GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_ALIGNMENT;
    doc->buffer_types[0].max_size      = GALLOC_NO_MAX_SIZE;
    doc->buffer_types[0].allocator     = 0;
    return (doc->buffer_type_names[0] = copy_name(GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_NAME, strlen(GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_NAME))) != NULL;
}

// "type_traits": [{ "name", "blck_size", "type_size" }, ...], taken when each names a type of ggml's
// table with its traits there (a type the table lacks is the checked reader's)
static bool walk_type_traits(struct galloc_scan * s, const struct galloc_fast_names * names) {
    int more = galloc_scan_open(s, '[', ']');
    for (; more == 1; more = galloc_scan_next(s, ']')) {
        unsigned seen = 0; // 1 name, 2 blck_size, 4 type_size
        int32_t  type = -1;
        uint64_t blck = 0, size = 0;
        int      member = galloc_scan_open(s, '{', '}');
        for (; member == 1; member = galloc_scan_next(s, '}')) {
            static const char * const keys[3] = { "name", "blck_size", "type_size" };
            unsigned                  bit     = walk_member_once(s, keys, &seen);
            if (bit == 0) {
                return false;
            }
            bool ok = bit == 1u ? galloc_fast_scan_table_name(s, names, NULL, GALLOC_NAME_TYPE, &type)
                    : bit == 2u ? galloc_scan_u64(s, &blck)
                                : galloc_scan_u64(s, &size);
            if (!ok) {
                return false;
            }
        }
        if (member != 0 || seen != 7u || (uint64_t) ggml_blck_size((enum ggml_type) type) != blck ||
            (uint64_t) ggml_type_size((enum ggml_type) type) != size) {
            return false;
        }
    }
    return more == 0;
}

// the per-tensor arrays grow with the entries read, never sized from the count alone: 4,194,304
// entries of `0` are refused at tensors[0] before ~1 GB is set aside for them
bool galloc_document_grow_tensors(struct galloc_document * doc, size_t * cap, size_t want, bool zero) {
    size_t old = *cap;
    void * t  = realloc(doc->tensors, want * sizeof(*doc->tensors));
    doc->tensors = t ? t : doc->tensors;
    void * nm = t ? realloc(doc->tensor_names, want * sizeof(*doc->tensor_names)) : NULL;
    doc->tensor_names = nm ? nm : doc->tensor_names;
    void * bt = nm ? realloc(doc->tensor_buffer_type, want * sizeof(int32_t)) : NULL;
    doc->tensor_buffer_type = bt ? bt : doc->tensor_buffer_type;
    void * so = bt ? realloc(doc->tensor_sub_op, want * sizeof(int32_t)) : NULL;
    doc->tensor_sub_op = so ? so : doc->tensor_sub_op;
    void * as = so ? realloc(doc->tensor_alloc_sizes, want * sizeof(int32_t)) : NULL;
    doc->tensor_alloc_sizes = as ? as : doc->tensor_alloc_sizes;
    if (!as) {
        return false;
    }
    *cap = want;
    if (!zero) {
        return true;
    }
    memset(doc->tensors + old, 0, (want - old) * sizeof(*doc->tensors));
    memset(doc->tensor_names + old, 0, (want - old) * sizeof(*doc->tensor_names));
    memset(doc->tensor_buffer_type + old, 0, (want - old) * sizeof(int32_t));
    memset(doc->tensor_sub_op + old, 0, (want - old) * sizeof(int32_t));
    memset(doc->tensor_alloc_sizes + old, 0, (want - old) * sizeof(int32_t));
    return true;
}

#define WALK_MIN_ENTRY_BYTES    32    // {"op":"ADD","type":"i8","ne":[0]}, the shortest entry taken, and its ','
#define WALK_WRITER_ENTRY_BYTES 96    // fewer than the writers' entries have (about 130 in the bench's graphs)
#define WALK_FIRST_MAX          16384 // the most set aside before any entry is read (about 3.7 MB)

// room for the tensors of the array being read: at first what the bytes left hold of entries in the
// writers' layout (a document of that many tensors is read without growing, and so copied, again),
// then grown to what the bytes read so far say the rest holds (never more than the bytes left could
// hold, never zeroed: each entry read sets all of its bytes)
static bool walk_grow(struct galloc_document * doc, size_t * cap, size_t n, size_t consumed, size_t left) {
    size_t most = n + left / WALK_MIN_ENTRY_BYTES + 1;
    size_t want = left / WALK_WRITER_ENTRY_BYTES + 64;
    want        = want < WALK_FIRST_MAX ? want : WALK_FIRST_MAX;
    if (n > 0) {
        size_t guess = n + (size_t) ((double) left * (double) n / (double) consumed * 1.0625) + 64;
        want         = guess > n + n / 2 ? guess : n + n / 2;
    }
    want = want < most ? want : most;
    want = want < GALLOC_DOCUMENT_MAX_TENSORS ? want : GALLOC_DOCUMENT_MAX_TENSORS;
    return galloc_document_grow_tensors(doc, cap, want, false);
}

// after an entry: 1 at the next one, 0 at the array's close, -1 otherwise (galloc_scan_next), the
// writers' ",\n    {" taken at once
static inline int next_entry(struct galloc_scan * s) {
    if (s->end - s->p >= 7 && memcmp(s->p, ",\n    {", 7) == 0) {
        s->p += 6;
        return 1;
    }
    return galloc_scan_next(s, ']');
}

// "tensors": the entries, each straight into the document's arrays
static bool walk_tensors(struct galloc_scan * s, const struct galloc_fast_names * names, struct galloc_document * doc,
                         struct galloc_fast_links * links) {
    static const struct galloc_fast_bounds later = { INT32_MAX, INT32_MAX }; // checked after the walk
    struct galloc_fast_recent              recent;
    memset(&recent, 0, sizeof(recent)); // none yet
    const unsigned char *                  start = s->p;
    size_t                                 cap   = 0;
    int32_t                                n     = 0;
    int                                    more  = galloc_scan_open(s, '[', ']');
    for (; more == 1; more = next_entry(s)) {
        if ((size_t) n == cap && (n == GALLOC_DOCUMENT_MAX_TENSORS || // (cap is at most that)
                                  !walk_grow(doc, &cap, (size_t) n, (size_t) (s->p - start), (size_t) (s->end - s->p)))) {
            return false;
        }
        if (!galloc_document_fast_entry(names, &recent, &later, doc, s, n, links)) {
            return false;
        }
        n++;
    }
    doc->n_tensors = n;
    return more == 0 && (cap > 0 || galloc_document_grow_tensors(doc, &cap, 1, true)); // the arrays are never NULL
}

// the item the writers' lists most often give next: node and leaf ids one after another (358, 359,
// ...), buffer ids all alike (0, 0, ...). Its text and the ", " after it are compared with the text
// as one word: equal, it is the item the digit reader would read there, and the ", " after it
struct index_guess {
    uint64_t text; // the digits (no leading zero) then ", ", as galloc_swar_load reads them
    uint64_t mask; // its bytes in a word (0, with text 1: no guess, for an item of 7 digits or more)
    uint32_t len;  // its bytes, 3 to 8
};

static struct index_guess index_guess_of(uint64_t v) {
    struct index_guess g = { 1, 0, 0 };
    if (v >= 1000000) {
        return g; // its text and ", " fill more than a word
    }
    unsigned char text[8];
    uint32_t      n = 1;
    for (uint64_t rest = v / 10; rest != 0; rest /= 10) {
        n++;
    }
    for (uint32_t k = n; k-- > 0; v /= 10) {
        text[k] = (unsigned char) ('0' + v % 10);
    }
    text[n]     = ',';
    text[n + 1] = ' ';
    g.len       = n + 2;
    g.mask      = g.len == 8 ? ~0ull : (1ull << (8 * g.len)) - 1;
    g.text      = galloc_swar_load_short(text, g.len);
    return g;
}

// the text of the item after the guess's (value v), its digits incremented in place (the trailing
// 9s to 0s); of v + 1 written anew when all are 9s (it is a digit longer)
static inline struct index_guess index_guess_next(struct index_guess g, uint64_t v) {
    for (uint32_t at = 8 * (g.len - 3);; at -= 8) {
        if (((g.text >> at) & 0xFF) != '9') {
            g.text += 1ull << at;
            return g;
        }
        g.text -= (uint64_t) ('9' - '0') << at;
        if (at == 0) {
            return index_guess_of(v + 1);
        }
    }
}

// an array of indices straight into *out (at most max entries, each below n); *n_out entries.
// step: how the writers' lists mostly go on (1: one after another, 0: all alike)
static bool walk_indices(struct galloc_scan * at, int32_t max, int32_t n, uint32_t step, int32_t ** out, int32_t * n_out) {
    int32_t * list = malloc((size_t) (max > 0 ? max : 1) * sizeof(int32_t));
    *out           = list;
    if (list == NULL) {
        return false;
    }
    // the writers' form: "[" then numbers below n, each after ", ", then "]"
    const unsigned char * p   = at->p;
    const unsigned char * end = at->end;
    int32_t               k   = 0;
    if (p < end && *p == '[') {
        int                more  = end - p >= 2 && p[1] == ']' ? 0 : 1;
        struct index_guess g     = { 1, 0, 0 }; // none yet
        uint64_t           guess = 0;           // its value
        p += 2 - more;
        while (more == 1 && k < max) {
            // a run of guessed items, each with the ", " after it: at most the room left, and (one after
            // another) up to n - 1 (the item before was below n: guess is at most n)
            int32_t last = step == 0 || (uint64_t) (max - k) <= (uint64_t) n - guess ? max : k + (int32_t) ((uint64_t) n - guess);
            if (step == 0) {
                if (g.len <= 4) { // two at a time ("0, 0, ")
                    uint64_t mask2 = g.mask | g.mask << (8 * g.len), text2 = g.text | g.text << (8 * g.len);
                    while (last - k >= 2 && end - p >= 8 && (galloc_swar_load(p) & mask2) == text2) {
                        list[k]     = (int32_t) guess;
                        list[k + 1] = (int32_t) guess;
                        k += 2;
                        p += 2 * g.len;
                    }
                }
                while (k < last && end - p >= 8 && (galloc_swar_load(p) & g.mask) == g.text) {
                    list[k++] = (int32_t) guess;
                    p += g.len;
                }
            } else {
                while (k < last && end - p >= 8 && (galloc_swar_load(p) & g.mask) == g.text) {
                    list[k++] = (int32_t) guess;
                    p += g.len;
                    g = index_guess_next(g, guess++);
                }
            }
            if (k == max) {
                break;
            }
            uint64_t v;
            if (!galloc_scan_tight_u64(&p, end, &v) || v >= (uint64_t) n) {
                break;
            }
            list[k++] = (int32_t) v;
            more      = galloc_scan_tight_next(&p, end);
            guess     = v + step;
            g         = index_guess_of(guess);
        }
        if (more == 0) {
            *n_out = k;
            at->p  = p;
            return true;
        }
    }
    // any other form, from the start
    struct galloc_scan s    = *at; // in registers
    int                more = galloc_scan_open(&s, '[', ']');
    k                       = 0;
    for (; more == 1; more = galloc_scan_next(&s, ']')) {
        if (k == max || !galloc_scan_index(&s, n, &list[k])) {
            return false;
        }
        k++;
    }
    *n_out = k;
    *at    = s;
    return more == 0;
}

// every index the walk read unchecked, now that the counts are known; whether every source and
// view_src names an earlier tensor (or the tensor itself: ggml_cast), which rules out a cycle
static bool indices_in_range(const struct galloc_document * doc, struct galloc_walk * walk) {
    if (walk->links.max_tensor >= doc->n_tensors || walk->links.max_buffer_type >= doc->n_buffer_types) {
        return false;
    }
    for (int32_t k = 0; k < walk->n_node_buffer_ids && doc->node_buffer_ids != NULL; k++) {
        if (doc->node_buffer_ids[k] >= doc->n_buffer_types) {
            return false;
        }
    }
    for (int32_t k = 0; k < walk->n_leaf_buffer_ids && doc->leaf_buffer_ids != NULL; k++) {
        if (doc->leaf_buffer_ids[k] >= doc->n_buffer_types) {
            return false;
        }
    }
    return true;
}

bool galloc_document_walk(const struct galloc_fast_names * names, const char * text, size_t len, struct galloc_document * doc,
                          struct galloc_walk * walk) {
    memset(walk, 0, sizeof(*walk));
    walk->links.max_tensor      = -1;
    walk->links.max_buffer_type = -1;
    if (galloc_scan_ends_in_digit(text, len)) {
        return false; // no document (the tight readers want a byte that is no digit at the end)
    }
    struct galloc_scan s    = { (const unsigned char *) text, (const unsigned char *) text + len };
    unsigned           seen = 0;
    galloc_scan_ws(&s);
    int more = galloc_scan_open(&s, '{', '}');
    for (; more == 1; more = galloc_scan_next(&s, '}')) {
        const char * key;
        size_t       key_len;
        if (!galloc_scan_key(&s, &key, &key_len)) {
            return false;
        }
        int m = top_member_of(key, key_len);
        if (m < 0 || (seen >> m) & 1u) {
            return false;
        }
        seen |= 1u << m;
        const bool tensors_read = (seen >> TOP_TENSORS) & 1u;
        const bool null         = galloc_scan_at(&s, 'n');
        if (null && m != TOP_FORMAT && m != TOP_VERSION && m != TOP_TENSORS) { // null: absent
            if (!galloc_scan_literal(&s, "null", 4)) {
                return false;
            }
            continue; // still seen: a second one is an error
        }
        const char * v;
        size_t       n;
        uint64_t     version;
        bool         ok;
        switch (m) {
            case TOP_FORMAT:       ok = galloc_scan_string(&s, &v, &n) && n == 12 && memcmp(v, "galloc-graph", 12) == 0; break;
            case TOP_VERSION:      ok = galloc_scan_u64(&s, &version) && version == 1; break;
            case TOP_NAME:         ok = galloc_scan_string(&s, &v, &n) && (doc->name = copy_name(v, n)) != NULL; break;
            case TOP_BUFFER_TYPES: ok = walk_buffer_types(&s, doc); break;
            case TOP_TYPE_TRAITS:  ok = walk_type_traits(&s, names); break;
            case TOP_TENSORS:      ok = walk_tensors(&s, names, doc, &walk->links); break;
            // the graph's lists after the tensors, no longer than them (longer ones: an error, or duplicates in outputs)
            case TOP_NODES:
                ok = tensors_read && walk_indices(&s, doc->n_tensors, doc->n_tensors, 1, &doc->nodes, &doc->n_nodes);
                walk->has_nodes = true;
                break;
            case TOP_LEAFS:
                ok = tensors_read && walk_indices(&s, doc->n_tensors, doc->n_tensors, 1, &doc->leafs, &doc->n_leafs);
                walk->has_leafs = true;
                break;
            case TOP_OUTPUTS:      ok = tensors_read && walk_indices(&s, doc->n_tensors, INT32_MAX, 1, &walk->outputs, &walk->n_outputs); break;
            case TOP_NODE_BUFFER_IDS:
                ok = tensors_read && walk_indices(&s, doc->n_tensors, INT32_MAX, 0, &doc->node_buffer_ids, &walk->n_node_buffer_ids);
                break;
            case TOP_LEAF_BUFFER_IDS:
                ok = tensors_read && walk_indices(&s, doc->n_tensors, INT32_MAX, 0, &doc->leaf_buffer_ids, &walk->n_leaf_buffer_ids);
                break;
            default:               ok = false; break;
        }
        if (!ok) {
            return false;
        }
    }
    galloc_scan_ws(&s);
    if (more != 0 || s.p != s.end || !((seen >> TOP_TENSORS) & 1u)) {
        return false;
    }
    if (doc->name == NULL && (doc->name = copy_name("", 0)) == NULL) {
        return false;
    }
    if (doc->buffer_types == NULL && !default_buffer_type(doc)) {
        return false;
    }
    return indices_in_range(doc, walk);
}
