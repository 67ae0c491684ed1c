// capture-layout.c: the reserved graph's document, by position in the graph.
//
// ggml_gallocr_reserve_n keeps, per position of the graph (each leaf, each
// node and each of its source slots), where it planned the tensor there; a
// later ggml_gallocr_alloc_graph whose graph still fits places its own tensors
// at those positions (llama.cpp rebuilds its graph for every batch, with the
// same shape). So the placement of a reserved graph can be read from the next
// graph ggml allocates: at each reserve this records, for every tensor of the
// document, its first position and what the reserve saw of it (sizes, sources,
// the buffer id it was first placed with).

#include "capture.h"
#include "galloc-export.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

void capture_layout_free(struct capture_layout * l) {
    free(l->pos);
    free(l->view);
    free(l->root);
    free(l->offs);
    free(l->src);
    free(l->first_id);
    free(l->bytes);
    memset(l, 0, sizeof(*l));
}

struct ggml_tensor * capture_tensor_at(const struct ggml_cgraph * graph, const struct capture_position * p) {
    switch (p->kind) {
        case CAPTURE_AT_LEAF: return p->index < graph->n_leafs ? graph->leafs[p->index] : NULL;
        case CAPTURE_AT_NODE: return p->index < graph->n_nodes ? graph->nodes[p->index] : NULL;
        default: return p->index < graph->n_nodes ? graph->nodes[p->index]->src[p->slot] : NULL;
    }
}

// tensor -> document index (open addressing over pointers; ggml's hash set differs between versions)
struct index_map {
    const struct ggml_tensor ** keys;
    int32_t                   * index;
    size_t                      mask;
};

static size_t pointer_slot(const struct index_map * m, const struct ggml_tensor * t) {
    size_t i = ((size_t) ((uintptr_t) t >> 4) * (size_t) 0x9E3779B97F4A7C15ULL) & m->mask;
    while (m->keys[i] != NULL && m->keys[i] != t) {
        i = (i + 1) & m->mask;
    }
    return i;
}

static bool index_map_init(struct index_map * m, struct ggml_tensor ** order, int32_t n) {
    size_t size = 16;
    while (size < (size_t) n * 2) {
        size *= 2;
    }
    m->keys  = calloc(size, sizeof(*m->keys));
    m->index = malloc(size * sizeof(*m->index));
    m->mask  = size - 1;
    if (m->keys == NULL || m->index == NULL) {
        return false;
    }
    for (int32_t i = 0; i < n; i++) {
        size_t slot    = pointer_slot(m, order[i]);
        m->keys[slot]  = order[i];
        m->index[slot] = i;
    }
    return true;
}

static int32_t index_of(const struct index_map * m, const struct ggml_tensor * t) {
    if (t == NULL) {
        return -1;
    }
    size_t slot = pointer_slot(m, t);
    return m->keys[slot] == t ? m->index[slot] : -1;
}

static int id_at(const int * ids, int i) {
    return ids ? ids[i] : 0;
}

// give tensor t position p and buffer id `id` if it has none yet (upstream places a tensor once,
// the first time it meets it: leafs, then graph inputs, then in node order, sources first)
static void meet(struct capture_layout * l, const struct index_map * m, const struct ggml_tensor * t, struct capture_position p, int id) {
    int32_t k = index_of(m, t);
    if (k < 0) {
        return;
    }
    if (l->pos[k].kind < 0) {
        l->pos[k] = p;
    }
    if (l->first_id[k] < 0) {
        l->first_id[k] = id;
    }
}

bool capture_layout_record(struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids) {
    struct capture_layout * l = &ca->layout;
    capture_layout_free(l);
    int32_t               n     = 0;
    struct ggml_tensor ** order = galloc_export_tensor_order(graph, &n);
    struct index_map      m     = { 0 };
    size_t                cells = (size_t) (n > 0 ? n : 1);
    l->pos      = malloc(cells * sizeof(*l->pos));
    l->view     = malloc(cells * sizeof(*l->view));
    l->root     = malloc(cells * sizeof(*l->root));
    l->offs     = malloc(cells * sizeof(*l->offs));
    l->src      = malloc(cells * GGML_MAX_SRC * sizeof(*l->src));
    l->first_id = malloc(cells * sizeof(*l->first_id));
    l->bytes    = malloc(cells * (size_t) ca->n_bufts * sizeof(*l->bytes));
    bool ok = order && l->pos && l->view && l->root && l->offs && l->src && l->first_id && l->bytes && index_map_init(&m, order, n);
    if (!ok) {
        free(order);
        free(m.keys);
        free(m.index);
        capture_layout_free(l);
        capture_warn_once(3, "out of memory writing a graph document");
        return false;
    }
    l->n = n;
    ggml_backend_buffer_type_t extra[64];
    for (int32_t k = 0; k < n; k++) {
        const struct ggml_tensor * t = order[k];
        l->pos[k]      = (struct capture_position) { -1, 0, 0 };
        l->first_id[k] = -1;
        l->view[k]     = t->view_src != NULL;
        l->root[k]     = -1;
        l->offs[k]     = t->view_src ? t->view_offs : 0;
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            l->src[(size_t) k * GGML_MAX_SRC + j] = index_of(&m, t->src[j]);
        }
        for (int b = 0; b < ca->n_bufts; b++) {
            l->bytes[(size_t) k * ca->n_bufts + b] = t->view_src ? ggml_nbytes(t) : ggml_backend_buft_get_alloc_size(ca->bufts[b], t);
        }
        // the document lists the types of tensors allocated before after the allocator's (as the exporter does)
        if (t->view_src == NULL && t->buffer != NULL) {
            ggml_backend_buffer_type_t bt    = ggml_backend_buffer_get_type(t->buffer);
            bool                       known = false;
            for (int b = 0; b < ca->n_bufts && !known; b++) {
                known = ca->bufts[b] == bt;
            }
            for (int e = 0; e < l->n_extra && !known; e++) {
                known = extra[e] == bt;
            }
            if (!known && l->n_extra < 64) {
                extra[l->n_extra++] = bt;
            }
        }
    }
    for (int32_t k = 0; k < n; k++) {
        l->root[k] = index_of(&m, order[k]->view_src);
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        meet(l, &m, graph->leafs[i], (struct capture_position) { CAPTURE_AT_LEAF, i, 0 }, id_at(leaf_ids, i));
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (node->flags & GGML_TENSOR_FLAG_INPUT) {
            meet(l, &m, node, (struct capture_position) { CAPTURE_AT_NODE, i, 0 }, id_at(node_ids, i));
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j] && (node->src[j]->flags & GGML_TENSOR_FLAG_INPUT)) {
                meet(l, &m, node->src[j], (struct capture_position) { CAPTURE_AT_SOURCE, i, j }, id_at(node_ids, i));
            }
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            meet(l, &m, node->src[j], (struct capture_position) { CAPTURE_AT_SOURCE, i, j }, id_at(node_ids, i));
        }
        meet(l, &m, node, (struct capture_position) { CAPTURE_AT_NODE, i, 0 }, id_at(node_ids, i));
    }
    // a tensor without memory that is no leaf, node or source: ggml never places it
    for (int32_t k = 0; k < n; k++) {
        if (l->pos[k].kind < 0 && order[k]->view_src == NULL && order[k]->data == NULL && order[k]->buffer == NULL) {
            capture_warn_once(7, "a tensor of the graph is at no position ggml places by; its placement is written as null");
        }
    }
    free(order);
    free(m.keys);
    free(m.index);
    return true;
}
