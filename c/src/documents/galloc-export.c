// galloc-export.c: writes a ggml graph as a galloc graph document.
//
// Self-contained on purpose (its own small string builder, no galloc
// internals) so that it can be dropped into a llama.cpp build: C or C++,
// const-correct against upstream's ggml-impl.h. Tensors are listed leafs
// first, then nodes, each preceded by any source or view root not listed
// yet, so every reference points at a lower index. Names are made valid
// UTF-8 of at most 63 bytes, which is what the reader accepts.

#include "galloc-export.h"

// ggml-impl.h defines static helpers this file does not use: upstream builds with
// -Wno-unused-function; keep a plain -Wall -Wextra -Werror build quiet too
#if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "ggml-impl.h"
#if defined(__GNUC__) || defined(__clang__)
#    pragma GCC diagnostic pop
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
    char * text;
    size_t len;
    size_t cap;
    bool   oom;
};

static void out_write(struct out * o, const char * s, size_t n) {
    if (o->oom) {
        return;
    }
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->len + n + 1) {
            cap *= 2;
        }
        char * text = (char *) realloc(o->text, cap);
        if (!text) {
            o->oom = true;
            return;
        }
        o->text = text;
        o->cap  = cap;
    }
    memcpy(o->text + o->len, s, n);
    o->len += n;
    o->text[o->len] = '\0';
}

GGML_ATTRIBUTE_FORMAT(2, 3)
static void out_printf(struct out * o, const char * fmt, ...) {
    char    buf[256];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    if (n > 0) {
        out_write(o, buf, (size_t) n < sizeof(buf) ? (size_t) n : sizeof(buf) - 1);
    }
}

static void out_str(struct out * o, const char * s) {
    out_write(o, s, strlen(s));
}

// v in decimal, as "%llu" writes it (without vsnprintf: a model's graph has thousands of numbers)
static void out_u64(struct out * o, unsigned long long v) {
    char   buf[24];
    size_t i = sizeof(buf);
    do {
        buf[--i] = (char) ('0' + v % 10);
        v /= 10;
    } while (v != 0);
    out_write(o, buf + i, sizeof(buf) - i);
}

static void out_i64(struct out * o, long long v) {
    if (v < 0) {
        out_write(o, "-", 1);
        out_u64(o, 0ULL - (unsigned long long) v);
    } else {
        out_u64(o, (unsigned long long) v);
    }
}

// bytes of the complete, valid UTF-8 sequence at s[0] (n bytes available), 0 when there is none
static size_t utf8_length(const unsigned char * s, size_t n) {
    unsigned char c = s[0];
    size_t        len;
    unsigned char lo = 0x80, hi = 0xBF; // range of the second byte
    if (c < 0x80) {
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo  = c == 0xE0 ? 0xA0 : 0x80;
        hi  = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo  = c == 0xF0 ? 0x90 : 0x80;
        hi  = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) {
            return 0;
        }
    }
    return len;
}

// s as valid UTF-8 of at most max bytes (max < size of out): a byte outside a complete sequence
// becomes '?', and a sequence that would pass max is left out
static void clean_name(const char * s, size_t max, char * out) {
    const unsigned char * u   = (const unsigned char *) s;
    size_t                n   = strlen(s);
    size_t                len = 0;
    for (size_t i = 0; i < n;) {
        size_t seq = utf8_length(u + i, n - i);
        size_t put = seq ? seq : 1;
        if (len + put > max) {
            break;
        }
        if (seq) {
            memcpy(out + len, s + i, seq);
        } else {
            out[len] = '?';
        }
        len += put;
        i += put;
    }
    out[len] = '\0';
}

// a JSON string of valid UTF-8 (see clean_name); at most max bytes (0: no limit)
static void out_string_max(struct out * o, const char * s, size_t max) {
    const unsigned char * u = (const unsigned char *) s;
    size_t                n = strlen(s), used = 0;
    out_str(o, "\"");
    for (size_t i = 0; i < n;) {
        size_t seq = utf8_length(u + i, n - i);
        size_t put = seq ? seq : 1;
        if (max > 0 && used + put > max) {
            break;
        }
        unsigned char c = u[i];
        if (!seq) {
            out_str(o, "?");
        } else if (c == '"' || c == '\\') {
            char esc[2] = { '\\', (char) c };
            out_write(o, esc, 2);
        } else if (c < 0x20) {
            out_printf(o, "\\u%04x", c);
        } else {
            out_write(o, s + i, seq);
        }
        used += put;
        i += put;
    }
    out_str(o, "\"");
}

