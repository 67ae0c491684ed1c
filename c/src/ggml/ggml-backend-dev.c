// ggml-backend-dev.c: devices and backends (streams): dispatch to their tables, and the CPU device.
//
// A device answers questions (names, buffer types, supports_op, offload_op); a backend is a
// device's stream and, with nothing to compute here, only names it and forwards questions to
// it. The CPU device here is upstream's CPU backend as far as the scheduler asks: buffer type
// CPU (ggml_backend_cpu_buffer_type, real memory), every host buffer type supported, the ops
// of ggml-cpu's supports_op that the model builders can make.

#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <stdlib.h>

// ---- buffer types' devices ----------------------------------------------

ggml_backend_dev_t ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft) {
    return buft->device;
}

// ---- backends -------------------------------------------------------------

const char * ggml_backend_name(ggml_backend_t backend) {
    if (backend == NULL) {
        return "NULL";
    }
    return backend->iface.get_name ? backend->iface.get_name(backend) : ggml_backend_dev_name(backend->device);
}

void ggml_backend_free(ggml_backend_t backend) {
    if (backend == NULL) {
        return;
    }
    if (backend->iface.free) {
        backend->iface.free(backend);
    }
    free(backend);
}

ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend) {
    return ggml_backend_dev_buffer_type(backend->device);
}

ggml_backend_buffer_t ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size) {
    return ggml_backend_buft_alloc_buffer(ggml_backend_get_default_buffer_type(backend), size);
}

size_t ggml_backend_get_alignment(ggml_backend_t backend) {
    return ggml_backend_buft_get_alignment(ggml_backend_get_default_buffer_type(backend));
}

size_t ggml_backend_get_max_size(ggml_backend_t backend) {
    return ggml_backend_buft_get_max_size(ggml_backend_get_default_buffer_type(backend));
}

void ggml_backend_synchronize(ggml_backend_t backend) {
    GGML_UNUSED(backend);
}

bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    return ggml_backend_dev_supports_op(backend->device, op);
}

bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft) {
    return ggml_backend_dev_supports_buft(backend->device, buft);
}

bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    return ggml_backend_dev_offload_op(backend->device, op);
}

ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend) {
    return backend->device;
}

void ggml_backend_graph_optimize(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    if (backend->iface.graph_optimize) {
        backend->iface.graph_optimize(backend, cgraph);
    }
}

// ---- devices --------------------------------------------------------------

const char * ggml_backend_dev_name(ggml_backend_dev_t device) {
    return device->iface.get_name(device);
}

const char * ggml_backend_dev_description(ggml_backend_dev_t device) {
    return device->iface.get_description ? device->iface.get_description(device) : ggml_backend_dev_name(device);
}

void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total) {
    *free  = 0;
    *total = 0;
    if (device->iface.get_memory) {
        device->iface.get_memory(device, free, total);
    }
}

enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device) {
    return device->iface.get_type(device);
}

ggml_backend_t ggml_backend_dev_init(ggml_backend_dev_t device, const char * params) {
    return device->iface.init_backend(device, params);
}

ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device) {
    return device->iface.get_buffer_type(device);
}

ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device) {
    return device->iface.get_host_buffer_type ? device->iface.get_host_buffer_type(device) : NULL;
}

bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    return device->iface.supports_op(device, op);
}

bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft) {
    return device->iface.supports_buft(device, buft);
}

bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    return device->iface.offload_op ? device->iface.offload_op(device, op) : false;
}

// ---- the CPU device -------------------------------------------------------

static const char * cpu_dev_get_name(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return "CPU";
}

static enum ggml_backend_dev_type cpu_dev_get_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return GGML_BACKEND_DEVICE_TYPE_CPU;
}

static ggml_backend_buffer_type_t cpu_dev_get_buffer_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return ggml_backend_cpu_buffer_type();
}

static ggml_backend_t cpu_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    GGML_UNUSED(params);
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (backend != NULL) {
        backend->device = dev;
    }
    return backend;
}

static bool cpu_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(dev);
    return ggml_backend_buft_is_host(buft);
}

bool ggml_backend_cpu_device_supports_op_impl(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_CPY:
        case GGML_OP_SET_ROWS:
            // ggml-cpu has no from_float for these types
            return op->type != GGML_TYPE_IQ3_XXS && op->type != GGML_TYPE_IQ3_S && op->type != GGML_TYPE_IQ2_XXS &&
                   op->type != GGML_TYPE_IQ2_XS && op->type != GGML_TYPE_IQ2_S && op->type != GGML_TYPE_IQ1_S &&
                   op->type != GGML_TYPE_IQ1_M;
        case GGML_OP_MUL_MAT:
            // src1 must be f32 or src0's vec_dot type (f16 for f16, bf16 for bf16, f32 for f32)
            return op->src[1]->type == GGML_TYPE_F32 ||
                   (op->src[1]->type == op->src[0]->type &&
                    (op->src[0]->type == GGML_TYPE_F16 || op->src[0]->type == GGML_TYPE_BF16));
        default:
            return true;
    }
}

static bool cpu_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    return ggml_backend_cpu_device_supports_op_impl(op);
}

static struct ggml_backend_device cpu_device = {
    .iface = {
        .get_name        = cpu_dev_get_name,
        .get_type        = cpu_dev_get_type,
        .init_backend    = cpu_dev_init_backend,
        .get_buffer_type = cpu_dev_get_buffer_type,
        .supports_op     = cpu_dev_supports_op,
        .supports_buft   = cpu_dev_supports_buft,
    },
    .reg     = NULL,
    .context = NULL,
};

ggml_backend_dev_t ggml_backend_cpu_device(void) {
    return &cpu_device;
}

ggml_backend_t ggml_backend_cpu_init(void) {
    return ggml_backend_dev_init(&cpu_device, NULL);
}

bool ggml_backend_is_cpu(ggml_backend_t backend) {
    return backend != NULL && ggml_backend_dev_type(backend->device) == GGML_BACKEND_DEVICE_TYPE_CPU;
}
