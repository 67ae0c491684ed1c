// ggml-ops-recurrent.c: the op constructors of recurrent and linear-attention layers, with ggml's
// shape rules.
//
// ssm_conv and ssm_scan (Mamba, Mamba-2 and the hybrids built on them), gated_delta_net with
// l2_norm and softplus (Qwen3-Next, Qwen3.5), as ggml 0.21.0's ggml.c constructs them: the result's
// type and shape, op parameters and sources in ggml's slot order.
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

// the rows of a scaled to unit L2 norm (eps keeps the norm from 0); a's shape (op L2_NORM)
struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    struct ggml_tensor * result = ggml_dup_tensor(ctx, a);
    ggml_set_op_params_f32(result, 0, eps);
    result->op     = GGML_OP_L2_NORM;
    result->src[0] = a;
    return result;
}

// log(1 + exp(a)) (op UNARY)
struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_SOFTPLUS);
}

// the gated delta rule over q, k: [S_k, H_k, n_tokens, n_seqs], v: [S_v, H_v, n_tokens, n_seqs], the
// gate g: [1 or S_v, H_v, n_tokens, n_seqs], beta: [1, H_v, n_tokens, n_seqs], the initial state:
// [S_v, S_v, H_v, n_seqs]; K state snapshots. Result [S_v * H_v, n_tokens * n_seqs + K * S_v * n_seqs]:
// the output, then the states (op GATED_DELTA_NET)
struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                          struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
                                          struct ggml_tensor * state, int64_t K) {
    const struct ggml_tensor * rows[3] = { q, k, v };
    for (int i = 0; i < 3; i++) {
        GGML_ASSERT(rows[i]->ne[0] == ggml_blck_size(rows[i]->type) || rows[i]->nb[0] == ggml_type_size(rows[i]->type));
        GGML_ASSERT(rows[i]->type == GGML_TYPE_F32);
    }
    GGML_ASSERT(ggml_is_contiguous(g) && ggml_is_contiguous(beta) && ggml_is_contiguous(state));
    GGML_ASSERT(g->type == GGML_TYPE_F32 && beta->type == GGML_TYPE_F32 && state->type == GGML_TYPE_F32);
    const int64_t S_v = v->ne[0], H = v->ne[1], n_tokens = v->ne[2], n_seqs = v->ne[3];
    GGML_ASSERT(g->ne[0] == 1 || g->ne[0] == S_v); // a scalar gate, or one per value (KDA)
    GGML_ASSERT(beta->ne[0] == 1);
    GGML_ASSERT(state->ne[0] == S_v && state->ne[1] == S_v && state->ne[2] == H && state->ne[3] == n_seqs);
    GGML_ASSERT(K >= 1 && K <= INT32_MAX);
    const int64_t ne[4] = { S_v * H, n_tokens * n_seqs + K * S_v * n_seqs, 1, 1 };
    struct ggml_tensor * result = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    result->op     = GGML_OP_GATED_DELTA_NET;
    result->src[0] = q;
    result->src[1] = k;
    result->src[2] = v;
    result->src[3] = g;
    result->src[4] = beta;
    result->src[5] = state;
    return result;
}
