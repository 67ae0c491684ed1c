// galloc-device.h: virtual devices made from profiles of ggml's backends, for the scheduler.
//
// A virtual device answers what ggml's real backend answers: device and buffer type names,
// alignment, max buffer size, the bytes a tensor needs (get_alloc_size), the host buffer type,
// supports_op, offload_op, GPU or not, memory. It allocates nothing: its buffers are virtual
// (galloc-virtual.h), with a size and no memory, so only planning works on them.
//
// Kinds (each profile's notes in c/src/ggml/galloc-device-*.c say what was checked against a
// real run and what was read from the backend's code):
//   "cpu"       CPU                        buffer type CPU (alignment 32)
//   "rpc"       RPC<i> over a CPU server   buffer type RPC0[host:port] (the server's device 0);
//                                          endpoint default 127.0.0.1:<50052 + index>
//   "llvmpipe"  Vulkan<i> on Mesa llvmpipe buffer types Vulkan<i>, host Vulkan_Host
//   "vulkan"    Vulkan<i>, a discrete GPU  buffer types Vulkan<i>, host Vulkan_Host
//   "cuda"      CUDA<i>                    buffer types CUDA<i>, host CUDA_Host
//   "rocm"      ROCm<i>                    buffer types ROCm<i>, host ROCm_Host
//   "metal"     MTL<i>                     buffer type MTL<i> (host memory: no separate host type)
// Devices of one kind share their host buffer type (as ggml's backends share one).
//
// How a caller plans compute buffers over devices (as llama.cpp does):
//   ggml_backend_dev_t gpu = galloc_device_new("cuda", 0, NULL);
//   ggml_backend_t backends[2] = { ggml_backend_dev_init(gpu, NULL), ggml_backend_cpu_init() };
//   // the CPU's compute buffer: the first device's host type when it has one (llama.cpp's choice)
//   ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(gpu);
//   ggml_backend_buffer_type_t bufts[2] = { ggml_backend_dev_buffer_type(gpu),
//                                           host ? host : ggml_backend_cpu_buffer_type() };
//   // weights: one virtual buffer per buffer type, marked as weights, each weight placed in it
//   ggml_backend_buffer_t wbuf = ggml_backend_buft_alloc_buffer(bufts[0], total);
//   ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
//   ggml_backend_tensor_alloc(wbuf, weight, (char *) ggml_backend_buffer_get_base(wbuf) + offset);
//   ggml_backend_sched_t sched = ggml_backend_sched_new(backends, bufts, 2, graph_size, false, true);
//   ggml_backend_sched_set_tensor_backend(sched, node, backends[0]); // llama.cpp's pins
//   size_t sizes[2];
//   ggml_backend_sched_reserve_size(sched, graph, sizes);             // or _reserve + _get_buffer_size
//   ... ggml_backend_sched_free(sched); ggml_backend_buffer_free(wbuf);
//   ggml_backend_free(backends[0]); ggml_backend_free(backends[1]); galloc_device_free(gpu);

#pragma once

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

// a device of a kind above; index: its number among the devices of that kind (CUDA0, CUDA1);
// endpoint: "host:port" of an rpc device (NULL: 127.0.0.1:<50052 + index>), ignored otherwise.
// "cpu" gives ggml_backend_cpu_device() (not to be freed, freeing it does nothing).
// NULL when the kind is unknown, the index is not in [0, 16), or memory runs out.
GGML_API ggml_backend_dev_t galloc_device_new(const char * kind, int index, const char * endpoint);
GGML_API void               galloc_device_free(ggml_backend_dev_t dev); // NULL is fine

// the kind the device was made from ("cpu", "rpc", ...); NULL for a device not made here
GGML_API const char *       galloc_device_kind(ggml_backend_dev_t dev);
// the kinds, space-separated, for messages
GGML_API const char *       galloc_device_kinds(void);

// memory the device reports (ggml_backend_dev_memory): the profile's default until set here
GGML_API void               galloc_device_set_memory(ggml_backend_dev_t dev, size_t free, size_t total);

#ifdef __cplusplus
}
#endif
