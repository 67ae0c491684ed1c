// ggml.c: contexts, tensors and graphs, as ggml defines them (no compute).
//
// A context is a pool of bytes in which tensors, graphs and (unless no_alloc)
// tensor data are bump-allocated, each behind an object header, exactly like
// upstream ggml. This file also holds the type and op tables, the tensor
// shape queries and graph building. Op constructors are in ggml-ops.c, the
// pointer hash set in ggml-hash.c, logging and ggml_abort in ggml-log.c.

#include "galloc-decimal.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char * ggml_status_to_string(enum ggml_status status) {
    switch (status) {
        case GGML_STATUS_ALLOC_FAILED: return "GGML status: error (failed to allocate memory)";
        case GGML_STATUS_FAILED:       return "GGML status: error (operation failed)";
        case GGML_STATUS_SUCCESS:      return "GGML status: success";
        case GGML_STATUS_ABORTED:      return "GGML status: warning (operation aborted)";
    }
    return "GGML status: unknown";
}

//
// element types: block size (elements) and block bytes; removed types are all zero
//

struct type_traits {
    const char * name;
    int64_t      blck_size;
    size_t       type_size;
    bool         is_quantized;
};

#define QK_SUPER 256 // elements of a k-quant / i-quant super-block

static const struct type_traits g_type_traits[GGML_TYPE_COUNT] = {
    [GGML_TYPE_F32]     = { "f32",     1,          4, false },
    [GGML_TYPE_F16]     = { "f16",     1,          2, false },
    [GGML_TYPE_Q4_0]    = { "q4_0",    32,        18, true  },
    [GGML_TYPE_Q4_1]    = { "q4_1",    32,        20, true  },
    [GGML_TYPE_Q5_0]    = { "q5_0",    32,        22, true  },
    [GGML_TYPE_Q5_1]    = { "q5_1",    32,        24, true  },
    [GGML_TYPE_Q8_0]    = { "q8_0",    32,        34, true  },
    [GGML_TYPE_Q8_1]    = { "q8_1",    32,        36, true  },
    [GGML_TYPE_Q2_K]    = { "q2_K",    QK_SUPER,  84, true  },
    [GGML_TYPE_Q3_K]    = { "q3_K",    QK_SUPER, 110, true  },
    [GGML_TYPE_Q4_K]    = { "q4_K",    QK_SUPER, 144, true  },
    [GGML_TYPE_Q5_K]    = { "q5_K",    QK_SUPER, 176, true  },
    [GGML_TYPE_Q6_K]    = { "q6_K",    QK_SUPER, 210, true  },
    [GGML_TYPE_Q8_K]    = { "q8_K",    QK_SUPER, 292, true  },
    [GGML_TYPE_IQ2_XXS] = { "iq2_xxs", QK_SUPER,  66, true  },
    [GGML_TYPE_IQ2_XS]  = { "iq2_xs",  QK_SUPER,  74, true  },
    [GGML_TYPE_IQ3_XXS] = { "iq3_xxs", QK_SUPER,  98, true  },
    [GGML_TYPE_IQ1_S]   = { "iq1_s",   QK_SUPER,  50, true  },
    [GGML_TYPE_IQ4_NL]  = { "iq4_nl",  32,        18, true  },
    [GGML_TYPE_IQ3_S]   = { "iq3_s",   QK_SUPER, 110, true  },
    [GGML_TYPE_IQ2_S]   = { "iq2_s",   QK_SUPER,  82, true  },
    [GGML_TYPE_IQ4_XS]  = { "iq4_xs",  QK_SUPER, 136, true  },
    [GGML_TYPE_I8]      = { "i8",      1,          1, false },
    [GGML_TYPE_I16]     = { "i16",     1,          2, false },
    [GGML_TYPE_I32]     = { "i32",     1,          4, false },
    [GGML_TYPE_I64]     = { "i64",     1,          8, false },
    [GGML_TYPE_F64]     = { "f64",     1,          8, false },
    [GGML_TYPE_IQ1_M]   = { "iq1_m",   QK_SUPER,  56, true  },
    [GGML_TYPE_BF16]    = { "bf16",    1,          2, false },
    [GGML_TYPE_TQ1_0]   = { "tq1_0",   QK_SUPER,  54, true  },
    [GGML_TYPE_TQ2_0]   = { "tq2_0",   QK_SUPER,  66, true  },
    [GGML_TYPE_MXFP4]   = { "mxfp4",   32,        17, true  },
    [GGML_TYPE_NVFP4]   = { "nvfp4",   64,        36, true  },
    [GGML_TYPE_Q1_0]    = { "q1_0",    128,       18, true  },
    [GGML_TYPE_Q2_0]    = { "q2_0",    64,        18, true  },
};

static const struct type_traits * type_traits_get(enum ggml_type type) {
    static const struct type_traits none = { NULL, 0, 0, false };
    if ((int) type < 0 || (int) type >= GGML_TYPE_COUNT) {
        return &none;
    }
    return &g_type_traits[type];
}

int64_t ggml_blck_size(enum ggml_type type) {
    return type_traits_get(type)->blck_size;
}

// a tensor's type traits, for sizes and strides: tensor creation refuses a type outside ggml's
// table or removed from it, and so does this, for a type set on a tensor by hand afterwards
// (ggml itself would divide by its block size of zero, or read past its table)
static const struct type_traits * tensor_type_traits(const struct ggml_tensor * tensor) {
    const struct type_traits * traits = type_traits_get(tensor->type);
    GGML_ASSERT(traits->blck_size > 0 && "unknown or removed tensor type");
    return traits;
}

int64_t ggml_tensor_blck_size(const struct ggml_tensor * tensor) {
    return tensor_type_traits(tensor)->blck_size;
}

size_t ggml_type_size(enum ggml_type type) {
    return type_traits_get(type)->type_size;
}

size_t ggml_row_size(enum ggml_type type, int64_t ne) {
    const int64_t blck = ggml_blck_size(type);
    GGML_ASSERT(blck > 0);
    GGML_ASSERT(ne % blck == 0);
    return ggml_type_size(type) * (size_t) (ne / blck);
}

const char * ggml_type_name(enum ggml_type type) {
    return type_traits_get(type)->name;
}

