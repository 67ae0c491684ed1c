// galloc-timing.h: measuring the planner on a graph document (for benchmarks, native and WASM).
//
// The document is read once; then it is planned `runs` times, each time on a
// fresh plan (as upstream's figures use a fresh allocator), and the median and
// minimum times and the planner's heap use are reported. Speed is measured
// here, never asserted: tests do not call this.

#pragma once

#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct galloc_timing {
    int32_t n_nodes;
    int32_t n_tensors;
    int32_t runs;
    double  median_ms;  // one plan: galloc_plan_graph on a fresh plan, then freed
    double  min_ms;
    double  heap_bytes; // bytes the planner holds for one plan (malloc statistics; 0 where unavailable)
};

// false with a message in err when the document is invalid or memory runs out; runs: 1..100000
bool galloc_time_plan(const char * json, size_t len, int32_t runs, struct galloc_timing * out, struct galloc_error * err);

#ifdef __cplusplus
}
#endif
