// ggml-ops.c: the op constructors of ggml.h, with ggml's shape rules.
//
// Each constructor only records what an allocation plan depends on: the
// result's type, shape and strides, its op and op parameters, its sources in
// ggml's slot order, and for views the root tensor and byte offset they
// alias. Preconditions ggml asserts on are asserted here too.

#include "ggml-impl.h"
#include "ggml.h"

#include <string.h>

//
// helpers
//

// rows of whole blocks with every dimension above `n` packed after the previous one
static bool ops_is_contiguous_n(const struct ggml_tensor * t, int n) {
    const int64_t blck = ggml_tensor_blck_size(t);
    size_t expected = ggml_type_size(t->type);
    if (t->ne[0] != blck && t->nb[0] != expected) {
        return false;
    }
    expected *= (size_t) (t->ne[0] / blck);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (i > n) {
            if (t->ne[i] != 1 && t->nb[i] != expected) {
                return false;
            }
            expected *= (size_t) t->ne[i];
        } else {
            expected = (size_t) t->ne[i] * t->nb[i];
        }
    }
    return true;
}

static bool ops_is_contiguous_rows(const struct ggml_tensor * t) {
    return t->ne[0] == ggml_blck_size(t->type) || t->nb[0] == ggml_type_size(t->type);
}

// elements packed in dimension 0, rows packed above dimension 1
static bool ops_is_padded_1d(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) &&
           t->nb[2] == t->nb[1] * (size_t) t->ne[1] &&
           t->nb[3] == t->nb[2] * (size_t) t->ne[2];
}

static bool ops_can_mul_mat(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    return t0->ne[0] == t1->ne[0] && t1->ne[2] % t0->ne[2] == 0 && t1->ne[3] % t0->ne[3] == 0;
}

// a tensor of n_dims dimensions (the others 1) with contiguous strides that
// aliases a's memory `offset` bytes after a's start; named "<a> (view)", op NONE
static struct ggml_tensor * ops_alias(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims,
                                      const int64_t * ne, size_t offset) {
    GGML_ASSERT(n_dims >= 1 && n_dims <= GGML_MAX_DIMS);
    struct ggml_tensor * result = ggml_view_tensor(ctx, a); // resolves the root and a's own offset

    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        GGML_ASSERT(i >= n_dims || ne[i] >= 0);
        result->ne[i] = i < n_dims ? ne[i] : 1;
    }
    result->nb[0] = ggml_type_size(a->type);
    result->nb[1] = result->nb[0] * (size_t) (result->ne[0] / ggml_blck_size(a->type));
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = result->nb[i - 1] * (size_t) result->ne[i - 1];
    }

    // the new shape, laid out contiguously, must fit in the root
    size_t data_size = ggml_row_size(a->type, result->ne[0]);
    for (int i = 1; i < n_dims; i++) {
        data_size *= (size_t) result->ne[i];
    }
    result->view_offs += offset;
    GGML_ASSERT(data_size == 0 || data_size + result->view_offs <= ggml_nbytes(result->view_src));
    if (result->data != NULL) {
        result->data = (char *) result->data + offset;
    }
    return result;
}

// the result of an elementwise op: a's shape, new memory or (inplace) a view of a
static struct ggml_tensor * ops_like(struct ggml_context * ctx, struct ggml_tensor * a, bool inplace) {
    return inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
}

static struct ggml_tensor * ops_unary_src(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op op, bool inplace) {
    struct ggml_tensor * result = ops_like(ctx, a, inplace);
    result->op     = op;
    result->src[0] = a;
    return result;
}

// b is broadcast over a; the result has a's shape
static struct ggml_tensor * ops_binary(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                       enum ggml_op op, bool inplace) {
    GGML_ASSERT(ggml_can_repeat(b, a));
    struct ggml_tensor * result = ops_like(ctx, a, inplace);
    result->op     = op;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

//
// elementwise arithmetic
//

struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary_src(ctx, a, GGML_OP_DUP, false);
}

struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_ADD, false);
}

struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_ADD, true);
}

struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_is_scalar(b));
    GGML_ASSERT(ops_is_padded_1d(a));
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    result->op     = GGML_OP_ADD1;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_SUB, false);
}

struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_MUL, false);
}

struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_MUL, true);
}

struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(ctx, a, b, GGML_OP_DIV, false);
}

struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary_src(ctx, a, GGML_OP_SQR, false);
}

struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary_src(ctx, a, GGML_OP_SQRT, false);
}

struct ggml_tensor * ggml_log(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary_src(ctx, a, GGML_OP_LOG, false);
}

static struct ggml_tensor * ops_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s, bool inplace) {
    GGML_ASSERT(ops_is_padded_1d(a));
    struct ggml_tensor * result = ops_like(ctx, a, inplace);
    const float params[2] = { s, 0.0f }; // scale, bias
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_SCALE;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return ops_scale(ctx, a, s, false);
}

struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return ops_scale(ctx, a, s, true);
}

//
// reductions and shape changes that make new memory
//

struct ggml_tensor * ggml_sum(struct ggml_context * ctx, struct ggml_tensor * a) {
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, a->type, 1);
    result->op     = GGML_OP_SUM;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a) {
    const int64_t ne[4] = { 1, a->ne[1], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, 4, ne);
    result->op     = GGML_OP_SUM_ROWS;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a) {
    const int64_t ne[4] = { 1, a->ne[1], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_MEAN;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_ASSERT(ggml_is_matrix(a));
    GGML_ASSERT(a->ne[0] <= INT32_MAX);
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, a->ne[1]);
    result->op     = GGML_OP_ARGMAX;
    result->src[0] = a;
    return result;
}

// a tiled to b's shape
struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_can_repeat(a, b));
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, b->ne);
    result->op     = GGML_OP_REPEAT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2,
                                    int64_t ne3) {
    GGML_ASSERT(ggml_is_empty(a) || (ne0 % a->ne[0] == 0 && ne1 % a->ne[1] == 0 && ne2 % a->ne[2] == 0 && ne3 % a->ne[3] == 0));
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type, ne0, ne1, ne2, ne3);
    result->op     = GGML_OP_REPEAT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim) {
    GGML_ASSERT(dim >= 0 && dim < GGML_MAX_DIMS);
    GGML_ASSERT(a->type == b->type);
    int64_t ne[GGML_MAX_DIMS];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (d == dim) {
            ne[d] = a->ne[d] + b->ne[d];
        } else {
            GGML_ASSERT(a->ne[d] == b->ne[d]);
            ne[d] = a->ne[d];
        }
    }
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    ggml_set_op_params_i32(result, 0, dim);
    result->op     = GGML_OP_CONCAT;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// zeros appended: ggml stores (before, after) pairs per dimension, then a circular flag
struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type,
                                                     a->ne[0] + p0, a->ne[1] + p1, a->ne[2] + p2, a->ne[3] + p3);
    const int32_t params[9] = { 0, p0, 0, p1, 0, p2, 0, p3, 0 };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_PAD;
    result->src[0] = a;
    return result;
}

//
// unary ops and gated linear units
//

static struct ggml_tensor * ops_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op, bool inplace) {
    GGML_ASSERT(ops_is_contiguous_n(a, 1));
    struct ggml_tensor * result = ops_like(ctx, a, inplace);
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    result->op     = GGML_OP_UNARY;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return ops_unary(ctx, a, op, false);
}

struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return ops_unary(ctx, a, op, true);
}

struct ggml_tensor * ggml_abs(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_ABS, false);
}

struct ggml_tensor * ggml_neg(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_NEG, false);
}

struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_TANH, false);
}

struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_RELU, false);
}

struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_SIGMOID, false);
}

struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_GELU, false);
}

struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_SILU, false);
}

struct ggml_tensor * ggml_exp(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(ctx, a, GGML_UNARY_OP_EXP, false);
}