bool ggml_is_quantized(enum ggml_type type) {
    return type_traits_get(type)->is_quantized;
}

//
// op names, as ggml prints them
//

static const char * const g_op_names[GGML_OP_COUNT] = {
    [GGML_OP_NONE]                    = "NONE",
    [GGML_OP_DUP]                     = "DUP",
    [GGML_OP_ADD]                     = "ADD",
    [GGML_OP_ADD_ID]                  = "ADD_ID",
    [GGML_OP_ADD1]                    = "ADD1",
    [GGML_OP_ACC]                     = "ACC",
    [GGML_OP_SUB]                     = "SUB",
    [GGML_OP_MUL]                     = "MUL",
    [GGML_OP_DIV]                     = "DIV",
    [GGML_OP_SQR]                     = "SQR",
    [GGML_OP_SQRT]                    = "SQRT",
    [GGML_OP_LOG]                     = "LOG",
    [GGML_OP_SIN]                     = "SIN",
    [GGML_OP_COS]                     = "COS",
    [GGML_OP_SUM]                     = "SUM",
    [GGML_OP_SUM_ROWS]                = "SUM_ROWS",
    [GGML_OP_CUMSUM]                  = "CUMSUM",
    [GGML_OP_MEAN]                    = "MEAN",
    [GGML_OP_ARGMAX]                  = "ARGMAX",
    [GGML_OP_COUNT_EQUAL]             = "COUNT_EQUAL",
    [GGML_OP_REPEAT]                  = "REPEAT",
    [GGML_OP_REPEAT_BACK]             = "REPEAT_BACK",
    [GGML_OP_CONCAT]                  = "CONCAT",
    [GGML_OP_SILU_BACK]               = "SILU_BACK",
    [GGML_OP_NORM]                    = "NORM",
    [GGML_OP_RMS_NORM]                = "RMS_NORM",
    [GGML_OP_RMS_NORM_BACK]           = "RMS_NORM_BACK",
    [GGML_OP_GROUP_NORM]              = "GROUP_NORM",
    [GGML_OP_L2_NORM]                 = "L2_NORM",
    [GGML_OP_MUL_MAT]                 = "MUL_MAT",
    [GGML_OP_MUL_MAT_ID]              = "MUL_MAT_ID",
    [GGML_OP_OUT_PROD]                = "OUT_PROD",
    [GGML_OP_SCALE]                   = "SCALE",
    [GGML_OP_SET]                     = "SET",
    [GGML_OP_CPY]                     = "CPY",
    [GGML_OP_CONT]                    = "CONT",
    [GGML_OP_RESHAPE]                 = "RESHAPE",
    [GGML_OP_VIEW]                    = "VIEW",
    [GGML_OP_PERMUTE]                 = "PERMUTE",
    [GGML_OP_TRANSPOSE]               = "TRANSPOSE",
    [GGML_OP_GET_ROWS]                = "GET_ROWS",
    [GGML_OP_GET_ROWS_BACK]           = "GET_ROWS_BACK",
    [GGML_OP_SET_ROWS]                = "SET_ROWS",
    [GGML_OP_DIAG]                    = "DIAG",
    [GGML_OP_DIAG_MASK_INF]           = "DIAG_MASK_INF",
    [GGML_OP_DIAG_MASK_ZERO]          = "DIAG_MASK_ZERO",
    [GGML_OP_SOFT_MAX]                = "SOFT_MAX",
    [GGML_OP_SOFT_MAX_BACK]           = "SOFT_MAX_BACK",
    [GGML_OP_ROPE]                    = "ROPE",
    [GGML_OP_ROPE_BACK]               = "ROPE_BACK",
    [GGML_OP_CLAMP]                   = "CLAMP",
    [GGML_OP_CONV_TRANSPOSE_1D]       = "CONV_TRANSPOSE_1D",
    [GGML_OP_IM2COL]                  = "IM2COL",
    [GGML_OP_IM2COL_BACK]             = "IM2COL_BACK",
    [GGML_OP_IM2COL_3D]               = "IM2COL_3D",
    [GGML_OP_COL2IM_1D]               = "COL2IM_1D",
    [GGML_OP_CONV_2D]                 = "CONV_2D",
    [GGML_OP_CONV_3D]                 = "CONV_3D",
    [GGML_OP_CONV_2D_DW]              = "CONV_2D_DW",
    [GGML_OP_CONV_TRANSPOSE_2D]       = "CONV_TRANSPOSE_2D",
    [GGML_OP_POOL_1D]                 = "POOL_1D",
    [GGML_OP_POOL_2D]                 = "POOL_2D",
    [GGML_OP_POOL_2D_BACK]            = "POOL_2D_BACK",
    [GGML_OP_UPSCALE]                 = "UPSCALE",
    [GGML_OP_PAD]                     = "PAD",
    [GGML_OP_PAD_REFLECT_1D]          = "PAD_REFLECT_1D",
    [GGML_OP_ROLL]                    = "ROLL",
    [GGML_OP_ARANGE]                  = "ARANGE",
    [GGML_OP_TIMESTEP_EMBEDDING]      = "TIMESTEP_EMBEDDING",
    [GGML_OP_ARGSORT]                 = "ARGSORT",
    [GGML_OP_TOP_K]                   = "TOP_K",
    [GGML_OP_LEAKY_RELU]              = "LEAKY_RELU",
    [GGML_OP_TRI]                     = "TRI",
    [GGML_OP_FILL]                    = "FILL",
    [GGML_OP_FLASH_ATTN_EXT]          = "FLASH_ATTN_EXT",
    [GGML_OP_FLASH_ATTN_BACK]         = "FLASH_ATTN_BACK",
    [GGML_OP_SSM_CONV]                = "SSM_CONV",
    [GGML_OP_SSM_SCAN]                = "SSM_SCAN",
    [GGML_OP_WIN_PART]                = "WIN_PART",
    [GGML_OP_WIN_UNPART]              = "WIN_UNPART",
    [GGML_OP_GET_REL_POS]             = "GET_REL_POS",
    [GGML_OP_ADD_REL_POS]             = "ADD_REL_POS",
    [GGML_OP_RWKV_WKV6]               = "RWKV_WKV6",
    [GGML_OP_GATED_LINEAR_ATTN]       = "GATED_LINEAR_ATTN",
    [GGML_OP_RWKV_WKV7]               = "RWKV_WKV7",
    [GGML_OP_SOLVE_TRI]               = "SOLVE_TRI",
    [GGML_OP_GATED_DELTA_NET]         = "GATED_DELTA_NET",
    [GGML_OP_LIGHTNING_INDEXER]       = "LIGHTNING_INDEXER",
    [GGML_OP_DSV4_HC_COMB]            = "DSV4_HC_COMB",
    [GGML_OP_DSV4_HC_PRE]             = "DSV4_HC_PRE",
    [GGML_OP_DSV4_HC_POST]            = "DSV4_HC_POST",
    [GGML_OP_UNARY]                   = "UNARY",
    [GGML_OP_MAP_CUSTOM1]             = "MAP_CUSTOM1",
    [GGML_OP_MAP_CUSTOM2]             = "MAP_CUSTOM2",
    [GGML_OP_MAP_CUSTOM3]             = "MAP_CUSTOM3",
    [GGML_OP_CUSTOM]                  = "CUSTOM",
    [GGML_OP_CROSS_ENTROPY_LOSS]      = "CROSS_ENTROPY_LOSS",
    [GGML_OP_CROSS_ENTROPY_LOSS_BACK] = "CROSS_ENTROPY_LOSS_BACK",
    [GGML_OP_OPT_STEP_ADAMW]          = "OPT_STEP_ADAMW",
    [GGML_OP_OPT_STEP_SGD]            = "OPT_STEP_SGD",
    [GGML_OP_GLU]                     = "GLU",
};

