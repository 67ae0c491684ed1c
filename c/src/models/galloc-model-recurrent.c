// galloc-model-recurrent.c: llama.cpp's recurrent state memory and the blocks that read it.
//
// llama_memory_recurrent keeps, for each recurrent layer, two f32 tensors of mem_size rows (one
// per sequence): r (Mamba's convolution columns, RWKV's token shift) and s (the scan's or the
// linear attention's state). Its context for a reserve is the full memory (n_rs = size, head 0,
// row 0 cleared). build_rs_inp and build_rs are llm_graph_context's, with the same ggml calls in
// the same order.

#include "galloc-model-impl.h"

#include <string.h>

// the tensors of llama_memory_recurrent's constructor, on the weights' dummy buffer
bool galloc_model_rs_init(struct model_graph * g, struct model_rs_cache * rs) {
    const struct model_hparams * hp = g->hp;
    memset(rs, 0, sizeof(*rs));
    rs->used = true;
    rs->size = g->cp->n_seq_max > 1 ? g->cp->n_seq_max : 1;
    rs->n_rs = rs->size;
    rs->head = 0;
    rs->rs_z = 0;
    const int64_t n_embd_r = galloc_hp_n_embd_r(hp), n_embd_s = galloc_hp_n_embd_s(hp);
    if (n_embd_r <= 0 || n_embd_s < 0) {
        galloc_model_fail(g, "%s: recurrent states of %lld and %lld values per row (ssm.conv_kernel, inner_size, state_size: "
                          "llama.cpp's graph would not build); %s", g->m->arch->name, (long long) n_embd_r, (long long) n_embd_s,
                          GALLOC_MODEL_CAPTURE_HINT);
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (!galloc_model_layer_recr(g->m, il)) {
            continue;
        }
        rs->r[il] = ggml_new_tensor_2d(g->wctx, GGML_TYPE_F32, n_embd_r, rs->size);
        rs->s[il] = ggml_new_tensor_2d(g->wctx, GGML_TYPE_F32, n_embd_s, rs->size);
        if (!rs->r[il] || !rs->s[il]) {
            galloc_model_fail_status(g, GALLOC_STATUS_NO_MEMORY, "out of memory creating the recurrent states");
            return false;
        }
        ggml_format_name(rs->r[il], "cache_r_l%u", il);
        ggml_format_name(rs->s[il], "cache_s_l%u", il);
        rs->r[il]->buffer = g->wbuf;
        rs->s[il]->buffer = g->wbuf;
    }
    return true;
}

uint64_t galloc_model_rs_bytes(const struct model_rs_cache * rs, size_t alignment) {
    uint64_t total = 0;
    for (uint32_t il = 0; rs->used && il < MODEL_MAX_LAYERS; il++) {
        for (int i = 0; i < 2; i++) {
            const struct ggml_tensor * t = i == 0 ? rs->r[il] : rs->s[il];
            if (t) {
                const uint64_t n = ggml_nbytes(t);
                total += (n + alignment - 1) / alignment * alignment;
            }
        }
    }
    return total;
}

void galloc_model_rs_inp(struct model_graph * g, struct model_rs_input * inp) {
    memset(inp, 0, sizeof(*inp));
    if (g->failed) {
        return;
    }
    const int64_t n_rs = g->rs->n_rs, n_seqs = g->n_seqs;
    inp->s_copy = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I32, n_rs);
    ggml_set_input(inp->s_copy);
    inp->s_copy_main  = ggml_view_1d(g->ctx, inp->s_copy, n_seqs, 0);
    inp->s_copy_extra = ggml_view_1d(g->ctx, inp->s_copy, n_rs - n_seqs, (size_t) n_seqs * inp->s_copy->nb[0]);
}

struct ggml_tensor * galloc_model_build_rs(struct model_graph * g, const struct model_rs_input * inp, struct ggml_tensor * s,
                                           int64_t state_size, int64_t n_seqs,
                                           struct ggml_tensor * (*rows_fn)(struct model_graph * g, struct ggml_tensor * states,
                                                                           struct ggml_tensor * ids, void * ud),
                                           void * ud) {
    if (g->failed) {
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;
    const struct model_rs_cache * rs = g->rs;
    const int64_t rs_z = rs->rs_z;
    struct ggml_tensor * states = ggml_reshape_2d(ctx, s, state_size, s->ne[1]);

    // one state cleared, then copied to the other cleared states (a zero-sized view when none)
    struct ggml_tensor * state_zero = ggml_view_1d(ctx, states, state_size * (rs_z >= 0),
                                                   (size_t) (rs_z * (int64_t) states->nb[1] * (rs_z >= 0)));
    ggml_build_forward_expand(g->gf, ggml_scale_inplace(ctx, state_zero, 0));

    // the sequences' states, {state_size, rs_size} -> {state_size, n_seqs}
    struct ggml_tensor * output_states = rows_fn ? rows_fn(g, states, inp->s_copy_main, ud)
                                                 : ggml_get_rows(ctx, states, inp->s_copy_main);
    if (!output_states) {
        return NULL;
    }
    ggml_build_forward_expand(g->gf, output_states);

    // the states between n_seqs and n_rs, copied unchanged
    struct ggml_tensor * states_extra = ggml_get_rows(ctx, states, inp->s_copy_extra);
    ggml_build_forward_expand(g->gf, ggml_cpy(ctx, states_extra,
                                              ggml_view_2d(ctx, s, state_size, (int64_t) rs->n_rs - n_seqs, s->nb[1],
                                                           (size_t) (rs->head + n_seqs) * s->nb[1])));
    return output_states;
}
