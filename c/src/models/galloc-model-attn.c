// galloc-model-attn.c: self-attention over llama.cpp's KV cache (llama_kv_cache + build_attn).
//
// The graph writes this batch's K and V into the cache with ggml_set_rows at index inputs, reads
// the whole reserved cache back through views, and attends with mul_mat + soft_max_ext or with
// flash attention; without flash attention the V cache is stored transposed. Sliding-window
// models have two caches (non-SWA and SWA layers) with their own index inputs and masks.
// Quantized caches rotate Q, K and V by a Hadamard matrix first (attn_rot_k/v).

#include "galloc-model-impl.h"

#include <string.h>

//
// the cache's views and writes (llama_kv_cache::get_k/get_v/cpy_k/cpy_v)
//

static const struct model_kv_cache * layer_cache(const struct model_graph * g, int il) {
    return g->hp->is_swa[il] && g->caches[1].used ? &g->caches[1] : &g->caches[0];
}

static struct ggml_tensor * kv_get_k(struct model_graph * g, const struct model_kv_cache * kv, int il) {
    struct ggml_tensor * k = kv->k[il];
    const uint64_t n_embd_k_gqa = (uint64_t) k->ne[0];
    const uint64_t n_head_k     = galloc_hp_n_embd_head_k(g->hp, (uint32_t) il);
    return ggml_view_4d(g->ctx, k, (int64_t) n_head_k, g->hp->n_head_kv[il], kv->size, kv->n_stream,
                        ggml_row_size(k->type, (int64_t) n_head_k), ggml_row_size(k->type, (int64_t) n_embd_k_gqa),
                        ggml_row_size(k->type, (int64_t) (n_embd_k_gqa * kv->size)), 0);
}

static struct ggml_tensor * kv_get_v(struct model_graph * g, const struct model_kv_cache * kv, int il) {
    struct ggml_tensor * v = kv->v[il];
    const uint64_t n_embd_v_gqa = (uint64_t) v->ne[0];
    const int64_t  n_head_v     = galloc_hp_n_embd_head_v(g->hp, (uint32_t) il);
    if (!kv->v_trans) {
        return ggml_view_4d(g->ctx, v, n_head_v, g->hp->n_head_kv[il], kv->size, kv->n_stream,
                            ggml_row_size(v->type, n_head_v), ggml_row_size(v->type, (int64_t) n_embd_v_gqa),
                            ggml_row_size(v->type, (int64_t) (n_embd_v_gqa * kv->size)), 0);
    }
    return ggml_view_4d(g->ctx, v, kv->size, g->hp->n_head_kv[il], n_head_v, kv->n_stream,
                        ggml_row_size(v->type, (int64_t) kv->size * n_head_v), ggml_row_size(v->type, kv->size),
                        ggml_row_size(v->type, (int64_t) (kv->size * n_embd_v_gqa)), 0);
}

static struct ggml_tensor * kv_cpy_k(struct model_graph * g, const struct model_kv_cache * kv, struct ggml_tensor * k_cur,
                                     struct ggml_tensor * k_idxs, int il) {
    struct ggml_tensor * k = kv->k[il];
    const int64_t n_embd_gqa = k_cur->ne[0] * k_cur->ne[1];
    GGML_ASSERT(ggml_row_size(k_cur->type, k_cur->ne[0]) == k_cur->nb[1]);
    k_cur = ggml_view_2d(g->ctx, k_cur, n_embd_gqa, k_cur->ne[2], k_cur->nb[2], 0);
    if (k->ne[2] > 1) {
        // the indices are global: one buffer across the streams
        k = ggml_reshape_2d(g->ctx, k, n_embd_gqa, (int64_t) kv->size * k->ne[2]);
    }
    return ggml_set_rows(g->ctx, k, k_cur, k_idxs);
}

