// capture-placement.c: the placement ggml made, written as a plan document.
//
// After ggml_gallocr_alloc_graph every tensor it placed has a backend buffer
// (one chunk of one buffer type) and an address in it; views point into their
// source's memory. ggml places a graph by the positions of its last reserve
// (capture-layout.c), so the tensor at each position tells where the reserved
// graph's tensor of that position went. The plan document lists, index for
// index with the reserved graph's document, each tensor's buffer type, chunk
// and offset, so that `galloc diff` compares it with the project's plan:
//
//  - views: their source's place plus the reserved view's offset (ggml derives them so);
//  - chunk: the position of the tensor's backend buffer among the chunks the
//    allocator's reserve allocated for that type (capture-registry.c);
//  - chunk_sizes: the end of the furthest tensor of each chunk (offset + alloc
//    size, aligned), which is what ggml's allocator asks the backend for;
//    buffer_sizes: the buffers really in use (larger when ggml kept buffers
//    from an earlier, larger reserve); size: their sum, 0 for a type listed
//    again (it shares the first one's allocator and buffers);
//  - buffer: the id ggml gave the tensor, the one it was first placed with,
//    or its source's when it took that memory over in place (these differ only
//    between entries of one buffer type listed twice).

#define _GNU_SOURCE
#include "capture.h"
#include "ggml-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

bool capture_before_take(struct capture_before * b, const struct capture_alloc * ca, const struct ggml_cgraph * graph) {
    const struct capture_layout * l = &ca->layout;
    size_t                        n = (size_t) (l->n > 0 ? l->n : 1);
    b->tensors  = malloc(n * sizeof(*b->tensors));
    b->external = malloc(n * sizeof(*b->external));
    if (b->tensors == NULL || b->external == NULL || l->pos == NULL) {
        capture_before_free(b);
        return false;
    }
    b->n = l->n;
    for (int32_t k = 0; k < l->n; k++) {
        struct ggml_tensor * t = l->pos[k].kind >= 0 ? capture_tensor_at(graph, &l->pos[k]) : NULL;
        const struct ggml_tensor * root = t && t->view_src ? t->view_src : t;
        b->tensors[k]  = t;
        b->external[k] = root == NULL || root->data != NULL || root->buffer != NULL;
    }
    return true;
}

void capture_before_free(struct capture_before * b) {
    free(b->tensors);
    free(b->external);
    b->tensors  = NULL;
    b->external = NULL;
    b->n        = 0;
}

struct place {
    int    type;  // leader buffer type, -1: no place
    int    chunk;
    size_t offset;
    int    label; // the buffer id written
};

static void write_size(FILE * f, uint64_t v) {
    if (v > (1ULL << 53)) {
        fprintf(f, "\"%" PRIu64 "\"", v);
    } else {
        fprintf(f, "%" PRIu64, v);
    }
}

