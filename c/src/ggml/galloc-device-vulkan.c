// galloc-device-vulkan.c: ggml-vulkan's supports_op and graph_optimize, for the Vulkan profiles.
//
// Ported from ggml/src/ggml-vulkan/ggml-vulkan.cpp at llama.cpp 3f545bec
// (ggml_backend_vk_device_supports_op, ggml_vk_graph_optimize). The device properties the
// rules read (storage buffer range, subgroup operations, shared memory, ...) come from the
// profile's struct galloc_vk_limits (galloc-device-profiles.c says where each value is from).
// Every op of ggml 0.21.0 is answered as ggml-vulkan answers it for such a device.

#include "galloc-device-impl.h"
#include "ggml-impl.h"

#include <stdlib.h>

// ggml.h's upscale mode and flag (galloc's ggml.h has no upscale op builder)
#define SCALE_MODE_BILINEAR   1
#define SCALE_FLAG_ANTIALIAS  (1 << 9)

// ---- supports_op ------------------------------------------------------------

static bool contiguous_rows(const struct ggml_tensor * t) {
    return t->ne[0] == ggml_blck_size(t->type) || t->nb[0] == ggml_type_size(t->type);
}

// ggml_vk_dim01_contiguous
static bool dim01_contiguous(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) &&
           t->nb[1] == (t->nb[0] * (size_t) t->ne[0]) / (size_t) ggml_blck_size(t->type) &&
           (t->ne[3] == 1 || t->nb[3] == t->nb[2] * (size_t) t->ne[2]);
}

static bool f32_or_f16(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16;
}

// the types with matrix multiplication and get_rows shaders
static bool mul_mat_type(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32: case GGML_TYPE_F16: case GGML_TYPE_BF16:
        case GGML_TYPE_Q1_0: case GGML_TYPE_Q2_0:
        case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q5_0: case GGML_TYPE_Q5_1: case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_Q4_K: case GGML_TYPE_Q5_K: case GGML_TYPE_Q6_K:
        case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M: case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS: case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ4_XS: case GGML_TYPE_IQ4_NL:
        case GGML_TYPE_MXFP4: case GGML_TYPE_NVFP4: case GGML_TYPE_TQ2_0:
            return true;
        default:
            return false;
    }
}

// the types a float can be copied to (and back from), set_rows' destinations
static bool cpy_type(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_F16: case GGML_TYPE_BF16: case GGML_TYPE_Q1_0: case GGML_TYPE_Q2_0:
        case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q5_0: case GGML_TYPE_Q5_1: case GGML_TYPE_Q8_0:
        case GGML_TYPE_IQ4_NL:
            return true;
        default:
            return false;
    }
}

static bool fa_kv_type(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32: case GGML_TYPE_F16: case GGML_TYPE_BF16: case GGML_TYPE_Q8_0: case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q5_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q4_0: case GGML_TYPE_IQ4_NL:
            return true;
        default:
            return false;
    }
}

// a tensor of this size fits a buffer and, without 64-bit indexing, one storage buffer binding
static bool size_supported(const struct galloc_vk_limits * vk, const struct ggml_tensor * op, size_t size) {
    const bool uses_bda = (op->op == GGML_OP_IM2COL || op->op == GGML_OP_IM2COL_3D) && vk->bda;
    if (size > vk->max_buffer_size) {
        return false;
    }
    return uses_bda || vk->shader_64b_indexing || size <= vk->max_storage_buffer_range;
}

static bool supports_unary(const struct ggml_tensor * op) {
    switch (ggml_get_unary_op(op)) {
        case GGML_UNARY_OP_EXP: case GGML_UNARY_OP_EXPM1: case GGML_UNARY_OP_ELU: case GGML_UNARY_OP_GELU:
        case GGML_UNARY_OP_GELU_ERF: case GGML_UNARY_OP_GELU_QUICK: case GGML_UNARY_OP_SILU: case GGML_UNARY_OP_RELU:
        case GGML_UNARY_OP_XIELU: case GGML_UNARY_OP_NEG: case GGML_UNARY_OP_TANH: case GGML_UNARY_OP_SIGMOID:
        case GGML_UNARY_OP_HARDSIGMOID: case GGML_UNARY_OP_HARDSWISH: case GGML_UNARY_OP_ABS: case GGML_UNARY_OP_SOFTPLUS:
        case GGML_UNARY_OP_STEP: case GGML_UNARY_OP_ROUND: case GGML_UNARY_OP_CEIL: case GGML_UNARY_OP_FLOOR:
        case GGML_UNARY_OP_TRUNC: case GGML_UNARY_OP_SGN:
            return f32_or_f16(op->src[0]->type) && op->src[0]->type == op->type;
        default:
            return false;
    }
}

