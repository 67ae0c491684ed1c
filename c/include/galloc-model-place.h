// galloc-model-place.h: where llama.cpp puts a model over devices, and the memory per buffer type.
//
// From a model (galloc-model.h), its context settings and llama.cpp's placement flags (-ngl, -sm,
// -ts, -mg, -ot, -cmoe, -ncmoe, -nkvo, --no-op-offload, --swa-full, --no-mmap) over virtual devices
// (a kind and its memory, in llama.cpp's device order), this computes what llama.cpp 3f545bec
// decides when it loads the model and creates the context: the device of every layer (and of the
// output layer), the buffer type of every weight (its layer's list, -ot overrides, the host
// buffer type of the first device, the fallback to the CPU when a device's supports_op refuses
// the weight's op), the buffer type of every layer's memory (KV cache, recurrent states; any
// architecture galloc builds), and the memory per buffer type as
// llama_get_memory_breakdown reports it in no_alloc mode (llama-fit-params, --fit): model
// (weights), context (KV cache, recurrent states) and compute (the compute buffers: over devices the scheduler's
// reserve of the prompt graph, galloc-device.h's virtual devices; the CPU alone its planned
// buffer). The buffer types are those of llama.cpp's breakdown map.
//
// Device kinds: `rpc` (the RPC backend over a CPU server: every op supported, alignment 32) and
// `llvmpipe` (ggml-vulkan on Mesa's llvmpipe) equal real runs; `cuda`, `vulkan`, `metal` and
// `rocm` are read from their backends' code (see galloc_device_kind_note).
//
// Example usage:
//
//   struct galloc_place_settings p;
//   galloc_place_settings_default(&p);
//   galloc_place_add_device(&p, GALLOC_DEVICE_CUDA, 12ull << 30, &err);
//   p.n_gpu_layers = 16;
//   struct galloc_placement * pl = galloc_model_place(m, &s, &p, &err);  // s: galloc_model_settings
//   char * table = galloc_placement_table(pl);   // llama.cpp's "memory breakdown [MiB]" table
//   char * json  = galloc_placement_json(pl);    // {"format": "galloc-memory", ...}
//   galloc_model_parse_flags("-ngl 16 --device cuda:12GiB", &s, &p, &err); // or llama.cpp's flags
//   free(table); free(json); galloc_placement_free(pl);

#pragma once

#include "galloc-model.h"
#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_PLACE_MAX_DEVICES   16  // llama_max_devices()
#define GALLOC_PLACE_MAX_OVERRIDES 64  // -ot patterns, -cmoe and -ncmoe, in the order given
#define GALLOC_PLACE_MAX_PATTERN   256

enum galloc_device_kind {
    GALLOC_DEVICE_RPC,      // the RPC backend over a CPU server (RPC0, RPC1, ...)
    GALLOC_DEVICE_LLVMPIPE, // ggml-vulkan on Mesa's llvmpipe (Vulkan0, ...)
    GALLOC_DEVICE_CUDA,     // ggml-cuda (CUDA0, ...), read from the code
    GALLOC_DEVICE_VULKAN,   // ggml-vulkan on a discrete GPU, read from the code
    GALLOC_DEVICE_METAL,    // ggml-metal (MTL0), read from the code
    GALLOC_DEVICE_ROCM,     // ggml-cuda built for HIP (ROCm0, ...), read from the code
};

// "rpc", "llvmpipe", "cuda", "vulkan", "metal", "rocm"
bool         galloc_device_kind_from_name(const char * name, enum galloc_device_kind * kind);
const char * galloc_device_kind_name(enum galloc_device_kind kind);
// what was verified against a real run and what was read from the backend's code
const char * galloc_device_kind_note(enum galloc_device_kind kind);
// the memory a device of this kind reports when none is given (bytes)
uint64_t     galloc_device_kind_default_memory(enum galloc_device_kind kind);

enum galloc_split_mode { GALLOC_SPLIT_LAYER, GALLOC_SPLIT_ROW, GALLOC_SPLIT_NONE };