// where each tensor is; false when a placed tensor's buffer is of none of the allocator's types
static bool locate_all(const struct capture_alloc * ca, const struct capture_before * before, struct place * places) {
    // buffers no reserve was seen allocating (a build that hides ggml_backend_buft_alloc_buffer): numbered in order of use
    ggml_backend_buffer_t seen[CAPTURE_MAX_CHUNKS];
    int                   seen_type[CAPTURE_MAX_CHUNKS];
    int                   n_seen = 0;
    bool                  ok     = true;
    const struct capture_layout * l = &ca->layout;
    for (int32_t k = 0; k < before->n; k++) {
        const struct ggml_tensor * t = before->tensors[k];
        places[k] = (struct place) { -1, 0, 0, -1 };
        if (before->external[k] || t->buffer == NULL || t->data == NULL) {
            continue;
        }
        if (l->view[k]) {
            // ggml derives a view from its source: the reserved graph's source place and view offset
            int32_t r = l->root[k];
            if (r >= 0 && r < k && places[r].type >= 0) {
                places[k]         = places[r];
                places[k].offset += l->offs[k];
            }
            continue;
        }
        int type = -1, chunk = 0;
        if (!capture_alloc_locate(ca, t->buffer, &type, &chunk)) {
            ggml_backend_buffer_type_t bt = ggml_backend_buffer_get_type(t->buffer);
            for (int b = 0; b < ca->n_bufts && type < 0; b++) {
                type = ca->bufts[b] == bt ? ca->leader[b] : -1;
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
        places[k].type   = type;
        places[k].chunk  = chunk;
        places[k].offset = (size_t) ((const char *) t->data - (const char *) ggml_backend_buffer_get_base(t->buffer));
    }
    return ok;
}

// the buffer id of each placed tensor (document order: sources and view roots come first)
static void label_all(const struct capture_alloc * ca, struct place * places) {
    const struct capture_layout * l = &ca->layout;
    for (int32_t k = 0; k < l->n; k++) {
        struct place * p = &places[k];
        if (p->type < 0) {
            continue;
        }
        int id   = l->first_id[k];
        p->label = id >= 0 && id < ca->n_bufts && ca->leader[id] == p->type ? id : p->type;
        if (l->view[k]) {
            int32_t r = l->root[k]; // a view is written with its source's buffer id
            p->label  = r >= 0 && places[r].label >= 0 ? places[r].label : p->label;
            continue;
        }
        // in place of a source: at the source's address while the source was still live
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            int32_t s = l->src[(size_t) k * GGML_MAX_SRC + j];
            if (s >= 0 && !l->view[s] && places[s].type == p->type && places[s].chunk == p->chunk && places[s].offset == p->offset) {
                p->label = places[s].label;
                break;
            }
        }
    }
}

static void write_document(FILE * f, const struct capture_alloc * ca, const struct place * places, const char * name) {
    const struct capture_layout * l = &ca->layout;
    fprintf(f, "{\n  \"format\": \"galloc-plan\",\n  \"version\": 1,\n  \"name\": \"%s\",\n", name);
    fprintf(f, "  \"source\": \"ggml_gallocr_alloc_graph, captured by libgalloc-capture\",\n  \"buffers\": [");
    for (int b = 0; b < ca->n_bufts; b++) {
        int      leader                   = ca->leader[b];
        uint64_t ends[CAPTURE_MAX_CHUNKS] = { 0 };
        int      n_chunks                 = 0;
        size_t   align                    = ggml_backend_buft_get_alignment(ca->bufts[leader]);
        for (int32_t k = 0; k < l->n; k++) {
            if (places[k].type != leader || l->view[k] || places[k].chunk >= CAPTURE_MAX_CHUNKS) {
                continue;
            }
            uint64_t size = l->bytes[(size_t) k * ca->n_bufts + places[k].label];
            uint64_t end  = places[k].offset + (size + align - 1) / align * align;
            ends[places[k].chunk] = end > ends[places[k].chunk] ? end : ends[places[k].chunk];
            n_chunks              = places[k].chunk + 1 > n_chunks ? places[k].chunk + 1 : n_chunks;
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
    for (int e = 0; e < l->n_extra; e++) {
        fprintf(f, ",\n    { \"buffer_type\": %d, \"chunk_sizes\": [], \"size\": 0, \"buffer_sizes\": [] }", ca->n_bufts + e);
    }
    fprintf(f, "\n  ],\n  \"tensors\": [");
    for (int32_t k = 0; k < l->n; k++) {
        const struct place * p = &places[k];
        fprintf(f, "%s\n    ", k ? "," : "");
        if (p->type < 0) {
            fprintf(f, "null");
            continue;
        }
        fprintf(f, "{ \"buffer\": %d, \"chunk\": %d, \"offset\": ", p->label, p->chunk);
        write_size(f, p->offset);
        fprintf(f, ", \"size\": ");
        write_size(f, l->bytes[(size_t) k * ca->n_bufts + p->label]);
        fprintf(f, "%s }", l->view[k] ? ", \"view\": true" : "");
    }
    fprintf(f, "\n  ]\n}\n");
}

bool capture_write_placement(struct capture_alloc * ca, const struct capture_before * before) {
    int g                 = ca->graph;
    ca->placement_pending = false;
    if (capture_graph_stem(g) == NULL || before->n != ca->layout.n) {
        return false;
    }
    struct place * places = malloc((size_t) (before->n > 0 ? before->n : 1) * sizeof(*places));
    if (places == NULL) {
        capture_warn_once(3, "out of memory writing a graph document");
        return false;
    }
    if (!locate_all(ca, before, places)) {
        capture_warn_once(6, "a tensor of graph %d was placed in a buffer of none of its allocator's types; written as null",
                          capture_graph_number(g));
    }
    label_all(ca, places);
    // created, never opened: a file or a link planted at that name (the graph's stem is new) is left alone
    char   path[4096];
    FILE * f   = NULL;
    int    fd  = capture_graph_path(g, ".ggml-plan.json", path, sizeof(path)) != NULL
                     ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666) : -1;
    if (fd >= 0 && (f = fdopen(fd, "w")) == NULL) {
        close(fd);
    }
    if (f == NULL) {
        free(places);
        capture_warn_once(4, "cannot create %s: %s (nothing written over a file that is there)", path, strerror(errno));
        return false;
    }
    write_document(f, ca, places, capture_graph_stem(g));
    bool ok = fclose(f) == 0;
    free(places);
    if (ok) {
        capture_graph_set_placed(g);
        capture_stats.placements++;
        fprintf(stderr, "galloc: graph %d: ggml's placement -> %s\n", capture_graph_number(g), path);
    }
    return ok;
}
