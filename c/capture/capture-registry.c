// capture-registry.c: what the capture library knows about each live graph allocator.
//
// Its buffer types (seen at ggml_gallocr_new_n), the backend buffers of each
// type's chunks in chunk order (seen at ggml_backend_buft_alloc_buffer while
// a reserve runs: ggml allocates chunk 0, 1, ... of each type in turn). The
// caller holds the capture lock.

#include "capture.h"
#include "ggml-impl.h"

#include <stdlib.h>

static struct capture_alloc * allocators;

struct capture_alloc * capture_alloc_find(ggml_gallocr_t galloc) {
    for (struct capture_alloc * ca = allocators; ca != NULL; ca = ca->next) {
        if (ca->galloc == galloc) {
            return ca;
        }
    }
    return NULL;
}

static void alloc_free(struct capture_alloc * ca) {
    free(ca->bufts);
    free(ca->leader);
    free(ca->chunks);
    free(ca->replay.slots);
    capture_layout_free(&ca->layout);
    free(ca);
}

void capture_alloc_remove(ggml_gallocr_t galloc) {
    for (struct capture_alloc ** link = &allocators; *link != NULL; link = &(*link)->next) {
        if ((*link)->galloc == galloc) {
            struct capture_alloc * ca = *link;
            *link = ca->next;
            alloc_free(ca);
            return;
        }
    }
}

struct capture_alloc * capture_alloc_add(ggml_gallocr_t galloc, ggml_backend_buffer_type_t * bufts, int n_bufts) {
    capture_alloc_remove(galloc); // the address of an allocator freed without us seeing it
    if (n_bufts < 1) {
        return NULL;
    }
    struct capture_alloc * ca = calloc(1, sizeof(*ca));
    if (ca == NULL) {
        return NULL;
    }
    ca->galloc  = galloc;
    ca->n_bufts = n_bufts;
    ca->bufts   = malloc((size_t) n_bufts * sizeof(*ca->bufts));
    ca->leader  = malloc((size_t) n_bufts * sizeof(*ca->leader));
    ca->chunks  = calloc((size_t) n_bufts, sizeof(*ca->chunks));
    ca->graph   = -1;
    if (ca->bufts == NULL || ca->leader == NULL || ca->chunks == NULL) {
        alloc_free(ca);
        return NULL;
    }
    for (int i = 0; i < n_bufts; i++) {
        ca->bufts[i]  = bufts[i];
        ca->leader[i] = i;
        for (int j = 0; j < i; j++) {
            if (bufts[j] == bufts[i]) {
                ca->leader[i] = ca->leader[j];
                break;
            }
        }
    }
    ca->next   = allocators;
    allocators = ca;
    capture_stats.allocators++;
    return ca;
}

void capture_alloc_begin_reserve(struct capture_alloc * ca) {
    ca->epoch++;
}

void capture_alloc_record_buffer(struct capture_alloc * ca, ggml_backend_buffer_type_t buft, ggml_backend_buffer_t buffer) {
    int type = -1;
    for (int i = 0; i < ca->n_bufts && type < 0; i++) {
        type = ca->bufts[i] == buft ? ca->leader[i] : -1;
    }
    if (type < 0) {
        return;
    }
    struct capture_chunks * c = &ca->chunks[type];
    if (c->epoch != ca->epoch) {
        // the first chunk this reserve allocates: ggml freed the type's old buffers
        c->n     = 0;
        c->epoch = ca->epoch;
        c->known = true;
    }
    if (c->n < CAPTURE_MAX_CHUNKS) {
        c->buffers[c->n++] = buffer;
    } else {
        c->known = false;
    }
}

void capture_alloc_forget_freed(struct capture_alloc * ca) {
    for (int i = 0; i < ca->n_bufts; i++) {
        if (ca->leader[i] == i && ggml_gallocr_get_buffer_size(ca->galloc, i) == 0) {
            ca->chunks[i].n     = 0;
            ca->chunks[i].known = false;
        }
    }
}

bool capture_alloc_locate(const struct capture_alloc * ca, ggml_backend_buffer_t buffer, int * type, int * chunk) {
    for (int i = 0; i < ca->n_bufts; i++) {
        const struct capture_chunks * c = &ca->chunks[i];
        for (int k = 0; ca->leader[i] == i && c->known && k < c->n; k++) {
            if (c->buffers[k] == buffer) {
                *type  = i;
                *chunk = k;
                return true;
            }
        }
    }
    return false;
}