// without b, a's rows hold both halves and the result is half as wide
static struct ggml_tensor * ops_glu(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                    enum ggml_glu_op op, bool swapped) {
    GGML_ASSERT(ops_is_contiguous_n(a, 1));
    int64_t ne[GGML_MAX_DIMS];
    memcpy(ne, a->ne, sizeof(ne));
    if (b != NULL) {
        GGML_ASSERT(ops_is_contiguous_n(b, 1));
        GGML_ASSERT(ggml_are_same_shape(a, b));
        GGML_ASSERT(a->type == b->type);
    } else {
        ne[0] = a->ne[0] / 2;
    }
    struct ggml_tensor * result = ggml_new_tensor(ctx, a->type, GGML_MAX_DIMS, ne);
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    ggml_set_op_params_i32(result, 1, (int32_t) swapped);
    result->op     = GGML_OP_GLU;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped) {
    return ops_glu(ctx, a, NULL, op, swapped);
}

struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, enum ggml_glu_op op) {
    return ops_glu(ctx, a, b, op, false);
}

struct ggml_tensor * ggml_swiglu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_glu(ctx, a, NULL, GGML_GLU_OP_SWIGLU, false);
}

struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_glu(ctx, a, b, GGML_GLU_OP_SWIGLU, false);
}

struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                     float alpha, float limit) {
    struct ggml_tensor * result = ops_glu(ctx, a, b, GGML_GLU_OP_SWIGLU_OAI, false);
    ggml_set_op_params_f32(result, 2, alpha);
    ggml_set_op_params_f32(result, 3, limit);
    return result;
}

struct ggml_tensor * ggml_geglu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_glu(ctx, a, NULL, GGML_GLU_OP_GEGLU, false);
}

struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_glu(ctx, a, b, GGML_GLU_OP_GEGLU, false);
}

//
// normalisation
//

static struct ggml_tensor * ops_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps, enum ggml_op op) {
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, eps);
    result->op     = op;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ops_norm(ctx, a, eps, GGML_OP_NORM);
}

struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ops_norm(ctx, a, eps, GGML_OP_RMS_NORM);
}

//
// matrix multiplication
//

struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ops_can_mul_mat(a, b));
    GGML_ASSERT(!ggml_is_transposed(a));
    const int64_t ne[4] = { a->ne[1], b->ne[1], b->ne[2], b->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_MUL_MAT;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    GGML_ASSERT(a->op == GGML_OP_MUL_MAT);
    ggml_set_op_params_i32(a, 0, (int32_t) prec);
}

void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint) {
    GGML_ASSERT(a->op == GGML_OP_MUL_MAT);
    ggml_set_op_params_i32(a, 1, (int32_t) hint);
}

struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b,
                                     struct ggml_tensor * ids) {
    GGML_ASSERT(!ggml_is_transposed(as));
    GGML_ASSERT(ids->type == GGML_TYPE_I32);
    GGML_ASSERT(as->ne[3] == 1);                     // one matrix per expert
    GGML_ASSERT(b->ne[3] == 1);
    GGML_ASSERT(ids->ne[2] == 1 && ids->ne[3] == 1);
    GGML_ASSERT(ids->ne[1] == b->ne[2]);             // an expert list per row of b
    GGML_ASSERT(as->ne[0] == b->ne[0]);
    GGML_ASSERT(ids->ne[0] % b->ne[1] == 0);         // b broadcast over the experts used
    const int64_t ne[4] = { as->ne[1], ids->ne[0], b->ne[2], 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    result->op     = GGML_OP_MUL_MAT_ID;
    result->src[0] = as;
    result->src[1] = b;
    result->src[2] = ids;
    return result;
}

struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                 struct ggml_tensor * ids) {
    GGML_ASSERT(a->ne[0] == b->ne[0]);
    GGML_ASSERT(a->ne[1] == ids->ne[0]);
    GGML_ASSERT(a->ne[2] == ids->ne[1]);
    GGML_ASSERT(ids->type == GGML_TYPE_I32);
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    result->op     = GGML_OP_ADD_ID;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = ids;
    return result;
}

//
// copies
//

// writes a into b; the result is a view of b
struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(ggml_nelements(a) == ggml_nelements(b));
    struct ggml_tensor * result = ggml_view_tensor(ctx, b);
    if (b->name[0] != '\0') {
        ggml_format_name(result, "%s (copy of %s)", b->name, a->name);
    } else {
        ggml_format_name(result, "%s (copy)", a->name);
    }
    result->op     = GGML_OP_CPY;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// a copy of a in a new tensor of another type; like ggml, its destination slot is itself
struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type) {
    struct ggml_tensor * result = ggml_new_tensor(ctx, type, GGML_MAX_DIMS, a->ne);
    ggml_format_name(result, "%s (copy)", a->name);
    result->op     = GGML_OP_CPY;
    result->src[0] = a;
    result->src[1] = result;
    return result;
}

struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a) {
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_format_name(result, "%s (cont)", a->name);
    result->op     = GGML_OP_CONT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                  int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    GGML_ASSERT(ggml_nelements(a) == ne0 * ne1 * ne2 * ne3);
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, a->type, ne0, ne1, ne2, ne3);
    ggml_format_name(result, "%s (cont)", a->name);
    result->op     = GGML_OP_CONT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    return ggml_cont_4d(ctx, a, ne0, ne1, 1, 1);
}

struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2) {
    return ggml_cont_4d(ctx, a, ne0, ne1, ne2, 1);
}

//
// views
//

static struct ggml_tensor * ops_reshape(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims, const int64_t * ne) {
    GGML_ASSERT(ggml_is_contiguous(a));
    int64_t n = 1;
    for (int i = 0; i < n_dims; i++) {
        n *= ne[i];
    }
    GGML_ASSERT(ggml_nelements(a) == n);
    struct ggml_tensor * result = ops_alias(ctx, a, n_dims, ne, 0);
    ggml_format_name(result, "%s (reshaped)", a->name);
    result->op     = GGML_OP_RESHAPE;
    result->src[0] = a;
    return result;
}

// a with b's shape (b's layout does not matter)
struct ggml_tensor * ggml_reshape(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_reshape(ctx, a, GGML_MAX_DIMS, b->ne);
}

struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    return ops_reshape(ctx, a, 1, &ne0);
}

struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = { ne0, ne1 };
    return ops_reshape(ctx, a, 2, ne);
}

struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return ops_reshape(ctx, a, 3, ne);
}

struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a,
                                     int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return ops_reshape(ctx, a, 4, ne);
}

static struct ggml_tensor * ops_view(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims, const int64_t * ne, size_t offset) {
    struct ggml_tensor * result = ops_alias(ctx, a, n_dims, ne, offset);
    ggml_format_name(result, "%s (view)", a->name);
    ggml_set_op_params(result, &offset, sizeof(offset));
    result->op     = GGML_OP_VIEW;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset) {
    return ops_view(ctx, a, 1, &ne0, offset);
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  size_t nb1, size_t offset) {
    const int64_t ne[2] = { ne0, ne1 };
    struct ggml_tensor * result = ops_view(ctx, a, 2, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = nb1 * (size_t) ne1;
    result->nb[3] = result->nb[2];
    return result;
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2,
                                  size_t nb1, size_t nb2, size_t offset) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    struct ggml_tensor * result = ops_view(ctx, a, 3, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = nb2;
    result->nb[3] = nb2 * (size_t) ne2;
    return result;
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
                                  size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    struct ggml_tensor * result = ops_view(ctx, a, 4, ne, offset);
    result->nb[1] = nb1;
    result->nb[2] = nb2;
    result->nb[3] = nb3;
    return result;
}

// dimension i of a becomes dimension axis_i of the result
struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2, int axis3) {
    const int axes[GGML_MAX_DIMS] = { axis0, axis1, axis2, axis3 };
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        GGML_ASSERT(axes[i] >= 0 && axes[i] < GGML_MAX_DIMS);
        for (int j = 0; j < i; j++) {
            GGML_ASSERT(axes[i] != axes[j]);
        }
    }
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    ggml_format_name(result, "%s (permuted)", a->name);
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[axes[i]] = a->ne[i];
        result->nb[axes[i]] = a->nb[i];
    }
    ggml_set_op_params(result, axes, sizeof(axes));
    result->op     = GGML_OP_PERMUTE;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a) {
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    ggml_format_name(result, "%s (transposed)", a->name);
    result->ne[0] = a->ne[1];
    result->ne[1] = a->ne[0];
    result->nb[0] = a->nb[1];
    result->nb[1] = a->nb[0];
    result->op     = GGML_OP_TRANSPOSE;
    result->src[0] = a;
    return result;
}

