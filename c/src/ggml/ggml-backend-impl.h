// ggml-backend-impl.h: the interfaces a buffer type, buffer, device or backend implements.
//
// Code that defines its own buffer type (like the allocator test's dummy
// backend, or a fake "device" in the JSON reader) fills these tables; the
// virtual devices (galloc-device.c) fill the device and backend tables, which
// keep upstream's member names for the members planning uses.
// Optional entries may be NULL: a missing get_max_size means SIZE_MAX, a
// missing get_alloc_size means ggml_nbytes, a missing init_tensor or reset
// does nothing.

#pragma once

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// buffer type
//

struct ggml_backend_buffer_type_i {
    const char *          (*get_name)      (ggml_backend_buffer_type_t buft);
    // allocate a buffer of this type; NULL on failure
    ggml_backend_buffer_t (*alloc_buffer)  (ggml_backend_buffer_type_t buft, size_t size);
    // tensor alignment
    size_t                (*get_alignment) (ggml_backend_buffer_type_t buft);
    // (optional) max buffer size that can be allocated (defaults to SIZE_MAX)
    size_t                (*get_max_size)  (ggml_backend_buffer_type_t buft);
    // (optional) data size needed to allocate the tensor (defaults to ggml_nbytes)
    size_t                (*get_alloc_size)(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
    // (optional) check if tensor data is in host memory and uses standard ggml tensor layout (defaults to false)
    bool                  (*is_host)       (ggml_backend_buffer_type_t buft);
};

struct ggml_backend_buffer_type {
    struct ggml_backend_buffer_type_i iface;
    ggml_backend_dev_t                device;
    void *                            context;
};

//
// buffer
//

struct ggml_backend_buffer_i {
    // (optional) free the buffer
    void             (*free_buffer)  (ggml_backend_buffer_t buffer);
    // base address of the buffer
    void *           (*get_base)     (ggml_backend_buffer_t buffer);
    // (optional) initialize a tensor in the buffer
    enum ggml_status (*init_tensor)  (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
    // tensor data access
    void             (*memset_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size);
    void             (*set_tensor)   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
    void             (*get_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size);
    // (optional) tensor copy: dst is in the buffer, src may be in any buffer
    bool             (*cpy_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst);
    // clear the entire buffer
    void             (*clear)        (ggml_backend_buffer_t buffer, uint8_t value);
    // (optional) reset any internal state due to tensor initialization, such as tensor extras
    void             (*reset)        (ggml_backend_buffer_t buffer);
};

struct ggml_backend_buffer {
    struct ggml_backend_buffer_i   iface;
    ggml_backend_buffer_type_t     buft;
    void *                         context;
    size_t                         size;
    enum ggml_backend_buffer_usage usage;
};

//
// backend (stream): nothing computes here, so only naming, freeing and graph_optimize
//

struct ggml_backend_i {
    const char * (*get_name)(ggml_backend_t backend);
    void         (*free)    (ggml_backend_t backend);
    // (optional) reorder the nodes of a split before it runs (the scheduler calls it per split)
    void         (*graph_optimize)(ggml_backend_t backend, struct ggml_cgraph * cgraph);
};

struct ggml_backend {
    struct ggml_backend_i iface;
    ggml_backend_dev_t    device;
    void *                context;
};

//
// device
//

struct ggml_backend_device_i {
    const char *               (*get_name)       (ggml_backend_dev_t dev);
    const char *               (*get_description)(ggml_backend_dev_t dev);
    void                       (*get_memory)     (ggml_backend_dev_t dev, size_t * free, size_t * total);
    enum ggml_backend_dev_type (*get_type)       (ggml_backend_dev_t dev);
    ggml_backend_t             (*init_backend)   (ggml_backend_dev_t dev, const char * params);
    ggml_backend_buffer_type_t (*get_buffer_type)(ggml_backend_dev_t dev);
    // (optional) pinned host memory the device reads fast
    ggml_backend_buffer_type_t (*get_host_buffer_type)(ggml_backend_dev_t dev);
    bool                       (*supports_op)    (ggml_backend_dev_t dev, const struct ggml_tensor * op);
    bool                       (*supports_buft)  (ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft);
    // (optional) run this op here even though its weights are in host memory (large batches)
    bool                       (*offload_op)     (ggml_backend_dev_t dev, const struct ggml_tensor * op);
};

struct ggml_backend_device {
    struct ggml_backend_device_i iface;
    ggml_backend_reg_t           reg; // always NULL: no registry here
    void *                       context;
};

// the CPU device's supports_op (ggml-cpu's rules), for devices that run some ops like the CPU
bool ggml_backend_cpu_device_supports_op_impl(const struct ggml_tensor * op);

// wrap memory a buffer type allocated; the buffer owns context and frees it through iface.free_buffer
GGML_API ggml_backend_buffer_t ggml_backend_buffer_init(ggml_backend_buffer_type_t buft, struct ggml_backend_buffer_i iface,
                                                        void * context, size_t size);

// several buffers presented as one (size = their sum; freeing frees them all)
GGML_API ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers);
GGML_API bool                  ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer);
GGML_API void                  ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);

#ifdef __cplusplus
}
#endif