static void out_string(struct out * o, const char * s) {
    out_string_max(o, s, 0);
}

// sizes past 2^53 as strings: JavaScript readers would round them
static void out_size(struct out * o, size_t v) {
    if ((unsigned long long) v > (1ULL << 53)) {
        out_str(o, "\"");
        out_u64(o, (unsigned long long) v);
        out_str(o, "\"");
    } else {
        out_u64(o, (unsigned long long) v);
    }
}

// ---- tensor order ---------------------------------------------------------

struct listing {
    struct ggml_hash_set   seen;
    int32_t              * index; // per hash slot: position in the document
    struct ggml_tensor  ** order;
    int32_t                count;
    int32_t                cap;
};

// t is not const: upstream's ggml_hash_contains takes a non-const tensor
static int32_t listing_find(const struct listing * l, struct ggml_tensor * t) {
    size_t slot = ggml_hash_find(&l->seen, t);
    return slot != GGML_HASHSET_FULL && ggml_hash_contains(&l->seen, t) ? l->index[slot] : -1;
}

// list t after everything it refers to (explicit stack: graphs can be deep)
static bool listing_add(struct listing * l, struct ggml_tensor * root) {
    if (listing_find(l, root) >= 0) {
        return true;
    }
    size_t                stack_cap = 64, depth = 0;
    struct ggml_tensor ** stack     = (struct ggml_tensor **) malloc(stack_cap * sizeof(*stack));
    if (!stack) {
        return false;
    }
    stack[depth++] = root;
    while (depth > 0) {
        struct ggml_tensor * t       = stack[depth - 1];
        bool                 pending = false;
        struct ggml_tensor * deps[GGML_MAX_SRC + 1];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            deps[s] = t->src[s];
        }
        deps[GGML_MAX_SRC] = t->view_src;
        for (int s = 0; s <= GGML_MAX_SRC; s++) {
            struct ggml_tensor * d = deps[s];
            if (d && d != t && listing_find(l, d) < 0) {
                if (depth == stack_cap) {
                    struct ggml_tensor ** grown = (struct ggml_tensor **) realloc(stack, stack_cap * 2 * sizeof(*stack));
                    if (!grown) {
                        free(stack);
                        return false;
                    }
                    stack = grown;
                    stack_cap *= 2;
                }
                stack[depth++] = d;
                pending        = true;
                break;
            }
        }
        if (pending) {
            continue;
        }
        depth--;
        if (listing_find(l, t) >= 0) {
            continue;
        }
        size_t slot = ggml_hash_insert(&l->seen, t);
        if (slot == GGML_HASHSET_FULL || l->count == l->cap) {
            free(stack);
            return false;
        }
        l->index[slot]       = l->count;
        l->order[l->count++] = t;
    }
    free(stack);
    return true;
}

// ---- document ---------------------------------------------------------------

#define NAME_MAX_BYTES 63 // GGML_MAX_NAME - 1: what the reader accepts

// documents share an allocator between entries of the same name: the same type listed twice keeps
// one name, distinct types get distinct names ("name#k" when they clash), all within 63 bytes
static void buffer_type_names(ggml_backend_buffer_type_t * types, int n, char (*names)[NAME_MAX_BYTES + 1]) {
    for (int k = 0; k < n; k++) {
        int same = -1;
        for (int j = 0; j < k && same < 0; j++) {
            same = types[j] == types[k] ? j : -1;
        }
        if (same >= 0) {
            memcpy(names[k], names[same], sizeof(names[k]));
            continue;
        }
        char base[NAME_MAX_BYTES + 1];
        clean_name(ggml_backend_buft_name(types[k]), NAME_MAX_BYTES, base);
        memcpy(names[k], base, sizeof(base));
        for (int suffix = k;; suffix++) {
            bool clash = false;
            for (int j = 0; j < k && !clash; j++) {
                clash = types[j] != types[k] && strcmp(names[j], names[k]) == 0;
            }
            if (!clash) {
                break;
            }
            char tail[16];
            snprintf(tail, sizeof(tail), "#%d", suffix);
            clean_name(base, NAME_MAX_BYTES - strlen(tail), names[k]);
            strcat(names[k], tail);
        }
    }
}