static bool supports_glu(const struct ggml_tensor * op) {
    switch (ggml_get_glu_op(op)) {
        case GGML_GLU_OP_GEGLU: case GGML_GLU_OP_REGLU: case GGML_GLU_OP_SWIGLU: case GGML_GLU_OP_SWIGLU_OAI:
        case GGML_GLU_OP_GEGLU_ERF: case GGML_GLU_OP_GEGLU_QUICK:
            return f32_or_f16(op->src[0]->type) && op->src[0]->type == op->type &&
                   (!op->src[1] || op->src[1]->type == op->src[0]->type);
        default:
            return false;
    }
}

static bool supports_mul_mat(const struct galloc_vk_limits * vk, const struct ggml_tensor * op) {
    const enum ggml_type t0 = op->src[0]->type;
    if ((op->op == GGML_OP_MUL_MAT_ID && !vk->mul_mat_id) || !mul_mat_type(t0)) {
        return false;
    }
    const struct ggml_tensor * a = op->op == GGML_OP_MUL_MAT ? op->src[0] : op->src[2];
    const struct ggml_tensor * b = op->src[1];
    if (a->ne[3] != b->ne[3]) {
        return false;
    }
    if (!(dim01_contiguous(op->src[0]) || t0 == GGML_TYPE_F32 || t0 == GGML_TYPE_F16 || t0 == GGML_TYPE_BF16) ||
        !(dim01_contiguous(op->src[1]) || f32_or_f16(op->src[1]->type))) {
        return false;
    }
    return !(t0 == GGML_TYPE_BF16 && op->src[1]->type == GGML_TYPE_F16); // no bf16 x f16 shader
}

static bool supports_flash_attn(const struct galloc_vk_limits * vk, const struct ggml_tensor * op) {
    if (op->src[1]->ne[0] % 8 != 0 || op->src[2]->ne[0] % 8 != 0) {
        return false;
    }
    if ((op->src[4] && op->src[4]->type != GGML_TYPE_F32) || op->src[0]->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 ||
        (op->src[3] && op->src[3]->type != GGML_TYPE_F16)) {
        return false;
    }
    if (!fa_kv_type(op->src[1]->type) || !fa_kv_type(op->src[2]->type) ||
        (op->src[1]->type == GGML_TYPE_BF16) != (op->src[2]->type == GGML_TYPE_BF16)) {
        return false;
    }
    return vk->coopmat2 || (vk->subgroup_shuffle && vk->subgroup_vote); // scalar / coopmat1 use shuffle and vote
}

static bool supports_cpy(const struct ggml_tensor * op) {
    const enum ggml_type t0 = op->src[0]->type;
    const enum ggml_type t1 = op->src[1] ? op->src[1]->type : t0;
    if ((t0 == GGML_TYPE_F32 && (t1 == GGML_TYPE_F32 || cpy_type(t1))) ||
        (t1 == GGML_TYPE_F32 && cpy_type(t0)) ||
        (t0 == GGML_TYPE_F16 && t1 == GGML_TYPE_F16) ||
        (t0 == GGML_TYPE_F32 && t1 == GGML_TYPE_I32) || (t0 == GGML_TYPE_I32 && t1 == GGML_TYPE_F32)) {
        return true;
    }
    // same type: not quantized, or quantized and contiguous; through f16 or f32 shaders
    return t0 == t1 && (!ggml_is_quantized(t0) || (ggml_is_contiguous(op->src[0]) && ggml_is_contiguous(op))) &&
           ggml_type_size(t0) % 2 == 0;
}