// the short formulas ggml shows in graph dumps; ops without one print their name
static const char * const g_op_symbols[GGML_OP_COUNT] = {
    [GGML_OP_NONE]           = "none",
    [GGML_OP_DUP]            = "x",
    [GGML_OP_ADD]            = "x+y",
    [GGML_OP_ADD_ID]         = "x[i]+y",
    [GGML_OP_ADD1]           = "x+y",
    [GGML_OP_ACC]            = "view(x,nb,offset)+=y->x",
    [GGML_OP_SUB]            = "x-y",
    [GGML_OP_MUL]            = "x*y",
    [GGML_OP_DIV]            = "x/y",
    [GGML_OP_SQR]            = "x^2",
    [GGML_OP_SQRT]           = "√x",
    [GGML_OP_LOG]            = "log(x)",
    [GGML_OP_SIN]            = "sin(x)",
    [GGML_OP_COS]            = "cos(x)",
    [GGML_OP_SUM]            = "Σx",
    [GGML_OP_SUM_ROWS]       = "Σx_k",
    [GGML_OP_CUMSUM]         = "cumsum(x)",
    [GGML_OP_MEAN]           = "Σx/n",
    [GGML_OP_ARGMAX]         = "argmax(x)",
    [GGML_OP_COUNT_EQUAL]    = "count_equal(x)",
    [GGML_OP_REPEAT]         = "repeat(x)",
    [GGML_OP_REPEAT_BACK]    = "repeat_back(x)",
    [GGML_OP_CONCAT]         = "concat(x, y)",
    [GGML_OP_SILU_BACK]      = "silu_back(x)",
    [GGML_OP_NORM]           = "norm(x)",
    [GGML_OP_RMS_NORM]       = "rms_norm(x)",
    [GGML_OP_RMS_NORM_BACK]  = "rms_norm_back(x)",
    [GGML_OP_GROUP_NORM]     = "group_norm(x)",
    [GGML_OP_L2_NORM]        = "l2_norm(x)",
    [GGML_OP_MUL_MAT]        = "X*Y",
    [GGML_OP_MUL_MAT_ID]     = "X[i]*Y",
    [GGML_OP_OUT_PROD]       = "X*Y",
    [GGML_OP_SCALE]          = "x*v",
    [GGML_OP_SET]            = "y-\\>view(x)",
    [GGML_OP_CPY]            = "x-\\>y",
    [GGML_OP_CONT]           = "cont(x)",
    [GGML_OP_RESHAPE]        = "reshape(x)",
    [GGML_OP_VIEW]           = "view(x)",
    [GGML_OP_PERMUTE]        = "permute(x)",
    [GGML_OP_TRANSPOSE]      = "transpose(x)",
    [GGML_OP_GET_ROWS]       = "get_rows(x)",
    [GGML_OP_GET_ROWS_BACK]  = "get_rows_back(x)",
    [GGML_OP_SET_ROWS]       = "set_rows(x)",
    [GGML_OP_DIAG]           = "diag(x)",
    [GGML_OP_DIAG_MASK_INF]  = "diag_mask_inf(x)",
    [GGML_OP_DIAG_MASK_ZERO] = "diag_mask_zero(x)",
    [GGML_OP_SOFT_MAX]       = "soft_max(x)",
    [GGML_OP_SOFT_MAX_BACK]  = "soft_max_back(x)",
    [GGML_OP_ROPE]           = "rope(x)",
    [GGML_OP_ROPE_BACK]      = "rope_back(x)",
    [GGML_OP_CLAMP]          = "clamp(x)",
    [GGML_OP_PAD]            = "pad(x)",
    [GGML_OP_ARGSORT]        = "argsort(x)",
    [GGML_OP_TOP_K]          = "top_k(x)",
    [GGML_OP_LEAKY_RELU]     = "leaky_relu(x)",
    [GGML_OP_FILL]           = "fill(x, c)",
    [GGML_OP_FLASH_ATTN_EXT] = "flash_attn_ext(x)",
    [GGML_OP_UNARY]          = "unary(x)",
    [GGML_OP_GLU]            = "glu(x)",
};

