// ggml.h: the part of ggml's tensor API that graph allocation needs.
//
// Named and shaped like upstream ggml's header so that code written for ggml
// (graph builders, the allocator test) compiles against it unchanged. Tensors
// carry no compute kernels here: an op constructor only records the op, its
// sources and the result's shape, strides and view relation, exactly as
// ggml does, because that is all an allocation plan depends on.
//
// Example usage:
//
//   struct ggml_init_params params = { 16*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
//   struct ggml_context * ctx = ggml_init(params);
//   struct ggml_tensor  * a   = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
//   struct ggml_tensor  * b   = ggml_scale(ctx, a, 2.0f);
//   struct ggml_cgraph  * gf  = ggml_new_graph(ctx);
//   ggml_build_forward_expand(gf, b);
//   ...
//   ggml_free(ctx);

#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_API

#define GGML_MAX_DIMS        4
#define GGML_MAX_PARAMS      2048
#define GGML_MAX_SRC         10
#define GGML_MAX_N_THREADS   512
#define GGML_MAX_OP_PARAMS   64
#define GGML_MAX_NAME        64
#define GGML_DEFAULT_N_THREADS  4
#define GGML_DEFAULT_GRAPH_SIZE 2048
#define GGML_MEM_ALIGN       16

#define GGML_PAD(x, n) (((x) + (n) - 1) & ~((n) - 1))

#define GGML_UNUSED(x) (void)(x)

#if defined(__GNUC__) || defined(__clang__)
#    define GGML_NORETURN __attribute__((noreturn))
#    define GGML_ATTRIBUTE_FORMAT(...) __attribute__((format(printf, __VA_ARGS__)))
#else
#    define GGML_NORETURN
#    define GGML_ATTRIBUTE_FORMAT(...)
#endif

//
// failures of broken invariants (API misuse): print and abort
//

GGML_NORETURN GGML_ATTRIBUTE_FORMAT(3, 4)
GGML_API void ggml_abort(const char * file, int line, const char * fmt, ...);

#define GGML_ABORT(...) ggml_abort(__FILE__, __LINE__, __VA_ARGS__)
#define GGML_ASSERT(x) if (!(x)) GGML_ABORT("GGML_ASSERT(%s) failed", #x)

//
// status codes returned by backends
//

enum ggml_status {
    GGML_STATUS_ALLOC_FAILED = -2,
    GGML_STATUS_FAILED       = -1,
    GGML_STATUS_SUCCESS      =  0,
    GGML_STATUS_ABORTED      =  1,
};

GGML_API const char * ggml_status_to_string(enum ggml_status status);

//
// element types, as ggml 0.21.0 numbers them (the gaps are removed upstream types)
//

enum ggml_type {
    GGML_TYPE_F32     = 0,
    GGML_TYPE_F16     = 1,
    GGML_TYPE_Q4_0    = 2,
    GGML_TYPE_Q4_1    = 3,
    GGML_TYPE_Q5_0    = 6,
    GGML_TYPE_Q5_1    = 7,
    GGML_TYPE_Q8_0    = 8,
    GGML_TYPE_Q8_1    = 9,
    GGML_TYPE_Q2_K    = 10,
    GGML_TYPE_Q3_K    = 11,
    GGML_TYPE_Q4_K    = 12,
    GGML_TYPE_Q5_K    = 13,
    GGML_TYPE_Q6_K    = 14,
    GGML_TYPE_Q8_K    = 15,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS  = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S   = 19,
    GGML_TYPE_IQ4_NL  = 20,
    GGML_TYPE_IQ3_S   = 21,
    GGML_TYPE_IQ2_S   = 22,
    GGML_TYPE_IQ4_XS  = 23,
    GGML_TYPE_I8      = 24,
    GGML_TYPE_I16     = 25,
    GGML_TYPE_I32     = 26,
    GGML_TYPE_I64     = 27,
    GGML_TYPE_F64     = 28,
    GGML_TYPE_IQ1_M   = 29,
    GGML_TYPE_BF16    = 30,
    GGML_TYPE_TQ1_0   = 34,
    GGML_TYPE_TQ2_0   = 35,
    GGML_TYPE_MXFP4   = 39,
    GGML_TYPE_NVFP4   = 40,
    GGML_TYPE_Q1_0    = 41,
    GGML_TYPE_Q2_0    = 42,
    GGML_TYPE_COUNT   = 43,
};