// ggml_vk_concat_supported
static bool supports_concat(const struct ggml_tensor * op) {
    const struct ggml_tensor * s0 = op->src[0], * s1 = op->src[1];
    if (s0->type != s1->type || s0->type != op->type) {
        return false;
    }
    if (!ggml_is_quantized(s0->type)) {
        const size_t ts = ggml_type_size(s0->type);
        return ts == 1 || ts == 2 || ts == 4 || ts == 8;
    }
    return contiguous_rows(s0) && contiguous_rows(s1) && contiguous_rows(op);
}

// (uint32_t) log2f(n) for n >= 1: exact below 2^24; above, both are past the last pipeline
static uint32_t floor_log2(int64_t n) {
    uint32_t l = 0;
    while (n > 1) {
        n >>= 1;
        l++;
    }
    return l;
}

// a top-k pipeline for 2^i columns exists (the nary search needs more shared memory than the
// argsort fallback, so the fallback's need decides)
static bool topk_pipeline(const struct galloc_vk_limits * vk, uint32_t i) {
    return i < 11 && i <= vk->max_workgroup_size_log2 && 2 * sizeof(int) * ((size_t) 1 << i) <= vk->max_shared_memory;
}

static bool supports_ssm_scan(const struct galloc_vk_limits * vk, const struct ggml_tensor * op) {
    for (int i = 0; i < 6; i++) {
        if (op->src[i] && ggml_is_quantized(op->src[i]->type)) {
            return false;
        }
    }
    if ((op->src[6] && op->src[6]->type != GGML_TYPE_I32) || op->src[0]->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    const int64_t d_state = op->src[0]->ne[0], head_dim = op->src[0]->ne[1];
    const bool is_mamba2 = op->src[3] && op->src[3]->nb[1] == sizeof(float);
    return is_mamba2 && (d_state == 128 || d_state == 256) && head_dim % 16 == 0 &&
           (size_t) d_state * sizeof(float) <= vk->max_shared_memory && vk->subgroup_basic;
}

static bool supports_conv_2d(const struct ggml_tensor * op) {
    const bool transpose = op->op == GGML_OP_CONV_TRANSPOSE_2D;
    const int64_t cout = !transpose ? op->src[0]->ne[3] : op->src[0]->ne[2];
    const int64_t cin  = !transpose ? op->src[0]->ne[2] : op->src[0]->ne[3];
    return f32_or_f16(op->src[0]->type) && (op->src[0]->nb[0] == 4 || op->src[0]->nb[0] == 2) &&
           op->src[1]->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && cout == op->ne[2] && cin == op->src[1]->ne[2] &&
           ggml_is_contiguous(op->src[0]) && ggml_is_contiguous(op->src[1]) && ggml_is_contiguous(op);
}

static bool supports_op_kind(const struct galloc_vk_limits * vk, const struct ggml_tensor * op) {
    const struct ggml_tensor * s0 = op->src[0];
    const struct ggml_tensor * s1 = op->src[1];
    switch (op->op) {
        case GGML_OP_UNARY:
            return supports_unary(op);
        case GGML_OP_GLU:
            return supports_glu(op);
        case GGML_OP_MUL_MAT:
        case GGML_OP_MUL_MAT_ID:
            return supports_mul_mat(vk, op);
        case GGML_OP_FLASH_ATTN_EXT:
            return supports_flash_attn(vk, op);
        case GGML_OP_GET_ROWS:
            return mul_mat_type(s0->type) || s0->type == GGML_TYPE_I32;
        case GGML_OP_GET_ROWS_BACK:
            return op->type == GGML_TYPE_F32 && s0->type == GGML_TYPE_F32;
        case GGML_OP_SET_ROWS:
            return f32_or_f16(s0->type) && (s1->type == GGML_TYPE_I32 || s1->type == GGML_TYPE_I64) &&
                   (op->type == GGML_TYPE_F32 || cpy_type(op->type));
        case GGML_OP_CONT:
        case GGML_OP_CPY:
        case GGML_OP_DUP:
            return supports_cpy(op);
        case GGML_OP_REPEAT:
            return ggml_type_size(op->type) == ggml_type_size(s0->type) && (ggml_type_size(op->type) == 4 || ggml_type_size(op->type) == 2);
        case GGML_OP_REPEAT_BACK:
            return op->type == GGML_TYPE_F32 && s0->type == GGML_TYPE_F32;
        case GGML_OP_ROPE:
            return contiguous_rows(op) && contiguous_rows(s0);
        case GGML_OP_ROPE_BACK: case GGML_OP_NONE: case GGML_OP_RESHAPE: case GGML_OP_VIEW: case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE: case GGML_OP_RMS_NORM:
            return true;
        case GGML_OP_GROUP_NORM:
            return ggml_is_contiguous(s0);
        case GGML_OP_NORM:
        case GGML_OP_L2_NORM:
            return s0->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32;
        case GGML_OP_ADD: case GGML_OP_SUB: case GGML_OP_MUL: case GGML_OP_DIV:
            return f32_or_f16(s0->type) && f32_or_f16(s1->type) && f32_or_f16(op->type);
        case GGML_OP_ADD_ID:
            return s0->type == GGML_TYPE_F32 && s1->type == GGML_TYPE_F32 && op->src[2]->type == GGML_TYPE_I32 && op->type == GGML_TYPE_F32;
        case GGML_OP_SILU_BACK: case GGML_OP_RMS_NORM_BACK: case GGML_OP_OPT_STEP_ADAMW: case GGML_OP_OPT_STEP_SGD:
        case GGML_OP_SCALE: case GGML_OP_DIAG_MASK_INF: case GGML_OP_ARGMAX: case GGML_OP_POOL_1D: case GGML_OP_POOL_2D:
            return ggml_is_contiguous(s0) && s0->type == GGML_TYPE_F32;
        case GGML_OP_SQR: case GGML_OP_SQRT: case GGML_OP_SIN: case GGML_OP_COS: case GGML_OP_CLAMP: case GGML_OP_LEAKY_RELU:
        case GGML_OP_LOG: case GGML_OP_TRI: case GGML_OP_DIAG:
            return f32_or_f16(s0->type) && op->type == s0->type;
        case GGML_OP_OUT_PROD:
            return ggml_is_contiguous(s0) && s0->type == GGML_TYPE_F32 && ggml_is_contiguous(s1) && s1->type == GGML_TYPE_F32 &&
                   op->type == GGML_TYPE_F32;
        case GGML_OP_ARGSORT:
            if (!ggml_is_contiguous(op) || !ggml_is_contiguous(s0)) {
                return false;
            }
            // the large argsort pipeline needs the Vulkan memory model
            return vk->vulkan_memory_model || op->ne[0] <= ((int64_t) 1 << vk->max_workgroup_size_log2);
        case GGML_OP_TOP_K:
            return ggml_is_contiguous(op) && ggml_is_contiguous(s0) && op->ne[0] > 0 && topk_pipeline(vk, floor_log2(op->ne[0]) + 1);
        case GGML_OP_UPSCALE:
            if ((ggml_get_op_params_i32(op, 0) & SCALE_FLAG_ANTIALIAS) &&
                (ggml_get_op_params_i32(op, 0) & 0xFF) != SCALE_MODE_BILINEAR) {
                return false;
            }
            return s0->type == GGML_TYPE_F32;
        case GGML_OP_ACC:
            return s0->type == GGML_TYPE_F32 && s1->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32;
        case GGML_OP_SET:
            return s0->type == s1->type && s0->type == op->type && (s0->type == GGML_TYPE_F32 || s0->type == GGML_TYPE_I32);
        case GGML_OP_CONCAT:
            return supports_concat(op);
        case GGML_OP_ADD1:
            return (s0->type == GGML_TYPE_F32 && s1->type == GGML_TYPE_F32) || (s0->type == GGML_TYPE_F16 && f32_or_f16(s1->type));
        case GGML_OP_ARANGE:
            return op->type == GGML_TYPE_F32;
        case GGML_OP_FILL:
            return f32_or_f16(op->type);
        case GGML_OP_PAD: case GGML_OP_PAD_REFLECT_1D: case GGML_OP_ROLL: case GGML_OP_TIMESTEP_EMBEDDING: case GGML_OP_SSM_CONV:
            return s0->type == GGML_TYPE_F32;
        case GGML_OP_SOFT_MAX:
            return ggml_is_contiguous(s0) && s0->type == GGML_TYPE_F32 && (!s1 || f32_or_f16(s1->type));
        case GGML_OP_SOFT_MAX_BACK:
            return ggml_is_contiguous(s0) && s0->type == GGML_TYPE_F32 && ggml_is_contiguous(s1) && s1->type == GGML_TYPE_F32;
        case GGML_OP_SUM: case GGML_OP_SUM_ROWS: case GGML_OP_MEAN:
            return s0->type == GGML_TYPE_F32 && contiguous_rows(s0);
        case GGML_OP_CUMSUM:
            return vk->subgroup_arithmetic && vk->full_subgroups && s0->type == GGML_TYPE_F32 && contiguous_rows(s0);
        case GGML_OP_SOLVE_TRI: {
            if (op->type != GGML_TYPE_F32 || s0->type != GGML_TYPE_F32) {
                return false;
            }
            const uint32_t n = (uint32_t) s0->ne[0], k = (uint32_t) s1->ne[0];
            return k <= (1u << vk->max_workgroup_size_log2) && vk->max_shared_memory / ((n + k) * sizeof(float)) > 0;
        }
        case GGML_OP_COUNT_EQUAL:
            return ggml_is_contiguous(s0) && s0->type == GGML_TYPE_I32 && ggml_is_contiguous(s1) && s1->type == GGML_TYPE_I32;
        case GGML_OP_IM2COL:
            return ggml_is_contiguous(s1) && s1->type == GGML_TYPE_F32 && f32_or_f16(op->type);
        case GGML_OP_IM2COL_3D:
            return s1->type == GGML_TYPE_F32 && f32_or_f16(op->type);
        case GGML_OP_CONV_2D_DW:
            return f32_or_f16(s0->type) && s1->type == GGML_TYPE_F32;
        case GGML_OP_RWKV_WKV6:
        case GGML_OP_RWKV_WKV7:
            return true;
        case GGML_OP_GATED_LINEAR_ATTN:
            return s0->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && s0->ne[0] == 64; // head size 64 only
        case GGML_OP_GATED_DELTA_NET: {
            const int64_t s_v = op->src[2]->ne[0];
            if (s_v != 16 && s_v != 32 && s_v != 64 && s_v != 128) {
                return false;
            }
            for (int i = 0; i < 6; i++) {
                if (!op->src[i] || op->src[i]->type != GGML_TYPE_F32) {
                    return false;
                }
            }
            return op->type == GGML_TYPE_F32;
        }
        case GGML_OP_SSM_SCAN:
            return supports_ssm_scan(vk, op);
        case GGML_OP_CONV_TRANSPOSE_1D:
            return s0->type == GGML_TYPE_F32 && s1->type == GGML_TYPE_F32;
        case GGML_OP_COL2IM_1D:
            return (f32_or_f16(s0->type) || s0->type == GGML_TYPE_BF16) && op->type == s0->type && ggml_is_contiguous(s0) &&
                   ggml_is_contiguous(op);
        case GGML_OP_CONV_2D:
        case GGML_OP_CONV_TRANSPOSE_2D:
            return supports_conv_2d(op);
        case GGML_OP_CONV_3D:
            return f32_or_f16(s0->type) && s1->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && ggml_is_contiguous(s0) &&
                   ggml_is_contiguous(s1) && ggml_is_contiguous(op);
        default:
            return false;
    }
}

bool galloc_device_vulkan_supports_op(const struct galloc_dev * dev, const struct ggml_tensor * op) {
    const struct galloc_vk_limits * vk = dev->profile->vk;
    // every tensor of the op must fit a buffer and a storage buffer binding
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (op->src[i] && !size_supported(vk, op, ggml_nbytes(op->src[i]))) {
            return false;
        }
    }
    return size_supported(vk, op, ggml_nbytes(op)) && supports_op_kind(vk, op);
}