static const char * const g_unary_op_names[GGML_UNARY_OP_COUNT] = {
    [GGML_UNARY_OP_ABS]         = "ABS",
    [GGML_UNARY_OP_SGN]         = "SGN",
    [GGML_UNARY_OP_NEG]         = "NEG",
    [GGML_UNARY_OP_STEP]        = "STEP",
    [GGML_UNARY_OP_TANH]        = "TANH",
    [GGML_UNARY_OP_ELU]         = "ELU",
    [GGML_UNARY_OP_RELU]        = "RELU",
    [GGML_UNARY_OP_SIGMOID]     = "SIGMOID",
    [GGML_UNARY_OP_GELU]        = "GELU",
    [GGML_UNARY_OP_GELU_QUICK]  = "GELU_QUICK",
    [GGML_UNARY_OP_SILU]        = "SILU",
    [GGML_UNARY_OP_HARDSWISH]   = "HARDSWISH",
    [GGML_UNARY_OP_HARDSIGMOID] = "HARDSIGMOID",
    [GGML_UNARY_OP_EXP]         = "EXP",
    [GGML_UNARY_OP_EXPM1]       = "EXPM1",
    [GGML_UNARY_OP_SOFTPLUS]    = "SOFTPLUS",
    [GGML_UNARY_OP_GELU_ERF]    = "GELU_ERF",
    [GGML_UNARY_OP_XIELU]       = "XIELU",
    [GGML_UNARY_OP_FLOOR]       = "FLOOR",
    [GGML_UNARY_OP_CEIL]        = "CEIL",
    [GGML_UNARY_OP_ROUND]       = "ROUND",
    [GGML_UNARY_OP_TRUNC]       = "TRUNC",
};

static const char * const g_glu_op_names[GGML_GLU_OP_COUNT] = {
    [GGML_GLU_OP_REGLU]       = "REGLU",
    [GGML_GLU_OP_GEGLU]       = "GEGLU",
    [GGML_GLU_OP_SWIGLU]      = "SWIGLU",
    [GGML_GLU_OP_SWIGLU_OAI]  = "SWIGLU_OAI",
    [GGML_GLU_OP_GEGLU_ERF]   = "GEGLU_ERF",
    [GGML_GLU_OP_GEGLU_QUICK] = "GEGLU_QUICK",
};

const char * ggml_op_name(enum ggml_op op) {
    if ((int) op < 0 || (int) op >= GGML_OP_COUNT) {
        return NULL;
    }
    return g_op_names[op];
}

const char * ggml_op_symbol(enum ggml_op op) {
    if ((int) op < 0 || (int) op >= GGML_OP_COUNT) {
        return NULL;
    }
    return g_op_symbols[op] != NULL ? g_op_symbols[op] : g_op_names[op];
}

const char * ggml_unary_op_name(enum ggml_unary_op op) {
    if ((int) op < 0 || (int) op >= GGML_UNARY_OP_COUNT) {
        return NULL;
    }
    return g_unary_op_names[op];
}

const char * ggml_glu_op_name(enum ggml_glu_op op) {
    if ((int) op < 0 || (int) op >= GGML_GLU_OP_COUNT) {
        return NULL;
    }
    return g_glu_op_names[op];
}

const char * ggml_op_desc(const struct ggml_tensor * t) {
    if (t->op == GGML_OP_UNARY) {
        return ggml_unary_op_name(ggml_get_unary_op(t));
    }
    if (t->op == GGML_OP_GLU) {
        return ggml_glu_op_name(ggml_get_glu_op(t));
    }
    return ggml_op_name(t->op);
}

//
// tensor queries
//

int64_t ggml_nelements(const struct ggml_tensor * tensor) {
    return tensor->ne[0] * tensor->ne[1] * tensor->ne[2] * tensor->ne[3];
}

int64_t ggml_nrows(const struct ggml_tensor * tensor) {
    return tensor->ne[1] * tensor->ne[2] * tensor->ne[3];
}

size_t ggml_nbytes(const struct ggml_tensor * tensor) {
    _Static_assert(GGML_MAX_DIMS == 4, "the dimensions are written out below");
    const int64_t * ne = tensor->ne;
    const size_t  * nb = tensor->nb;
    if (ne[0] <= 0 || ne[1] <= 0 || ne[2] <= 0 || ne[3] <= 0) {
        return 0;
    }
    const struct type_traits * traits = tensor_type_traits(tensor);
    // blocks of one element: the first element, then the farthest one along every dimension;
    // else whole blocks of the first row, then the farthest row
    size_t nbytes = traits->blck_size == 1 ? traits->type_size + (size_t) (ne[0] - 1) * nb[0]
                                           : (size_t) ne[0] * nb[0] / (size_t) traits->blck_size;
    return nbytes + (size_t) (ne[1] - 1) * nb[1] + (size_t) (ne[2] - 1) * nb[2] + (size_t) (ne[3] - 1) * nb[3];
}

size_t ggml_nbytes_pad(const struct ggml_tensor * tensor) {
    return GGML_PAD(ggml_nbytes(tensor), GGML_MEM_ALIGN);
}

size_t ggml_element_size(const struct ggml_tensor * tensor) {
    return ggml_type_size(tensor->type);
}

bool ggml_is_transposed(const struct ggml_tensor * tensor) {
    return tensor->nb[0] > tensor->nb[1];
}

bool ggml_is_permuted(const struct ggml_tensor * tensor) {
    return tensor->nb[0] > tensor->nb[1] || tensor->nb[1] > tensor->nb[2] || tensor->nb[2] > tensor->nb[3];
}

bool ggml_is_contiguous(const struct ggml_tensor * tensor) {
    // rows of whole blocks, then every dimension packed after the previous one
    // (a dimension of size 1 may have any stride)
    const int64_t blck = ggml_tensor_blck_size(tensor);
    size_t expected = ggml_type_size(tensor->type);
    if (tensor->ne[0] != blck && tensor->nb[0] != expected) {
        return false;
    }
    expected *= (size_t) (tensor->ne[0] / blck);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] != 1 && tensor->nb[i] != expected) {
            return false;
        }
        expected *= (size_t) tensor->ne[i];
    }
    return true;
}

bool ggml_is_empty(const struct ggml_tensor * tensor) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] == 0) {
            return true;
        }
    }
    return false;
}

bool ggml_is_scalar(const struct ggml_tensor * tensor) {
    return tensor->ne[0] == 1 && tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_vector(const struct ggml_tensor * tensor) {
    return tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_matrix(const struct ggml_tensor * tensor) {
    return tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

int ggml_n_dims(const struct ggml_tensor * tensor) {
    for (int i = GGML_MAX_DIMS - 1; i >= 1; i--) {
        if (tensor->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

bool ggml_are_same_shape(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->ne[i] != t1->ne[i]) {
            return false;
        }
    }
    return true;
}

bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->nb[i] != t1->nb[i]) {
            return false;
        }
    }
    return true;
}

// true when t1 is a whole number of copies of t0 along every dimension
bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (ggml_is_empty(t0)) {
        return ggml_is_empty(t1);
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t1->ne[i] % t0->ne[i] != 0) {
            return false;
        }
    }
    return true;
}