static struct ggml_tensor * kv_cpy_v(struct model_graph * g, const struct model_kv_cache * kv, struct ggml_tensor * v_cur,
                                     struct ggml_tensor * v_idxs, int il) {
    struct ggml_tensor * v = kv->v[il];
    const int64_t n_embd_gqa = v_cur->ne[0] * v_cur->ne[1];
    const int64_t n_tokens   = v_cur->ne[2];
    GGML_ASSERT(ggml_row_size(v_cur->type, v_cur->ne[0]) == v_cur->nb[1]);
    if (!kv->v_trans) {
        v_cur = ggml_view_2d(g->ctx, v_cur, n_embd_gqa, n_tokens, v_cur->nb[2], 0);
        if (v->ne[2] > 1) {
            v = ggml_reshape_2d(g->ctx, v, n_embd_gqa, (int64_t) kv->size * v->ne[2]);
        }
        return ggml_set_rows(g->ctx, v, v_cur, v_idxs);
    }
    if (ggml_row_size(v_cur->type, n_embd_gqa) == v_cur->nb[2]) {
        v_cur = ggml_reshape_2d(g->ctx, v_cur, n_embd_gqa, n_tokens);
    } else {
        v_cur = ggml_cont_2d(g->ctx, v_cur, n_embd_gqa, n_tokens);
    }
    if (n_embd_gqa < v->ne[0]) {
        v_cur = ggml_pad(g->ctx, v_cur, (int) (v->ne[0] - n_embd_gqa), 0, 0, 0); // V padded to the widest layer
    }
    // one row per element of a head: the indices address single elements
    struct ggml_tensor * v_view = ggml_reshape_2d(g->ctx, v, 1, ggml_nelements(v));
    v_cur = ggml_reshape_2d(g->ctx, v_cur, 1, ggml_nelements(v_cur));
    return ggml_set_rows(g->ctx, v_view, v_cur, v_idxs);
}

//
// inputs (build_attn_inp_kv / build_attn_inp_kv_iswa)
//

static struct ggml_tensor * kv_k_idxs(struct model_graph * g) {
    struct ggml_tensor * t = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I64, g->n_tokens);
    ggml_set_input(t);
    return t;
}

static struct ggml_tensor * kv_v_idxs(struct model_graph * g, const struct model_kv_cache * kv) {
    const int64_t n = kv->v_trans ? g->n_tokens * (int64_t) galloc_hp_n_embd_v_gqa_max(g->hp) : g->n_tokens;
    struct ggml_tensor * t = ggml_new_tensor_1d(g->ctx, GGML_TYPE_I64, n);
    ggml_set_input(t);
    return t;
}

static struct ggml_tensor * kv_mask(struct model_graph * g, const struct model_kv_cache * kv) {
    const int64_t n_stream = g->cp->kv_unified ? 1 : g->n_seqs;
    // flash attention reads an f16 mask
    struct ggml_tensor * t = ggml_new_tensor_4d(g->ctx, g->cp->flash_attn ? GGML_TYPE_F16 : GGML_TYPE_F32, kv->size,
                                                g->n_tokens / n_stream, 1, n_stream);
    ggml_set_input(t);
    ggml_set_name(t, "attn_inp_kq_mask");
    return t;
}

static struct ggml_tensor * kv_k_rot(struct model_graph * g, const struct model_kv_cache * kv) {
    if (!kv->attn_rot_k) {
        return NULL;
    }
    int nrot = 64;
    do {
        nrot *= 2;
    } while (kv->n_embd_head_k_all % nrot == 0);
    nrot /= 2;
    struct ggml_tensor * t = ggml_new_tensor_2d(g->ctx, GGML_TYPE_F32, nrot, nrot);
    ggml_set_input(t);
    ggml_set_name(t, "attn_inp_k_rot");
    return t;
}

static struct ggml_tensor * kv_v_rot(struct model_graph * g, const struct model_kv_cache * kv) {
    if (!kv->attn_rot_v) {
        return NULL;
    }
    struct ggml_tensor * t = ggml_new_tensor_2d(g->ctx, GGML_TYPE_F32, 64, 64); // the smallest rotation for V
    ggml_set_input(t);
    ggml_set_name(t, "attn_inp_v_rot");
    return t;
}