// ---- graph_optimize -----------------------------------------------------------

#define N_PATTERNS 6

// the fusion patterns kept together (topk_moe_*, snake), in ggml-vulkan's order
static const enum ggml_op pattern_early_softmax_norm[] = { GGML_OP_SOFT_MAX, GGML_OP_RESHAPE, GGML_OP_ARGSORT, GGML_OP_VIEW,
    GGML_OP_GET_ROWS, GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE };
static const enum ggml_op pattern_sigmoid_norm_bias[] = { GGML_OP_UNARY, GGML_OP_RESHAPE, GGML_OP_ADD, GGML_OP_ARGSORT,
    GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV, GGML_OP_RESHAPE };
static const enum ggml_op pattern_sqrt_softplus_norm_bias[] = { GGML_OP_UNARY, GGML_OP_SQRT, GGML_OP_RESHAPE, GGML_OP_ADD,
    GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE, GGML_OP_SUM_ROWS, GGML_OP_CLAMP, GGML_OP_DIV,
    GGML_OP_RESHAPE };
static const enum ggml_op pattern_early_softmax[] = { GGML_OP_SOFT_MAX, GGML_OP_RESHAPE, GGML_OP_ARGSORT, GGML_OP_VIEW,
    GGML_OP_GET_ROWS };