//
// operations (the full list of ggml 0.21.0, so that real graphs can be described)
//

enum ggml_op {
    GGML_OP_NONE = 0,

    GGML_OP_DUP,
    GGML_OP_ADD,
    GGML_OP_ADD_ID,
    GGML_OP_ADD1,
    GGML_OP_ACC,
    GGML_OP_SUB,
    GGML_OP_MUL,
    GGML_OP_DIV,
    GGML_OP_SQR,
    GGML_OP_SQRT,
    GGML_OP_LOG,
    GGML_OP_SIN,
    GGML_OP_COS,
    GGML_OP_SUM,
    GGML_OP_SUM_ROWS,
    GGML_OP_CUMSUM,
    GGML_OP_MEAN,
    GGML_OP_ARGMAX,
    GGML_OP_COUNT_EQUAL,
    GGML_OP_REPEAT,
    GGML_OP_REPEAT_BACK,
    GGML_OP_CONCAT,
    GGML_OP_SILU_BACK,
    GGML_OP_NORM,
    GGML_OP_RMS_NORM,
    GGML_OP_RMS_NORM_BACK,
    GGML_OP_GROUP_NORM,
    GGML_OP_L2_NORM,

    GGML_OP_MUL_MAT,
    GGML_OP_MUL_MAT_ID,
    GGML_OP_OUT_PROD,

    GGML_OP_SCALE,
    GGML_OP_SET,
    GGML_OP_CPY,
    GGML_OP_CONT,
    GGML_OP_RESHAPE,
    GGML_OP_VIEW,
    GGML_OP_PERMUTE,
    GGML_OP_TRANSPOSE,
    GGML_OP_GET_ROWS,
    GGML_OP_GET_ROWS_BACK,
    GGML_OP_SET_ROWS,
    GGML_OP_DIAG,
    GGML_OP_DIAG_MASK_INF,
    GGML_OP_DIAG_MASK_ZERO,
    GGML_OP_SOFT_MAX,
    GGML_OP_SOFT_MAX_BACK,
    GGML_OP_ROPE,
    GGML_OP_ROPE_BACK,
    GGML_OP_CLAMP,
    GGML_OP_CONV_TRANSPOSE_1D,
    GGML_OP_IM2COL,
    GGML_OP_IM2COL_BACK,
    GGML_OP_IM2COL_3D,
    GGML_OP_COL2IM_1D,
    GGML_OP_CONV_2D,
    GGML_OP_CONV_3D,
    GGML_OP_CONV_2D_DW,
    GGML_OP_CONV_TRANSPOSE_2D,
    GGML_OP_POOL_1D,
    GGML_OP_POOL_2D,
    GGML_OP_POOL_2D_BACK,
    GGML_OP_UPSCALE,
    GGML_OP_PAD,
    GGML_OP_PAD_REFLECT_1D,
    GGML_OP_ROLL,
    GGML_OP_ARANGE,
    GGML_OP_TIMESTEP_EMBEDDING,
    GGML_OP_ARGSORT,
    GGML_OP_TOP_K,
    GGML_OP_LEAKY_RELU,
    GGML_OP_TRI,
    GGML_OP_FILL,

    GGML_OP_FLASH_ATTN_EXT,
    GGML_OP_FLASH_ATTN_BACK,
    GGML_OP_SSM_CONV,
    GGML_OP_SSM_SCAN,
    GGML_OP_WIN_PART,
    GGML_OP_WIN_UNPART,
    GGML_OP_GET_REL_POS,
    GGML_OP_ADD_REL_POS,
    GGML_OP_RWKV_WKV6,
    GGML_OP_GATED_LINEAR_ATTN,
    GGML_OP_RWKV_WKV7,
    GGML_OP_SOLVE_TRI,
    GGML_OP_GATED_DELTA_NET,
    GGML_OP_LIGHTNING_INDEXER,
    GGML_OP_DSV4_HC_COMB,
    GGML_OP_DSV4_HC_PRE,
    GGML_OP_DSV4_HC_POST,

