// capture-placement.c: the placement ggml made, written as a plan document.
//
// After ggml_gallocr_alloc_graph every tensor it placed has a backend buffer
// (one chunk of one buffer type) and an address in it; views point into their
// source's memory. The plan document lists, index for index with the graph
// document, each tensor's buffer type, chunk and offset, so that
// `galloc diff` can compare it with the project's plan of the same document.
//
//  - chunk: the position of the tensor's backend buffer among the chunks the
//    allocator's reserve allocated for that type (capture-registry.c);
//  - chunk_sizes: where ggml's allocator put the end of each chunk, its
//    highest tensor end (offset + alloc size, aligned) - what ggml asked the
//    backend for when it (re)allocated for this plan. buffer_sizes: the sizes
//    of the buffers really in use, larger when ggml kept buffers from an
//    earlier, larger reserve;
//  - buffer: a type listed twice shares one allocator and one set of buffers;
//    such tensors get the id ggml gave them: the id they were first placed
//    with (leafs, then inputs, then in node order), or their parent's when
//    they took over its memory in place.

#include "capture.h"
#include "galloc-export.h"
#include "ggml-impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// the buffer types the document adds for tensors allocated before (as the exporter lists them)
static int count_extra_types(const struct capture_alloc * ca, const struct capture_before * b) {
    ggml_backend_buffer_type_t extra[64];
    int                        n_extra = 0;
    for (int32_t i = 0; i < b->n; i++) {
        const struct ggml_tensor * t = b->order[i];
        if (t->view_src != NULL || t->buffer == NULL) {
            continue;
        }
        ggml_backend_buffer_type_t bt    = ggml_backend_buffer_get_type(t->buffer);
        bool                       known = false;
        for (int k = 0; k < ca->n_bufts && !known; k++) {
            known = ca->bufts[k] == bt;
        }
        for (int k = 0; k < n_extra && !known; k++) {
            known = extra[k] == bt;
        }
        if (!known && n_extra < 64) {
            extra[n_extra++] = bt;
        }
    }
    return n_extra;
}

bool capture_before_take(struct capture_before * b, const struct capture_alloc * ca, struct ggml_cgraph * graph) {
    b->order    = galloc_export_tensor_order(graph, &b->n);
    b->external = b->order ? malloc((size_t) (b->n > 0 ? b->n : 1) * sizeof(bool)) : NULL;
    if (b->external == NULL) {
        capture_before_free(b);
        capture_warn_once(3, "out of memory writing a graph document");
        return false;
    }
    for (int32_t i = 0; i < b->n; i++) {
        const struct ggml_tensor * t = b->order[i];
        const struct ggml_tensor * root = t->view_src ? t->view_src : t;
        b->external[i] = root->data != NULL || root->buffer != NULL;
    }
    b->n_extra_types = count_extra_types(ca, b);
    return true;
}

void capture_before_free(struct capture_before * b) {
    free(b->order);
    free(b->external);
    b->order    = NULL;
    b->external = NULL;
    b->n        = 0;
}

struct place {
    int    type;  // leader buffer type, -1: no place
    int    chunk;
    size_t offset;
    int    label; // the buffer id written
};

// tensor -> document index (open addressing; ggml's hash set differs between versions)
struct index_map {
    const struct ggml_tensor ** keys;
    int32_t                   * index;
    size_t                      mask;
};

static size_t pointer_slot(const struct index_map * m, const struct ggml_tensor * t) {
    size_t h = (size_t) ((uintptr_t) t >> 4) * (size_t) 0x9E3779B97F4A7C15ULL;
    size_t i = h & m->mask;
    while (m->keys[i] != NULL && m->keys[i] != t) {
        i = (i + 1) & m->mask;
    }
    return i;
}

static bool index_map_init(struct index_map * m, const struct capture_before * before) {
    size_t size = 16;
    while (size < (size_t) before->n * 2) {
        size *= 2;
    }
    m->keys  = calloc(size, sizeof(*m->keys));
    m->index = malloc(size * sizeof(*m->index));
    m->mask  = size - 1;
    if (m->keys == NULL || m->index == NULL) {
        return false;
    }
    for (int32_t i = 0; i < before->n; i++) {
        size_t slot    = pointer_slot(m, before->order[i]);
        m->keys[slot]  = before->order[i];
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

// the id each tensor was first placed with, in the order upstream's reserve places them
static void first_ids(const struct capture_alloc * ca, const struct ggml_cgraph * graph, const struct index_map * m, int * assigned) {
#define ASSIGN(t, id)                                  \
    do {                                               \
        int32_t k_ = index_of(m, (t));                 \
        if (k_ >= 0 && assigned[k_] < 0) {             \
            assigned[k_] = (id);                       \
        }                                              \
    } while (0)
    for (int i = 0; i < graph->n_leafs; i++) {
        ASSIGN(graph->leafs[i], id_at(ca->leaf_ids, i));
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (node->flags & GGML_TENSOR_FLAG_INPUT) {
            ASSIGN(node, id_at(ca->node_ids, i));
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j] && (node->src[j]->flags & GGML_TENSOR_FLAG_INPUT)) {
                ASSIGN(node->src[j], id_at(ca->node_ids, i));
            }
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j]) {
                ASSIGN(node->src[j], id_at(ca->node_ids, i));
            }
        }
        ASSIGN(node, id_at(ca->node_ids, i));
    }