bool galloc_model_attn_inp(struct model_graph * g, struct model_attn_input * inp) {
    memset(inp, 0, sizeof(*inp));
    if (g->failed) {
        return false;
    }
    if (galloc_model_arch_memory(g->m->arch->name) == MODEL_MEMORY_NONE) {
        // build_attn_inp_no_cache: masks over the batch's tokens (f16 for flash attention), unnamed
        const enum ggml_type type = g->cp->flash_attn ? GGML_TYPE_F16 : GGML_TYPE_F32;
        inp->no_cache = true;
        inp->kq_mask  = ggml_new_tensor_4d(g->ctx, type, g->n_tokens, g->n_tokens, 1, 1);
        ggml_set_input(inp->kq_mask);
        if (g->hp->swa_type != MODEL_SWA_NONE) {
            inp->kq_mask_swa = ggml_new_tensor_4d(g->ctx, type, g->n_tokens, g->n_tokens, 1, 1);
            ggml_set_input(inp->kq_mask_swa);
        }
        return true;
    }
    const struct model_kv_cache * base = &g->caches[0];
    inp->k_idxs  = kv_k_idxs(g);
    inp->v_idxs  = galloc_hp_is_mla(g->hp) ? NULL : kv_v_idxs(g, base); // MLA stores K only
    inp->kq_mask = kv_mask(g, base);
    if (g->caches[1].used) {
        const struct model_kv_cache * swa = &g->caches[1];
        inp->iswa        = true;
        inp->k_idxs_swa  = kv_k_idxs(g);
        inp->v_idxs_swa  = kv_v_idxs(g, swa);
        inp->kq_mask_swa = kv_mask(g, swa);
        if (galloc_model_arch_memory(g->m->arch->name) == MODEL_MEMORY_HYBRID) {
            return true; // llama.cpp's hybrid-iswa input has no rotation inputs: no rotation
        }
        inp->k_rot       = kv_k_rot(g, base);
        inp->v_rot       = kv_v_rot(g, base);
        inp->k_rot_swa   = kv_k_rot(g, swa);
        inp->v_rot_swa   = kv_v_rot(g, swa);
    } else {
        inp->k_rot = kv_k_rot(g, base);
        inp->v_rot = kv_v_rot(g, base);
    }
    return true;
}

//
// attention
//

// x rotated by rot's Hadamard matrix (llama_mul_mat_hadamard)
static struct ggml_tensor * hadamard(struct model_graph * g, struct ggml_tensor * cur, struct ggml_tensor * rot) {
    const int64_t n = rot->ne[0];
    struct ggml_tensor * res = ggml_is_contiguous(cur) ? ggml_reshape_2d(g->ctx, cur, n, ggml_nelements(cur) / n)
                                                       : ggml_cont_2d(g->ctx, cur, n, ggml_nelements(cur) / n);
    res = ggml_mul_mat(g->ctx, rot, res);
    ggml_mul_mat_set_hint(res, GGML_HINT_SRC0_IS_HADAMARD);
    return ggml_reshape_4d(g->ctx, res, cur->ne[0], cur->ne[1], cur->ne[2], cur->ne[3]);
}

