// ggml-backend.c: backend buffer types and buffers (the memory side of ggml-backend).
//
// Dispatches to a buffer type's or buffer's interface table, with ggml's
// defaults for missing entries; places tensors and views in buffers; and
// provides the host buffer type (malloc'd memory) and multi-buffers (several
// buffers presented as one, as ggml_backend_alloc_ctx_tensors_from_buft returns).

#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

// ---- buffer types -------------------------------------------------------

const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft) {
    return buft->iface.get_name ? buft->iface.get_name(buft) : "unnamed";
}

ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size == 0) {
        // a zero-size buffer never reaches the type
        struct ggml_backend_buffer_i none = { 0 };
        return ggml_backend_buffer_init(buft, none, NULL, 0);
    }
    return buft->iface.alloc_buffer(buft, size);
}

size_t ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return buft->iface.get_alignment(buft);
}

size_t ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return buft->iface.get_max_size ? buft->iface.get_max_size(buft) : SIZE_MAX;
}

size_t ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    if (buft->iface.get_alloc_size) {
        size_t size = buft->iface.get_alloc_size(buft, tensor);
        GGML_ASSERT(size >= ggml_nbytes(tensor));
        return size;
    }
    return ggml_nbytes(tensor);
}

bool ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft) {
    return buft->iface.is_host ? buft->iface.is_host(buft) : false;
}

// ---- buffers ------------------------------------------------------------

ggml_backend_buffer_t ggml_backend_buffer_init(ggml_backend_buffer_type_t buft, struct ggml_backend_buffer_i iface,
                                               void * context, size_t size) {
    ggml_backend_buffer_t buffer = malloc(sizeof(*buffer));
    if (buffer == NULL) {
        return NULL; // out of memory: the caller frees context (upstream's new throws)
    }
    *buffer = (struct ggml_backend_buffer) {
        .iface   = iface,
        .buft    = buft,
        .context = context,
        .size    = size,
        .usage   = GGML_BACKEND_BUFFER_USAGE_ANY,
    };
    return buffer;
}

const char * ggml_backend_buffer_name(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_name(buffer->buft);
}

void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        return;
    }
    if (buffer->iface.free_buffer) {
        buffer->iface.free_buffer(buffer);
    }
    free(buffer);
}

size_t ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer) {
    return buffer->size;
}

void * ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer) {
    if (buffer->size == 0) {
        return NULL; // zero-size buffers have no memory
    }
    GGML_ASSERT(buffer->iface.get_base != NULL);
    void * base = buffer->iface.get_base(buffer);
    GGML_ASSERT(base != NULL && "backend buffer base cannot be NULL");
    return base;
}

enum ggml_status ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    return buffer->iface.init_tensor ? buffer->iface.init_tensor(buffer, tensor) : GGML_STATUS_SUCCESS;
}

size_t ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_alignment(buffer->buft);
}

size_t ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_get_max_size(buffer->buft);
}

size_t ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor) {
    return ggml_backend_buft_get_alloc_size(buffer->buft, tensor);
}

void ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    if (buffer->size == 0 || !buffer->iface.clear) {
        return;
    }
    buffer->iface.clear(buffer, value);
}

bool ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer) {
    return ggml_backend_buft_is_host(buffer->buft);
}

void ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    buffer->usage = usage;
    if (ggml_backend_buffer_is_multi_buffer(buffer)) {
        ggml_backend_multi_buffer_set_usage(buffer, usage);
    }
}

enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer) {
    return buffer->usage;
}

ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer) {
    return buffer->buft;
}

void ggml_backend_buffer_reset(ggml_backend_buffer_t buffer) {
    if (buffer->iface.reset) {
        buffer->iface.reset(buffer);
    }
}

// ---- placing tensors ----------------------------------------------------

enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr) {
    GGML_ASSERT(tensor->buffer == NULL && "tensor already has a buffer (allocated twice?)");
    GGML_ASSERT(tensor->data == NULL && "tensor already has data (allocated twice?)");
    GGML_ASSERT(tensor->view_src == NULL && "views are placed with ggml_backend_view_init");
    char * base = ggml_backend_buffer_get_base(buffer);
    size_t size = ggml_backend_buffer_get_alloc_size(buffer, tensor);
    GGML_ASSERT((char *) addr >= base && "tensor address is below its buffer");
    GGML_ASSERT((size_t) ((char *) addr - base) + size <= ggml_backend_buffer_get_size(buffer) && "tensor reaches past its buffer");

    tensor->buffer = buffer;
    tensor->data   = addr;
    return ggml_backend_buffer_init_tensor(buffer, tensor);
}

enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->view_src != NULL && "not a view");
    GGML_ASSERT(tensor->buffer == NULL && "view already initialised");
    GGML_ASSERT(tensor->view_src->buffer != NULL && "view of a tensor that has no buffer");
    GGML_ASSERT(tensor->view_src->data != NULL && "view of a tensor that has no data");

    tensor->buffer = tensor->view_src->buffer;
    tensor->data   = (char *) tensor->view_src->data + tensor->view_offs;
    return ggml_backend_buffer_init_tensor(tensor->buffer, tensor);
}

// ---- host buffer type ---------------------------------------------------

#define CPU_ALIGNMENT 32

static const char * cpu_buft_get_name(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return "CPU";
}

static void cpu_buffer_free(ggml_backend_buffer_t buffer) {
    free(buffer->context);
}

static void * cpu_buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void cpu_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    memset((char *) tensor->data + offset, value, size);
}

static void cpu_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    memcpy((char *) tensor->data + offset, data, size);
}

static void cpu_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    GGML_UNUSED(buffer);
    memcpy(data, (const char *) tensor->data + offset, size);
}

static void cpu_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

static const struct ggml_backend_buffer_i cpu_buffer_iface = {
    .free_buffer   = cpu_buffer_free,
    .get_base      = cpu_buffer_get_base,
    .memset_tensor = cpu_buffer_memset_tensor,
    .set_tensor    = cpu_buffer_set_tensor,
    .get_tensor    = cpu_buffer_get_tensor,
    .clear         = cpu_buffer_clear,
};

static ggml_backend_buffer_t cpu_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    void * data = NULL;
    if (posix_memalign(&data, CPU_ALIGNMENT, size) != 0) {
        GGML_LOG_ERROR("%s: failed to allocate buffer of size %zu\n", __func__, size);
        return NULL;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, cpu_buffer_iface, data, size);
    if (buffer == NULL) {
        free(data);
    }
    return buffer;
}

static size_t cpu_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return CPU_ALIGNMENT;
}

static bool cpu_buft_is_host(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return true;
}

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static struct ggml_backend_buffer_type cpu_buft = {
        .iface = {
            .get_name      = cpu_buft_get_name,
            .alloc_buffer  = cpu_buft_alloc_buffer,
            .get_alignment = cpu_buft_get_alignment,
            .is_host       = cpu_buft_is_host,
        },
        .device  = NULL,
        .context = NULL,
    };
    return &cpu_buft;
}

static void cpu_buffer_from_ptr_free(ggml_backend_buffer_t buffer) {
    GGML_UNUSED(buffer); // the caller owns the memory
}

ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size) {
    GGML_ASSERT((uintptr_t) ptr % CPU_ALIGNMENT == 0 && "buffer pointer must be aligned");
    struct ggml_backend_buffer_i iface = cpu_buffer_iface;
    iface.free_buffer = cpu_buffer_from_ptr_free;
    return ggml_backend_buffer_init(ggml_backend_cpu_buffer_type(), iface, ptr, size);
}

// ---- multi-buffers ------------------------------------------------------

struct multi_buffer_context {
    ggml_backend_buffer_t * buffers;
    size_t                  n_buffers;
};

static void multi_buffer_free(ggml_backend_buffer_t buffer) {
    struct multi_buffer_context * ctx = buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_free(ctx->buffers[i]);
    }
    free(ctx->buffers);
    free(ctx);
}

static void multi_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct multi_buffer_context * ctx = buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_clear(ctx->buffers[i], value);
    }
}

static const struct ggml_backend_buffer_i multi_buffer_iface = {
    .free_buffer = multi_buffer_free,
    .clear       = multi_buffer_clear,
};

ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers) {
    GGML_ASSERT(n_buffers > 0);
    // out of memory: NULL, the buffers left to the caller
    struct multi_buffer_context * ctx = malloc(sizeof(*ctx));
    if (ctx == NULL) {
        return NULL;
    }
    ctx->buffers = malloc(n_buffers * sizeof(*ctx->buffers));
    if (ctx->buffers == NULL) {
        free(ctx);
        return NULL;
    }
    ctx->n_buffers = n_buffers;

    size_t total = 0;
    for (size_t i = 0; i < n_buffers; i++) {
        ctx->buffers[i] = buffers[i];
        total += ggml_backend_buffer_get_size(buffers[i]);
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buffers[0]->buft, multi_buffer_iface, ctx, total);
    if (buffer == NULL) {
        free(ctx->buffers);
        free(ctx);
    }
    return buffer;
}

bool ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer) {
    return buffer->iface.free_buffer == multi_buffer_free;
}

void ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    GGML_ASSERT(ggml_backend_buffer_is_multi_buffer(buffer));
    struct multi_buffer_context * ctx = buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_set_usage(ctx->buffers[i], usage);
    }
}
