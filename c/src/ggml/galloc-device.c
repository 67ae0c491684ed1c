// galloc-device.c: virtual devices made from profiles (see galloc-device.h).
//
// A profile is what one of ggml's backends reports: names, buffer type, host buffer type,
// alignment, max buffer size, the get_alloc_size rule, supports_op, offload_op's batch
// threshold, device type, memory. Each device owns its buffer type (virtual buffers: a size,
// no memory); host buffer types are one per kind family, static, as upstream's are. The
// profiles' notes (what was checked against a real run, what was read from the backend's
// code) are beside each profile in galloc-device-profiles.c.

#include "galloc-device-impl.h"
#include "galloc-virtual.h"
#include "ggml-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct galloc_dev * dev_of(ggml_backend_dev_t dev) {
    return (struct galloc_dev *) dev->context;
}

static const char * dev_get_name(ggml_backend_dev_t dev) {
    return dev_of(dev)->name;
}

static const char * dev_get_description(ggml_backend_dev_t dev) {
    return dev_of(dev)->description;
}

static void dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    *free  = dev_of(dev)->mem_free;
    *total = dev_of(dev)->mem_total;
}

static enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t dev) {
    return dev_of(dev)->profile->type;
}

static const char * backend_get_name(ggml_backend_t backend) {
    return dev_of(backend->device)->backend_name;
}

static void backend_graph_optimize(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    const struct galloc_device_profile * p = dev_of(backend->device)->profile;
    if (p->graph_optimize) {
        p->graph_optimize(cgraph);
    }
}

static ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    GGML_UNUSED(params);
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (backend != NULL) {
        backend->iface.get_name       = backend_get_name;
        backend->iface.graph_optimize = backend_graph_optimize;
        backend->device               = dev;
    }
    return backend;
}

static ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &dev_of(dev)->buft;
}

static ggml_backend_buffer_type_t dev_get_host_buffer_type(ggml_backend_dev_t dev) {
    const struct galloc_device_profile * p = dev_of(dev)->profile;
    return p->host_buft ? p->host_buft() : NULL;
}

static bool dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    return dev_of(dev)->profile->supports_op(dev_of(dev), op);
}

static bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    if (dev_of(dev)->profile->type == GGML_BACKEND_DEVICE_TYPE_CPU) {
        return ggml_backend_buft_is_host(buft); // as ggml-cpu: any host memory
    }
    return buft == &dev_of(dev)->buft;
}

static bool dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    const struct galloc_device_profile * p = dev_of(dev)->profile;
    if (p->offload_min_batch <= 0) {
        return false;
    }
    if (p->offload_mul_mat_only) {
        // ggml-metal: MUL_MAT by ne[1], MUL_MAT_ID by ne[2]
        return (op->op == GGML_OP_MUL_MAT && op->ne[1] >= p->offload_min_batch) ||
               (op->op == GGML_OP_MUL_MAT_ID && op->ne[2] >= p->offload_min_batch);
    }
    return galloc_device_op_batch_size(op) >= p->offload_min_batch;
}

// ggml-cuda's and ggml-vulkan's get_op_batch_size: the tokens an op works on
int64_t galloc_device_op_batch_size(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_GET_ROWS:
            return 0;
        case GGML_OP_MUL_MAT:
            return op->ne[1];
        case GGML_OP_MUL_MAT_ID:
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK:
            return op->ne[2];
        default:
            return ggml_nrows(op);
    }
}

// ---- buffer types -----------------------------------------------------------

static const char * buft_get_name(ggml_backend_buffer_type_t buft) {
    return ((struct galloc_dev *) buft->context)->buft_name;
}

static size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return ((struct galloc_dev *) buft->context)->profile->alignment;
}

static size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return ((struct galloc_dev *) buft->context)->profile->max_size;
}

static size_t buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    const struct galloc_device_profile * p = ((struct galloc_dev *) buft->context)->profile;
    return p->alloc_size ? p->alloc_size(tensor) : ggml_nbytes(tensor);
}

static bool buft_is_host(ggml_backend_buffer_type_t buft) {
    return ((struct galloc_dev *) buft->context)->profile->is_host;
}

// ---- devices ----------------------------------------------------------------

