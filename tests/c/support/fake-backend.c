// fake-backend.c: the recording test buffer type (see fake-backend.h).
//
// Buffers share one fake base address (4096: aligned for any alignment tested), so only
// offsets inside a buffer are meaningful; nothing is ever dereferenced.

#include "fake-backend.h"

#include <stdio.h>
#include <stdlib.h>

static char * const fake_base = (char *) 4096;

static const char * fake_buft_get_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "fake";
}

static ggml_backend_buffer_t fake_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct fake_backend * fb = buft->context;
    if (fb->fail_allocations > 0) {
        fb->fail_allocations--;
        return NULL;
    }
    if (fb->n_buffers == FAKE_MAX_BUFFERS) {
        fprintf(stderr, "fake backend: too many buffers\n");
        abort();
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, fb->buffer_iface, fb, size);
    if (buffer != NULL) { // NULL: out of memory
        fb->buffers[fb->n_buffers++] = buffer;
    }
    return buffer;
}

static size_t fake_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return ((struct fake_backend *) buft->context)->alignment;
}

static size_t fake_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return ((struct fake_backend *) buft->context)->max_size;
}

static void fake_buffer_free(ggml_backend_buffer_t buffer) {
    struct fake_backend * fb = buffer->context;
    for (int i = 0; i < fb->n_buffers; i++) {
        if (fb->buffers[i] == buffer) {
            for (int j = i + 1; j < fb->n_buffers; j++) {
                fb->buffers[j - 1] = fb->buffers[j];
            }
            fb->n_buffers--;
            return;
        }
    }
    fprintf(stderr, "fake backend: freeing an unknown buffer\n");
    abort();
}

static void * fake_buffer_get_base(ggml_backend_buffer_t buffer) {
    (void) buffer;
    return fake_base;
}

void fake_backend_init(struct fake_backend * fb, size_t max_size, size_t alignment) {
    *fb = (struct fake_backend) { 0 };
    fb->alignment = alignment;
    fb->max_size  = max_size;
    fb->buffer_iface.free_buffer = fake_buffer_free;
    fb->buffer_iface.get_base    = fake_buffer_get_base;
    fb->buft.iface.get_name      = fake_buft_get_name;
    fb->buft.iface.alloc_buffer  = fake_buft_alloc_buffer;
    fb->buft.iface.get_alignment = fake_buft_get_alignment;
    fb->buft.iface.get_max_size  = fake_buft_get_max_size;
    fb->buft.context             = fb;
}

size_t fake_backend_allocated_total(const struct fake_backend * fb) {
    size_t total = 0;
    for (int i = 0; i < fb->n_buffers; i++) {
        total += ggml_backend_buffer_get_size(fb->buffers[i]);
    }
    return total;
}

int fake_backend_buffer_index(const struct fake_backend * fb, ggml_backend_buffer_t buffer) {
    for (int i = 0; i < fb->n_buffers; i++) {
        if (fb->buffers[i] == buffer) {
            return i;
        }
    }
    return -1;
}

size_t fake_backend_offset(const struct ggml_tensor * t) {
    return (size_t) ((char *) t->data - fake_base);
}