//
// the pool: objects laid one after another, each behind a header
//

enum pool_object_type {
    POOL_OBJECT_TENSOR,
    POOL_OBJECT_GRAPH,
};

struct pool_object {
    _Alignas(GGML_MEM_ALIGN) size_t offs; // bytes from the pool start to the object's payload
    size_t                          size; // payload bytes, a multiple of GGML_MEM_ALIGN
    struct pool_object            * next; // next object in creation order
    enum pool_object_type           type;
};

#define POOL_OBJECT_SIZE   GGML_PAD(sizeof(struct pool_object), GGML_MEM_ALIGN)
#define POOL_TENSOR_SIZE   GGML_PAD(sizeof(struct ggml_tensor), GGML_MEM_ALIGN)

struct ggml_context {
    size_t               mem_size;   // pool bytes
    void               * mem_buffer; // the pool, GGML_MEM_ALIGN-aligned
    bool                 mem_buffer_owned;
    bool                 no_alloc;
    int                  n_objects;
    struct pool_object * objects_begin;
    struct pool_object * objects_end;
};

// appends an object of payload `size` bytes; running out of pool is API misuse
static struct pool_object * pool_object_new(struct ggml_context * ctx, enum pool_object_type type, size_t size) {
    struct pool_object * last = ctx->objects_end;
    const size_t cur_end = last == NULL ? 0 : last->offs + last->size;

    GGML_ASSERT(size <= SIZE_MAX - GGML_MEM_ALIGN - POOL_OBJECT_SIZE - cur_end);
    const size_t size_needed = GGML_PAD(size, GGML_MEM_ALIGN);
    const size_t needed = cur_end + POOL_OBJECT_SIZE + size_needed;
    if (needed > ctx->mem_size) {
        GGML_ABORT("not enough space in the context's memory pool (needed %zu, available %zu)", needed, ctx->mem_size);
    }

    struct pool_object * obj = (struct pool_object *) ((char *) ctx->mem_buffer + cur_end);
    obj->offs = cur_end + POOL_OBJECT_SIZE;
    obj->size = size_needed;
    obj->next = NULL;
    obj->type = type;

    if (last != NULL) {
        last->next = obj;
    } else {
        ctx->objects_begin = obj;
    }
    ctx->objects_end = obj;
    ctx->n_objects++;
    return obj;
}

static void * pool_object_payload(const struct ggml_context * ctx, const struct pool_object * obj) {
    return (char *) ctx->mem_buffer + obj->offs;
}

static struct ggml_tensor * pool_next_tensor(const struct ggml_context * ctx, const struct pool_object * obj) {
    for (; obj != NULL; obj = obj->next) {
        if (obj->type == POOL_OBJECT_TENSOR) {
            return (struct ggml_tensor *) pool_object_payload(ctx, obj);
        }
    }
    return NULL;
}

//
// contexts
//

size_t ggml_tensor_overhead(void) {
    return POOL_OBJECT_SIZE + POOL_TENSOR_SIZE;
}

struct ggml_context * ggml_init(struct ggml_init_params params) {
    struct ggml_context * ctx = (struct ggml_context *) calloc(1, sizeof(struct ggml_context));
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: failed to allocate the context\n", __func__);
        return NULL;
    }
    size_t mem_size = params.mem_size == 0 ? GGML_MEM_ALIGN : params.mem_size;
    if (params.mem_buffer != NULL) {
        GGML_ASSERT(((uintptr_t) params.mem_buffer) % GGML_MEM_ALIGN == 0);
        ctx->mem_buffer       = params.mem_buffer;
        ctx->mem_buffer_owned = false;
    } else {
        GGML_ASSERT(mem_size <= SIZE_MAX - GGML_MEM_ALIGN);
        mem_size = GGML_PAD(mem_size, GGML_MEM_ALIGN);
        void * pool = NULL;
        if (posix_memalign(&pool, GGML_MEM_ALIGN < sizeof(void *) ? sizeof(void *) : GGML_MEM_ALIGN, mem_size) != 0) {
            GGML_LOG_ERROR("%s: failed to allocate a pool of %zu bytes\n", __func__, mem_size);
            free(ctx);
            return NULL;
        }
        ctx->mem_buffer       = pool;
        ctx->mem_buffer_owned = true;
    }
    ctx->mem_size = mem_size;
    ctx->no_alloc = params.no_alloc;
    return ctx;
}

void ggml_reset(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    ctx->n_objects     = 0;
    ctx->objects_begin = NULL;
    ctx->objects_end   = NULL;
}

void ggml_free(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    if (ctx->mem_buffer_owned) {
        free(ctx->mem_buffer);
    }
    free(ctx);
}

size_t ggml_used_mem(const struct ggml_context * ctx) {
    return ctx->objects_end == NULL ? 0 : ctx->objects_end->offs + ctx->objects_end->size;
}

bool ggml_get_no_alloc(struct ggml_context * ctx) {
    return ctx->no_alloc;
}

void ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc) {
    ctx->no_alloc = no_alloc;
}

size_t ggml_get_mem_size(const struct ggml_context * ctx) {
    return ctx->mem_size;
}

struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx) {
    return pool_next_tensor(ctx, ctx->objects_begin);
}

struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * tensor) {
    const struct pool_object * obj = (const struct pool_object *) ((const char *) tensor - POOL_OBJECT_SIZE);
    return pool_next_tensor(ctx, obj->next);
}

struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return NULL;
}

//
// tensor creation
//