    GGML_OP_UNARY,

    GGML_OP_MAP_CUSTOM1,
    GGML_OP_MAP_CUSTOM2,
    GGML_OP_MAP_CUSTOM3,

    GGML_OP_CUSTOM,

    GGML_OP_CROSS_ENTROPY_LOSS,
    GGML_OP_CROSS_ENTROPY_LOSS_BACK,
    GGML_OP_OPT_STEP_ADAMW,
    GGML_OP_OPT_STEP_SGD,

    GGML_OP_GLU,

    GGML_OP_COUNT,
};

enum ggml_unary_op {
    GGML_UNARY_OP_ABS,
    GGML_UNARY_OP_SGN,
    GGML_UNARY_OP_NEG,
    GGML_UNARY_OP_STEP,
    GGML_UNARY_OP_TANH,
    GGML_UNARY_OP_ELU,
    GGML_UNARY_OP_RELU,
    GGML_UNARY_OP_SIGMOID,
    GGML_UNARY_OP_GELU,
    GGML_UNARY_OP_GELU_QUICK,
    GGML_UNARY_OP_SILU,
    GGML_UNARY_OP_HARDSWISH,
    GGML_UNARY_OP_HARDSIGMOID,
    GGML_UNARY_OP_EXP,
    GGML_UNARY_OP_EXPM1,
    GGML_UNARY_OP_SOFTPLUS,
    GGML_UNARY_OP_GELU_ERF,
    GGML_UNARY_OP_XIELU,
    GGML_UNARY_OP_FLOOR,
    GGML_UNARY_OP_CEIL,
    GGML_UNARY_OP_ROUND,
    GGML_UNARY_OP_TRUNC,

    GGML_UNARY_OP_COUNT,
};

enum ggml_glu_op {
    GGML_GLU_OP_REGLU,
    GGML_GLU_OP_GEGLU,
    GGML_GLU_OP_SWIGLU,
    GGML_GLU_OP_SWIGLU_OAI,
    GGML_GLU_OP_GEGLU_ERF,
    GGML_GLU_OP_GEGLU_QUICK,

    GGML_GLU_OP_COUNT,
};

enum ggml_prec {
    GGML_PREC_DEFAULT =  0,
    GGML_PREC_F32     = 10,
};

// what a backend may assume about a matrix multiplication's first source
enum ggml_op_hint {
    GGML_HINT_NONE             = 0,
    GGML_HINT_SRC0_IS_HADAMARD = 1,
};

enum ggml_sort_order {
    GGML_SORT_ORDER_ASC,
    GGML_SORT_ORDER_DESC,
};

enum ggml_tensor_flag {
    GGML_TENSOR_FLAG_INPUT   =  1, // input of the graph: allocated first, never overwritten before use
    GGML_TENSOR_FLAG_OUTPUT  =  2, // output of the graph: never freed nor reused
    GGML_TENSOR_FLAG_PARAM   =  4, // trainable parameter: a node even with op NONE
    GGML_TENSOR_FLAG_LOSS    =  8, // loss of an optimisation
    GGML_TENSOR_FLAG_COMPUTE = 16, // set on every node by ggml_build_forward_expand
};

// rope modes
#define GGML_ROPE_TYPE_NEOX   2
#define GGML_ROPE_TYPE_MROPE  8
#define GGML_ROPE_TYPE_IMROPE 40
#define GGML_ROPE_TYPE_VISION 24

//
// tensors, contexts, graphs
//

struct ggml_backend_buffer;
struct ggml_context;
struct ggml_cgraph;

struct ggml_tensor {
    enum ggml_type type;

    struct ggml_backend_buffer * buffer;

    int64_t ne[GGML_MAX_DIMS]; // number of elements per dimension
    size_t  nb[GGML_MAX_DIMS]; // stride in bytes per dimension

    enum ggml_op op;

    // op parameters, allocated as int32_t for alignment
    int32_t op_params[GGML_MAX_OP_PARAMS / sizeof(int32_t)];