static const enum ggml_op pattern_late_softmax[] = { GGML_OP_ARGSORT, GGML_OP_VIEW, GGML_OP_GET_ROWS, GGML_OP_RESHAPE,
    GGML_OP_SOFT_MAX, GGML_OP_RESHAPE };
static const enum ggml_op pattern_snake[] = { GGML_OP_MUL, GGML_OP_SIN, GGML_OP_SQR, GGML_OP_MUL, GGML_OP_ADD };

#define PATTERN(p) { p, sizeof(p) / sizeof(p[0]) }
static const struct {
    const enum ggml_op * ops;
    int                  n;
} patterns[N_PATTERNS] = {
    PATTERN(pattern_early_softmax_norm), PATTERN(pattern_sigmoid_norm_bias), PATTERN(pattern_sqrt_softplus_norm_bias),
    PATTERN(pattern_early_softmax),      PATTERN(pattern_late_softmax),      PATTERN(pattern_snake),
};

struct reorder {
    struct ggml_cgraph *  graph;
    bool *                used;     // taken into a set (in new_order or about to be)
    bool *                pushed;   // in new_order (upstream's used_node_set)
    struct ggml_tensor ** order;    // new_order
    int                   n_order;
    int *                 set;      // current_set (node indices)
    int                   n_set;
    int                   set_cap;
};

