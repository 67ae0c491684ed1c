// cli-model-fit.h: does the model fit the devices: sweeps over -ngl or -c, the largest context.
#pragma once

#include "galloc-model-fit.h"
#include "galloc-model-place.h"
#include "galloc-model.h"

#include <stdint.h>

enum cli_fit_mode { CLI_FIT_NONE, CLI_FIT_SWEEP_NGL, CLI_FIT_SWEEP_CTX, CLI_FIT_MAX_CTX, CLI_FIT_LLAMA };

struct cli_fit_options {
    enum cli_fit_mode mode;
    uint64_t margin;      // bytes each device (and the host) must keep free (--fit-target, default 1024 MiB)
    uint64_t host_memory; // --host-memory; 0: the host is not checked
    struct galloc_fit_settings llama; // --fit: margins per device (--fit-target), --fit-ctx, host memory
};

// prints the sweep or the largest context on stdout; returns the exit code. s and p are changed
// (the swept flag); n_layer, n_ctx_train: the model's
int cli_model_fit(const struct galloc_model * m, struct galloc_model_settings * s, struct galloc_place_settings * p,
                  const struct cli_fit_options * o, int64_t n_layer, int64_t n_ctx_train);

// --fit: llama.cpp's --fit (galloc-model-fit.h). Prints its messages, the flags it chooses (the line
// llama-fit-params prints) and the breakdown table with them, or with json the galloc-fit document;
// returns the exit code (EXIT_NO_FIT when llama.cpp's fit fails)
int cli_model_llama_fit(const struct galloc_model * m, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                        const struct cli_fit_options * o, bool json);