    int32_t flags; // enum ggml_tensor_flag bits

    struct ggml_tensor * src[GGML_MAX_SRC];

    // the root tensor whose memory this view aliases, and the byte offset into it
    struct ggml_tensor * view_src;
    size_t               view_offs;

    void * data;

    char name[GGML_MAX_NAME];

    void * extra; // backend-specific data

    char padding[8];
};

static const size_t GGML_TENSOR_SIZE = sizeof(struct ggml_tensor);

struct ggml_init_params {
    size_t mem_size;   // bytes of the context's pool
    void * mem_buffer; // if NULL, the pool is allocated by ggml_init
    bool   no_alloc;   // true: tensors get no data (the allocator places them later)
};

typedef struct ggml_cgraph * ggml_cgraph_t;

// type traits

GGML_API int64_t      ggml_blck_size (enum ggml_type type);
GGML_API size_t       ggml_type_size (enum ggml_type type); // bytes of one block
GGML_API size_t       ggml_row_size  (enum ggml_type type, int64_t ne); // bytes of ne elements
GGML_API const char * ggml_type_name (enum ggml_type type); // "f32", "q4_0", ...; NULL for a gap
GGML_API bool         ggml_is_quantized(enum ggml_type type);

GGML_API const char * ggml_op_name   (enum ggml_op op);   // "ADD", "MUL_MAT", ...
GGML_API const char * ggml_op_symbol (enum ggml_op op);
GGML_API const char * ggml_unary_op_name(enum ggml_unary_op op);
GGML_API const char * ggml_glu_op_name  (enum ggml_glu_op op);
GGML_API const char * ggml_op_desc   (const struct ggml_tensor * t); // unary/glu sub-op name or op name

// tensor queries

GGML_API int64_t ggml_nelements (const struct ggml_tensor * tensor);
GGML_API int64_t ggml_nrows     (const struct ggml_tensor * tensor);
GGML_API size_t  ggml_nbytes    (const struct ggml_tensor * tensor); // 0 if any ne <= 0
GGML_API size_t  ggml_nbytes_pad(const struct ggml_tensor * tensor); // nbytes padded to GGML_MEM_ALIGN
GGML_API size_t  ggml_element_size(const struct ggml_tensor * tensor);

GGML_API bool ggml_is_transposed (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_permuted   (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_contiguous (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_empty      (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_scalar     (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_vector     (const struct ggml_tensor * tensor);
GGML_API bool ggml_is_matrix     (const struct ggml_tensor * tensor);
GGML_API int  ggml_n_dims        (const struct ggml_tensor * tensor); // 1..4

GGML_API bool ggml_are_same_shape (const struct ggml_tensor * t0, const struct ggml_tensor * t1);
GGML_API bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1);
GGML_API bool ggml_can_repeat     (const struct ggml_tensor * t0, const struct ggml_tensor * t1);

// contexts

GGML_API size_t ggml_tensor_overhead(void); // pool bytes one tensor takes
GGML_API size_t ggml_graph_overhead(void);  // pool bytes one graph of GGML_DEFAULT_GRAPH_SIZE takes
GGML_API size_t ggml_graph_overhead_custom(size_t size, bool grads);

GGML_API struct ggml_context * ggml_init(struct ggml_init_params params); // NULL when the pool cannot be allocated
GGML_API void                  ggml_reset(struct ggml_context * ctx);
GGML_API void                  ggml_free (struct ggml_context * ctx);

GGML_API size_t ggml_used_mem    (const struct ggml_context * ctx);
GGML_API bool   ggml_get_no_alloc(struct ggml_context * ctx);
GGML_API void   ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc);
GGML_API size_t ggml_get_mem_size(const struct ggml_context * ctx);

// tensors of a context, in creation order
GGML_API struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx);
GGML_API struct ggml_tensor * ggml_get_next_tensor (const struct ggml_context * ctx, struct ggml_tensor * tensor);
GGML_API struct ggml_tensor * ggml_get_tensor      (struct ggml_context * ctx, const char * name);

// tensor creation

GGML_API struct ggml_tensor * ggml_new_tensor   (struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne);
GGML_API struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0);
GGML_API struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1);
GGML_API struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2);
GGML_API struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

