// galloc-plan-document.h: plan documents ("galloc-plan") read back and checked, compactly.
//
// Reads the fields that define plan equality (graph-format.md): every buffer's chunk
// sizes and every tensor's buffer, chunk and offset, checked as strictly as the graph
// reader checks a graph (exact integers, format and version, every error naming its
// JSON path), into arrays of a few bytes per tensor. The tensor and buffer lists are
// streamed: memory grows with the entries, not with the text (`galloc diff` of two
// 256 MiB plans stays far under 1 GB).
//
// Example usage:
//
//   struct galloc_plan_document p;
//   struct galloc_error err;
//   if (!galloc_plan_document_read(text, len, &p, &err)) { puts(err.message); return; }
//   printf("%d tensors, tensor 3 at offset %llu\n", p.n_tensors, (unsigned long long) p.tensors[3].offset);
//   galloc_plan_document_free(&p);

#pragma once

#include "galloc-document.h"
#include "galloc-dynalloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GALLOC_PLAN_DOCUMENT_MAX_BYTES   ((size_t) 256 << 20) // plans carry more per tensor than graphs
#define GALLOC_PLAN_DOCUMENT_MAX_BUFFERS 1024                 // as the graph reader's buffer types

struct galloc_plan_document_buffer {
    int32_t  n_chunks;
    uint64_t chunk_sizes[GALLOC_MAX_CHUNKS];
};

struct galloc_plan_document_tensor {
    uint64_t offset; // bytes into its chunk
    int32_t  buffer; // -1: null (not placed by the allocator)
    int32_t  chunk;
};

struct galloc_plan_document {
    int32_t                              n_buffers;
    struct galloc_plan_document_buffer * buffers;
    int32_t                              n_tensors; // at most GALLOC_DOCUMENT_MAX_TENSORS
    struct galloc_plan_document_tensor * tensors;
};

// false with "tensors[12].offset: ..." (or the JSON error's line and column) in err
bool galloc_plan_document_read(const char * text, size_t len, struct galloc_plan_document * out, struct galloc_error * err);
void galloc_plan_document_free(struct galloc_plan_document * plan); // zeroed or freed: fine

#ifdef __cplusplus
}
#endif
