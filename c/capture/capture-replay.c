// capture-replay.c: upstream's ggml_gallocr_needs_realloc, replayed from public data.
//
// ggml_gallocr_alloc_graph first asks whether the graph still fits the last
// reserve: the same node and leaf counts, and every node and source slot at
// most as big as the bytes reserved for the tensor that held that position.
// With one buffer type it then re-reserves by itself, through a call that can
// be direct (clang), so no interposer sees it. The capture library records at
// every reserve what ggml records (its struct tensor_alloc, per node: dst and
// src slots), and asks the same question before calling the real alloc_graph.
// Only the one-buffer-type case is replayed: with more, ggml returns false
// and the caller's reserve_n goes through the hook.

#include "capture.h"
#include "ggml-impl.h"

#include <stdlib.h>

#define SLOTS_PER_NODE (1 + GGML_MAX_SRC)

// what ggml's reserve keeps for tensor t, with one buffer type
static struct capture_slot slot_of(const struct capture_alloc * ca, const struct ggml_tensor * t) {
    struct capture_slot s = { -1, 0 };
    if (t != NULL && t->view_src == NULL && t->data == NULL) {
        s.buffer_id = 0;
        s.size_max  = ggml_backend_buft_get_alloc_size(ca->bufts[0], t);
    }
    return s;
}

bool capture_replay_record(struct capture_alloc * ca, const struct ggml_cgraph * graph) {
    struct capture_replay * r = &ca->replay;
    r->valid = false;
    if (ca->n_bufts != 1) {
        return true; // not replayed
    }
    size_t need = (size_t) graph->n_nodes * SLOTS_PER_NODE;
    if (need > r->cap) {
        struct capture_slot * grown = realloc(r->slots, need * sizeof(*grown));
        if (grown == NULL) {
            return false;
        }
        r->slots = grown;
        r->cap   = need;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        const struct ggml_tensor * node  = graph->nodes[i];
        struct capture_slot      * slots = r->slots + (size_t) i * SLOTS_PER_NODE;
        slots[0] = slot_of(ca, node);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            slots[1 + j] = slot_of(ca, node->src[j]);
        }
    }
    r->n_nodes = graph->n_nodes;
    r->n_leafs = graph->n_leafs;
    r->valid   = true;
    return true;
}

// upstream's ggml_gallocr_node_needs_realloc (true: the recorded slot still holds t)
static bool slot_holds(const struct capture_alloc * ca, const struct ggml_tensor * t, const struct capture_slot * s) {
    size_t size = 0;
    if (t->data == NULL && t->view_src == NULL) {
        if (s->buffer_id < 0) {
            return false; // had memory when reserved, has none now
        }
        size = ggml_backend_buft_get_alloc_size(ca->bufts[s->buffer_id], t);
    }
    return s->size_max >= size;
}

bool capture_replay_needs_realloc(const struct capture_alloc * ca, const struct ggml_cgraph * graph) {
    const struct capture_replay * r = &ca->replay;
    int n_nodes = r->valid ? r->n_nodes : 0; // a new allocator has reserved nothing
    int n_leafs = r->valid ? r->n_leafs : 0;
    if (n_nodes != graph->n_nodes || n_leafs != graph->n_leafs) {
        return true;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        const struct ggml_tensor  * node  = graph->nodes[i];
        const struct capture_slot * slots = r->slots + (size_t) i * SLOTS_PER_NODE;
        if (!slot_holds(ca, node, &slots[0])) {
            return true;
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j] != NULL && !slot_holds(ca, node->src[j], &slots[1 + j])) {
                return true;
            }
        }
    }
    return false;
}