// build_attn_mha: q [n_embd_head, n_head, n_tokens], k and v the cache views
static struct ggml_tensor * attn_mha(struct model_graph * g, struct ggml_tensor * q, struct ggml_tensor * k,
                                     struct ggml_tensor * v, struct ggml_tensor * kq_mask, struct ggml_tensor * sinks,
                                     struct ggml_tensor * v_mla, float kq_scale, int il) {
    struct ggml_context * ctx = g->ctx;
    const bool    v_trans  = v->nb[1] > v->nb[2];
    const int64_t n_stream = k->ne[3]; // the batch split into streams

    q = ggml_view_4d(ctx, q, q->ne[0], q->ne[1], q->ne[2] / n_stream, n_stream, q->nb[1], q->nb[2], q->nb[3] / (size_t) n_stream, 0);
    q = ggml_permute(ctx, q, 0, 2, 1, 3);
    k = ggml_permute(ctx, k, 0, 2, 1, 3);
    v = ggml_permute(ctx, v, 0, 2, 1, 3);

    struct ggml_tensor * cur;
    if (g->cp->flash_attn) {
        if (v_trans) {
            v = ggml_transpose(ctx, v);
        }
        if (k->type == GGML_TYPE_F32) {
            k = ggml_cast(ctx, k, GGML_TYPE_F16);
        }
        if (v->type == GGML_TYPE_F32) {
            v = ggml_cast(ctx, v, GGML_TYPE_F16);
        }
        cur = ggml_flash_attn_ext(ctx, q, k, v, kq_mask, kq_scale, g->hp->f_max_alibi_bias, g->hp->attn_soft_cap ? g->hp->f_attn_logit_softcapping : 0.0f);
        ggml_flash_attn_ext_add_sinks(cur, sinks);
        ggml_flash_attn_ext_set_prec(cur, GGML_PREC_F32);
        if (v_mla) {
            // decompressed as a matrix-matrix product with the tokens in dimension 1 (the permutes only relabel)
            cur = ggml_permute(ctx, cur, 0, 2, 1, 3);
            cur = ggml_mul_mat(ctx, v_mla, cur);
            galloc_model_cb(g, cur, "fattn_mla", il);
            cur = ggml_permute(ctx, cur, 0, 2, 1, 3);
            cur = ggml_cont(ctx, cur);
        }
        cur = ggml_reshape_2d(ctx, cur, cur->ne[0] * cur->ne[1], cur->ne[2] * cur->ne[3]);
    } else {
        struct ggml_tensor * kq = ggml_mul_mat(ctx, k, q);
        galloc_model_cb(g, kq, "kq", il);
        ggml_mul_mat_set_prec(kq, GGML_PREC_F32);
        if (g->hp->attn_grok) {
            kq = ggml_tanh(ctx, ggml_scale(ctx, kq, g->hp->f_attn_out_scale / g->hp->f_attn_logit_softcapping));
            galloc_model_cb(g, kq, "kq_tanh", il);
            kq = ggml_scale(ctx, kq, g->hp->f_attn_logit_softcapping);
            galloc_model_cb(g, kq, "kq_scaled", il);
        }
        if (g->hp->attn_soft_cap) {
            kq = ggml_scale(ctx, kq, 1.0f / g->hp->f_attn_logit_softcapping);
            galloc_model_cb(g, kq, "kq_scaled_1", il);
            kq = ggml_tanh(ctx, kq);
            galloc_model_cb(g, kq, "kq_tanh", il);
            kq = ggml_scale(ctx, kq, g->hp->f_attn_logit_softcapping);
            galloc_model_cb(g, kq, "kq_scaled_2", il);
        }
        kq = ggml_soft_max_ext(ctx, kq, kq_mask, kq_scale, g->hp->f_max_alibi_bias); // ALiBi's slopes when max_bias > 0
        ggml_soft_max_add_sinks(kq, sinks);
        galloc_model_cb(g, kq, "kq_soft_max", il);
        if (!v_trans) {
            v = ggml_cont(ctx, ggml_transpose(ctx, v));
            galloc_model_cb(g, v, "v_cont", il);
        }
        struct ggml_tensor * kqv = ggml_mul_mat(ctx, v, kq);
        galloc_model_cb(g, kqv, "kqv", il);
        if (v_mla) { // MLA's absorption: from the latent space back to the heads
            kqv = ggml_mul_mat(ctx, v_mla, kqv);
            galloc_model_cb(g, kqv, "kqv_mla", il);
        }
        cur = ggml_permute(ctx, kqv, 0, 2, 1, 3);
        cur = ggml_cont_2d(ctx, cur, cur->ne[0] * cur->ne[1], cur->ne[2] * cur->ne[3]); // streams recombined
    }
    ggml_build_forward_expand(g->gf, cur);
    return cur;
}

