// galloc-model-place-devices.c: the device kinds the placement knows, as llama.cpp sees them.
//
// rpc and llvmpipe are checked against real runs (../shared/devices); the others are read from
// the backends' code at llama.cpp 3f545bec, and their notes say so.

#include "galloc-model-place-impl.h"

#include <string.h>

#define GIB ((uint64_t) 1 << 30)
#define MIB ((uint64_t) 1 << 20)

static const struct place_profile profiles[] = {
    { GALLOC_DEVICE_RPC, "rpc", "RPC", NULL, NULL, 32, 32, UINT64_MAX, false, 0, true, 16 * GIB,
      "the RPC backend over a CPU server (ggml-rpc-server): buffer type RPC0[HOST:PORT], alignment 32, no maximum size, "
      "ggml_nbytes, every op supported, no host buffer type. Weights and KV cache verified to the byte against "
      "llama.cpp 3f545bec (../shared/devices, 38 settings). Endpoints are 127.0.0.1:50052, :50053, ... in order; the "
      "memory (default 16 GiB) only sets the default layer split (equal devices split equally)" },
    { GALLOC_DEVICE_LLVMPIPE, "llvmpipe", "Vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", "Vulkan_Host", 16, 64, GIB, false,
      (uint64_t) 1 << 27, true, 2048 * MIB,
      "ggml-vulkan on Mesa's llvmpipe (Debian bookworm): buffer types Vulkan0 (alignment 16, 1 GiB buffers) and "
      "Vulkan_Host (alignment 64), ggml_nbytes; supports_op refuses ops with a tensor above maxStorageBufferRange "
      "(llvmpipe: 128 MiB), so the token embeddings and the output matrix of an 8B model stay in the CPU buffer type. "
      "Verified to the byte against llama.cpp 3f545bec (../shared/devices/vulkan, 15 settings)" },
    { GALLOC_DEVICE_CUDA, "cuda", "CUDA", "CUDA device", "CUDA_Host", 128, 32, UINT64_MAX, true, 0, true, 24 * GIB,
      "ggml-cuda, read from its code (not run here): buffer type CUDA0 (alignment 128, no maximum size; get_alloc_size "
      "pads a quantized matrix's rows to a multiple of 512 values), host buffer type CUDA_Host (pinned, alignment 32), "
      "which holds the CPU's weights (without mmap) and the CPU's compute buffer; the ops of these models supported" },
    { GALLOC_DEVICE_VULKAN, "vulkan", "Vulkan", "Vulkan device", "Vulkan_Host", 64, 64, GIB, false, 0, true, 16 * GIB,
      "ggml-vulkan on a discrete GPU, read from its code (not run here): buffer types Vulkan0 and Vulkan_Host; the "
      "alignment (minStorageBufferOffsetAlignment, 64 assumed), buffer size and storage-buffer range depend on the "
      "driver (1 GiB buffers, the default suballocation block; no tensor refused)" },
    { GALLOC_DEVICE_METAL, "metal", "MTL", "Apple GPU", NULL, 32, 32, UINT64_MAX, false, 0, true, 16 * GIB,
      "ggml-metal, read from its code (not run here): buffer type MTL0 (shared, alignment 32, not a host buffer type), "
      "no host buffer type; maxBufferLength not modelled" },
    { GALLOC_DEVICE_ROCM, "rocm", "ROCm", "AMD GPU", "ROCm_Host", 128, 32, UINT64_MAX, true, 0, true, 24 * GIB,
      "ggml-cuda built for HIP, read from its code (not run here): as cuda, with ROCm names" },
};

const struct place_profile * galloc_place_profile(enum galloc_device_kind kind) {
    for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        if (profiles[i].kind == kind) {
            return &profiles[i];
        }
    }
    return NULL;
}

bool galloc_device_kind_from_name(const char * name, enum galloc_device_kind * kind) {
    for (size_t i = 0; name && i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        if (strcmp(profiles[i].kind_name, name) == 0) {
            *kind = profiles[i].kind;
            return true;
        }
    }
    return false;
}

const char * galloc_device_kind_name(enum galloc_device_kind kind) {
    const struct place_profile * pr = galloc_place_profile(kind);
    return pr ? pr->kind_name : "unknown";
}

const char * galloc_device_kind_note(enum galloc_device_kind kind) {
    const struct place_profile * pr = galloc_place_profile(kind);
    return pr ? pr->note : "unknown device kind";
}

uint64_t galloc_device_kind_default_memory(enum galloc_device_kind kind) {
    const struct place_profile * pr = galloc_place_profile(kind);
    return pr ? pr->default_memory : 0;
}

uint64_t galloc_place_alloc_size(const struct place_profile * pr, const struct ggml_tensor * t) {
    uint64_t size = ggml_nbytes(t);
    if (pr && pr->row_padding && ggml_is_quantized(t->type) && t->ne[0] % 512 != 0) {
        size += ggml_row_size(t->type, 512 - t->ne[0] % 512);
    }
    return size;
}
