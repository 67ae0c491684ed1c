// ggml-backend.h: buffer types, buffers, devices, backends and the scheduler, as far as planning needs.
//
// A buffer type describes memory a device offers (alignment, largest buffer,
// bytes a tensor needs); a buffer is one allocation of that type. A device
// offers buffer types and says which ops it runs (supports_op) and which it
// wants to take over from the CPU (offload_op); a backend is a device's
// stream. Nothing computes here: devices are virtual (profiles of real
// backends, galloc-device.h), and the scheduler (ggml_backend_sched) assigns
// ops to backends, splits the graph, adds the copies between backends and
// reserves the compute buffers through the graph allocator, as ggml does.
//
// Example usage:
//
//   ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
//   ggml_backend_buffer_t      buf  = ggml_backend_buft_alloc_buffer(buft, 1024);
//   ggml_backend_tensor_alloc(buf, tensor, ggml_backend_buffer_get_base(buf));
//   ggml_backend_buffer_free(buf);

#pragma once

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer      * ggml_backend_buffer_t;
typedef struct ggml_backend_event       * ggml_backend_event_t;
typedef struct ggml_backend             * ggml_backend_t;
typedef struct ggml_backend_device      * ggml_backend_dev_t;
typedef struct ggml_backend_reg         * ggml_backend_reg_t;

enum ggml_backend_buffer_usage {
    GGML_BACKEND_BUFFER_USAGE_ANY     = 0,
    GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
    GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
};

//
// buffer types
//

GGML_API const char *          ggml_backend_buft_name          (ggml_backend_buffer_type_t buft);
// size 0 never calls the type: it gives a zero-size buffer; NULL when the type fails
GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer  (ggml_backend_buffer_type_t buft, size_t size);
GGML_API size_t                ggml_backend_buft_get_alignment (ggml_backend_buffer_type_t buft);
// SIZE_MAX when the type states no limit
GGML_API size_t                ggml_backend_buft_get_max_size  (ggml_backend_buffer_type_t buft);
// ggml_nbytes(tensor) when the type has no rule of its own
GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
GGML_API bool                  ggml_backend_buft_is_host       (ggml_backend_buffer_type_t buft);
GGML_API ggml_backend_dev_t    ggml_backend_buft_get_device    (ggml_backend_buffer_type_t buft);

//
// buffers
//

GGML_API const char *                   ggml_backend_buffer_name          (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_free          (ggml_backend_buffer_t buffer); // NULL is fine
GGML_API void *                         ggml_backend_buffer_get_base      (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_size      (ggml_backend_buffer_t buffer);
GGML_API enum ggml_status               ggml_backend_buffer_init_tensor   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
GGML_API size_t                         ggml_backend_buffer_get_alignment (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_max_size  (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor);
GGML_API void                           ggml_backend_buffer_clear         (ggml_backend_buffer_t buffer, uint8_t value);
GGML_API bool                           ggml_backend_buffer_is_host       (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_set_usage     (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage     (ggml_backend_buffer_t buffer);
GGML_API ggml_backend_buffer_type_t     ggml_backend_buffer_get_type      (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_reset         (ggml_backend_buffer_t buffer);

//
// placing tensors in buffers
//

// tensor must have no buffer, no data and not be a view; [addr, addr + alloc size) must lie in buffer
GGML_API enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr);
// a view takes its view_src's buffer and data + view_offs
GGML_API enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor);

//
// the host buffer type: malloc'd memory, alignment 32, no size limit
//

GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);
GGML_API ggml_backend_buffer_t      ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);

//
// backends (streams): a backend runs ops on its device; here it only answers questions
//

GGML_API const char *               ggml_backend_name(ggml_backend_t backend);
GGML_API void                       ggml_backend_free(ggml_backend_t backend); // NULL is fine
GGML_API ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend);
GGML_API ggml_backend_buffer_t      ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size);
GGML_API size_t                     ggml_backend_get_alignment(ggml_backend_t backend);
GGML_API size_t                     ggml_backend_get_max_size(ggml_backend_t backend);
GGML_API void                       ggml_backend_synchronize(ggml_backend_t backend); // nothing to wait for
GGML_API bool                       ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op);
GGML_API bool                       ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft);
GGML_API bool                       ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op);
GGML_API ggml_backend_dev_t         ggml_backend_get_device(ggml_backend_t backend);
// the backend's reordering of a split before it runs (ggml-vulkan fuses ops); nothing for most
GGML_API void                       ggml_backend_graph_optimize(ggml_backend_t backend, struct ggml_cgraph * cgraph);

//
// devices
//

enum ggml_backend_dev_type {
    GGML_BACKEND_DEVICE_TYPE_CPU,   // CPU device using system memory
    GGML_BACKEND_DEVICE_TYPE_GPU,   // GPU device using dedicated memory
    GGML_BACKEND_DEVICE_TYPE_IGPU,  // integrated GPU device using host memory
    GGML_BACKEND_DEVICE_TYPE_ACCEL, // accelerator used together with the CPU backend (BLAS, AMX)
    GGML_BACKEND_DEVICE_TYPE_META,  // "meta" device wrapping several devices for tensor parallelism
};