#undef ASSIGN
}

static void write_size(FILE * f, uint64_t v) {
    if (v > (1ULL << 53)) {
        fprintf(f, "\"%" PRIu64 "\"", v);
    } else {
        fprintf(f, "%" PRIu64, v);
    }
}

// the place of every tensor; false when a placed tensor's buffer is none the allocator has
static bool locate_all(const struct capture_alloc * ca, const struct capture_before * before, struct place * places) {
    // buffers no reserve was seen allocating (a build that hides ggml_backend_buft_alloc_buffer): numbered in order of use
    ggml_backend_buffer_t seen[CAPTURE_MAX_CHUNKS];
    int                   seen_type[CAPTURE_MAX_CHUNKS];
    int                   n_seen = 0;
    bool                  ok     = true;
    for (int32_t i = 0; i < before->n; i++) {
        const struct ggml_tensor * t = before->order[i];
        places[i] = (struct place) { -1, 0, 0, -1 };
        if (before->external[i] || t->buffer == NULL || t->data == NULL) {
            continue;
        }
        int type = -1, chunk = 0;
        if (!capture_alloc_locate(ca, t->buffer, &type, &chunk)) {
            ggml_backend_buffer_type_t bt = ggml_backend_buffer_get_type(t->buffer);
            for (int k = 0; k < ca->n_bufts && type < 0; k++) {
                type = ca->bufts[k] == bt ? ca->leader[k] : -1;
            }
            if (type < 0) {
                ok = false;
                continue;
            }
            int s = 0;
            chunk = 0;
            for (; s < n_seen && seen[s] != t->buffer; s++) {
                chunk += seen_type[s] == type;
            }
            if (s == n_seen && n_seen < CAPTURE_MAX_CHUNKS) {
                seen[n_seen]        = t->buffer;
                seen_type[n_seen++] = type;
            }
            capture_warn_once(5, "the chunk buffers of an allocator were not seen allocated: chunks numbered in order of use");
        }
        places[i].type   = type;
        places[i].chunk  = chunk;
        places[i].offset = (size_t) ((const char *) t->data - (const char *) ggml_backend_buffer_get_base(t->buffer));
    }
    return ok;
}

// the buffer id each placed tensor is written with
static bool label_all(const struct capture_alloc * ca, struct ggml_cgraph * graph, const struct capture_before * before, struct place * places) {
    struct index_map m        = { 0 };
    int            * assigned = malloc((size_t) (before->n > 0 ? before->n : 1) * sizeof(int));
    bool             ok       = index_map_init(&m, before) && assigned;
    for (int32_t i = 0; ok && i < before->n; i++) {
        assigned[i] = -1;
    }
    if (ok) {
        first_ids(ca, graph, &m, assigned);
    }
    for (int32_t i = 0; ok && i < before->n; i++) {
        const struct ggml_tensor * t = before->order[i];
        struct place             * p = &places[i];
        if (p->type < 0) {
            continue;
        }
        int id   = assigned[i] >= 0 && assigned[i] < ca->n_bufts && ca->leader[assigned[i]] == p->type ? assigned[i] : p->type;
        p->label = id;
        if (t->view_src != NULL) {
            int32_t root = index_of(&m, t->view_src);
            p->label     = root >= 0 && places[root].label >= 0 ? places[root].label : id;
            continue;
        }
        // in place of a source: at the source's address while the source was still live
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            int32_t s = index_of(&m, t->src[j]);
            if (s >= 0 && t->src[j]->view_src == NULL && places[s].type == p->type && places[s].chunk == p->chunk &&
                places[s].offset == p->offset && places[s].label >= 0) {
                p->label = places[s].label;
                break;
            }
        }
    }
    free(m.keys);
    free(m.index);
    free(assigned);
    return ok;
}

