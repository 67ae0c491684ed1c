// ggml-backend.h: backend buffer types and buffers, as far as allocation needs.
//
// A buffer type describes memory a device offers (alignment, largest buffer,
// bytes a tensor needs); a buffer is one allocation of that type. There are
// no devices or compute backends here: only the memory side of ggml-backend,
// plus a host (CPU) buffer type backed by malloc.
//
// Example usage:
//
//   ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
//   ggml_backend_buffer_t      buf  = ggml_backend_buft_alloc_buffer(buft, 1024);
//   ggml_backend_tensor_alloc(buf, tensor, ggml_backend_buffer_get_base(buf));
//   ggml_backend_buffer_free(buf);

#pragma once

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer      * ggml_backend_buffer_t;
typedef struct ggml_backend_event       * ggml_backend_event_t;
typedef struct ggml_backend             * ggml_backend_t;
typedef struct ggml_backend_device      * ggml_backend_dev_t;

enum ggml_backend_buffer_usage {
    GGML_BACKEND_BUFFER_USAGE_ANY     = 0,
    GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
    GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
};

//
// buffer types
//

GGML_API const char *          ggml_backend_buft_name          (ggml_backend_buffer_type_t buft);
// size 0 never calls the type: it gives a zero-size buffer; NULL when the type fails
GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer  (ggml_backend_buffer_type_t buft, size_t size);
GGML_API size_t                ggml_backend_buft_get_alignment (ggml_backend_buffer_type_t buft);
// SIZE_MAX when the type states no limit
GGML_API size_t                ggml_backend_buft_get_max_size  (ggml_backend_buffer_type_t buft);
// ggml_nbytes(tensor) when the type has no rule of its own
GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
GGML_API bool                  ggml_backend_buft_is_host       (ggml_backend_buffer_type_t buft);

//
// buffers
//

GGML_API const char *                   ggml_backend_buffer_name          (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_free          (ggml_backend_buffer_t buffer); // NULL is fine
GGML_API void *                         ggml_backend_buffer_get_base      (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_size      (ggml_backend_buffer_t buffer);
GGML_API enum ggml_status               ggml_backend_buffer_init_tensor   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
GGML_API size_t                         ggml_backend_buffer_get_alignment (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_max_size  (ggml_backend_buffer_t buffer);
GGML_API size_t                         ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor);
GGML_API void                           ggml_backend_buffer_clear         (ggml_backend_buffer_t buffer, uint8_t value);
GGML_API bool                           ggml_backend_buffer_is_host       (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_set_usage     (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage     (ggml_backend_buffer_t buffer);
GGML_API ggml_backend_buffer_type_t     ggml_backend_buffer_get_type      (ggml_backend_buffer_t buffer);
GGML_API void                           ggml_backend_buffer_reset         (ggml_backend_buffer_t buffer);

//
// placing tensors in buffers
//

// tensor must have no buffer, no data and not be a view; [addr, addr + alloc size) must lie in buffer
GGML_API enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr);
// a view takes its view_src's buffer and data + view_offs
GGML_API enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor);

//
// the host buffer type: malloc'd memory, alignment 32, no size limit
//

GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);
GGML_API ggml_backend_buffer_t      ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);

#ifdef __cplusplus
}
#endif
