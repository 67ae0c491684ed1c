// fake-backend.h: a buffer type for tests that allocates no memory and records buffers.
//
// Like the dummy backend of the original allocator test: every buffer has a
// fake base address, buffers are remembered in allocation order so a test can
// tell which chunk a tensor landed in, and the type's alignment and max size
// are settable.

#pragma once

#include "ggml-backend-impl.h"

#define FAKE_MAX_BUFFERS 64

struct fake_backend {
    struct ggml_backend_buffer_type buft;
    struct ggml_backend_buffer_i    buffer_iface;
    size_t                          alignment;
    size_t                          max_size;
    ggml_backend_buffer_t           buffers[FAKE_MAX_BUFFERS]; // live buffers, in allocation order
    int                             n_buffers;
    int                             fail_allocations; // > 0: the next n allocations fail
};

void   fake_backend_init(struct fake_backend * fb, size_t max_size, size_t alignment);
size_t fake_backend_allocated_total(const struct fake_backend * fb);
// index of buffer among the live buffers (= chunk for graph-allocator buffers), -1 if not ours
int    fake_backend_buffer_index(const struct fake_backend * fb, ggml_backend_buffer_t buffer);
// byte offset of a placed tensor inside its buffer
size_t fake_backend_offset(const struct ggml_tensor * t);
