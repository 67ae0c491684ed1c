// gallocr-compare.h: does ggml_gallocr place a document's tensors where the planner does?
//
// For the C tests and the document fuzzer: plans a document rebuilt as ggml objects
// (galloc-document-ggml.h) with ggml_gallocr_new_n + reserve_n + alloc_graph on
// its virtual buffer types, and compares every placed tensor's chunk and offset
// (read back from its data pointer) and every buffer size with the planner's plan.

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"

#include <stddef.h>

// the number of differences (0: same placement); each of the first few is described on stderr,
// prefixed with label. -1 when the document cannot be rebuilt as ggml objects (err says why).
int gallocr_compare_plan(const struct galloc_document * doc, const struct galloc_plan * plan, const char * label, struct galloc_error * err);
