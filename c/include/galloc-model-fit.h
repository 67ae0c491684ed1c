// galloc-model-fit.h: what llama.cpp's --fit chooses (common/fit.cpp, common_fit_params, 3f545bec).
//
// llama.cpp's --fit measures the model's memory per device again and again (each measurement a
// whole load and context creation in no_alloc mode) while it changes the flags the user left at
// their defaults, until every device keeps its margin (--fit-target) free:
//   1. measure the user's flags; if every device keeps its margin, change nothing;
//   2. if the context was left to the model (-c 0 not given explicitly), lower it towards --fit-ctx
//      by a linear interpolation between the full and the minimum context (rounded down to
//      256 x streams); with one device (or none) that ends it;
//   3. fill the devices back to front with whole layers (a MoE model: layers without their
//      experts, which an override keeps in the CPU), by false position on the layer count;
//   4. a MoE model whose dense weights fit: turn those layers into full ones front to back, and
//      try part of one more layer (LAYER_FRACTION_UP, _GATE or _ATTN: which of its FFN tensors
//      overflow to the next device or the CPU).
// It writes -ngl, -ts (layers per device), the -ot patterns and -c, and logs each decision.
// This module runs that algorithm over a measuring function: galloc_fit_model measures with
// galloc_model_place (galloc-model-place.h); tests can pass a function of their own. Limits:
// at most GALLOC_PLACE_MAX_OVERRIDES overrides (llama.cpp: 4096); the extra (draft) model of
// common_fit_params is not taken; the host's memory is the one given (llama.cpp: the machine's).
//
// Example usage:
//
//   struct galloc_fit_settings f;
//   galloc_fit_settings_default(&f);                       // 1024 MiB margins, --fit-ctx 4096
//   struct galloc_fit_result r;
//   if (galloc_fit_model(m, &s, &p, &f, &r, &err)) {       // s, p: the user's flags and devices
//       char * flags = galloc_fit_flags(&r);               // "-c 8192 -ngl 20 -ts 12,8 -ot \"...\""
//       fputs(r.log, stdout);                              // llama.cpp's messages, in order
//       ... galloc_model_place(m, &r.s, &r.p, &err) gives the chosen flags' breakdown
//       free(flags);
//       galloc_fit_result_free(&r);
//   }

#pragma once

#include "galloc-model-place.h"
#include "galloc-model.h"
#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//
// a measurement (common_get_device_memory_data)
//

struct galloc_fit_memory {
    int64_t  total, free;             // bytes the device reports before loading (the host: the CPU device's)
    uint64_t model, context, compute; // bytes llama_get_memory_breakdown gives it
};

struct galloc_fit_measurement {
    int32_t  n_devices;                                         // the devices the model uses (-sm none: one)
    struct galloc_fit_memory mem[GALLOC_PLACE_MAX_DEVICES + 1]; // per device in use, then the host
    char     name[GALLOC_PLACE_MAX_DEVICES][112];               // "RPC0 (127.0.0.1:50052)": name (description)
    char     buft[GALLOC_PLACE_MAX_DEVICES][64];                // each device's buffer type ("RPC0[127.0.0.1:50052]", "CUDA1")
    uint32_t n_layer, n_ctx_train, n_expert;                    // the model's hyperparameters
};

// measures the model with these flags; false with err to stop the fit (an error, not a failure)
typedef bool (*galloc_fit_measure_fn)(void * user, const struct galloc_model_settings * s,
                                      const struct galloc_place_settings * p, struct galloc_fit_measurement * out,
                                      struct galloc_error * err);

//
// settings and result
//

struct galloc_fit_settings {
    uint64_t margins[GALLOC_PLACE_MAX_DEVICES]; // --fit-target per device in use, bytes (the host's: margins[0])
    uint32_t n_ctx_min;                         // --fit-ctx (4096); UINT32_MAX: -c 0 given, the full context kept
    uint64_t host_memory;                       // the CPU device's memory, bytes (galloc_fit_model's measure)
};

