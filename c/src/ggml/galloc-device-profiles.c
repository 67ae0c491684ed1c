// galloc-device-profiles.c: the profiles of the virtual devices, with what each was checked against.
//
// "verified": equal to what the real backend reported or did in a run of llama.cpp 3f545bec
// (ggml 0.21.0) whose capture is in tests/devices (from /work/shared/devices). "read": taken from
// the backend's source at that commit, not seen in a run (no such hardware here).

#include "galloc-device-impl.h"
#include "galloc-virtual.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <string.h>

#define GiB ((size_t) 1 << 30)
#define MiB ((size_t) 1 << 20)

// ---- host buffer types (one per family, static as upstream's) ----------------

static const char * host_get_name(ggml_backend_buffer_type_t buft) {
    return (const char *) buft->context;
}

static size_t host_alignment_32(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return 32;
}

static size_t host_alignment_64(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return 64;
}

static size_t max_size_1gib(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return GiB;
}

static bool host_is_host(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return true;
}

// ggml-vulkan's host buffers ask 32 bytes more than asked ("behave like the CPU buffer type")
static ggml_backend_buffer_t vulkan_host_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    return galloc_virtual_alloc_buffer(buft, size + 32);
}

// CUDA_Host (read): cudaMallocHost memory, the CPU's alignment (32), no max size, ggml_nbytes
static ggml_backend_buffer_type_t cuda_host(void) {
    static struct ggml_backend_buffer_type t = {
        .iface   = { .get_name = host_get_name, .alloc_buffer = galloc_virtual_alloc_buffer,
                     .get_alignment = host_alignment_32, .is_host = host_is_host },
        .context = (void *) "CUDA_Host",
    };
    return &t;
}

// ROCm_Host (read): ggml-cuda built for HIP, GGML_CUDA_NAME "ROCm"
static ggml_backend_buffer_type_t rocm_host(void) {
    static struct ggml_backend_buffer_type t = {
        .iface   = { .get_name = host_get_name, .alloc_buffer = galloc_virtual_alloc_buffer,
                     .get_alignment = host_alignment_32, .is_host = host_is_host },
        .context = (void *) "ROCm_Host",
    };
    return &t;
}

// Vulkan_Host (verified on llvmpipe: alignment 64 = minMemoryMapAlignment, max size 1 GiB = the
// suballocation block size; read: buffers 32 bytes larger than asked, ggml_nbytes). One type
// for all Vulkan devices, as ggml-vulkan's (it reads device 0's limits).
static ggml_backend_buffer_type_t vulkan_host(void) {
    static struct ggml_backend_buffer_type t = {
        .iface   = { .get_name = host_get_name, .alloc_buffer = vulkan_host_alloc_buffer,
                     .get_alignment = host_alignment_64, .get_max_size = max_size_1gib, .is_host = host_is_host },
        .context = (void *) "Vulkan_Host",
    };
    return &t;
}

// ---- get_alloc_size rules ---------------------------------------------------

// ggml-cuda: quantized tensors padded to whole rows of MATRIX_ROW_PADDING (512) elements.
// FLASH_ATTN_EXT asks room for f16 copies of K and V the chosen kernel needs: none when K and V
// are f16 (llama.cpp's default cache); other cache types are refused by supports_op below.
static size_t cuda_alloc_size(const struct ggml_tensor * tensor) {
    size_t size = ggml_nbytes(tensor);
    int64_t ne0 = tensor->ne[0];
    if (ggml_is_quantized(tensor->type) && ne0 % 512 != 0) {
        size += ggml_row_size(tensor->type, 512 - ne0 % 512);
    }
    return size;
}

// ---- supports_op ------------------------------------------------------------

static bool supports_all(const struct galloc_dev * dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    GGML_UNUSED(op);
    return true;
}

static bool supports_cpu(const struct galloc_dev * dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    return ggml_backend_cpu_device_supports_op_impl(op);
}

// CUDA / ROCm (read, partly): every op the model builders make, except FLASH_ATTN_EXT with a
// K or V that is not f16 (its get_alloc_size then depends on the GPU's kernel choice)
static bool supports_cuda(const struct galloc_dev * dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    if (op->op == GGML_OP_FLASH_ATTN_EXT) {
        return op->src[1]->type == GGML_TYPE_F16 && op->src[2]->type == GGML_TYPE_F16;
    }
    return true;
}

