// galloc-device-impl.h: the profile table behind the virtual devices (galloc-device.c).

#pragma once

#include "galloc-device.h"
#include "ggml-backend-impl.h"

struct galloc_dev;

// what ggml-vulkan's supports_op reads from a Vulkan device (VkPhysicalDeviceLimits, features,
// subgroup properties, and what ggml-vulkan derives from them)
struct galloc_vk_limits {
    uint64_t max_storage_buffer_range; // maxStorageBufferRange, bytes
    uint64_t max_buffer_size;          // min(maxMemoryAllocationSize, maxBufferSize), bytes
    bool     shader_64b_indexing;      // VK_EXT_shader_64bit_indexing: no storage range limit
    bool     bda;                      // shaderInt64 and bufferDeviceAddress (im2col ignores the range)
    bool     coopmat2;                 // VK_NV_cooperative_matrix2
    bool     subgroup_basic, subgroup_arithmetic, subgroup_shuffle, subgroup_vote; // in compute shaders
    bool     full_subgroups;           // computeFullSubgroups (subgroup_require_full_support)
    bool     vulkan_memory_model;      // vulkanMemoryModel
    uint32_t max_workgroup_size_log2;  // log2(maxComputeWorkGroupInvocations)
    uint32_t max_shared_memory;        // maxComputeSharedMemorySize, bytes
    bool     mul_mat_id;               // the small mul_mat_id tile fits the shared memory, every type
};

struct galloc_device_profile {
    const char *               kind;        // "cpu", "rpc", ...
    const char *               prefix;      // device / buffer type name (CUDA -> CUDA0)
    bool                       numbered;    // name is prefix + index
    bool                       rpc;         // names from the endpoint (ggml-rpc)
    const char *               description;
    enum ggml_backend_dev_type type;
    size_t                     alignment;
    size_t                     max_size;    // SIZE_MAX: none
    bool                       is_host;     // the device's own buffers are host memory (Metal, CPU)
    size_t                     memory;      // default free = total memory
    int64_t                    offload_min_batch; // offload_op: batch >= this; 0: no offload_op
    bool                       offload_mul_mat_only; // Metal: only MUL_MAT / MUL_MAT_ID, its batch size
    // NULL: ggml_nbytes
    size_t                     (*alloc_size)(const struct ggml_tensor * tensor);
    // NULL: a virtual buffer of the asked size
    ggml_backend_buffer_t      (*alloc_buffer)(ggml_backend_buffer_type_t buft, size_t size);
    ggml_backend_buffer_type_t (*host_buft)(void); // NULL: none
    bool                       (*supports_op)(const struct galloc_dev * dev, const struct ggml_tensor * op);
    void                       (*graph_optimize)(struct ggml_cgraph * cgraph); // NULL: none
    const struct galloc_vk_limits * vk;     // Vulkan devices: what supports_op reads
};

struct galloc_dev {
    struct ggml_backend_device           dev;
    struct ggml_backend_buffer_type      buft;
    const struct galloc_device_profile * profile;
    int                                  index;
    char                                 name[64];
    char                                 buft_name[80];
    char                                 backend_name[80];
    char                                 description[80];
    size_t                               mem_free;
    size_t                               mem_total;
};

const struct galloc_device_profile * galloc_device_profile_find(const char * kind);
int64_t galloc_device_op_batch_size(const struct ggml_tensor * op);

// ggml-vulkan's reordering of a split (galloc-device-vulkan.c)
void galloc_device_vulkan_graph_optimize(struct ggml_cgraph * cgraph);
bool galloc_device_vulkan_supports_op(const struct galloc_dev * dev, const struct ggml_tensor * op);