static bool is_empty(const struct ggml_tensor * t) {
    return t->op == GGML_OP_NONE || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_TRANSPOSE || t->op == GGML_OP_VIEW ||
           t->op == GGML_OP_PERMUTE;
}

// dst reads src, or both view the same tensor
static bool is_src_of(const struct ggml_tensor * dst, const struct ggml_tensor * src) {
    for (int s = 0; s < GGML_MAX_SRC; s++) {
        if (dst->src[s] == src) {
            return true;
        }
    }
    const struct ggml_tensor * d2 = dst->view_src ? dst->view_src : dst;
    const struct ggml_tensor * s2 = src->view_src ? src->view_src : src;
    return d2 == s2;
}

static bool match_pattern(const struct reorder * r, int p, int start) {
    if (start + patterns[p].n > r->graph->n_nodes) {
        return false;
    }
    for (int j = 0; j < patterns[p].n; j++) {
        if (r->graph->nodes[start + j]->op != patterns[p].ops[j] || r->used[start + j]) {
            return false;
        }
    }
    return true;
}

static bool match_any_pattern(const struct reorder * r, int start) {
    for (int p = 0; p < N_PATTERNS; p++) {
        if (match_pattern(r, p, start)) {
            return true;
        }
    }
    return false;
}

// a node taken twice (upstream does not check) lands past the n kept: only the first n count
static void push(struct reorder * r, int i) {
    if (r->n_order < r->graph->n_nodes) {
        r->order[r->n_order++] = r->graph->nodes[i];
    }
    r->pushed[i] = true;
    r->used[i]   = true;
}