GGML_API struct ggml_tensor * ggml_dup_tensor (struct ggml_context * ctx, const struct ggml_tensor * src);
GGML_API struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src);

// names and flags

GGML_API const char *         ggml_get_name   (const struct ggml_tensor * tensor);
GGML_API struct ggml_tensor * ggml_set_name   (      struct ggml_tensor * tensor, const char * name);
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API struct ggml_tensor * ggml_format_name(      struct ggml_tensor * tensor, const char * fmt, ...);

GGML_API void ggml_set_input (struct ggml_tensor * tensor);
GGML_API void ggml_set_output(struct ggml_tensor * tensor);
GGML_API void ggml_set_param (struct ggml_tensor * tensor);
GGML_API void ggml_set_loss  (struct ggml_tensor * tensor);

GGML_API enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor);
GGML_API enum ggml_glu_op   ggml_get_glu_op  (const struct ggml_tensor * tensor);

//
// operations on tensors: each returns a new tensor recording the op
//

GGML_API struct ggml_tensor * ggml_dup (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_add (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_sub (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_mul (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_div (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_sqr (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_log (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sum (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a); // ne[0] -> 1
GGML_API struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

// concat a and b along dimension dim
GGML_API struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim);

// unary ops (op UNARY with the sub-op in op_params[0])
GGML_API struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op);
GGML_API struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op);
GGML_API struct ggml_tensor * ggml_abs (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_neg (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_exp (struct ggml_context * ctx, struct ggml_tensor * a);

// gated linear units (op GLU): with b == NULL, a is split in half along ne[0]
GGML_API struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped);
GGML_API struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, enum ggml_glu_op op);
GGML_API struct ggml_tensor * ggml_swiglu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              float alpha, float limit);
GGML_API struct ggml_tensor * ggml_geglu(struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

// normalisation along rows
GGML_API struct ggml_tensor * ggml_norm    (struct ggml_context * ctx, struct ggml_tensor * a, float eps);
GGML_API struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);

// result: ne = [a->ne[1], b->ne[1], b->ne[2], b->ne[3]], f32
GGML_API struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec);
GGML_API void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint);

// one matrix per expert: as [cols, rows, n_expert], b [cols, n_b, n_tokens], ids [n_used, n_tokens] i32
// result: [rows, n_used, n_tokens] f32
GGML_API struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b,
                                              struct ggml_tensor * ids);
// a + the row of b each id picks: a [n, n_used, n_tokens], b [n, n_expert], ids [n_used, n_tokens]
GGML_API struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                          struct ggml_tensor * ids);

GGML_API struct ggml_tensor * ggml_scale        (struct ggml_context * ctx, struct ggml_tensor * a, float s);
GGML_API struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s);

// a -> b, returns a view of b (op CPY)
GGML_API struct ggml_tensor * ggml_cpy (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type);

// make contiguous (op CONT)
GGML_API struct ggml_tensor * ggml_cont   (struct ggml_context * ctx, struct ggml_tensor * a);
GGML_API struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1);
GGML_API struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2);
GGML_API struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

// views: the result aliases a's memory (view_src is a's root)
GGML_API struct ggml_tensor * ggml_reshape   (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
GGML_API struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0);
GGML_API struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1);
GGML_API struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2);
GGML_API struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

// offset in bytes
GGML_API struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset);
GGML_API struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                           size_t nb1, size_t offset);
GGML_API struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2,
                                           size_t nb1, size_t nb2, size_t offset);
GGML_API struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
                                           size_t nb1, size_t nb2, size_t nb3, size_t offset);

GGML_API struct ggml_tensor * ggml_permute  (struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2, int axis3);
GGML_API struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a); // alias for permute(a, 1, 0, 2, 3)

// rows of a picked by the i32 indices in b; result f32
GGML_API struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
// rows of b written into a at the indices c; returns a view of a (op SET_ROWS)
GGML_API struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c);