static bool is_contiguous_layout(const struct ggml_tensor * t) {
    size_t nb = ggml_type_size(t->type);
    if (t->nb[0] != nb) {
        return false;
    }
    const int64_t blck = ggml_blck_size(t->type);
    if (blck <= 0) {
        return false; // a type outside ggml's table: its strides are written as they are
    }
    nb *= (size_t) (t->ne[0] / blck);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] != nb) {
            return false;
        }
        nb *= (size_t) t->ne[i];
    }
    return true;
}

static void write_flags(struct out * o, int32_t flags) {
    static const struct { int32_t bit; const char * name; } names[] = {
        { GGML_TENSOR_FLAG_INPUT, "input" }, { GGML_TENSOR_FLAG_OUTPUT, "output" }, { GGML_TENSOR_FLAG_PARAM, "param" },
        { GGML_TENSOR_FLAG_LOSS, "loss" },   { GGML_TENSOR_FLAG_COMPUTE, "compute" },
    };
    bool first = true;
    out_str(o, ", \"flags\": [");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (flags & names[i].bit) {
            out_str(o, first ? "\"" : ", \"");
            out_str(o, names[i].name);
            out_str(o, "\"");
            first = false;
        }
    }
    out_str(o, "]");
}

static void write_ids(struct out * o, const char * key, const int * ids, int n) {
    out_printf(o, ",\n  \"%s\": [", key);
    for (int i = 0; i < n; i++) {
        out_str(o, i ? ", " : "");
        out_i64(o, ids ? ids[i] : 0);
    }
    out_str(o, "]");
}

// "type_traits": every type the graph uses, with its block size and bytes per block
static void write_type_traits(struct out * o, const struct listing * l) {
    bool used[GGML_TYPE_COUNT];
    memset(used, 0, sizeof(used));
    for (int32_t i = 0; i < l->count; i++) {
        if ((int) l->order[i]->type >= 0 && (int) l->order[i]->type < GGML_TYPE_COUNT) {
            used[l->order[i]->type] = true;
        }
    }
    bool first = true;
    out_str(o, ",\n  \"type_traits\": [");
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (used[t]) {
            enum ggml_type type = (enum ggml_type) t;
            out_str(o, first ? " { \"name\": " : ", { \"name\": ");
            out_string(o, ggml_type_name(type));
            out_printf(o, ", \"blck_size\": %lld, \"type_size\": %zu }", (long long) ggml_blck_size(type), ggml_type_size(type));
            first = false;
        }
    }
    out_str(o, " ]");
}

// "alloc_size" when every type of the allocator asks the same bytes other than ggml_nbytes,
// "alloc_sizes" (null where a type asks ggml_nbytes) when they differ; nothing when all ask nbytes.
// Types past the allocator's (those of tensors allocated before it) never size a placed tensor: null.
static void write_alloc_sizes(struct out * o, ggml_backend_buffer_type_t * types, int n_bufts, int n_types,
                              const struct ggml_tensor * t) {
    size_t nbytes = ggml_nbytes(t), first = 0;
    bool   differ = false, padded = false;
    for (int k = 0; k < n_bufts; k++) {
        size_t size = ggml_backend_buft_get_alloc_size(types[k], t);
        first       = k == 0 ? size : first;
        differ      = differ || size != first;
        padded      = padded || size != nbytes;
    }
    if (!padded) {
        return;
    }
    if (!differ && n_types == n_bufts) {
        out_str(o, ", \"alloc_size\": ");
        out_size(o, first);
        return;
    }
    out_str(o, ", \"alloc_sizes\": [");
    for (int k = 0; k < n_types; k++) {
        size_t size = k < n_bufts ? ggml_backend_buft_get_alloc_size(types[k], t) : nbytes;
        out_str(o, k ? ", " : "");
        if (size == nbytes) {
            out_str(o, "null");
        } else {
            out_size(o, size);
        }
    }
    out_str(o, "]");
}