GGML_API const char *               ggml_backend_dev_name(ggml_backend_dev_t device);
GGML_API const char *               ggml_backend_dev_description(ggml_backend_dev_t device);
GGML_API void                       ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
GGML_API enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device);
// a new backend on the device (params unused); NULL when out of memory. Free with ggml_backend_free.
GGML_API ggml_backend_t             ggml_backend_dev_init(ggml_backend_dev_t device, const char * params);
GGML_API ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device);
// the pinned host memory the device reads fast (CUDA_Host, Vulkan_Host); NULL when it has none
GGML_API ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device);
GGML_API bool                       ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op);
GGML_API bool                       ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft);
GGML_API bool                       ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op);

//
// the CPU backend (always the scheduler's last backend)
//

GGML_API ggml_backend_dev_t ggml_backend_cpu_device(void); // static: never freed
GGML_API ggml_backend_t     ggml_backend_cpu_init(void);
GGML_API bool               ggml_backend_is_cpu(ggml_backend_t backend);

//
// the scheduler: assigns the ops of a graph to backends, splits it where the backend changes,
// copies a split's inputs from other backends, and reserves one compute buffer per backend.
// Here it plans only (reserve, reserve_size, split_graph); alloc_graph places the tensors.
//
// A caller (see galloc-device.h for devices made from profiles):
//   ggml_backend_t backends[] = { gpu, cpu };                   // priority order, CPU last
//   ggml_backend_buffer_type_t bufts[] = { gpu_buft, cpu_buft }; // or NULL: each backend's default
//   weights: buf = ggml_backend_buft_alloc_buffer(buft, size); ggml_backend_buffer_set_usage(buf,
//            GGML_BACKEND_BUFFER_USAGE_WEIGHTS); ggml_backend_tensor_alloc(buf, w, addr) per weight
//   ggml_backend_sched_t sched = ggml_backend_sched_new(backends, bufts, 2, graph_size, false, true);
//   ggml_backend_sched_set_tensor_backend(sched, node, gpu);    // pins, as llama.cpp's graph callback
//   ggml_backend_sched_reserve(sched, graph);                   // false: a buffer could not be allocated
//   size_t bytes = ggml_backend_sched_get_buffer_size(sched, gpu);
//   ggml_backend_sched_free(sched);
//

typedef struct ggml_backend_sched * ggml_backend_sched_t;

// n_backends <= 16, the last one a CPU device's backend; graph_size: the most nodes (and
// leafs) a graph may have; parallel: 4 copies of every split input (pipeline parallelism);
// op_offload: let a higher-priority backend take ops whose weights are in host memory.
// NULL (with a logged error) when the arguments are wrong or memory runs out.
GGML_API ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size, bool parallel, bool op_offload);
GGML_API void                 ggml_backend_sched_free(ggml_backend_sched_t sched); // NULL is fine

// split the graph and plan it: sizes[b] is the bytes backend b's buffer type needs (no memory
// is allocated for the buffers that do not exist yet, as upstream)
GGML_API void                 ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes);
// split the graph, plan it and allocate the compute buffers; false when one cannot be allocated
GGML_API bool                 ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph);

GGML_API int                  ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched);
GGML_API ggml_backend_t       ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i);
GGML_API int                  ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched);
GGML_API int                  ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched);

GGML_API ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend);
GGML_API size_t                     ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend);

GGML_API void                 ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend);
GGML_API ggml_backend_t       ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node);

// assign and split only (reserve does this first); the graph's copy is what the allocator plans
GGML_API void                 ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
GGML_API bool                 ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
GGML_API void                 ggml_backend_sched_synchronize(ggml_backend_sched_t sched);
// forget the assignments (set_tensor_backend included) before the next graph
GGML_API void                 ggml_backend_sched_reset(ggml_backend_sched_t sched);

// galloc's window on the last split (not upstream API): the graph handed to the allocator,
// with the buffer (backend) id of each node and leaf, and each split's backend, nodes and inputs
GGML_API struct ggml_cgraph *  ggml_backend_sched_get_graph_copy(ggml_backend_sched_t sched);
GGML_API const int *           ggml_backend_sched_get_node_backend_ids(ggml_backend_sched_t sched);
GGML_API const int *           ggml_backend_sched_get_leaf_backend_ids(ggml_backend_sched_t sched);
GGML_API int                   ggml_backend_sched_get_split_backend(ggml_backend_sched_t sched, int i_split);
GGML_API int                   ggml_backend_sched_get_split_n_inputs(ggml_backend_sched_t sched, int i_split);
GGML_API struct ggml_tensor *  ggml_backend_sched_get_split_input(ggml_backend_sched_t sched, int i_split, int i_input);
// [i_start, i_end) of the split in the graph given to split_graph
GGML_API void                  ggml_backend_sched_get_split_range(ggml_backend_sched_t sched, int i_split, int * i_start, int * i_end);

#ifdef __cplusplus
}
#endif