// build_attn with llm_graph_input_attn_no_cache: Q, K and V of the batch attend to each other
static struct ggml_tensor * attn_no_cache(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * wo,
                                          struct ggml_tensor * wo_b, struct ggml_tensor * wo_s, struct ggml_tensor * q_cur,
                                          struct ggml_tensor * k_cur, struct ggml_tensor * v_cur, struct ggml_tensor * sinks,
                                          float kq_scale, int il) {
    // llama.cpp's ggml calls would assert on these (it aborts; here a refusal naming the keys)
    if (q_cur->ne[0] != k_cur->ne[0] || k_cur->ne[1] != v_cur->ne[1] || q_cur->ne[1] % k_cur->ne[1] != 0) {
        return galloc_model_fail(g, "%s.attention.head_count_kv/key_length: layer %d: Q heads of %lld values, K heads of %lld "
                                 "(llama.cpp's attention would abort)", g->m->arch->name, il, (long long) q_cur->ne[0],
                                 (long long) k_cur->ne[0]);
    }
    if (sinks && (sinks->type != GGML_TYPE_F32 || sinks->ne[0] != q_cur->ne[1])) {
        return galloc_model_fail(g, "tensor '%s': llama.cpp's attention takes f32 sinks, one per head", sinks->name);
    }
    // expanded together so that they are not reordered
    ggml_build_forward_expand(g->gf, q_cur);
    ggml_build_forward_expand(g->gf, k_cur);
    ggml_build_forward_expand(g->gf, v_cur);
    struct ggml_tensor * kq_mask = inp->kq_mask_swa && g->hp->is_swa[il] ? inp->kq_mask_swa : inp->kq_mask;
    struct ggml_tensor * cur = attn_mha(g, q_cur, k_cur, v_cur, kq_mask, sinks, NULL, kq_scale, il);
    galloc_model_cb(g, cur, "kqv_out", il);
    if (wo) {
        cur = galloc_model_mm(g, wo, cur, wo_s);
    }
    if (wo_b) {
        cur = ggml_add(g->ctx, cur, wo_b);
    }
    return cur;
}

struct ggml_tensor * galloc_model_attn(struct model_graph * g, const struct model_attn_input * inp,
                                struct ggml_tensor * wo, struct ggml_tensor * wo_b, struct ggml_tensor * wo_s,
                                struct ggml_tensor * q_cur, struct ggml_tensor * k_cur, struct ggml_tensor * v_cur,
                                struct ggml_tensor * sinks, float kq_scale, int il) {
    if (g->failed) {
        return NULL;
    }
    if (inp->no_cache) {
        return attn_no_cache(g, inp, wo, wo_b, wo_s, q_cur, k_cur, v_cur, sinks, kq_scale, il);
    }
    const bool is_swa = inp->iswa && g->hp->is_swa[il];
    const struct model_kv_cache * kv = layer_cache(g, il);
    if (kv->k[il] == NULL) {
        return galloc_model_fail(g, "layer %d has no KV cache", il);
    }
    // what llama.cpp's ggml calls would assert on (it aborts; here a refusal naming the keys)
    if (k_cur->ne[0] * k_cur->ne[1] != kv->k[il]->ne[0] || q_cur->ne[0] != k_cur->ne[0]) {
        return galloc_model_fail(g, "%s.attention.key_length/rope.dimension_count: layer %d: heads of %lld values for a KV cache "
                                 "of %u-value heads (llama.cpp's ggml_set_rows would abort)", g->m->arch->name, il,
                                 (long long) k_cur->ne[0], galloc_hp_n_embd_head_k(g->hp, (uint32_t) il));
    }
    if (v_cur->ne[0] * v_cur->ne[1] > kv->v[il]->ne[0] || v_cur->ne[0] != (int64_t) galloc_hp_n_embd_head_v(g->hp, (uint32_t) il)) {
        return galloc_model_fail(g, "%s.attention.value_length: layer %d: V heads of %lld values for a KV cache of %u-value heads "
                                 "(llama.cpp's ggml_set_rows would abort)", g->m->arch->name, il, (long long) v_cur->ne[0],
                                 galloc_hp_n_embd_head_v(g->hp, (uint32_t) il));
    }
    if (sinks && (sinks->type != GGML_TYPE_F32 || sinks->ne[0] != q_cur->ne[1])) {
        return galloc_model_fail(g, "tensor '%s': %s [%lld]: llama.cpp's attention takes f32 sinks, one per head (%lld; its "
                                 "ggml_soft_max_add_sinks would abort)", sinks->name, ggml_type_name(sinks->type),
                                 (long long) sinks->ne[0], (long long) q_cur->ne[1]);
    }
    struct ggml_tensor * k_rot = is_swa ? inp->k_rot_swa : inp->k_rot;
    struct ggml_tensor * v_rot = is_swa ? inp->v_rot_swa : inp->v_rot;
    if (k_rot) {
        q_cur = hadamard(g, q_cur, k_rot);
        k_cur = hadamard(g, k_cur, k_rot);
    }
    if (v_rot) {
        v_cur = hadamard(g, v_cur, v_rot);
    }

    // expanded together so that they are not reordered: llama_kv_cache expands V before K (rope
    // fusion writes K straight into the cache); the sliding-window builder expands K first
    ggml_build_forward_expand(g->gf, q_cur);
    if (inp->iswa) {
        ggml_build_forward_expand(g->gf, k_cur);
        ggml_build_forward_expand(g->gf, v_cur);
    } else {
        ggml_build_forward_expand(g->gf, v_cur);
        ggml_build_forward_expand(g->gf, k_cur);
    }
    ggml_build_forward_expand(g->gf, kv_cpy_k(g, kv, k_cur, is_swa ? inp->k_idxs_swa : inp->k_idxs, il));
    ggml_build_forward_expand(g->gf, kv_cpy_v(g, kv, v_cur, is_swa ? inp->v_idxs_swa : inp->v_idxs, il));

    struct ggml_tensor * kq_mask = is_swa ? inp->kq_mask_swa : inp->kq_mask;
    struct ggml_tensor * k = kv_get_k(g, kv, il);
    struct ggml_tensor * v = kv_get_v(g, kv, il);
    struct ggml_tensor * cur = attn_mha(g, q_cur, k, v, kq_mask, sinks, NULL, kq_scale, il);
    galloc_model_cb(g, cur, "kqv_out", il);
    if (v_rot) {
        cur = hadamard(g, cur, v_rot);
    }
    if (wo) {
        cur = galloc_model_mm(g, wo, cur, wo_s);
    }
    if (wo_b) {
        cur = ggml_add(g->ctx, cur, wo_b);
    }
    return cur;
}