// a new tensor of n_dims dimensions (the others are 1) with contiguous strides;
// with view_src it aliases view_src's root memory at view_offs bytes
static struct ggml_tensor * tensor_new(struct ggml_context * ctx, enum ggml_type type, int n_dims,
                                       const int64_t * ne, struct ggml_tensor * view_src, size_t view_offs) {
    GGML_ASSERT(ctx != NULL);
    GGML_ASSERT(ggml_blck_size(type) > 0 && "unknown or removed tensor type");
    GGML_ASSERT(n_dims >= 1 && n_dims <= GGML_MAX_DIMS);
    for (int i = 0; i < n_dims; i++) {
        GGML_ASSERT(ne[i] >= 0);
    }

    // a view of a view aliases the inner view's root
    if (view_src != NULL && view_src->view_src != NULL) {
        view_offs += view_src->view_offs;
        view_src   = view_src->view_src;
    }

    size_t data_size = ggml_row_size(type, ne[0]);
    for (int i = 1; i < n_dims; i++) {
        data_size *= (size_t) ne[i];
    }
    GGML_ASSERT(view_src == NULL || data_size == 0 || data_size + view_offs <= ggml_nbytes(view_src));

    const size_t pool_data = (view_src == NULL && !ctx->no_alloc) ? data_size : 0;
    GGML_ASSERT(pool_data <= SIZE_MAX - POOL_TENSOR_SIZE);
    struct pool_object * obj = pool_object_new(ctx, POOL_OBJECT_TENSOR, POOL_TENSOR_SIZE + pool_data);
    struct ggml_tensor * result = (struct ggml_tensor *) pool_object_payload(ctx, obj);

    memset(result, 0, sizeof(*result));
    result->type      = type;
    result->op        = GGML_OP_NONE;
    result->view_src  = view_src;
    result->view_offs = view_offs;
    if (pool_data > 0) {
        result->data = (char *) result + POOL_TENSOR_SIZE;
    } else if (view_src != NULL && view_src->data != NULL) {
        result->data = (char *) view_src->data + view_offs;
    }

    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[i] = i < n_dims ? ne[i] : 1;
    }
    result->nb[0] = ggml_type_size(type);
    result->nb[1] = result->nb[0] * (size_t) (result->ne[0] / ggml_blck_size(type));
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = result->nb[i - 1] * (size_t) result->ne[i - 1];
    }
    return result;
}

struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne) {
    return tensor_new(ctx, type, n_dims, ne, NULL, 0);
}

struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0) {
    return ggml_new_tensor(ctx, type, 1, &ne0);
}

struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = { ne0, ne1 };
    return ggml_new_tensor(ctx, type, 2, ne);
}

struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return ggml_new_tensor(ctx, type, 3, ne);
}

struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type,
                                        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return ggml_new_tensor(ctx, type, 4, ne);
}

struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src) {
    return ggml_new_tensor(ctx, src->type, GGML_MAX_DIMS, src->ne);
}

// same shape and strides as src, aliasing its memory; op NONE and no sources, as in ggml
struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src) {
    struct ggml_tensor * result = tensor_new(ctx, src->type, GGML_MAX_DIMS, src->ne, src, 0);
    ggml_format_name(result, "%s (view)", src->name);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = src->nb[i];
    }
    return result;
}

//
// names and flags
//

const char * ggml_get_name(const struct ggml_tensor * tensor) {
    return tensor->name;
}

struct ggml_tensor * ggml_set_name(struct ggml_tensor * tensor, const char * name) {
    size_t n = strlen(name);
    if (n > sizeof(tensor->name) - 1) {
        n = sizeof(tensor->name) - 1;
    }
    memmove(tensor->name, name, n); // name may be this tensor's own
    tensor->name[n] = '\0';
    return tensor;
}

// fmt with only %s and %d conversions written into name (GGML_MAX_NAME bytes, truncated as vsnprintf
// truncates); false, name undefined, for any other conversion or a NULL string: then vsnprintf writes
// it. Names are formatted by the thousand per model graph ("%s (view)", "%s-%d"): vsnprintf was a
// quarter of building one.
static bool format_name_simple(char * name, const char * fmt, va_list args) {
    size_t n = 0;
    for (const char * f = fmt; *f;) {
        char digits[24];
        const char * piece = f;
        size_t len = 0;
        if (*f != '%') { // the characters up to the next conversion, copied at once
            while (f[len] != '\0' && f[len] != '%') {
                len++;
            }
            f += len;
        } else if (f[1] == 's') {
            piece = va_arg(args, const char *);
            if (piece == NULL) {
                return false;
            }
            len = strlen(piece);
            f += 2;
        } else if (f[1] == 'd') {
            const int v = va_arg(args, int);
            len = 0;
            if (v < 0) {
                digits[len++] = '-';
            }
            len += galloc_decimal_format_u64(digits + len, v < 0 ? 0ULL - (uint64_t) v : (uint64_t) v);
            piece = digits;
            f += 2;
        } else {
            return false;
        }
        const size_t room = GGML_MAX_NAME - 1 - n;
        len = len < room ? len : room;
        memcpy(name + n, piece, len);
        n += len;
    }
    name[n] = '\0';
    return true;
}

struct ggml_tensor * ggml_format_name(struct ggml_tensor * tensor, const char * fmt, ...) {
    // format into a scratch buffer first: the arguments may be this tensor's own name
    char name[GGML_MAX_NAME];
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    if (!format_name_simple(name, fmt, args)) {
        vsnprintf(name, sizeof(name), fmt, again);
    }
    va_end(again);
    va_end(args);
    memcpy(tensor->name, name, sizeof(name));
    return tensor;
}

void ggml_set_input(struct ggml_tensor * tensor) {
    tensor->flags |= GGML_TENSOR_FLAG_INPUT;
}

// as ggml 0.21.0: a view's output is its source's memory, so the source is an output too
void ggml_set_output(struct ggml_tensor * tensor) {
    for (struct ggml_tensor * cur = tensor; cur != NULL; cur = cur->view_src) {
        cur->flags |= GGML_TENSOR_FLAG_OUTPUT;
    }
}

void ggml_set_param(struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_NONE);
    tensor->flags |= GGML_TENSOR_FLAG_PARAM;
}

void ggml_set_loss(struct ggml_tensor * tensor) {
    GGML_ASSERT(ggml_is_scalar(tensor));
    GGML_ASSERT(tensor->type == GGML_TYPE_F32);
    tensor->flags |= GGML_TENSOR_FLAG_LOSS;
}

enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_UNARY);
    return (enum ggml_unary_op) ggml_get_op_params_i32(tensor, 0);
}

enum ggml_glu_op ggml_get_glu_op(const struct ggml_tensor * tensor) {
    GGML_ASSERT(tensor->op == GGML_OP_GLU);
    return (enum ggml_glu_op) ggml_get_op_params_i32(tensor, 0);
}

