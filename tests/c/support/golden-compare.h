// golden-compare.h: does ggml_gallocr place a graph's tensors where upstream's golden plan says?
//
// For the C tests: after ggml_gallocr_reserve_n + alloc_graph, every tensor's buffer type,
// chunk and offset (read back from its data pointer) and every chunk's size (the size of the
// backend buffer holding it) are compared with an upstream plan document (tests/golden,
// tests/golden-real), index for index. Independent of the planner: nothing of the project's
// own plan is consulted.

#pragma once

#include "galloc-plan-document.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <stdint.h>

struct golden_compare_stats {
    int placed;         // tensors the golden plan places, each compared
    int chunks;         // chunk sizes compared one by one (a chunk met by some tensor)
    int chunks_by_sum;  // chunks no tensor lies in: checked through the buffer's total only
};

// tensors[i]: the ggml tensor of plan index i (NULL: none). The number of differences (0: the
// same placement), the first few described on stderr, prefixed with label; stats (may be NULL)
// counts what was compared.
int gallocr_compare_golden(ggml_gallocr_t ga, ggml_backend_buffer_type_t * bufts, int n_bufts, struct ggml_tensor * const * tensors,
                           int32_t n_tensors, const struct galloc_plan_document * golden, const char * label,
                           struct golden_compare_stats * stats);

// read a plan document file; false with a message on stderr
bool golden_plan_read(const char * path, struct galloc_plan_document * out);