enum galloc_override_kind {
    GALLOC_OVERRIDE_PATTERN, // -ot PATTERN=BUFT (an ECMAScript regular expression, searched in the tensor name)
    GALLOC_OVERRIDE_CPU_MOE, // -cmoe: "\.ffn_(up|down|gate|gate_up)_(ch|)exps" = CPU
    GALLOC_OVERRIDE_N_CPU_MOE, // -ncmoe N: "blk\.I\.ffn_(up|down|gate|gate_up)_(ch|)exps" = CPU for I < N
};

struct galloc_place_override {
    enum galloc_override_kind kind;
    char    pattern[GALLOC_PLACE_MAX_PATTERN];
    char    buft[64];   // a device's buffer type name ("CPU", "CUDA0", "RPC0[127.0.0.1:50052]", "Vulkan0")
    int32_t n;          // -ncmoe's N
};

struct galloc_place_device {
    enum galloc_device_kind kind;
    uint64_t                memory; // bytes; 0: the kind's default
};

struct galloc_place_settings {
    int32_t n_devices;
    struct galloc_place_device devices[GALLOC_PLACE_MAX_DEVICES]; // llama.cpp's order: RPC devices first
    int32_t n_gpu_layers;         // -ngl: layers on the devices, counting the output layer; negative: all
                                  // (-1 auto, the default, which --fit may change; -2 all)
    enum galloc_split_mode split_mode; // -sm (row: refused, not modelled)
    int32_t n_tensor_split;       // -ts: proportions per device (0 given: by the devices' memory)
    float   tensor_split[GALLOC_PLACE_MAX_DEVICES];
    int32_t main_gpu;             // -mg (with -sm none: the one device used)
    int32_t n_overrides;
    struct galloc_place_override overrides[GALLOC_PLACE_MAX_OVERRIDES];
    bool    no_kv_offload;        // -nkvo: every layer's KV cache in the CPU buffer type
    bool    no_op_offload;        // --no-op-offload (the scheduler's offload of host ops)
    bool    no_host;              // --no-host: no device host buffer type for the CPU's weights
    bool    skip_compute;         // leave the compute column 0 (has_compute false): weights and KV only
    bool    keep_graph;           // keep the graph the scheduler hands to ggml_gallocr (galloc_placement.graph)
};

// no devices, -ngl -1 (all), -sm layer, no -ts, -mg 0, no overrides
void galloc_place_settings_default(struct galloc_place_settings * p);
// appends a device; false (err: GALLOC_STATUS_ARGUMENT) past GALLOC_PLACE_MAX_DEVICES
bool galloc_place_add_device(struct galloc_place_settings * p, enum galloc_device_kind kind, uint64_t memory,
                             struct galloc_error * err);
// appends an override: -ot's value (PATTERN=BUFT,...), -cmoe (value NULL, n 0), -ncmoe N (value NULL, n N)
// false with err naming the flag for what llama.cpp refuses ("-ot: invalid value", unknown buffer types)
bool galloc_place_add_override(struct galloc_place_settings * p, enum galloc_override_kind kind, const char * value, int32_t n,
                               struct galloc_error * err);

//
// llama.cpp's flags
//

// the flag at argv[i] (its value argv[i + 1]): -c -b -ub -fa -ctk -ctv -np --graph --swa-full -ngl -sm
// -ts -mg -ot -cmoe -ncmoe -nkvo --no-op-offload --no-mmap --no-host --device KIND[:MEMORY]. Returns the
// words it took (1 or 2), 0 for a word that is none of them, -1 with err (GALLOC_STATUS_ARGUMENT, the
// message starting with the flag; GALLOC_STATUS_DECLINED for -sm tensor) for a bad value
int  galloc_model_parse_flag(int argc, char ** argv, int i, struct galloc_model_settings * s, struct galloc_place_settings * p,
                             struct galloc_error * err);
