// gallocr-compare.c: ggml_gallocr's placement against the planner's plan (see gallocr-compare.h).

#include "gallocr-compare.h"
#include "galloc-document-ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <stdint.h>
#include <stdio.h>

// which (buffer type, chunk) of the plan each ggml buffer stands for, learned as tensors are seen
struct chunk_map {
    ggml_backend_buffer_t buffers[64];
    int32_t               type[64];
    int32_t               chunk[64];
    int                   n;
};

// false when buffer was already seen as another (type, chunk), or (type, chunk) as another buffer
static bool chunk_map_agrees(struct chunk_map * m, ggml_backend_buffer_t buffer, int32_t type, int32_t chunk) {
    for (int i = 0; i < m->n; i++) {
        if (m->buffers[i] == buffer || (m->type[i] == type && m->chunk[i] == chunk)) {
            return m->buffers[i] == buffer && m->type[i] == type && m->chunk[i] == chunk;
        }
    }
    if (m->n == 64) {
        return false;
    }
    m->buffers[m->n] = buffer;
    m->type[m->n]    = type;
    m->chunk[m->n]   = chunk;
    m->n++;
    return true;
}

int gallocr_compare_plan(const struct galloc_document * doc, const struct galloc_plan * plan, const char * label, struct galloc_error * err) {
    struct galloc_ggml_graph g;
    if (!galloc_document_to_ggml(doc, &g, err)) {
        return -1;
    }
    ggml_gallocr_t ga = ggml_gallocr_new_n(g.bufts, g.n_bufts);
    bool ok = ggml_gallocr_reserve_n(ga, g.graph, g.node_buffer_ids, g.leaf_buffer_ids) && ggml_gallocr_alloc_graph(ga, g.graph);
    int differ = 0;
    if (!ok) {
        fprintf(stderr, "  %s: ggml_gallocr could not plan it\n", label);
        differ = 1;
    }
    for (int b = 0; ok && b < g.n_bufts; b++) {
        if (ggml_gallocr_get_buffer_size(ga, b) != (size_t) plan->buffers[b].size) {
            fprintf(stderr, "  %s: buffer type %d: ggml_gallocr needs %zu bytes, the plan %llu\n", label, b,
                    ggml_gallocr_get_buffer_size(ga, b), (unsigned long long) plan->buffers[b].size);
            differ++;
        }
    }
    struct chunk_map map = { .n = 0 };
    for (int32_t i = 0; ok && i < doc->n_tensors; i++) {
        const struct galloc_place * place = &plan->places[i];
        const struct ggml_tensor *  t     = g.tensors[i];
        if (place->buffer < 0 || doc->tensors[i].external) {
            continue; // not placed by the allocator (outside the graph, or memory of its own)
        }
        const struct galloc_buffer_type * bt = &doc->buffer_types[place->buffer];
        bool   placed = t->buffer != NULL && t->data != NULL;
        size_t offset = placed ? (size_t) ((const char *) t->data - (const char *) ggml_backend_buffer_get_base(t->buffer)) : 0;
        if (!placed || offset != place->offset || !chunk_map_agrees(&map, t->buffer, bt->allocator, place->chunk)) {
            if (differ < 3) {
                fprintf(stderr, "  %s: tensors[%d] (%s): ggml_gallocr put it at offset %zu%s, the plan at buffer %d chunk %d offset %llu\n",
                        label, i, doc->tensor_names[i], offset, placed ? "" : " (not placed)", place->buffer, place->chunk,
                        (unsigned long long) place->offset);
            }
            differ++;
        }
    }
    ggml_gallocr_free(ga);
    galloc_ggml_graph_free(&g);
    return differ;
}