static const struct ggml_backend_device_i dev_iface = {
    .get_name             = dev_get_name,
    .get_description      = dev_get_description,
    .get_memory           = dev_get_memory,
    .get_type             = dev_get_type,
    .init_backend         = dev_init_backend,
    .get_buffer_type      = dev_get_buffer_type,
    .get_host_buffer_type = dev_get_host_buffer_type,
    .supports_op          = dev_supports_op,
    .supports_buft        = dev_supports_buft,
    .offload_op           = dev_offload_op,
};

static void fill(struct galloc_dev * d, const struct galloc_device_profile * p, int index, const char * endpoint) {
    d->profile = p;
    d->index   = index;
    if (p->rpc) {
        char ep[64];
        if (endpoint == NULL) {
            snprintf(ep, sizeof(ep), "127.0.0.1:%d", 50052 + index);
            endpoint = ep;
        }
        // ggml-rpc: device RPC<n> (numbered over all servers), buffer type and backend
        // RPC<server's device>[endpoint]; the server's device 0 here
        snprintf(d->name, sizeof(d->name), "RPC%d", index);
        snprintf(d->buft_name, sizeof(d->buft_name), "RPC0[%s]", endpoint);
        snprintf(d->description, sizeof(d->description), "%s", endpoint);
    } else if (p->numbered) {
        snprintf(d->name, sizeof(d->name), "%s%d", p->prefix, index);
        snprintf(d->buft_name, sizeof(d->buft_name), "%s%d", p->prefix, index);
        snprintf(d->description, sizeof(d->description), "%s", p->description);
    } else {
        snprintf(d->name, sizeof(d->name), "%s", p->prefix);
        snprintf(d->buft_name, sizeof(d->buft_name), "%s", p->prefix);
        snprintf(d->description, sizeof(d->description), "%s", p->description);
    }
    snprintf(d->backend_name, sizeof(d->backend_name), "%s", p->rpc ? d->buft_name : d->name);
    d->mem_total = p->memory;
    d->mem_free  = p->memory;

    d->buft.iface.get_name       = buft_get_name;
    d->buft.iface.alloc_buffer   = p->alloc_buffer ? p->alloc_buffer : galloc_virtual_alloc_buffer;
    d->buft.iface.get_alignment  = buft_get_alignment;
    d->buft.iface.get_max_size   = buft_get_max_size;
    d->buft.iface.get_alloc_size = buft_get_alloc_size;
    d->buft.iface.is_host        = buft_is_host;
    d->buft.device               = &d->dev;
    d->buft.context              = d;

    d->dev.iface   = dev_iface;
    d->dev.reg     = NULL;
    d->dev.context = d;
}

ggml_backend_dev_t galloc_device_new(const char * kind, int index, const char * endpoint) {
    const struct galloc_device_profile * p = galloc_device_profile_find(kind);
    if (p == NULL || index < 0 || index >= 16) {
        return NULL;
    }
    if (p->type == GGML_BACKEND_DEVICE_TYPE_CPU) {
        static struct galloc_dev cpu;
        static bool made;
        if (!made) {
            fill(&cpu, p, 0, NULL);
            made = true;
        }
        return &cpu.dev;
    }
    if (endpoint != NULL && strlen(endpoint) > 48) {
        return NULL;
    }
    struct galloc_dev * d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return NULL;
    }
    fill(d, p, index, endpoint);
    return &d->dev;
}

void galloc_device_free(ggml_backend_dev_t dev) {
    if (dev == NULL || dev->iface.get_name != dev_get_name || dev_of(dev)->profile->type == GGML_BACKEND_DEVICE_TYPE_CPU) {
        return;
    }
    free(dev_of(dev));
}

const char * galloc_device_kind(ggml_backend_dev_t dev) {
    if (dev == NULL || dev->iface.get_name != dev_get_name) {
        return NULL;
    }
    return dev_of(dev)->profile->kind;
}

void galloc_device_set_memory(ggml_backend_dev_t dev, size_t free, size_t total) {
    if (dev == NULL || dev->iface.get_name != dev_get_name) {
        return;
    }
    dev_of(dev)->mem_free  = free;
    dev_of(dev)->mem_total = total;
}