// every word of a line of flags separated by spaces (no quoting); an unknown word is an error
bool galloc_model_parse_flags(const char * line, struct galloc_model_settings * s, struct galloc_place_settings * p,
                              struct galloc_error * err);
// "24GiB", "12000MiB", "8GB", "1073741824" (bytes); false for anything else
bool galloc_parse_memory(const char * text, uint64_t * out);

//
// the placement
//

struct galloc_place_buft {
    char     name[64];    // "CUDA0", "CUDA_Host", "CPU", "RPC0[127.0.0.1:50052]", "Vulkan_Host"
    int32_t  device;      // the device it belongs to in --device order; -1 for the CPU's
    bool     is_host;     // counted under "Host" in llama.cpp's table (CPU, CUDA_Host, Vulkan_Host)
    uint64_t model;       // weights, bytes (each padded to the buffer type's alignment)
    uint64_t context;     // KV cache and recurrent states, bytes
    uint64_t compute;     // compute buffer, bytes (0 when !has_compute: skip_compute)
};

struct galloc_place_device_info {
    char     name[32];        // "CUDA0", "RPC0", "Vulkan0"
    char     description[64]; // "127.0.0.1:50052", "llvmpipe (LLVM 15.0.6, 256 bits)"
    uint64_t total, free;     // the memory the device reports
};

struct galloc_place_weight {
    char    name[64];
    int32_t layer;  // its llama.cpp layer: -1 input, 0..n_layer-1, n_layer output
    int32_t buft;   // index in bufts
    uint64_t bytes; // its size in that buffer type, padded; 0 for another layer's use of a tensor an
                    // earlier entry of the same name holds there (TENSOR_DUPLICATED: rope_freqs, a tied output)
};

struct galloc_placement {
    int32_t n_devices;
    struct galloc_place_device_info devices[GALLOC_PLACE_MAX_DEVICES];
    int32_t n_bufts;
    struct galloc_place_buft bufts[2 * GALLOC_PLACE_MAX_DEVICES + 2];
    int32_t   n_layer;
    int32_t * layer_device;   // [n_layer + 1]: each layer's device (-1: CPU), the output layer last
    int32_t * kv_buft;        // [n_layer]: each layer's memory buffer type (KV cache, recurrent states; -1: none)
    int32_t   n_weights;
    struct galloc_place_weight * weights;
    bool      has_compute;    // the compute column is computed (false with skip_compute)
    char *    graph;          // with keep_graph and devices: the graph the scheduler hands to ggml_gallocr
    size_t    graph_len;      // (the prompt's; with --graph decode a one-token context's), a graph document

    int64_t   n_ctx, n_ubatch, n_batch, n_seq;
    int64_t   n_ctx_train;    // the model's training context
};

// NULL with err filled: GALLOC_STATUS_ARGUMENT for flags llama.cpp refuses (the message starts with
// the flag), GALLOC_STATUS_DECLINED for what is not modelled (naming it), GALLOC_STATUS_INVALID
// for a model llama.cpp would refuse, GALLOC_STATUS_NO_MEMORY
struct galloc_placement * galloc_model_place(const struct galloc_model * m, const struct galloc_model_settings * s,
                                             const struct galloc_place_settings * p, struct galloc_error * err);
void galloc_placement_free(struct galloc_placement * pl);

// the buffer type of that name, or -1
int32_t galloc_placement_buft_index(const struct galloc_placement * pl, const char * name);

// llama.cpp's table (common_memory_breakdown_print), MiB, one line per row without the
// "func: " prefix; malloc'd, NULL when out of memory
char * galloc_placement_table(const struct galloc_placement * pl);
// {"format": "galloc-memory", "version": 1, "buffer_types": [{"name", "device", "model", "context",
// "compute"}]}, sizes in bytes ("compute" null when !has_compute), "device" -1 for a host buffer
// type; malloc'd, NULL when out of memory
char * galloc_placement_json(const struct galloc_placement * pl);

#ifdef __cplusplus
}
#endif