struct ggml_tensor * galloc_model_attn_mla(struct model_graph * g, const struct model_attn_input * inp, struct ggml_tensor * wo,
                                           struct ggml_tensor * wo_s, struct ggml_tensor * q_cur, struct ggml_tensor * k_cur,
                                           struct ggml_tensor * v_cur, struct ggml_tensor * v_mla, float kq_scale, int il) {
    if (g->failed) {
        return NULL;
    }
    const struct model_kv_cache * kv = &g->caches[0];
    if (inp->iswa || kv->k[il] == NULL || kv->v[il] != NULL) {
        return galloc_model_fail(g, "layer %d: MLA attention needs the K-only cache", il);
    }
    if (k_cur->ne[0] * k_cur->ne[1] != kv->k[il]->ne[0] || q_cur->ne[0] != k_cur->ne[0] || v_cur->ne[0] > k_cur->ne[0] ||
        v_mla->ne[0] != v_cur->ne[0] || v_mla->ne[2] != q_cur->ne[1]) {
        return galloc_model_fail(g, "%s.attention.key_length/kv_lora_rank: layer %d: latent heads of %lld values (V %lld) for a "
                                 "cache of %lld-value rows (llama.cpp's graph would abort)", g->m->arch->name, il,
                                 (long long) k_cur->ne[0], (long long) v_cur->ne[0], (long long) kv->k[il]->ne[0]);
    }
    // expanded together so that they are not reordered; K last (rope fusion writes it into the cache)
    ggml_build_forward_expand(g->gf, q_cur);
    ggml_build_forward_expand(g->gf, v_cur);
    ggml_build_forward_expand(g->gf, k_cur);
    ggml_build_forward_expand(g->gf, kv_cpy_k(g, kv, k_cur, inp->k_idxs, il));
    struct ggml_tensor * k = kv_get_k(g, kv, il);
    struct ggml_tensor * v = ggml_view_4d(g->ctx, k, v_cur->ne[0], k->ne[1], k->ne[2], k->ne[3], k->nb[1], k->nb[2], k->nb[3], 0);
    struct ggml_tensor * cur = attn_mha(g, q_cur, k, v, inp->kq_mask, NULL, v_mla, kq_scale, il);
    galloc_model_cb(g, cur, "kqv_out", il);
    if (wo) {
        cur = galloc_model_mm(g, wo, cur, wo_s);
    }
    return cur;
}