// margins 1024 MiB, n_ctx_min 4096, host_memory 0
void galloc_fit_settings_default(struct galloc_fit_settings * f);

enum galloc_fit_status {
    GALLOC_FIT_SUCCESS = 0, // flags projected to fit (COMMON_PARAMS_FIT_STATUS_SUCCESS)
    GALLOC_FIT_FAILURE = 1, // llama.cpp gives up (a flag already set by the user, nothing fits): reason says why
};

struct galloc_fit_result {
    enum galloc_fit_status status;
    char     reason[256];            // GALLOC_FIT_FAILURE: llama.cpp's message ("n_gpu_layers already set by user to 99, abort")
    struct galloc_model_settings s;  // the flags as the fit leaves them (s.n_ctx: the context chosen)
    struct galloc_place_settings p;  // n_gpu_layers, n_tensor_split/tensor_split, the overrides it wrote
    int32_t  n_devices;              // devices in use
    char *   log;                    // llama.cpp's messages at trace level, one a line, in order (malloc'd)
    size_t   log_len;
    int32_t  n_measurements;         // how many times the model was measured
};

// runs the fit over measure. false with err (GALLOC_STATUS_NO_MEMORY, a measurement's error, or
// GALLOC_STATUS_LIMIT past GALLOC_PLACE_MAX_OVERRIDES) for what llama.cpp reports as an error; a
// failure to fit is true with out->status GALLOC_FIT_FAILURE. out->log holds the messages either way
// (galloc_fit_result_free it).
bool galloc_fit(galloc_fit_measure_fn measure, void * user, const struct galloc_model_settings * s,
                const struct galloc_place_settings * p, const struct galloc_fit_settings * f, struct galloc_fit_result * out,
                struct galloc_error * err);

// the same, measuring with galloc_model_place (f->host_memory as the host's memory)
bool galloc_fit_model(const struct galloc_model * m, const struct galloc_model_settings * s,
                      const struct galloc_place_settings * p, const struct galloc_fit_settings * f,
                      struct galloc_fit_result * out, struct galloc_error * err);

// the measuring function galloc_fit_model uses; user: a struct galloc_fit_model_user
struct galloc_fit_model_user {
    const struct galloc_model * m;
    uint64_t                    host_memory;
};
bool galloc_fit_measure_model(void * user, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                              struct galloc_fit_measurement * out, struct galloc_error * err);

void galloc_fit_result_free(struct galloc_fit_result * r);

// the line llama-fit-params prints: "-c N -ngl N[ -ts A,B...][ -ot \"PATTERN=BUFT,...\"]"
// (malloc'd, NULL when out of memory)
char * galloc_fit_flags(const struct galloc_fit_result * r);

// --fit's flags at argv[i]: --fit-target (-fitt) MiB[,MiB...], --fit-ctx (-fitc) N, --host-memory
// MEMORY; and -c 0 (n_ctx_min UINT32_MAX, as llama.cpp), for which it takes no word (returns 0:
// -c is galloc_model_parse_flag's). Returns the words taken (2), 0, or -1 with err
// (GALLOC_STATUS_ARGUMENT, the message starting with the flag)
int  galloc_fit_parse_flag(int argc, char ** argv, int i, struct galloc_fit_settings * f, struct galloc_error * err);
// a line of flags (space-separated, no quoting): these, galloc_model_parse_flag's, and --fit [on|off]
bool galloc_fit_parse_flags(const char * line, struct galloc_model_settings * s, struct galloc_place_settings * p,
                            struct galloc_fit_settings * f, struct galloc_error * err);

// {"format": "galloc-fit", "version": 1, "status": "success"|"failure", "reason": null|"...", "flags": "-c ...",
// "n_ctx", "n_gpu_layers", "tensor_split": [...], "overrides": [{"pattern", "buft"}], "measurements",
// "log": ["line", ...], "memory": memory_json (a galloc-memory document of the chosen flags) or null}
// (malloc'd, NULL when out of memory)
char * galloc_fit_json(const struct galloc_fit_result * r, const char * memory_json);

#ifdef __cplusplus
}
#endif