// a tensor is already in new_order (weights are never nodes)
static bool was_pushed(const struct reorder * r, const struct ggml_tensor * t) {
    for (int i = 0; i < r->graph->n_nodes; i++) {
        if (r->graph->nodes[i] == t) {
            return r->pushed[i];
        }
    }
    return false;
}

static void add_to_set(struct reorder * r, int k) {
    if (r->n_set < r->set_cap) {
        r->set[r->n_set++] = k;
    }
}

static void take(struct reorder * r, int k) {
    add_to_set(r, k);
    r->used[k] = true;
}

static bool in_set(const struct reorder * r, int c) {
    for (int i = 0; i < r->n_set; i++) {
        if (r->set[i] == c) {
            return true;
        }
    }
    return false;
}

// node j may read node c (just before it, the last of the set) when the two fuse
static bool fusable_pair(const struct reorder * r, int c, int j) {
    if (!(j == c + 1 && c == r->set[r->n_set - 1])) {
        return false;
    }
    const enum ggml_op a = r->graph->nodes[c]->op, b = r->graph->nodes[j]->op;
    return (a == GGML_OP_RMS_NORM && b == GGML_OP_MUL) || (a == GGML_OP_MUL_MAT && b == GGML_OP_ADD) ||
           (a == GGML_OP_MUL_MAT_ID && b == GGML_OP_ADD_ID) || (a == GGML_OP_MUL_MAT_ID && b == GGML_OP_MUL) ||
           (a == GGML_OP_ADD && b == GGML_OP_ADD) || (a == GGML_OP_SSM_CONV && b == GGML_OP_ADD) ||
           (a == GGML_OP_SSM_CONV && b == GGML_OP_UNARY);
}

// after node j joined the set: pull forward the nodes that fuse with it
static void pull_fused(struct reorder * r, int j) {
    struct ggml_tensor ** nodes = r->graph->nodes;
    const int             n     = r->graph->n_nodes;
    int rope_idx = j;
    // RMS_NORM + MUL: a ROPE of it whose other sources are leafs
    if (j > 0 && nodes[j]->op == GGML_OP_MUL && nodes[j - 1]->op == GGML_OP_RMS_NORM) {
        for (int k = j + 1; k < n && k < j + 15; k++) {
            if (nodes[k]->op == GGML_OP_ROPE && nodes[k]->src[0] == nodes[j] && nodes[k]->src[1]->op == GGML_OP_NONE &&
                (nodes[k]->src[2] == NULL || nodes[k]->src[2]->op == GGML_OP_NONE)) {
                rope_idx = k;
                take(r, k);
                break;
            }
        }
    }
    // ROPE + VIEW + SET_ROWS made consecutive
    if (nodes[rope_idx]->op == GGML_OP_ROPE) {
        int view_idx = -1, set_rows_idx = -1;
        for (int k = rope_idx + 1; k < n && k < rope_idx + 10; k++) {
            if (view_idx == -1 && nodes[k]->op == GGML_OP_VIEW && nodes[k]->src[0] == nodes[rope_idx]) {
                view_idx = k;
                continue;
            }
            if (view_idx != -1 && nodes[k]->op == GGML_OP_SET_ROWS && nodes[k]->src[0] == nodes[view_idx]) {
                set_rows_idx = k;
                break;
            }
        }
        if (set_rows_idx != -1) {
            take(r, view_idx);
            take(r, set_rows_idx);
        }
    }
    // MUL_MAT_ID + ADD_ID + MUL, MUL_MAT + ADD + ADD: the second consumer, its other source ready
    const bool add_id = j > 0 && nodes[j]->op == GGML_OP_ADD_ID && nodes[j - 1]->op == GGML_OP_MUL_MAT_ID;
    const bool add    = j > 0 && nodes[j]->op == GGML_OP_ADD && nodes[j - 1]->op == GGML_OP_MUL_MAT;
    for (int pass = 0; pass < 2; pass++) {
        if (!(pass == 0 ? add_id : add)) {
            continue;
        }
        const enum ggml_op want = pass == 0 ? GGML_OP_MUL : GGML_OP_ADD;
        for (int k = j + 1; k < n && k < j + 15; k++) {
            if (nodes[k]->op == want && nodes[k]->src[0] == nodes[j] &&
                (nodes[k]->src[1]->op == GGML_OP_NONE || was_pushed(r, nodes[k]->src[1]))) {
                take(r, k);
                break;
            }
        }
    }
    // SSM_CONV + ADD + UNARY: the UNARY reading the ADD
    if (j > 0 && nodes[j]->op == GGML_OP_ADD && nodes[j - 1]->op == GGML_OP_SSM_CONV) {
        for (int k = j + 1; k < n && k < j + 15; k++) {
            if (nodes[k]->op == GGML_OP_UNARY && nodes[k]->src[0] == nodes[j]) {
                take(r, k);
                break;
            }
        }
    }
}

