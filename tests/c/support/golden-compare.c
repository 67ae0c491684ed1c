// golden-compare.c: ggml_gallocr's placement against an upstream plan document (see golden-compare.h).

#include "golden-compare.h"
#include "files.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_CHUNK_BUFFERS 1024

// the ggml buffer standing for each (allocator, chunk) of the golden plan, learned from the tensors
struct chunk_map {
    ggml_backend_buffer_t buffer[MAX_CHUNK_BUFFERS];
    int32_t               allocator[MAX_CHUNK_BUFFERS];
    int32_t               chunk[MAX_CHUNK_BUFFERS];
    int                   n;
};

// false when buffer was already seen as another (allocator, chunk), or (allocator, chunk) as another buffer
static bool chunk_map_agrees(struct chunk_map * m, ggml_backend_buffer_t buffer, int32_t allocator, int32_t chunk) {
    for (int i = 0; i < m->n; i++) {
        if (m->buffer[i] == buffer || (m->allocator[i] == allocator && m->chunk[i] == chunk)) {
            return m->buffer[i] == buffer && m->allocator[i] == allocator && m->chunk[i] == chunk;
        }
    }
    if (m->n == MAX_CHUNK_BUFFERS) {
        return false;
    }
    m->buffer[m->n]    = buffer;
    m->allocator[m->n] = allocator;
    m->chunk[m->n]     = chunk;
    m->n++;
    return true;
}

static bool chunk_map_has_buffer(const struct chunk_map * m, ggml_backend_buffer_t buffer) {
    for (int i = 0; i < m->n; i++) {
        if (m->buffer[i] == buffer) {
            return true;
        }
    }
    return false;
}

// the first index listing the same buffer type: types listed twice share one allocator
static int32_t allocator_of(ggml_backend_buffer_type_t * bufts, int32_t b) {
    for (int32_t j = 0; j < b; j++) {
        if (bufts[j] == bufts[b]) {
            return j;
        }
    }
    return b;
}

#define REPORT(...) do { if (differ++ < 4) { fprintf(stderr, "  %s: ", label); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

int gallocr_compare_golden(ggml_gallocr_t ga, ggml_backend_buffer_type_t * bufts, int n_bufts, struct ggml_tensor * const * tensors,
                           int32_t n_tensors, const struct galloc_plan_document * golden, const char * label,
                           struct golden_compare_stats * stats) {
    struct golden_compare_stats local = { 0, 0, 0 };
    int differ = 0;
    if (golden->n_tensors != n_tensors || golden->n_buffers != n_bufts) {
        REPORT("%d tensors and %d buffer types, the golden plan has %d and %d", n_tensors, n_bufts, golden->n_tensors, golden->n_buffers);
        return differ;
    }
    struct chunk_map * map = calloc(1, sizeof(*map));
    if (map == NULL) {
        REPORT("out of memory");
        return differ;
    }
    // every tensor the golden plan places: its buffer type, chunk and offset
    for (int32_t i = 0; i < n_tensors; i++) {
        const struct galloc_plan_document_tensor * gt = &golden->tensors[i];
        const struct ggml_tensor *                 t  = tensors[i];
        if (gt->buffer < 0) {
            continue;
        }
        local.placed++;
        if (t == NULL || t->buffer == NULL || t->data == NULL) {
            REPORT("tensors[%d] (%s) not placed, golden: buffer %d chunk %d offset %llu", i, t ? t->name : "?", gt->buffer, gt->chunk,
                   (unsigned long long) gt->offset);
            continue;
        }
        size_t offset = (size_t) ((const char *) t->data - (const char *) ggml_backend_buffer_get_base(t->buffer));
        bool   type_ok = gt->buffer < n_bufts && ggml_backend_buffer_get_type(t->buffer) == bufts[gt->buffer];
        if (!type_ok || offset != gt->offset || !chunk_map_agrees(map, t->buffer, allocator_of(bufts, gt->buffer), gt->chunk)) {
            REPORT("tensors[%d] (%s): ggml_gallocr put it at offset %zu of a %s buffer%s, golden: buffer %d chunk %d offset %llu", i, t->name,
                   offset, ggml_backend_buft_name(ggml_backend_buffer_get_type(t->buffer)), type_ok ? "" : " (wrong type)", gt->buffer,
                   gt->chunk, (unsigned long long) gt->offset);
        }
    }
    // tensors the golden plan leaves alone are not in ggml_gallocr's buffers
    for (int32_t i = 0; i < n_tensors; i++) {
        if (golden->tensors[i].buffer < 0 && tensors[i] != NULL && tensors[i]->buffer != NULL && chunk_map_has_buffer(map, tensors[i]->buffer)) {
            REPORT("tensors[%d] (%s) placed by ggml_gallocr, the golden plan does not place it", i, tensors[i]->name);
        }
    }
    // every chunk a tensor lies in has the golden size; every buffer type the golden total
    for (int k = 0; k < map->n; k++) {
        const struct galloc_plan_document_buffer * gb = &golden->buffers[map->allocator[k]];
        size_t size = ggml_backend_buffer_get_size(map->buffer[k]);
        if (map->chunk[k] >= gb->n_chunks || size != gb->chunk_sizes[map->chunk[k]]) {
            REPORT("buffer type %d chunk %d: ggml_gallocr allocated %zu bytes, golden %llu", map->allocator[k], map->chunk[k], size,
                   map->chunk[k] < gb->n_chunks ? (unsigned long long) gb->chunk_sizes[map->chunk[k]] : 0ULL);
        }
        local.chunks++;
    }
    for (int b = 0; b < n_bufts; b++) {
        const struct galloc_plan_document_buffer * gb = &golden->buffers[b];
        unsigned long long total = 0;
        for (int c = 0; c < gb->n_chunks; c++) {
            total += gb->chunk_sizes[c];
        }
        // a type listed twice: its chunks are the first entry's, its size 0 (ggml_gallocr_get_buffer_size)
        bool   shared = allocator_of(bufts, b) != b;
        size_t want   = shared ? 0 : (size_t) total;
        if (ggml_gallocr_get_buffer_size(ga, b) != want) {
            REPORT("buffer type %d: ggml_gallocr holds %zu bytes, golden %zu", b, ggml_gallocr_get_buffer_size(ga, b), want);
        }
        if (!shared) {
            local.chunks_by_sum += gb->n_chunks;
        }
    }
    local.chunks_by_sum -= local.chunks;
    free(map);
    if (stats) {
        stats->placed += local.placed;
        stats->chunks += local.chunks;
        stats->chunks_by_sum += local.chunks_by_sum;
    }
    return differ;
}

bool golden_plan_read(const char * path, struct galloc_plan_document * out) {
    size_t len  = 0;
    char * text = read_whole_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "  %s: cannot read\n", path);
        return false;
    }
    struct galloc_error err;
    bool ok = galloc_plan_document_read(text, len, out, &err);
    free(text);
    if (!ok) {
        fprintf(stderr, "  %s: %s\n", path, err.message);
    }
    return ok;
}