static void write_tensor(struct out * o, const struct listing * l, int32_t i, ggml_backend_buffer_type_t * types, int n_bufts,
                         int n_types, int32_t buffer_type) {
    struct ggml_tensor * t = l->order[i];
    out_str(o, "    { \"name\": ");
    out_string_max(o, t->name, NAME_MAX_BYTES);
    out_str(o, ", \"op\": \"");
    out_str(o, ggml_op_name(t->op));
    out_str(o, "\"");
    // which unary op or gated linear unit (a value ggml has no name for is left out)
    const char * sub_op = t->op == GGML_OP_UNARY ? ggml_unary_op_name(ggml_get_unary_op(t))
                        : t->op == GGML_OP_GLU   ? ggml_glu_op_name(ggml_get_glu_op(t))
                                                 : NULL;
    if (sub_op != NULL) {
        out_str(o, t->op == GGML_OP_UNARY ? ", \"unary_op\": \"" : ", \"glu_op\": \"");
        out_str(o, sub_op);
        out_str(o, "\"");
    }
    out_str(o, ", \"type\": \"");
    out_str(o, ggml_type_name(t->type));
    out_str(o, "\", \"ne\": [");
    int n_dims = GGML_MAX_DIMS;
    while (n_dims > 1 && t->ne[n_dims - 1] == 1) {
        n_dims--;
    }
    for (int d = 0; d < n_dims; d++) {
        out_str(o, d ? ", " : "");
        out_i64(o, (long long) t->ne[d]);
    }
    out_str(o, "]");
    if (!is_contiguous_layout(t)) {
        out_str(o, ", \"nb\": [");
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            out_str(o, d ? ", " : "");
            out_size(o, t->nb[d]);
        }
        out_str(o, "]");
    }
    int n_src = GGML_MAX_SRC;
    while (n_src > 0 && t->src[n_src - 1] == NULL) {
        n_src--;
    }
    if (n_src > 0) {
        out_str(o, ", \"src\": [");
        for (int s = 0; s < n_src; s++) {
            out_str(o, s ? ", " : "");
            if (t->src[s]) {
                out_i64(o, listing_find(l, t->src[s]));
            } else {
                out_str(o, "null");
            }
        }
        out_str(o, "]");
    }
    if (t->view_src) {
        out_str(o, ", \"view_src\": ");
        out_i64(o, listing_find(l, t->view_src));
        out_str(o, ", \"view_offs\": ");
        out_size(o, t->view_offs);
    }
    if (t->flags) {
        write_flags(o, t->flags);
    }
    if (buffer_type >= 0) {
        out_str(o, ", \"buffer_type\": ");
        out_i64(o, buffer_type);
    } else if (!t->view_src && t->data != NULL) {
        out_str(o, ", \"external\": true"); // data outside any buffer: upstream treats it as allocated
    } else if (!t->view_src) {
        write_alloc_sizes(o, types, n_bufts, n_types, t);
    }
    out_str(o, i + 1 < l->count ? " },\n" : " }\n");
}

// every tensor of graph in document order; false when out of memory (l is then partly filled)
static bool listing_build(struct listing * l, struct ggml_cgraph * graph) {
    int32_t max_tensors = graph->n_leafs + graph->n_nodes * (GGML_MAX_SRC + 2) + 1;
    memset(l, 0, sizeof(*l));
    l->seen  = ggml_hash_set_new((size_t) max_tensors);
    l->index = (int32_t *) malloc(l->seen.size * sizeof(int32_t));
    l->order = (struct ggml_tensor **) malloc((size_t) max_tensors * sizeof(*l->order));
    l->cap   = max_tensors;
    bool ok  = l->index && l->order && l->seen.keys;
    for (int i = 0; ok && i < graph->n_leafs; i++) {
        ok = listing_add(l, graph->leafs[i]);
    }
    for (int i = 0; ok && i < graph->n_nodes; i++) {
        ok = listing_add(l, graph->nodes[i]);
    }
    return ok;
}