// the next set from first: the node, the real nodes within 20 that depend on nothing pending
// (fusable pairs allowed), what fuses with them, then the views whose sources are done
static void next_set(struct reorder * r, int first) {
    struct ggml_tensor ** nodes = r->graph->nodes;
    const int             end   = first + 20 < r->graph->n_nodes ? first + 20 : r->graph->n_nodes;
    r->n_set = 0;
    add_to_set(r, first);
    for (int j = first + 1; j < end; j++) {
        if (r->used[j] || is_empty(nodes[j]) || match_any_pattern(r, j)) {
            continue;
        }
        bool ok = true;
        for (int c = first; c < j && ok; c++) {
            ok = r->used[c] || !is_src_of(nodes[j], nodes[c]) || fusable_pair(r, c, j);
        }
        if (ok) {
            add_to_set(r, j);
            pull_fused(r, j);
        }
    }
    // views; not after an ADD (it would split add->rms_norm or add->add)
    if (nodes[r->set[r->n_set - 1]]->op != GGML_OP_ADD) {
        for (int j = first + 1; j < end; j++) {
            if (r->used[j] || !is_empty(nodes[j])) {
                continue;
            }
            bool ok = true;
            for (int c = first; c < j && ok; c++) {
                ok = r->used[c] || !is_src_of(nodes[j], nodes[c]) || in_set(r, c);
            }
            if (ok) {
                add_to_set(r, j);
            }
        }
    }
}

// ggml_vk_graph_optimize: reorders the split's nodes for parallelism, keeping fusions together.
// Out of memory leaves the order as it is (the sizes of such a graph are then not llama.cpp's;
// the caller's planning fails the same way at its next allocation).
void galloc_device_vulkan_graph_optimize(struct ggml_cgraph * graph) {
    const int n = graph->n_nodes;
    if (n <= 1) {
        return;
    }
    struct reorder r = { .graph = graph, .set_cap = 4 * n };
    r.used   = calloc((size_t) n, sizeof(bool));
    r.pushed = calloc((size_t) n, sizeof(bool));
    r.order  = calloc((size_t) n, sizeof(*r.order));
    r.set    = calloc((size_t) r.set_cap, sizeof(int));
    if (r.used && r.pushed && r.order && r.set) {
        int first = 0;
        while (first < n) {
            int kept = -1;
            for (int p = 0; p < N_PATTERNS && kept < 0; p++) {
                kept = match_pattern(&r, p, first) ? p : -1;
            }
            if (kept >= 0) {
                for (int j = 0; j < patterns[kept].n; j++) {
                    push(&r, first + j);
                }
            } else {
                next_set(&r, first);
                for (int i = 0; i < r.n_set; i++) {
                    push(&r, r.set[i]);
                }
            }
            while (first < n && r.used[first]) {
                first++;
            }
        }
        for (int i = 0; i < n; i++) {
            graph->nodes[i] = r.order[i];
        }
    }
    free(r.used);
    free(r.pushed);
    free(r.order);
    free(r.set);
}
