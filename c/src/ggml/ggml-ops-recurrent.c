// ggml-ops-recurrent.c: the op constructors of recurrent and linear-attention layers, with ggml's
// shape rules.
//
// ssm_conv and ssm_scan (Mamba, Mamba-2 and the hybrids built on them), as ggml 0.21.0's ggml.c
// constructs them: the result's type and shape, op parameters and sources in ggml's slot order.
// ggml's asserts are asserted here too; the model builders check what a model file can reach
// before calling, and refuse instead.

#include "ggml-impl.h"
#include "ggml.h"

static bool ops_is_3d(const struct ggml_tensor * t) {
    return t->ne[3] == 1;
}

// sx: [d_conv - 1 + n_t, d_inner, n_s] (the conv state then the new columns), c: [d_conv, d_inner];
// result [d_inner, n_t, n_s] f32
struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c) {
    GGML_ASSERT(ops_is_3d(sx));
    GGML_ASSERT(ggml_is_matrix(c));
    const int64_t d_conv  = c->ne[0];
    const int64_t d_inner = c->ne[1];
    const int64_t n_t     = sx->ne[0] - d_conv + 1; // tokens per sequence
    const int64_t n_s     = sx->ne[2];
    GGML_ASSERT(sx->ne[1] == d_inner);
    GGML_ASSERT(n_t >= 0);
    struct ggml_tensor * result = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d_inner, n_t, n_s);
    result->op     = GGML_OP_SSM_CONV;
    result->src[0] = sx;
    result->src[1] = c;
    return result;
}

// s: [d_state, head_dim, n_head, n_rs], x: [head_dim, n_head, n_seq_tokens, n_seqs], dt: [n_head,
// n_seq_tokens, n_seqs], A: [1 or d_state, n_head], B, C: [d_state, n_group, n_seq_tokens, n_seqs],
// ids: [n_seqs] i32; K snapshots of the state. Result: y then the K states, one f32 vector.
struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
                                   struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B,
                                   struct ggml_tensor * C, struct ggml_tensor * ids, int64_t K) {
    GGML_ASSERT(K >= 1 && K <= INT32_MAX);
    GGML_ASSERT(ggml_is_contiguous(s));
    GGML_ASSERT(ggml_is_contiguous(dt));
    GGML_ASSERT(ggml_is_contiguous(A));
    GGML_ASSERT(x->nb[0] == ggml_type_size(x->type));
    GGML_ASSERT(B->nb[0] == ggml_type_size(B->type));
    GGML_ASSERT(C->nb[0] == ggml_type_size(C->type));
    GGML_ASSERT(x->nb[1] == (size_t) x->ne[0] * x->nb[0]);
    GGML_ASSERT(B->nb[1] == (size_t) B->ne[0] * B->nb[0]);
    GGML_ASSERT(C->nb[1] == (size_t) C->ne[0] * C->nb[0]);
    GGML_ASSERT(ggml_are_same_shape(B, C));
    GGML_ASSERT(ids->type == GGML_TYPE_I32);
    const int64_t d_state = s->ne[0], head_dim = x->ne[0], n_head = x->ne[1];
    const int64_t n_seq_tokens = x->ne[2], n_seqs = x->ne[3];
    GGML_ASSERT(dt->ne[0] == n_head && dt->ne[1] == n_seq_tokens && dt->ne[2] == n_seqs && ops_is_3d(dt));
    GGML_ASSERT(s->ne[1] == head_dim && s->ne[2] == n_head);
    GGML_ASSERT(B->ne[0] == d_state && B->ne[2] == n_seq_tokens && B->ne[3] == n_seqs);
    GGML_ASSERT(ids->ne[0] == n_seqs && ggml_is_vector(ids));
    GGML_ASSERT(A->ne[1] == n_head && ggml_is_matrix(A));
    if (A->ne[0] != 1) {
        GGML_ASSERT(A->ne[0] == d_state && K == 1); // Mamba-1's decay per state
    }
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_F32,
                                                     ggml_nelements(x) + K * s->ne[0] * s->ne[1] * s->ne[2] * ids->ne[0]);
    result->op     = GGML_OP_SSM_SCAN;
    result->src[0] = s;
    result->src[1] = x;
    result->src[2] = dt;
    result->src[3] = A;
    result->src[4] = B;
    result->src[5] = C;
    result->src[6] = ids;
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    return result;
}