//
// graphs: struct, nodes[size], leafs[size], hash keys[hash_size], used bits, in one pool object
//

struct graph_layout {
    size_t hash_size;  // visited set slots
    size_t nodes_offs; // byte offsets from the graph struct
    size_t leafs_offs;
    size_t keys_offs;
    size_t used_offs;
    size_t total;      // bytes of the whole object payload
};

static struct graph_layout graph_layout_of(size_t size) {
    GGML_ASSERT(size <= (SIZE_MAX / 2) / sizeof(struct ggml_tensor *) / 4);
    struct graph_layout l;
    l.hash_size  = ggml_hash_size(size * 2);
    l.nodes_offs = GGML_PAD(sizeof(struct ggml_cgraph), sizeof(struct ggml_tensor *));
    l.leafs_offs = l.nodes_offs + size * sizeof(struct ggml_tensor *);
    l.keys_offs  = l.leafs_offs + size * sizeof(struct ggml_tensor *);
    l.used_offs  = GGML_PAD(l.keys_offs + l.hash_size * sizeof(struct ggml_tensor *), sizeof(uint32_t));
    l.total      = l.used_offs + (l.hash_size + 31) / 32 * sizeof(uint32_t);
    return l;
}

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    GGML_UNUSED(grads); // gradients are not kept here
    return POOL_OBJECT_SIZE + GGML_PAD(graph_layout_of(size).total, GGML_MEM_ALIGN);
}

size_t ggml_graph_overhead(void) {
    return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    GGML_UNUSED(grads);
    GGML_ASSERT(size <= INT32_MAX);
    const struct graph_layout l = graph_layout_of(size);
    struct pool_object * obj = pool_object_new(ctx, POOL_OBJECT_GRAPH, l.total);
    char * base = (char *) pool_object_payload(ctx, obj);

    struct ggml_cgraph * cgraph = (struct ggml_cgraph *) base;
    memset(cgraph, 0, sizeof(*cgraph));
    cgraph->size      = (int) size;
    cgraph->n_nodes   = 0;
    cgraph->n_leafs   = 0;
    cgraph->nodes     = (struct ggml_tensor **) (base + l.nodes_offs);
    cgraph->leafs     = (struct ggml_tensor **) (base + l.leafs_offs);
    cgraph->grads     = NULL;
    cgraph->grad_accs = NULL;
    cgraph->visited_hash_set.size = l.hash_size;
    cgraph->visited_hash_set.keys = (struct ggml_tensor **) (base + l.keys_offs);
    cgraph->visited_hash_set.used = (uint32_t *) (base + l.used_offs);
    cgraph->order = GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT;
    ggml_hash_set_reset(&cgraph->visited_hash_set);
    return cgraph;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph0, int i0, int i1) {
    GGML_ASSERT(0 <= i0 && i0 <= i1 && i1 <= cgraph0->n_nodes);
    struct ggml_cgraph view;
    memset(&view, 0, sizeof(view));
    view.size             = 0;
    view.n_nodes          = i1 - i0;
    view.n_leafs          = 0;
    view.nodes            = cgraph0->nodes + i0;
    view.grads            = NULL;
    view.grad_accs        = NULL;
    view.leafs            = NULL;
    view.visited_hash_set = cgraph0->visited_hash_set;
    view.order            = cgraph0->order;
    view.out_of_memory    = cgraph0->out_of_memory;
    return view;
}

// Graph building follows ggml's recursive ggml_visit_parents_graph step for step, with an
// explicit stack (long chains would exhaust a small WASM stack). A tensor met the first time
// is entered in the visited set, its sources are walked in eval order, then it is appended.
// A tensor met again with compute walks, in slot order, each source that lacks the compute
// flag at that moment, as ggml does: through op-less sources too, and a source that is not in
// the graph yet (its slot was set by hand after the walk) is visited in full there.

struct graph_walk_frame {
    struct ggml_tensor * node;
    int                  next_src; // sources [0, next_src) are done
    bool                 first;    // a first visit (else a walk below a tensor met again)
    bool                 compute;  // the flag the first visit passes down
};

struct graph_walk {
    struct ggml_cgraph *       cgraph;
    struct graph_walk_frame *  stack;
    size_t                     depth, cap;
    struct ggml_tensor **      walked;   // op-less tensors met again and walked below in this call
    size_t                     n_walked, cap_walked;
};

static bool graph_has_sources(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] != NULL) {
            return true;
        }
    }
    return false;
}

// whether ggml's walk would change anything below src (a source of a tensor met again)
static bool graph_source_needs_walk(const struct ggml_cgraph * cgraph, const struct ggml_tensor * src) {
    if (src == NULL || (src->flags & GGML_TENSOR_FLAG_COMPUTE)) {
        return false;
    }
    return src->op != GGML_OP_NONE || graph_has_sources(src) || !ggml_hash_contains(&cgraph->visited_hash_set, src);
}

static bool graph_walk_grow(struct graph_walk * w) {
    const size_t cap = w->cap == 0 ? 64 : w->cap * 2;
    struct graph_walk_frame * grown = (struct graph_walk_frame *) realloc(w->stack, cap * sizeof(*grown));
    if (grown == NULL) {
        w->cgraph->out_of_memory = true;
        return false;
    }
    w->stack = grown;
    w->cap   = cap;
    return true;
}

static inline void graph_walk_push(struct graph_walk * w, struct ggml_tensor * node, bool first, bool compute) {
    if (w->depth < w->cap || graph_walk_grow(w)) {
        w->stack[w->depth++] = (struct graph_walk_frame) { node, 0, first, compute };
    }
}

// an op-less tensor is walked below at most once per call: a second walk would change nothing,
// and where ggml recurses without end (op-less tensors whose sources make a cycle) this stops
static bool graph_walk_first_time_below(struct graph_walk * w, struct ggml_tensor * t) {
    for (size_t i = 0; i < w->n_walked; i++) {
        if (w->walked[i] == t) {
            return false;
        }
    }
    if (w->n_walked == w->cap_walked) {
        const size_t cap = w->cap_walked == 0 ? 16 : w->cap_walked * 2;
        struct ggml_tensor ** grown = (struct ggml_tensor **) realloc(w->walked, cap * sizeof(*grown));
        if (grown == NULL) {
            w->cgraph->out_of_memory = true;
            return false;
        }
        w->walked     = grown;
        w->cap_walked = cap;
    }
    w->walked[w->n_walked++] = t;
    return true;
}

