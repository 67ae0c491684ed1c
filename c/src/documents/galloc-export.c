// galloc-export.c: writes a ggml graph as a galloc graph document.
//
// Self-contained on purpose (its own small string builder, no galloc
// internals) so that it can be dropped into a llama.cpp build. Tensors are
// listed leafs first, then nodes, each preceded by any source or view root
// not listed yet, so every reference points at a lower index.

#include "galloc-export.h"
#include "ggml-impl.h"

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
        char * text = realloc(o->text, cap);
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

// a JSON string; bytes of invalid UTF-8 are not expected in ggml names (they are written as they are)
static void out_string(struct out * o, const char * s) {
    out_str(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') {
            char esc[2] = { '\\', (char) c };
            out_write(o, esc, 2);
        } else if (c < 0x20) {
            out_printf(o, "\\u%04x", c);
        } else {
            out_write(o, (const char *) &c, 1);
        }
    }
    out_str(o, "\"");
}

// sizes past 2^53 as strings: JavaScript readers would round them
static void out_size(struct out * o, size_t v) {
    if ((unsigned long long) v > (1ULL << 53)) {
        out_printf(o, "\"%llu\"", (unsigned long long) v);
    } else {
        out_printf(o, "%llu", (unsigned long long) v);
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

static int32_t listing_find(const struct listing * l, const struct ggml_tensor * t) {
    size_t slot = ggml_hash_find(&l->seen, t);
    return slot != GGML_HASHSET_FULL && ggml_hash_contains(&l->seen, t) ? l->index[slot] : -1;
}

// list t after everything it refers to (explicit stack: graphs can be deep)
static bool listing_add(struct listing * l, struct ggml_tensor * root) {
    if (listing_find(l, root) >= 0) {
        return true;
    }
    size_t                stack_cap = 64, depth = 0;
    struct ggml_tensor ** stack     = malloc(stack_cap * sizeof(*stack));
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
                    struct ggml_tensor ** grown = realloc(stack, stack_cap * 2 * sizeof(*stack));
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

// documents share an allocator between entries of the same name: distinct types that
// happen to share a name get "name#k", the same type listed twice keeps one name
static void out_type_name(struct out * o, ggml_backend_buffer_type_t * types, int k) {
    const char * name = ggml_backend_buft_name(types[k]);
    int          same = -1;
    for (int j = 0; j < k && same < 0; j++) {
        same = types[j] == types[k] ? j : -1;
    }
    bool clash = false;
    for (int j = 0; j < k && same < 0; j++) {
        clash = clash || strcmp(ggml_backend_buft_name(types[j]), name) == 0;
    }
    if (same >= 0) {
        out_type_name(o, types, same);
        return;
    }
    if (!clash) {
        out_string(o, name);
        return;
    }
    char renamed[96];
    snprintf(renamed, sizeof(renamed), "%.80s#%d", name, k);
    out_string(o, renamed);
}

static bool is_contiguous_layout(const struct ggml_tensor * t) {
    size_t nb = ggml_type_size(t->type);
    if (t->nb[0] != nb) {
        return false;
    }
    nb *= (size_t) (t->ne[0] / ggml_blck_size(t->type));
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
            out_printf(o, "%s\"%s\"", first ? "" : ", ", names[i].name);
            first = false;
        }
    }
    out_str(o, "]");
}

static void write_ids(struct out * o, const char * key, const int * ids, int n) {
    out_printf(o, ",\n  \"%s\": [", key);
    for (int i = 0; i < n; i++) {
        out_printf(o, "%s%d", i ? ", " : "", ids ? ids[i] : 0);
    }
    out_str(o, "]");
}

// every tensor of graph in document order; false when out of memory (l is then partly filled)
static bool listing_build(struct listing * l, struct ggml_cgraph * graph) {
    int32_t max_tensors = graph->n_leafs + graph->n_nodes * (GGML_MAX_SRC + 2) + 1;
    l->seen  = ggml_hash_set_new((size_t) max_tensors);
    l->index = malloc(l->seen.size * sizeof(int32_t));
    l->order = malloc((size_t) max_tensors * sizeof(*l->order));
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
    struct listing l = { 0 };
    bool ok = listing_build(&l, graph);
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
    struct listing l = { 0 };
    bool listed = listing_build(&l, graph);
    int32_t max_tensors = l.cap;
    int32_t * tensor_buft = malloc((size_t) max_tensors * sizeof(int32_t));
    int32_t * buft_of     = malloc((size_t) max_tensors * sizeof(int32_t));
    ggml_backend_buffer_type_t * types = malloc(((size_t) n_bufts + (size_t) max_tensors) * sizeof(*types));
    struct out o = { 0 };
    bool ok = listed && tensor_buft && buft_of && types;
    if (!ok) {
        goto done;
    }

    // buffer types: the allocator's, then those of tensors allocated before it
    int n_types = n_bufts;
    for (int i = 0; i < n_bufts; i++) {
        types[i] = bufts[i];
    }
    for (int32_t i = 0; i < l.count; i++) {
        struct ggml_tensor * t = l.order[i];
        tensor_buft[i] = -1;
        buft_of[i]     = 0;
        if (t->view_src == NULL && (t->data != NULL || t->buffer != NULL) && t->buffer != NULL) {
            ggml_backend_buffer_type_t bt = ggml_backend_buffer_get_type(t->buffer);
            int found = -1;
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
    // the buffer type that sizes each tensor (its node's or leaf's)
    for (int i = 0; i < graph->n_leafs; i++) {
        buft_of[listing_find(&l, graph->leafs[i])] = leaf_buffer_ids ? leaf_buffer_ids[i] : 0;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        buft_of[listing_find(&l, graph->nodes[i])] = node_buffer_ids ? node_buffer_ids[i] : 0;
    }

    out_str(&o, "{\n  \"format\": \"galloc-graph\",\n  \"version\": 1,\n  \"name\": ");
    out_string(&o, name ? name : "");
    out_str(&o, ",\n  \"buffer_types\": [");
    for (int k = 0; k < n_types; k++) {
        size_t max_size = ggml_backend_buft_get_max_size(types[k]);
        out_str(&o, k ? ", { \"name\": " : " { \"name\": ");
        out_type_name(&o, types, k);
        out_printf(&o, ", \"alignment\": %zu, \"max_size\": ", ggml_backend_buft_get_alignment(types[k]));
        if (max_size == SIZE_MAX) {
            out_str(&o, "null");
        } else {
            out_size(&o, max_size);
        }
        out_str(&o, " }");
    }
    out_str(&o, " ],\n  \"tensors\": [\n");
    for (int32_t i = 0; i < l.count; i++) {
        struct ggml_tensor * t = l.order[i];
        out_str(&o, "    { \"name\": ");
        out_string(&o, t->name);
        out_printf(&o, ", \"op\": \"%s\"", ggml_op_name(t->op));
        // which unary op or gated linear unit (a value ggml has no name for is left out)
        const char * sub_op = t->op == GGML_OP_UNARY ? ggml_unary_op_name(ggml_get_unary_op(t))
                            : t->op == GGML_OP_GLU   ? ggml_glu_op_name(ggml_get_glu_op(t))
                                                     : NULL;
        if (sub_op != NULL) {
            out_printf(&o, ", \"%s\": \"%s\"", t->op == GGML_OP_UNARY ? "unary_op" : "glu_op", sub_op);
        }
        out_printf(&o, ", \"type\": \"%s\", \"ne\": [", ggml_type_name(t->type));
        int n_dims = GGML_MAX_DIMS;
        while (n_dims > 1 && t->ne[n_dims - 1] == 1) {
            n_dims--;
        }
        for (int d = 0; d < n_dims; d++) {
            out_printf(&o, "%s%lld", d ? ", " : "", (long long) t->ne[d]);
        }
        out_str(&o, "]");
        if (!is_contiguous_layout(t)) {
            out_str(&o, ", \"nb\": [");
            for (int d = 0; d < GGML_MAX_DIMS; d++) {
                out_str(&o, d ? ", " : "");
                out_size(&o, t->nb[d]);
            }
            out_str(&o, "]");
        }
        int n_src = GGML_MAX_SRC;
        while (n_src > 0 && t->src[n_src - 1] == NULL) {
            n_src--;
        }
        if (n_src > 0) {
            out_str(&o, ", \"src\": [");
            for (int s = 0; s < n_src; s++) {
                if (t->src[s]) {
                    out_printf(&o, "%s%d", s ? ", " : "", listing_find(&l, t->src[s]));
                } else {
                    out_printf(&o, "%snull", s ? ", " : "");
                }
            }
            out_str(&o, "]");
        }
        if (t->view_src) {
            out_printf(&o, ", \"view_src\": %d, \"view_offs\": ", listing_find(&l, t->view_src));
            out_size(&o, t->view_offs);
        }
        if (t->flags) {
            write_flags(&o, t->flags);
        }
        if (!t->view_src) {
            int32_t b = tensor_buft[i] >= 0 ? tensor_buft[i] : buft_of[i];
            size_t  alloc_size = ggml_backend_buft_get_alloc_size(types[b], t);
            if (alloc_size != ggml_nbytes(t)) {
                out_str(&o, ", \"alloc_size\": ");
                out_size(&o, alloc_size);
            }
        }
        if (tensor_buft[i] >= 0) {
            out_printf(&o, ", \"buffer_type\": %d", tensor_buft[i]);
        }
        out_str(&o, i + 1 < l.count ? " },\n" : " }\n");
    }
    out_str(&o, "  ],\n  \"nodes\": [");
    for (int i = 0; i < graph->n_nodes; i++) {
        out_printf(&o, "%s%d", i ? ", " : "", listing_find(&l, graph->nodes[i]));
    }
    out_str(&o, "],\n  \"leafs\": [");
    for (int i = 0; i < graph->n_leafs; i++) {
        out_printf(&o, "%s%d", i ? ", " : "", listing_find(&l, graph->leafs[i]));
    }
    out_str(&o, "]");
    write_ids(&o, "node_buffer_ids", node_buffer_ids, graph->n_nodes);
    write_ids(&o, "leaf_buffer_ids", leaf_buffer_ids, graph->n_leafs);
    out_str(&o, "\n}\n");

done:
    ggml_hash_set_free(&l.seen);
    free(l.index);
    free(l.order);
    free(tensor_buft);
    free(buft_of);
    free(types);
    if (!ok || o.oom) {
        free(o.text);
        return NULL;
    }
    if (len) {
        *len = o.len;
    }
    return o.text;
}
