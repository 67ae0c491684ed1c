// galloc-model-place-impl.h: what the placement files share (private to the models layer).
//
// A device profile says what llama.cpp learns from a backend's device when it places weights and
// sizes buffers: names, buffer types and their alignment, maximum size and get_alloc_size rule,
// the host buffer type, and which weights its supports_op refuses. -ot's patterns are
// ECMAScript regular expressions (std::regex), matched here through POSIX regcomp after a
// translation that refuses what the two do not share.

#pragma once

#include "galloc-model-place.h"
#include "galloc-status.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct place_profile {
    enum galloc_device_kind kind;
    const char * kind_name;       // "rpc"
    const char * dev_prefix;      // device names: prefix + index among devices of its backend ("RPC" + 0)
    const char * description;     // NULL: the RPC endpoint
    const char * host_buft;       // the device's host buffer type, NULL for none
    size_t       alignment;       // the device buffer type's
    size_t       host_alignment;
    uint64_t     max_size;        // the device buffer type's get_max_size (UINT64_MAX: none)
    bool         row_padding;     // get_alloc_size pads a quantized tensor's rows to 512 values (CUDA, ROCm)
    uint64_t     max_tensor;      // supports_op refuses an op with a tensor larger than this (0: no limit)
    bool         is_gpu;          // GGML_BACKEND_DEVICE_TYPE_GPU (RPC devices are also GPU type)
    uint64_t     default_memory;
    const char * note;
};

const struct place_profile * galloc_place_profile(enum galloc_device_kind kind);

// the bytes of t in a buffer type with this profile's get_alloc_size (NULL profile: ggml_nbytes)
uint64_t galloc_place_alloc_size(const struct place_profile * pr, const struct ggml_tensor * t);

// an ECMAScript pattern (std::regex) compiled for searches (std::regex_search); NULL with err
// (GALLOC_STATUS_DECLINED) for a pattern this cannot match as std::regex would, naming it, or
// GALLOC_STATUS_ARGUMENT for one std::regex refuses too
struct place_regex;
struct place_regex * galloc_place_regex_new(const char * pattern, struct galloc_error * err);
bool galloc_place_regex_search(const struct place_regex * re, const char * name);
void galloc_place_regex_free(struct place_regex * re);

// llama.cpp's tensor infos (galloc-model-place-tensors.c): a weight's layer and the op it is used with
enum place_layer { LAYER_INPUT, LAYER_OUTPUT, LAYER_REPEATING };
struct place_tensor_info {
    const char *     name;  // without "blk.N." and the ".weight"/".bias"/".scale" suffix
    enum place_layer layer;
    enum ggml_op     op;    // GGML_OP_NONE: llama.cpp leaves it unused; GGML_OP_COUNT: not known by name
};
// the info of a base name ("attn_q", "token_embd"), NULL for a name llama.cpp has no info for
const struct place_tensor_info * galloc_place_tensor_info(const char * base);
// splits "blk.12.attn_q.weight" into 12, "attn_q" and "weight" (il -1 for no layer); false for
// another shape or a part longer than its buffer
bool galloc_place_split_name(const char * name, int * il, char * base, size_t base_size, char * suffix, size_t suffix_size);

// the compute column (galloc-model-place-compute.c): fills pl's compute bytes per buffer type and
// sets has_compute; false with err (GALLOC_STATUS_DECLINED for what is not modelled)
struct model_cparams;
struct place_compute_in {
    const struct galloc_model *  m;
    const struct model_cparams * cp;
    struct galloc_placement *    pl;     // buffer types as listed (after the listing)
    int32_t n_kept;                      // the devices in use, their --device index and kind
    int32_t kept[GALLOC_PLACE_MAX_DEVICES];
    enum galloc_device_kind kinds[GALLOC_PLACE_MAX_DEVICES];
    bool    full_offload;                // n_gpu_layers > n_layer
    bool    parallel;                    // pipeline parallelism
    bool    op_offload;
    bool    keep_graph;                  // export the scheduler's graph into pl->graph
};
bool galloc_place_compute(const struct place_compute_in * in, struct galloc_error * err);
