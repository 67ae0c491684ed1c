// galloc-virtual.c: virtual buffer types (see galloc-virtual.h).
//
// Every buffer of a virtual type reports the same fake base address, aligned
// for any power-of-two alignment up to 4096; only offsets inside a buffer
// mean anything. A padded type asks a fixed number of bytes more than
// ggml_nbytes for every tensor.

#include "galloc-virtual.h"
#include "ggml-backend-impl.h"

#include <stdlib.h>
#include <string.h>

#define VIRTUAL_BASE ((void *) (uintptr_t) 4096)

struct virtual_type {
    struct ggml_backend_buffer_type buft;
    char                            name[64];
    size_t                          alignment;
    size_t                          max_size;
    size_t                          pad; // bytes added to every tensor's ggml_nbytes
};

static const char * virtual_get_name(ggml_backend_buffer_type_t buft) {
    return ((struct virtual_type *) buft->context)->name;
}

static void * virtual_get_base(ggml_backend_buffer_t buffer) {
    (void) buffer;
    return VIRTUAL_BASE;
}

ggml_backend_buffer_t galloc_virtual_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct ggml_backend_buffer_i iface = { 0 };
    iface.get_base = virtual_get_base;
    return ggml_backend_buffer_init(buft, iface, NULL, size);
}

static size_t virtual_get_alignment(ggml_backend_buffer_type_t buft) {
    return ((struct virtual_type *) buft->context)->alignment;
}

static size_t virtual_get_max_size(ggml_backend_buffer_type_t buft) {
    return ((struct virtual_type *) buft->context)->max_size;
}

static size_t virtual_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    return ggml_nbytes(tensor) + ((struct virtual_type *) buft->context)->pad;
}

ggml_backend_buffer_type_t galloc_virtual_buft_new_padded(const char * name, size_t alignment, size_t max_size, size_t pad) {
    ggml_backend_buffer_type_t buft = galloc_virtual_buft_new(name, alignment, max_size);
    if (buft && pad > 0) {
        ((struct virtual_type *) buft->context)->pad = pad;
        buft->iface.get_alloc_size                   = virtual_get_alloc_size;
    }
    return buft;
}

ggml_backend_buffer_type_t galloc_virtual_buft_new(const char * name, size_t alignment, size_t max_size) {
    struct virtual_type * vt = calloc(1, sizeof(*vt));
    if (!vt) {
        return NULL;
    }
    strncpy(vt->name, name ? name : "virtual", sizeof(vt->name) - 1);
    vt->alignment = alignment;
    vt->max_size  = max_size;
    vt->buft.iface.get_name      = virtual_get_name;
    vt->buft.iface.alloc_buffer  = galloc_virtual_alloc_buffer;
    vt->buft.iface.get_alignment = virtual_get_alignment;
    vt->buft.iface.get_max_size  = virtual_get_max_size;
    vt->buft.context             = vt;
    return &vt->buft;
}

void galloc_virtual_buft_free(ggml_backend_buffer_type_t buft) {
    if (buft) {
        free(buft->context);
    }
}
