// ggml-cpp.h: std::unique_ptr wrappers for the C handles, as upstream ggml has.
//
// `ggml_context_ptr`, `ggml_gallocr_ptr` and `ggml_backend_buffer_ptr` free
// their handle with the matching ggml_*_free when they go out of scope.

#pragma once

#ifndef __cplusplus
#error "This header is for C++ only"
#endif

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <memory>

struct ggml_context_deleter { void operator()(ggml_context * ctx) { ggml_free(ctx); } };
struct ggml_gallocr_deleter { void operator()(ggml_gallocr_t galloc) { ggml_gallocr_free(galloc); } };
struct ggml_backend_buffer_deleter { void operator()(ggml_backend_buffer_t buffer) { ggml_backend_buffer_free(buffer); } };

typedef std::unique_ptr<ggml_context, ggml_context_deleter> ggml_context_ptr;
typedef std::unique_ptr<ggml_gallocr, ggml_gallocr_deleter> ggml_gallocr_ptr;
typedef std::unique_ptr<ggml_backend_buffer, ggml_backend_buffer_deleter> ggml_backend_buffer_ptr;