// ---- Vulkan device limits (what ggml-vulkan's supports_op reads) ------------------

// Mesa llvmpipe 22.3.6 (LLVM 15.0.6, Debian bookworm), the driver of ../shared/devices/vulkan.
// Verified: vulkaninfo of that driver (maxStorageBufferRange 134,217,728; maxMemoryAllocationSize
// 2 GiB, maxBufferSize 4 GiB - 1; subgroup operations basic, vote, arithmetic, ballot, shuffle in
// compute; computeFullSubgroups, vulkanMemoryModel, shaderInt64, bufferDeviceAddress;
// maxComputeWorkGroupInvocations 1024; maxComputeSharedMemorySize 32,768), and in the captured
// graphs: 8B's token embeddings and output matrix (1,002 MiB) and -fa off's attention scores
// (512 MiB at -c 8192 -ub 512) refused, FLASH_ATTN_EXT and MUL_MAT_ID accepted. Read: no
// VK_EXT_shader_64bit_indexing (bookworm's Vulkan headers predate it, so ggml-vulkan built there
// never asks); the small mul_mat_id tile (32x32, 32-deep, f32 loads: at most 17 KiB with the
// largest lookup table) fits 32 KiB for every type.
static const struct galloc_vk_limits llvmpipe_limits = {
    .max_storage_buffer_range = 134217728, .max_buffer_size = (uint64_t) 2 * GiB, .shader_64b_indexing = false,
    .bda = true, .coopmat2 = false, .subgroup_basic = true, .subgroup_arithmetic = true, .subgroup_shuffle = true,
    .subgroup_vote = true, .full_subgroups = true, .vulkan_memory_model = true, .max_workgroup_size_log2 = 10,
    .max_shared_memory = 32768, .mul_mat_id = true,
};

// A discrete GPU (read, not run: an NVIDIA-like device as vulkan.gpuinfo.org lists them: a 4 GiB
// storage buffer range and allocation, the subgroup operations, 48 KiB of shared memory; no
// cooperative matrix 2, no 64-bit indexing). Another GPU's limits change which large tensors it
// refuses.
static const struct galloc_vk_limits gpu_limits = {
    .max_storage_buffer_range = (uint64_t) 4 * GiB - 1, .max_buffer_size = (uint64_t) 4 * GiB, .shader_64b_indexing = false,
    .bda = true, .coopmat2 = false, .subgroup_basic = true, .subgroup_arithmetic = true, .subgroup_shuffle = true,
    .subgroup_vote = true, .full_subgroups = true, .vulkan_memory_model = true, .max_workgroup_size_log2 = 10,
    .max_shared_memory = 49152, .mul_mat_id = true,
};

// ---- the profiles -------------------------------------------------------------

