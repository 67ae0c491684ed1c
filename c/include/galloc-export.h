// galloc-export.h: write any ggml graph as a galloc graph document (JSON).
//
// For llama.cpp/ggml users: compile c/src/documents/galloc-export.c into your
// own build (it needs only ggml.h, ggml-backend.h and ggml-impl.h for the
// graph's leafs, as ggml's own allocator test does; it is warning-free there
// with -Wall -Wextra -Werror, as C or C++), call it where the graph is
// allocated, and load the file in galloc to see and replay the plan.
//
// Example usage:
//
//   ggml_backend_buffer_type_t bufts[1] = { ggml_backend_cpu_buffer_type() };
//   size_t len;
//   char * json = galloc_export_graph(gf, "my-graph", bufts, 1, NULL, NULL, &len);
//   FILE * f = fopen("my-graph.graph.json", "w"); fwrite(json, 1, len, f); fclose(f);
//   free(json);

#pragma once

#include "ggml-backend.h"
#include "ggml.h"

// how galloc_export_graph is exported: visible from a shared library built with hidden
// visibility (as ggml's are); on Windows define GALLOC_EXPORT_SHARED (and GALLOC_EXPORT_BUILD
// while building the DLL). Define GALLOC_EXPORT_API yourself to override.
#ifndef GALLOC_EXPORT_API
#    if defined(_WIN32) && defined(GALLOC_EXPORT_SHARED)
#        ifdef GALLOC_EXPORT_BUILD
#            define GALLOC_EXPORT_API __declspec(dllexport) extern
#        else
#            define GALLOC_EXPORT_API __declspec(dllimport) extern
#        endif
#    elif defined(__GNUC__) || defined(__clang__)
#        define GALLOC_EXPORT_API __attribute__((visibility("default"))) extern
#    else
#        define GALLOC_EXPORT_API extern
#    endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

// the graph document of graph as planned by ggml_gallocr_new_n(bufts, n_bufts) +
// ggml_gallocr_reserve_n(graph, node_buffer_ids, leaf_buffer_ids) (ids may be NULL: all 0).
// Tensors that already have memory are written with "buffer_type" (their buffer's type,
// appended to the list when it is not one of bufts), or "external": true when they have data
// but no buffer. Each tensor's size per buffer type ("alloc_size" / "alloc_sizes") where a type's
// get_alloc_size differs from ggml_nbytes, and the block size and bytes per block of every type
// used ("type_traits"), so that a reader with older tables sizes everything exactly. Names are
// written as valid UTF-8 of at most 63 bytes (a byte outside a complete UTF-8 sequence becomes
// '?'; distinct buffer types keep distinct names). Compiles as C and as C++.
// malloc'd, NUL-terminated; NULL when out of memory.
GALLOC_EXPORT_API char * galloc_export_graph(struct ggml_cgraph * graph, const char * name, ggml_backend_buffer_type_t * bufts, int n_bufts,
                           const int * node_buffer_ids, const int * leaf_buffer_ids, size_t * len);

// the tensors of graph in the order galloc_export_graph lists them (tensors[i] of its document
// is order[i]); malloc'd, *n_tensors entries; NULL when out of memory
GALLOC_EXPORT_API struct ggml_tensor ** galloc_export_tensor_order(struct ggml_cgraph * graph, int32_t * n_tensors);

#ifdef __cplusplus
}
#endif