//
// rows
//

struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_ASSERT(a->ne[2] == b->ne[1]);
    GGML_ASSERT(a->ne[3] == b->ne[2]);
    GGML_ASSERT(b->ne[3] == 1);
    GGML_ASSERT(b->type == GGML_TYPE_I32);
    const enum ggml_type type = a->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    struct ggml_tensor * result = ggml_new_tensor_4d(ctx, type, a->ne[0], b->ne[0], b->ne[1], b->ne[2]);
    result->op     = GGML_OP_GET_ROWS;
    result->src[0] = a;
    result->src[1] = b;
    return result;
}

// sources are {b, c, a}: ggml keeps this order for historical reasons
struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c) {
    GGML_ASSERT(a->ne[0] == b->ne[0]);
    GGML_ASSERT(a->ne[2] == b->ne[2]);
    GGML_ASSERT(a->ne[3] == b->ne[3]);
    GGML_ASSERT(b->ne[1] == c->ne[0]);
    GGML_ASSERT(b->ne[2] % c->ne[1] == 0);
    GGML_ASSERT(b->ne[3] % c->ne[2] == 0);
    GGML_ASSERT(c->ne[3] == 1);
    GGML_ASSERT(b->type == GGML_TYPE_F32);
    GGML_ASSERT(c->type == GGML_TYPE_I64 || c->type == GGML_TYPE_I32);
    GGML_ASSERT(ops_is_contiguous_rows(a));
    GGML_ASSERT(ops_is_contiguous_rows(b));
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    result->op     = GGML_OP_SET_ROWS;
    result->src[0] = b;
    result->src[1] = c;
    result->src[2] = a;
    return result;
}

//
// attention
//

struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_i32(result, 0, n_past);
    result->op     = GGML_OP_DIAG_MASK_INF;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                       float scale, float max_bias) {
    GGML_ASSERT(ggml_is_contiguous(a));
    if (mask != NULL) {
        GGML_ASSERT(mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32);
        GGML_ASSERT(ggml_is_contiguous(mask));
        GGML_ASSERT(mask->ne[0] == a->ne[0]);
        GGML_ASSERT(mask->ne[1] >= a->ne[1]);
        GGML_ASSERT(a->ne[2] % mask->ne[2] == 0);
        GGML_ASSERT(a->ne[3] % mask->ne[3] == 0);
    }
    if (max_bias > 0.0f) {
        GGML_ASSERT(mask != NULL);
    }
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    const float params[2] = { scale, max_bias };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_SOFT_MAX;
    result->src[0] = a;
    result->src[1] = mask;
    return result;
}

void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    if (sinks == NULL) {
        a->src[2] = NULL;
        return;
    }
    GGML_ASSERT(a->op == GGML_OP_SOFT_MAX);
    GGML_ASSERT(a->src[2] == NULL);
    GGML_ASSERT(a->src[0]->ne[2] == sinks->ne[0]); // one sink per head
    GGML_ASSERT(sinks->type == GGML_TYPE_F32);
    a->src[2] = sinks;
}

struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_soft_max_ext(ctx, a, NULL, 1.0f, 0.0f);
}

static struct ggml_tensor * rope_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
                                      int n_dims, const int * sections, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                      float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    GGML_ASSERT((mode & 1) == 0 && "rope mode 1 is no longer supported");
    GGML_ASSERT(ggml_is_vector(b));
    GGML_ASSERT(b->type == GGML_TYPE_I32);
    if (mode & GGML_ROPE_TYPE_MROPE) {
        GGML_ASSERT(a->ne[2] * 4 == b->ne[0]); // four positions per token
    } else {
        GGML_ASSERT(a->ne[2] == b->ne[0]);
    }
    if (c != NULL) {
        GGML_ASSERT(c->type == GGML_TYPE_F32);
        GGML_ASSERT(c->ne[0] >= n_dims / 2);
    }
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);

    // { n_past, n_dims, mode, n_ctx, n_ctx_orig, 6 floats, 4 mrope sections }
    int32_t params[15] = { 0, n_dims, mode, 0, n_ctx_orig };
    const float fparams[6] = { freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow };
    memcpy(params + 5, fparams, sizeof(fparams));
    if ((mode & GGML_ROPE_TYPE_MROPE) && sections) {
        memcpy(params + 11, sections, 4 * sizeof(int32_t));
    }
    ggml_set_op_params(result, params, sizeof(params));

    result->op     = GGML_OP_ROPE;
    result->src[0] = a;
    result->src[1] = b;
    result->src[2] = c;
    return result;
}

struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
                                   int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                   float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, NULL, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast,
                     beta_slow);
}

struct ggml_tensor * ggml_rope_multi(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
                                     int n_dims, int sections[4], int mode, int n_ctx_orig, float freq_base, float freq_scale,
                                     float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return rope_impl(ctx, a, b, c, n_dims, sections, mode, n_ctx_orig, freq_base, freq_scale, ext_factor, attn_factor, beta_fast,
                     beta_slow);
}

struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs) {
    GGML_ASSERT(a->op == GGML_OP_ROPE);
    GGML_ASSERT(n_offs >= 0);
    GGML_ASSERT(ggml_get_op_params_i32(a, 2) != GGML_ROPE_TYPE_VISION);
    ggml_set_op_params_i32(a, 15, n_offs);
    return a;
}

struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode) {
    return ggml_rope_ext(ctx, a, b, NULL, n_dims, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
}

struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                         struct ggml_tensor * v, struct ggml_tensor * mask,
                                         float scale, float max_bias, float logit_softcap) {
    GGML_ASSERT(ops_can_mul_mat(k, q));
    GGML_ASSERT(q->ne[3] == k->ne[3]);
    GGML_ASSERT(q->ne[3] == v->ne[3]);
    if (mask != NULL) {
        GGML_ASSERT(mask->type == GGML_TYPE_F16);
        GGML_ASSERT(ggml_is_contiguous(mask));
        GGML_ASSERT(q->ne[2] % mask->ne[2] == 0);
        GGML_ASSERT(q->ne[3] % mask->ne[3] == 0);
    }
    if (max_bias > 0.0f) {
        GGML_ASSERT(mask != NULL);
    }
    // already permuted (0, 2, 1, 3)
    const int64_t ne[4] = { v->ne[0], q->ne[2], q->ne[1], q->ne[3] };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    const float params[3] = { scale, max_bias, logit_softcap };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_FLASH_ATTN_EXT;
    result->src[0] = q;
    result->src[1] = k;
    result->src[2] = v;
    result->src[3] = mask;
    return result;
}

void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    GGML_ASSERT(a->op == GGML_OP_FLASH_ATTN_EXT);
    ggml_set_op_params_i32(a, 3, (int32_t) prec); // after scale, max_bias, softcap
}

void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    if (sinks == NULL) {
        a->src[4] = NULL;
        return;
    }
    GGML_ASSERT(a->op == GGML_OP_FLASH_ATTN_EXT);
    GGML_ASSERT(a->src[4] == NULL);
    GGML_ASSERT(a->src[0]->ne[2] == sinks->ne[0]); // one sink per head
    GGML_ASSERT(sinks->type == GGML_TYPE_F32);
    a->src[4] = sinks;
}

//
// sorting and clamping
//

struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order) {
    GGML_ASSERT(a->ne[0] <= INT32_MAX);
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_I32, GGML_MAX_DIMS, a->ne);
    ggml_set_op_params_i32(result, 0, (int32_t) order);
    result->op     = GGML_OP_ARGSORT;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    GGML_ASSERT(a->ne[0] >= k);
    struct ggml_tensor * result = ggml_argsort(ctx, a, GGML_SORT_ORDER_DESC);
    return ggml_view_4d(ctx, result, k, result->ne[1], result->ne[2], result->ne[3],
                        result->nb[1], result->nb[2], result->nb[3], 0);
}

struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    GGML_ASSERT(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16);
    GGML_ASSERT(ggml_is_contiguous(a));
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, c);
    result->op     = GGML_OP_FILL;
    result->src[0] = a;
    return result;
}

struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max) {
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    const float params[2] = { min, max };
    ggml_set_op_params(result, params, sizeof(params));
    result->op     = GGML_OP_CLAMP;
    result->src[0] = a;
    return result;
}