static const struct galloc_device_profile profiles[] = {
    // CPU (verified: name CPU, alignment 32, no max size, ggml_nbytes; supports_op as ggml-cpu's
    // for the ops the builders make). Its buffers are virtual, unlike ggml_backend_cpu_device's.
    { .kind = "cpu", .prefix = "CPU", .description = "CPU", .type = GGML_BACKEND_DEVICE_TYPE_CPU,
      .alignment = 32, .max_size = SIZE_MAX, .is_host = true, .memory = 16 * GiB, .supports_op = supports_cpu },
    // RPC over a CPU server (verified against tests/devices/rpc: device RPC<n>, buffer type and
    // backend RPC0[host:port], alignment 32, no max size, get_alloc_size the server CPU's
    // (ggml_nbytes), every op supported (ggml-rpc does not ask the server), no offload_op, no
    // host buffer type, type GPU; read: no events or async, so llama.cpp never enables pipeline
    // parallelism over it). Memory: what the server reports; 16 GiB until set.
    { .kind = "rpc", .prefix = "RPC", .rpc = true, .type = GGML_BACKEND_DEVICE_TYPE_GPU,
      .alignment = 32, .max_size = SIZE_MAX, .memory = 16 * GiB, .supports_op = supports_all },
    // ggml-vulkan on Mesa llvmpipe. Verified: the compute column of llama.cpp's breakdown in the
    // 15 settings of ../shared/devices/vulkan and the scheduler's graph tensor for tensor (node
    // order after graph_optimize, buffer ids) in tests/devices/graphs: Vulkan<n>, alignment 16
    // (minStorageBufferOffsetAlignment), max size 1 GiB (the suballocation block), ggml_nbytes,
    // host type Vulkan_Host, offload_op at 32 tokens (GGML_OP_OFFLOAD_MIN_BATCH unset), 2048 MiB
    // (llvmpipe's one heap), supports_op with llvmpipe_limits, type GPU (a CPU-type Vulkan device
    // is not integrated).
    { .kind = "llvmpipe", .prefix = "Vulkan", .numbered = true, .description = "llvmpipe (LLVM 15.0.6, 256 bits)",
      .type = GGML_BACKEND_DEVICE_TYPE_GPU, .alignment = 16, .max_size = GiB, .memory = 2048 * MiB,
      .offload_min_batch = 32, .host_buft = vulkan_host, .supports_op = galloc_device_vulkan_supports_op,
      .graph_optimize = galloc_device_vulkan_graph_optimize, .vk = &llvmpipe_limits },
    // ggml-vulkan on a discrete GPU (read: as llvmpipe's code path; alignment is the device's
    // minStorageBufferOffsetAlignment, taken as 16 (NVIDIA; AMD reports 4), max size the 1 GiB
    // suballocation block). 8 GiB until set.
    { .kind = "vulkan", .prefix = "Vulkan", .numbered = true, .description = "Vulkan GPU",
      .type = GGML_BACKEND_DEVICE_TYPE_GPU, .alignment = 16, .max_size = GiB, .memory = 8 * GiB,
      .offload_min_batch = 32, .host_buft = vulkan_host, .supports_op = galloc_device_vulkan_supports_op,
      .graph_optimize = galloc_device_vulkan_graph_optimize, .vk = &gpu_limits },
    // ggml-cuda (read: CUDA<n>, alignment 128, no max size, quantized rows padded to 512,
    // host type CUDA_Host, offload_op at 32 tokens (not GET_ROWS), type GPU). 24 GiB until set.
    { .kind = "cuda", .prefix = "CUDA", .numbered = true, .description = "NVIDIA GPU",
      .type = GGML_BACKEND_DEVICE_TYPE_GPU, .alignment = 128, .max_size = SIZE_MAX, .memory = 24 * GiB,
      .offload_min_batch = 32, .alloc_size = cuda_alloc_size, .host_buft = cuda_host, .supports_op = supports_cuda },
    // ggml-cuda built for HIP (read: as CUDA, named ROCm<n> and ROCm_Host). 24 GiB until set.
    { .kind = "rocm", .prefix = "ROCm", .numbered = true, .description = "AMD GPU",
      .type = GGML_BACKEND_DEVICE_TYPE_GPU, .alignment = 128, .max_size = SIZE_MAX, .memory = 24 * GiB,
      .offload_min_batch = 32, .alloc_size = cuda_alloc_size, .host_buft = rocm_host, .supports_op = supports_cuda },
    // ggml-metal (read: MTL<n>, alignment 32, max size the device's maxBufferLength (taken as
    // 16 GiB, Apple's usual), offload_op only MUL_MAT / MUL_MAT_ID of 32 or more, no host type,
    // buffers not host (shared buffers report is_host false). get_alloc_size adds scratch for
    // MUL_MAT_ID and FLASH_ATTN_EXT that is not modelled here: those ops are refused).
    { .kind = "metal", .prefix = "MTL", .numbered = true, .description = "Apple GPU",
      .type = GGML_BACKEND_DEVICE_TYPE_GPU, .alignment = 32, .max_size = 16 * GiB, .memory = 32 * GiB,
      .offload_min_batch = 32, .offload_mul_mat_only = true, .supports_op = supports_all },
};

const struct galloc_device_profile * galloc_device_profile_find(const char * kind) {
    for (size_t i = 0; kind != NULL && i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        if (strcmp(profiles[i].kind, kind) == 0) {
            return &profiles[i];
        }
    }
    return NULL;
}

const char * galloc_device_kinds(void) {
    return "cpu rpc llvmpipe vulkan cuda rocm metal";
}