static void write_document(FILE * f, const struct capture_alloc * ca, const struct capture_before * before, const struct place * places,
                           const char * name) {
    fprintf(f, "{\n  \"format\": \"galloc-plan\",\n  \"version\": 1,\n  \"name\": \"%s\",\n", name);
    fprintf(f, "  \"source\": \"ggml_gallocr_alloc_graph, captured by libgalloc-capture\",\n  \"buffers\": [");
    for (int b = 0; b < ca->n_bufts; b++) {
        // a type listed again shares its leader's chunks; its size counts 0, as ggml_gallocr_get_buffer_size says
        int      leader                   = ca->leader[b];
        uint64_t ends[CAPTURE_MAX_CHUNKS] = { 0 };
        int      n_chunks                 = 0;
        size_t   align                    = ggml_backend_buft_get_alignment(ca->bufts[leader]);
        for (int32_t i = 0; i < before->n; i++) {
            const struct ggml_tensor * t = before->order[i];
            if (places[i].type != leader || t->view_src != NULL || places[i].chunk >= CAPTURE_MAX_CHUNKS) {
                continue;
            }
            size_t   size = ggml_backend_buft_get_alloc_size(ca->bufts[places[i].label], t);
            uint64_t end  = places[i].offset + (size + align - 1) / align * align;
            ends[places[i].chunk] = end > ends[places[i].chunk] ? end : ends[places[i].chunk];
            n_chunks              = places[i].chunk + 1 > n_chunks ? places[i].chunk + 1 : n_chunks;
        }
        uint64_t total = 0;
        fprintf(f, "%s\n    { \"buffer_type\": %d, \"chunk_sizes\": [", b ? "," : "", b);
        for (int c = 0; c < n_chunks; c++) {
            fprintf(f, "%s", c ? ", " : "");
            write_size(f, ends[c]);
            total += ends[c];
        }
        fprintf(f, "], \"size\": ");
        write_size(f, leader == b ? total : 0);
        const struct capture_chunks * ch = &ca->chunks[leader];
        fprintf(f, ", \"buffer_sizes\": [");
        for (int c = 0; ch->known && c < ch->n; c++) {
            fprintf(f, "%s", c ? ", " : "");
            write_size(f, ggml_backend_buffer_get_size(ch->buffers[c]));
        }
        fprintf(f, "] }");
    }
    for (int k = 0; k < before->n_extra_types; k++) {
        fprintf(f, ",\n    { \"buffer_type\": %d, \"chunk_sizes\": [], \"size\": 0, \"buffer_sizes\": [] }", ca->n_bufts + k);
    }
    fprintf(f, "\n  ],\n  \"tensors\": [");
    for (int32_t i = 0; i < before->n; i++) {
        const struct ggml_tensor * t = before->order[i];
        const struct place       * p = &places[i];
        fprintf(f, "%s\n    ", i ? "," : "");
        if (p->type < 0) {
            fprintf(f, "null");
            continue;
        }
        size_t size = t->view_src ? ggml_nbytes(t) : ggml_backend_buft_get_alloc_size(ca->bufts[p->label], t);
        fprintf(f, "{ \"buffer\": %d, \"chunk\": %d, \"offset\": ", p->label, p->chunk);
        write_size(f, p->offset);
        fprintf(f, ", \"size\": ");
        write_size(f, size);
        fprintf(f, "%s }", t->view_src ? ", \"view\": true" : "");
    }
    fprintf(f, "\n  ]\n}\n");
}

bool capture_write_placement(struct capture_alloc * ca, struct ggml_cgraph * graph, const struct capture_before * before) {
    int           g      = ca->graph;
    struct place * places = malloc((size_t) (before->n > 0 ? before->n : 1) * sizeof(*places));
    ca->placement_pending = false;
    if (places == NULL || capture_graph_stem(g) == NULL) {
        free(places);
        return false;
    }
    bool located = locate_all(ca, before, places);
    if (!label_all(ca, graph, before, places)) {
        free(places);
        capture_warn_once(3, "out of memory writing a graph document");
        return false;
    }
    if (!located) {
        capture_warn_once(6, "a tensor of graph %d was placed in a buffer none of its allocator's types made; written as null",
                          capture_graph_number(g));
    }
    char   path[4096];
    FILE * f = fopen(capture_graph_path(g, ".ggml-plan.json", path, sizeof(path)), "w");
    if (f == NULL) {
        free(places);
        capture_warn_once(4, "cannot write %s", path);
        return false;
    }
    write_document(f, ca, before, places, capture_graph_stem(g));
    bool ok = fclose(f) == 0;
    free(places);
    if (ok) {
        capture_graph_set_placed(g);
        capture_stats.placements++;
        fprintf(stderr, "galloc: graph %d: ggml's placement -> %s\n", capture_graph_number(g), path);
    }
    return ok;
}