// a tensor met again with compute: a walk below it, when one of its sources needs one
static void graph_walk_revisit(struct graph_walk * w, struct ggml_tensor * node) {
    bool any = false; // usually every source has the flag already (a tensor met again): no walk
    for (int i = 0; i < GGML_MAX_SRC && !any; i++) {
        any = graph_source_needs_walk(w->cgraph, node->src[i]);
    }
    if (any && (node->op != GGML_OP_NONE || graph_walk_first_time_below(w, node))) {
        graph_walk_push(w, node, false, true);
    }
}

// ggml's visit of one tensor, up to its sources: flag, then a first visit or a walk below
static inline void graph_walk_enter(struct graph_walk * w, struct ggml_tensor * node, bool compute) {
    if (node->op != GGML_OP_NONE && compute) {
        node->flags |= GGML_TENSOR_FLAG_COMPUTE;
    }
    if (ggml_hash_insert(&w->cgraph->visited_hash_set, node) != GGML_HASHSET_ALREADY_EXISTS) {
        graph_walk_push(w, node, true, compute);
    } else if (compute) {
        graph_walk_revisit(w, node);
    }
}

// appends a tensor whose sources are all in the graph: to leafs or nodes, naming it if unnamed
static void graph_visit_leave(struct ggml_cgraph * cgraph, struct ggml_tensor * node) {
    if (node->op == GGML_OP_NONE && !(node->flags & GGML_TENSOR_FLAG_PARAM)) {
        if (cgraph->n_leafs >= cgraph->size) {
            GGML_ABORT("graph is full: more than %d leafs", cgraph->size);
        }
        if (node->name[0] == '\0') {
            ggml_format_name(node, "leaf_%d", cgraph->n_leafs);
        }
        cgraph->leafs[cgraph->n_leafs++] = node;
    } else {
        if (cgraph->n_nodes >= cgraph->size) {
            GGML_ABORT("graph is full: more than %d nodes", cgraph->size);
        }
        if (node->name[0] == '\0') {
            ggml_format_name(node, "node_%d", cgraph->n_nodes);
        }
        cgraph->nodes[cgraph->n_nodes++] = node;
    }
}

// the next source the top frame visits, or NULL when it is done
static struct ggml_tensor * graph_walk_next_source(const struct graph_walk * w, struct graph_walk_frame * top) {
    const bool right_to_left = w->cgraph->order == GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT;
    while (top->next_src < GGML_MAX_SRC) {
        const int i = top->next_src++;
        if (top->first) {
            struct ggml_tensor * src = top->node->src[right_to_left ? GGML_MAX_SRC - 1 - i : i];
            if (src != NULL) {
                return src;
            }
        } else if (top->node->src[i] != NULL && !(top->node->src[i]->flags & GGML_TENSOR_FLAG_COMPUTE)) {
            return top->node->src[i]; // the flag is read when the slot is reached, as ggml reads it
        }
    }
    return NULL;
}

static void graph_visit(struct ggml_cgraph * cgraph, struct ggml_tensor * root, bool compute) {
    struct graph_walk w = { cgraph, NULL, 0, 0, NULL, 0, 0 };
    graph_walk_enter(&w, root, compute);
    while (w.depth > 0 && !cgraph->out_of_memory) {
        struct graph_walk_frame * top = &w.stack[w.depth - 1];
        struct ggml_tensor * src = graph_walk_next_source(&w, top);
        if (src != NULL) {
            graph_walk_enter(&w, src, top->first ? top->compute : true);
            continue;
        }
        if (top->first) {
            graph_visit_leave(cgraph, top->node);
        }
        w.depth--;
    }
    free(w.stack);
    free(w.walked);
}

static void graph_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor, bool compute) {
    const int n_old = cgraph->n_nodes;
    graph_visit(cgraph, tensor, compute);
    if (cgraph->n_nodes > n_old && !cgraph->out_of_memory) {
        // the tensor asked for is always the last node added (unless the walk ran out of memory)
        GGML_ASSERT(cgraph->nodes[cgraph->n_nodes - 1] == tensor);
    }
}

void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    graph_expand(cgraph, tensor, true);
}

struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors,
                                               int n_tensors, int idx) {
    GGML_ASSERT(idx >= 0 && idx < n_tensors);
    for (int i = 0; i < n_tensors; i++) {
        graph_expand(cgraph, tensors[i], i == idx);
    }
    return tensors[idx];
}

int ggml_graph_size(struct ggml_cgraph * cgraph) {
    return cgraph->size;
}

int ggml_graph_n_nodes(struct ggml_cgraph * cgraph) {
    return cgraph->n_nodes;
}

struct ggml_tensor * ggml_graph_node(struct ggml_cgraph * cgraph, int i) {
    if (i < 0) {
        GGML_ASSERT(cgraph->n_nodes + i >= 0);
        return cgraph->nodes[cgraph->n_nodes + i];
    }
    GGML_ASSERT(i < cgraph->n_nodes);
    return cgraph->nodes[i];
}

struct ggml_tensor ** ggml_graph_nodes(struct ggml_cgraph * cgraph) {
    return cgraph->nodes;
}

void ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    GGML_ASSERT(cgraph->n_nodes < cgraph->size);
    cgraph->nodes[cgraph->n_nodes++] = tensor;
}

void ggml_graph_clear(struct ggml_cgraph * cgraph) {
    cgraph->n_leafs = 0;
    cgraph->n_nodes = 0;
    cgraph->out_of_memory = false;
    ggml_hash_set_reset(&cgraph->visited_hash_set);
}

struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * cgraph, const char * name) {
    for (int i = 0; i < cgraph->n_leafs; i++) {
        if (strcmp(cgraph->leafs[i]->name, name) == 0) {
            return cgraph->leafs[i];
        }
    }
    for (int i = 0; i < cgraph->n_nodes; i++) {
        if (strcmp(cgraph->nodes[i]->name, name) == 0) {
            return cgraph->nodes[i];
        }
    }
    return NULL;
}
