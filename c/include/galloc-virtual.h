// galloc-virtual.h: a buffer type that allocates no memory, for planning only.
//
// Buffers of a virtual type have a size and a fake, suitably aligned base
// address but no backing memory, so graphs of any size (a 70B model's
// weights, a compute buffer of many GiB) can be "allocated" and planned.
// Nothing may read or write through their tensors' data pointers.

#pragma once

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

// max_size: SIZE_MAX for no limit. NULL when out of memory. name is copied.
ggml_backend_buffer_type_t galloc_virtual_buft_new (const char * name, size_t alignment, size_t max_size);
// the same, for a type that pads every allocation: get_alloc_size(t) = ggml_nbytes(t) + pad
// (as a GPU backend asks more than ggml_nbytes for some tensors)
ggml_backend_buffer_type_t galloc_virtual_buft_new_padded(const char * name, size_t alignment, size_t max_size, size_t pad);
void                       galloc_virtual_buft_free(ggml_backend_buffer_type_t buft);

// a virtual buffer of any buffer type (the alloc_buffer of a type whose buffers have no memory,
// such as the virtual devices' types of galloc-device.h); NULL when out of memory
ggml_backend_buffer_t      galloc_virtual_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size);

#ifdef __cplusplus
}
#endif