struct ggml_tensor ** galloc_export_tensor_order(struct ggml_cgraph * graph, int32_t * n_tensors) {
    struct listing l;
    bool           ok = listing_build(&l, graph);
    ggml_hash_set_free(&l.seen);
    free(l.index);
    if (!ok) {
        free(l.order);
        return NULL;
    }
    *n_tensors = l.count;
    return l.order;
}

char * galloc_export_graph(struct ggml_cgraph * graph, const char * name, ggml_backend_buffer_type_t * bufts, int n_bufts,
                           const int * node_buffer_ids, const int * leaf_buffer_ids, size_t * len) {
    struct listing l;
    struct out     o;
    memset(&o, 0, sizeof(o));
    bool                         listed      = listing_build(&l, graph);
    int32_t                      max_tensors = l.cap;
    int32_t *                    tensor_buft = (int32_t *) malloc((size_t) max_tensors * sizeof(int32_t));
    size_t                       max_types   = (size_t) n_bufts + (size_t) max_tensors;
    ggml_backend_buffer_type_t * types       = (ggml_backend_buffer_type_t *) malloc(max_types * sizeof(*types));
    char (*type_names)[NAME_MAX_BYTES + 1]   = (char (*)[NAME_MAX_BYTES + 1]) malloc(max_types * sizeof(*type_names));
    bool ok      = listed && tensor_buft && types && type_names;
    int  n_types = n_bufts;

    // buffer types: the allocator's, then those of tensors allocated before it
    for (int i = 0; ok && i < n_bufts; i++) {
        types[i] = bufts[i];
    }
    for (int32_t i = 0; ok && i < l.count; i++) {
        struct ggml_tensor * t = l.order[i];
        tensor_buft[i] = -1;
        if (t->view_src == NULL && t->buffer != NULL) {
            ggml_backend_buffer_type_t bt    = ggml_backend_buffer_get_type(t->buffer);
            int                        found = -1;
            for (int k = 0; k < n_types && found < 0; k++) {
                found = types[k] == bt ? k : -1;
            }
            if (found < 0) {
                types[n_types] = bt;
                found          = n_types++;
            }
            tensor_buft[i] = found;
        }
    }

    if (ok) {
        buffer_type_names(types, n_types, type_names);
        out_str(&o, "{\n  \"format\": \"galloc-graph\",\n  \"version\": 1,\n  \"name\": ");
        out_string(&o, name ? name : "");
        out_str(&o, ",\n  \"buffer_types\": [");
        for (int k = 0; k < n_types; k++) {
            size_t max_size = ggml_backend_buft_get_max_size(types[k]);
            out_str(&o, k ? ", { \"name\": " : " { \"name\": ");
            out_string(&o, type_names[k]);
            out_printf(&o, ", \"alignment\": %zu, \"max_size\": ", ggml_backend_buft_get_alignment(types[k]));
            if (max_size == SIZE_MAX) {
                out_str(&o, "null");
            } else {
                out_size(&o, max_size);
            }
            out_str(&o, " }");
        }
        out_str(&o, " ]");
        write_type_traits(&o, &l);
        out_str(&o, ",\n  \"tensors\": [\n");
        for (int32_t i = 0; i < l.count; i++) {
            write_tensor(&o, &l, i, types, n_bufts, n_types, tensor_buft[i]);
        }
        out_str(&o, "  ],\n  \"nodes\": [");
        for (int i = 0; i < graph->n_nodes; i++) {
            out_str(&o, i ? ", " : "");
            out_i64(&o, listing_find(&l, graph->nodes[i]));
        }
        out_str(&o, "],\n  \"leafs\": [");
        for (int i = 0; i < graph->n_leafs; i++) {
            out_str(&o, i ? ", " : "");
            out_i64(&o, listing_find(&l, graph->leafs[i]));
        }
        out_str(&o, "]");
        write_ids(&o, "node_buffer_ids", node_buffer_ids, graph->n_nodes);
        write_ids(&o, "leaf_buffer_ids", leaf_buffer_ids, graph->n_leafs);
        out_str(&o, "\n}\n");
    }

    ggml_hash_set_free(&l.seen);
    free(l.index);
    free(l.order);
    free(tensor_buft);
    free(types);
    free(type_names);
    if (!ok || o.oom) {
        free(o.text);
        return NULL;
    }
    if (len) {
        *len = o.len;
    }
    return o.text;
}