GGML_API struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past);
GGML_API struct ggml_tensor * ggml_soft_max    (struct ggml_context * ctx, struct ggml_tensor * a);
// softmax(a*scale + mask*(ALiBi slope))
// per-head logits appended to every row before the softmax (attention sinks): src[2]; NULL removes them
GGML_API void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks);
GGML_API struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                                float scale, float max_bias);

// rotary position embedding; b: i32 positions, one per a->ne[2]
GGML_API struct ggml_tensor * ggml_rope    (struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode);
GGML_API struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
                                            int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                            float ext_factor, float attn_factor, float beta_fast, float beta_slow);
// a (a RoPE, not a vision one) rotating the n_dims values after the first n_offs of each head (op_params[15])
GGML_API struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs);
// multimodal RoPE: four positions per token, rotated in the sections given (mode GGML_ROPE_TYPE_MROPE/IMROPE)
GGML_API struct ggml_tensor * ggml_rope_multi(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                              struct ggml_tensor * c, int n_dims, int sections[4], int mode, int n_ctx_orig,
                                              float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                              float beta_fast, float beta_slow);

// pad with zeros at the end of each dimension
GGML_API struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3);

// q: [n_embd_k, n_batch, n_head, ne3], k: [n_embd_k, n_kv, n_head_kv, ne3], v: [n_embd_v, n_kv, n_head_kv, ne3]
// result: [n_embd_v, n_head, n_batch, ne3] f32 (already permuted)
GGML_API struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                                  struct ggml_tensor * v, struct ggml_tensor * mask,
                                                  float scale, float max_bias, float logit_softcap);
GGML_API void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec);
GGML_API void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks); // src[4]

// i32 indices that sort each row (op ARGSORT); top_k: the first k of them, a view of the argsort
GGML_API struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order);
GGML_API struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k);
// a tensor of a's shape filled with c (a new tensor: F32/F16, a contiguous)
GGML_API struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c);

// clamp to [min, max]: like ggml, the result is a view of a (op CLAMP)
GGML_API struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max);

// recurrent layers (ggml-ops-recurrent.c)
// sx: [d_conv - 1 + n_t, d_inner, n_s], c: [d_conv, d_inner] -> [d_inner, n_t, n_s] f32 (op SSM_CONV)
GGML_API struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c);
// the selective scan: y then K snapshots of the states, one f32 vector (op SSM_SCAN, sources s, x, dt, A, B, C, ids)
GGML_API struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                            struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                            struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K);
// rows scaled to unit L2 norm (op L2_NORM); log(1 + exp(a)) (op UNARY)
GGML_API struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
GGML_API struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a);
// the gated delta rule: [S_v * H, n_tokens * n_seqs + K * S_v * n_seqs] f32, the output then K states
// (op GATED_DELTA_NET, sources q, k, v, g, beta, state)
GGML_API struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                                   struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
                                                   struct ggml_tensor * state, int64_t K);

//
// graphs
//

GGML_API struct ggml_cgraph * ggml_new_graph       (struct ggml_context * ctx); // GGML_DEFAULT_GRAPH_SIZE nodes
GGML_API struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads);

// depth-first from tensor: sources (slot order) before the tensor; new nodes appended in that order
GGML_API void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);
// expands every tensor, in order, but flags only tensors[idx]'s new nodes as computed; returns tensors[idx]
GGML_API struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors,
                                                        int n_tensors, int idx);

GGML_API int                   ggml_graph_size   (struct ggml_cgraph * cgraph);
GGML_API int                   ggml_graph_n_nodes(struct ggml_cgraph * cgraph);
GGML_API struct ggml_tensor *  ggml_graph_node   (struct ggml_cgraph * cgraph, int i); // i < 0: from the end
GGML_API struct ggml_tensor ** ggml_graph_nodes  (struct ggml_cgraph * cgraph);
GGML_API void                  ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);
GGML_API void                  ggml_graph_clear  (struct ggml_cgraph * cgraph);
GGML_API struct ggml_tensor *  ggml_graph_get_tensor(const struct ggml_cgraph * cgraph, const char * name);

#ifdef __cplusplus
}
#endif
