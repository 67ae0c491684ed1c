// llama-synthetic.c: llama-style decoder graphs built through the ggml API (tests and benchmarks).
//
// The graph follows llama.cpp's llama builder op by op (names, shapes, views, and
// the order of ggml_build_forward_expand calls: each layer's K and V cache writes,
// then the logits), so its plan equals upstream's for the same model shape. Weights
// and KV caches live in separate no_alloc contexts allocated on virtual buffer types.

#include "llama-synthetic.h"
#include "galloc-export.h"
#include "galloc-virtual.h"
#include "ggml-alloc.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LLAMA_RMS_EPS     1e-5f
#define LLAMA_ROPE_BASE   10000.0f
#define LLAMA_N_CTX_ORIG  4096

struct llama_layer {
    struct ggml_tensor * attn_norm, * wq, * wk, * wv, * wo;
    struct ggml_tensor * ffn_norm, * ffn_gate, * ffn_up, * ffn_down;
    struct ggml_tensor * k_cache, * v_cache;
};

// everything the layer builder needs
struct builder {
    const struct galloc_llama_params * p;
    struct ggml_context * ctx;
    struct ggml_cgraph  * gf;
    int64_t n_embd_head, n_embd_gqa;
    int64_t kv_head;         // first cache cell written by this batch
    bool    v_trans;         // V cache stored transposed (llama.cpp without flash attention / set_rows)
    struct ggml_tensor * inp_pos, * kq_mask, * kv_idxs;
};

// 1/sqrt(x) without libm (Newton's method; x > 0)
static float inv_sqrt(float x) {
    float r = 1.0f;
    while (r * r * x > 4.0f) {
        r *= 0.5f;
    }
    while (r * r * x < 0.25f) {
        r *= 2.0f;
    }
    for (int i = 0; i < 32; i++) {
        r = r * (1.5f - 0.5f * x * r * r);
    }
    return r;
}

static int layer_device(const struct galloc_llama_params * p, int il) {
    return (int) ((int64_t) il * p->n_bufts / p->n_layer);
}

static struct ggml_tensor * named(struct ggml_tensor * t, const char * name, int il) {
    if (il >= 0) {
        ggml_format_name(t, "%s-%d", name, il);
    } else {
        ggml_set_name(t, name);
    }
    return t;
}

static struct ggml_tensor * weight(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1, const char * name, int il) {
    struct ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, type, ne0, ne1) : ggml_new_tensor_1d(ctx, type, ne0);
    if (il >= 0) {
        ggml_format_name(t, "blk.%d.%s", il, name);
    } else {
        ggml_set_name(t, name);
    }
    return t;
}

static struct ggml_tensor * rope(struct builder * b, struct ggml_tensor * x) {
    return ggml_rope_ext(b->ctx, x, b->inp_pos, NULL, (int) b->n_embd_head, 0, LLAMA_N_CTX_ORIG, LLAMA_ROPE_BASE, 1.0f,
                         0.0f, 1.0f, 32.0f, 1.0f);
}

// [n_embd_head, n_kv, n_head_kv] view of a non-transposed K or V cache
static struct ggml_tensor * cache_heads(struct builder * b, struct ggml_tensor * cache) {
    const struct galloc_llama_params * p = b->p;
    if (p->set_rows) {
        // llama.cpp's newer cache: [n_embd_head, n_head_kv, n_kv] view, then heads outermost
        struct ggml_tensor * v = ggml_view_3d(b->ctx, cache, b->n_embd_head, p->n_head_kv, p->n_kv,
                                              ggml_row_size(cache->type, b->n_embd_head),
                                              ggml_row_size(cache->type, b->n_embd_gqa), 0);
        return ggml_permute(b->ctx, v, 0, 2, 1, 3);
    }
    return ggml_view_3d(b->ctx, cache, b->n_embd_head, p->n_kv, p->n_head_kv,
                        ggml_row_size(cache->type, b->n_embd_gqa), ggml_row_size(cache->type, b->n_embd_head), 0);
}

// writes K (rope'd, [n_embd_head, n_head_kv, n_tokens]) into the cache
static struct ggml_tensor * store_k(struct builder * b, struct ggml_tensor * k, struct ggml_tensor * cache) {
    const struct galloc_llama_params * p = b->p;
    if (p->set_rows) {
        k = ggml_reshape_2d(b->ctx, k, b->n_embd_gqa, p->n_tokens);
        return ggml_set_rows(b->ctx, cache, k, b->kv_idxs);
    }
    struct ggml_tensor * view = ggml_view_1d(b->ctx, cache, p->n_tokens * b->n_embd_gqa,
                                             ggml_row_size(cache->type, b->n_embd_gqa) * (size_t) b->kv_head);
    return ggml_cpy(b->ctx, k, view);
}

// writes V ([n_embd_head, n_head_kv, n_tokens]) into the cache
static struct ggml_tensor * store_v(struct builder * b, struct ggml_tensor * v, struct ggml_tensor * cache) {
    const struct galloc_llama_params * p = b->p;
    if (p->set_rows) {
        v = ggml_reshape_2d(b->ctx, v, b->n_embd_gqa, p->n_tokens);
        return ggml_set_rows(b->ctx, cache, v, b->kv_idxs);
    }
    if (b->v_trans) {
        v = ggml_transpose(b->ctx, ggml_reshape_2d(b->ctx, v, b->n_embd_gqa, p->n_tokens));
        struct ggml_tensor * view = ggml_view_2d(b->ctx, cache, p->n_tokens, b->n_embd_gqa,
                                                 ggml_row_size(cache->type, p->n_kv),
                                                 ggml_row_size(cache->type, b->kv_head));
        return ggml_cpy(b->ctx, v, view);
    }
    struct ggml_tensor * view = ggml_view_1d(b->ctx, cache, p->n_tokens * b->n_embd_gqa,
                                             ggml_row_size(cache->type, b->n_embd_gqa) * (size_t) b->kv_head);
    return ggml_cpy(b->ctx, v, view);
}

// self-attention of one layer: the result before the output projection, [n_embd, n_tokens]
static struct ggml_tensor * attention(struct builder * b, const struct llama_layer * l, struct ggml_tensor * cur, int il) {
    const struct galloc_llama_params * p = b->p;
    struct ggml_context * ctx = b->ctx;

    // K and V first: llama.cpp expands the cache writes before the attention reads them
    struct ggml_tensor * k = named(ggml_mul_mat(ctx, l->wk, cur), "Kcur", il);
    k = named(rope(b, ggml_reshape_3d(ctx, k, b->n_embd_head, p->n_head_kv, p->n_tokens)), "Kcur_rope", il);
    ggml_build_forward_expand(b->gf, store_k(b, k, l->k_cache));

    struct ggml_tensor * v = named(ggml_mul_mat(ctx, l->wv, cur), "Vcur", il);
    v = ggml_reshape_3d(ctx, v, b->n_embd_head, p->n_head_kv, p->n_tokens);
    ggml_build_forward_expand(b->gf, store_v(b, v, l->v_cache));

    struct ggml_tensor * q = named(ggml_mul_mat(ctx, l->wq, cur), "Qcur", il);
    q = named(rope(b, ggml_reshape_3d(ctx, q, b->n_embd_head, p->n_head, p->n_tokens)), "Qcur_rope", il);
    q = ggml_permute(ctx, q, 0, 2, 1, 3);

    const float scale = inv_sqrt((float) b->n_embd_head);
    struct ggml_tensor * vh;
    if (b->v_trans) {
        vh = ggml_view_3d(ctx, l->v_cache, p->n_kv, b->n_embd_head, p->n_head_kv,
                          ggml_row_size(l->v_cache->type, p->n_kv),
                          ggml_row_size(l->v_cache->type, p->n_kv) * (size_t) b->n_embd_head, 0);
    } else {
        vh = cache_heads(b, l->v_cache);
        if (!p->flash_attn) {
            vh = ggml_cont(ctx, ggml_transpose(ctx, vh));
        }
    }
    struct ggml_tensor * kh = cache_heads(b, l->k_cache);

    if (p->flash_attn) {
        struct ggml_tensor * fa = named(ggml_flash_attn_ext(ctx, q, kh, vh, b->kq_mask, scale, 0.0f, 0.0f), "fattn", il);
        ggml_flash_attn_ext_set_prec(fa, GGML_PREC_F32);
        return named(ggml_reshape_2d(ctx, fa, b->n_embd_head * p->n_head, p->n_tokens), "kqv_out", il);
    }
    struct ggml_tensor * kq = named(ggml_mul_mat(ctx, kh, q), "kq", il);
    kq = named(ggml_soft_max_ext(ctx, kq, b->kq_mask, scale, 0.0f), "kq_soft_max", il);
    struct ggml_tensor * kqv = named(ggml_mul_mat(ctx, vh, kq), "kqv", il);
    kqv = ggml_permute(ctx, kqv, 0, 2, 1, 3);
    return named(ggml_cont_2d(ctx, kqv, b->n_embd_head * p->n_head, p->n_tokens), "kqv_out", il);
}

static bool params_valid(const struct galloc_llama_params * p) {
    return p && p->n_layer > 0 && p->n_embd > 0 && p->n_head > 0 && p->n_head_kv > 0 && p->n_ff > 0 && p->n_vocab > 0 &&
           p->n_tokens > 0 && p->n_kv >= p->n_tokens && p->n_embd % p->n_head == 0 && p->n_head % p->n_head_kv == 0 &&
           p->atype == GGML_TYPE_F32 && p->n_bufts >= 1 && p->n_bufts <= 2 && p->n_bufts <= p->n_layer &&
           p->alignment > 0 && (p->alignment & (p->alignment - 1)) == 0 && p->max_size > 0 &&
           p->wtype >= 0 && p->wtype < GGML_TYPE_COUNT && p->kvtype >= 0 && p->kvtype < GGML_TYPE_COUNT;
}

void galloc_llama_free(struct galloc_llama_graph * g) {
    if (!g) {
        return;
    }
    for (int i = 0; i < GALLOC_LLAMA_MAX_BUFTS; i++) {
        ggml_backend_buffer_free(g->wbuf[i]);
        ggml_free(g->wctx[i]);
    }
    for (int i = 0; i < g->n_tbufs; i++) {
        ggml_backend_buffer_free(g->tbufs[i]);
    }
    free(g->tbufs);
    for (int i = 0; i < g->n_bufts; i++) {
        galloc_virtual_buft_free(g->bufts[i]);
    }
    ggml_free(g->ctx);
    free(g->node_buffer_ids);
    free(g->leaf_buffer_ids);
    free(g);
}

// the weights and caches of wctx[w] in buft: one buffer (ggml_backend_alloc_ctx_tensors_from_buft), or
// where size_t cannot count them all (a 7B model on a 32-bit target such as wasm32) one buffer each
static bool alloc_weights(struct galloc_llama_graph * g, int w, ggml_backend_buffer_type_t buft) {
    struct ggml_context * ctx = g->wctx[w];
    uint64_t total = 0;
    int      count = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        total += (uint64_t) ggml_backend_buft_get_alloc_size(buft, t) + ggml_backend_buft_get_alignment(buft);
        count++;
    }
    if (total < (uint64_t) (SIZE_MAX / 2)) {
        g->wbuf[w] = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
        return g->wbuf[w] != NULL;
    }
    ggml_backend_buffer_t * more = realloc(g->tbufs, ((size_t) g->n_tbufs + (size_t) count) * sizeof(*more));
    if (!more) {
        return false;
    }
    g->tbufs = more;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, ggml_backend_buft_get_alloc_size(buft, t));
        if (!buf) {
            return false;
        }
        g->tbufs[g->n_tbufs++] = buf;
        if (ggml_backend_tensor_alloc(buf, t, ggml_backend_buffer_get_base(buf)) != GGML_STATUS_SUCCESS) {
            return false;
        }
    }
    return true;
}

// device of every node: the layer it was created in (creation order, split at `firsts`)
static bool assign_node_ids(struct galloc_llama_graph * g, const struct galloc_llama_params * p, struct ggml_tensor ** firsts) {
    struct ggml_cgraph * gf = g->graph;
    struct ggml_hash_set set = ggml_hash_set_new((size_t) gf->n_nodes + 1);
    int * dev = malloc(set.size * sizeof(int));
    g->node_buffer_ids = malloc((size_t) gf->n_nodes * sizeof(int) + 1);
    if (!set.keys || !dev || !g->node_buffer_ids) {
        ggml_hash_set_free(&set);
        free(dev);
        return false;
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        size_t slot = ggml_hash_insert(&set, gf->nodes[i]);
        dev[slot] = 0;
    }
    int d = 0, seg = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->ctx); t; t = ggml_get_next_tensor(g->ctx, t)) {
        while (seg <= p->n_layer && t == firsts[seg]) {
            d = seg < p->n_layer ? layer_device(p, seg) : p->n_bufts - 1;
            seg++;
        }
        if (ggml_hash_contains(&set, t)) {
            dev[ggml_hash_find(&set, t)] = d;
        }
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        g->node_buffer_ids[i] = dev[ggml_hash_find(&set, gf->nodes[i])];
    }
    ggml_hash_set_free(&set);
    free(dev);
    return true;
}

// buffer type of every leaf: its weight buffer's type, inputs on the first device
static bool assign_leaf_ids(struct galloc_llama_graph * g) {
    struct ggml_cgraph * gf = g->graph;
    g->leaf_buffer_ids = malloc((size_t) gf->n_leafs * sizeof(int) + 1);
    if (!g->leaf_buffer_ids) {
        return false;
    }
    for (int i = 0; i < gf->n_leafs; i++) {
        struct ggml_tensor * t = gf->leafs[i];
        int id = 0;
        if (t->buffer) {
            ggml_backend_buffer_type_t bt = ggml_backend_buffer_get_type(t->buffer);
            for (int b = 0; b < g->n_bufts; b++) {
                if (g->bufts[b] == bt) {
                    id = b;
                }
            }
        }
        g->leaf_buffer_ids[i] = id;
    }
    return true;
}

struct galloc_llama_graph * galloc_llama_build(const struct galloc_llama_params * p) {
    if (!params_valid(p)) {
        return NULL;
    }
    struct galloc_llama_graph * g = calloc(1, sizeof(*g));
    if (!g) {
        return NULL;
    }
    const bool separate_weights = p->max_size != SIZE_MAX;
    static const char * dev_names[2] = { "dev0", "dev1" };
    for (int d = 0; d < p->n_bufts; d++) {
        if (!(g->bufts[g->n_bufts] = galloc_virtual_buft_new(dev_names[d], p->alignment, p->max_size))) {
            galloc_llama_free(g);
            return NULL;
        }
        g->n_bufts++;
    }
    if (separate_weights) {
        if (!(g->bufts[g->n_bufts] = galloc_virtual_buft_new("weights", p->alignment, SIZE_MAX))) {
            galloc_llama_free(g);
            return NULL;
        }
        g->n_bufts++;
    }

    // weights and KV cache: one context per buffer type that holds them
    const int    n_wctx       = separate_weights ? 1 : p->n_bufts;
    const size_t n_graph      = 64 + 48 * (size_t) p->n_layer;
    const size_t n_w_tensors  = 8 + 12 * (size_t) p->n_layer;
    for (int w = 0; w < n_wctx; w++) {
        struct ggml_init_params wp = { n_w_tensors * ggml_tensor_overhead(), NULL, true };
        if (!(g->wctx[w] = ggml_init(wp))) {
            galloc_llama_free(g);
            return NULL;
        }
    }
    struct ggml_init_params cp = { n_graph * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_graph, false), NULL, true };
    if (!(g->ctx = ggml_init(cp))) {
        galloc_llama_free(g);
        return NULL;
    }
    struct ggml_context * ctx = g->ctx;

    const int64_t n_embd_head = p->n_embd / p->n_head;
    const int64_t n_embd_gqa  = n_embd_head * p->n_head_kv;
    struct llama_layer * layers = calloc((size_t) p->n_layer, sizeof(*layers));
    struct ggml_tensor ** firsts = calloc((size_t) p->n_layer + 1, sizeof(*firsts));
    if (!layers || !firsts) {
        free(layers);
        free(firsts);
        galloc_llama_free(g);
        return NULL;
    }
    const bool set_rows = p->set_rows;
    struct ggml_context * w_first = g->wctx[0], * w_last = g->wctx[n_wctx - 1];
    struct ggml_tensor * tok_embd = weight(w_first, p->wtype, p->n_embd, p->n_vocab, "token_embd.weight", -1);
    for (int il = 0; il < p->n_layer; il++) {
        struct ggml_context * w = g->wctx[separate_weights ? 0 : layer_device(p, il)];
        struct llama_layer * l = &layers[il];
        l->attn_norm = weight(w, GGML_TYPE_F32, p->n_embd, 0, "attn_norm.weight", il);
        l->wq        = weight(w, p->wtype, p->n_embd, n_embd_head * p->n_head, "attn_q.weight", il);
        l->wk        = weight(w, p->wtype, p->n_embd, n_embd_gqa, "attn_k.weight", il);
        l->wv        = weight(w, p->wtype, p->n_embd, n_embd_gqa, "attn_v.weight", il);
        l->wo        = weight(w, p->wtype, n_embd_head * p->n_head, p->n_embd, "attn_output.weight", il);
        l->ffn_norm  = weight(w, GGML_TYPE_F32, p->n_embd, 0, "ffn_norm.weight", il);
        l->ffn_gate  = weight(w, p->wtype, p->n_embd, p->n_ff, "ffn_gate.weight", il);
        l->ffn_up    = weight(w, p->wtype, p->n_embd, p->n_ff, "ffn_up.weight", il);
        l->ffn_down  = weight(w, p->wtype, p->n_ff, p->n_embd, "ffn_down.weight", il);
        if (set_rows) {
            l->k_cache = ggml_new_tensor_2d(w, p->kvtype, n_embd_gqa, p->n_kv);
            l->v_cache = ggml_new_tensor_2d(w, p->kvtype, n_embd_gqa, p->n_kv);
        } else {
            l->k_cache = ggml_new_tensor_1d(w, p->kvtype, n_embd_gqa * p->n_kv);
            l->v_cache = ggml_new_tensor_1d(w, p->kvtype, n_embd_gqa * p->n_kv);
        }
        ggml_format_name(l->k_cache, "cache_k_l%d", il);
        ggml_format_name(l->v_cache, "cache_v_l%d", il);
    }
    struct ggml_tensor * out_norm = weight(w_last, GGML_TYPE_F32, p->n_embd, 0, "output_norm.weight", -1);
    struct ggml_tensor * output   = weight(w_last, p->wtype, p->n_embd, p->n_vocab, "output.weight", -1);
    bool ok = true;
    for (int w = 0; w < n_wctx && ok; w++) {
        ok = alloc_weights(g, w, g->bufts[separate_weights ? p->n_bufts : w]);
    }

    struct builder b = { 0 };
    b.p           = p;
    b.ctx         = ctx;
    b.n_embd_head = n_embd_head;
    b.n_embd_gqa  = n_embd_gqa;
    b.kv_head     = p->n_kv - p->n_tokens;
    b.v_trans     = !p->flash_attn && !p->set_rows;
    if (ok) {
        g->graph = b.gf = ggml_new_graph_custom(ctx, n_graph, false);

        struct ggml_tensor * inp_tokens = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, p->n_tokens);
        ggml_set_name(inp_tokens, "inp_tokens");
        ggml_set_input(inp_tokens);
        b.inp_pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, p->n_tokens);
        ggml_set_name(b.inp_pos, "inp_pos");
        ggml_set_input(b.inp_pos);
        // flash attention reads an f16 mask: llama.cpp casts its f32 input (ggml_cast), here the
        // input is f16 itself, since a cast's self-referencing destination slot cannot be exported
        b.kq_mask = ggml_new_tensor_2d(ctx, p->flash_attn ? GGML_TYPE_F16 : GGML_TYPE_F32, p->n_kv, p->n_tokens);
        ggml_set_name(b.kq_mask, "KQ_mask");
        ggml_set_input(b.kq_mask);
        if (set_rows) {
            b.kv_idxs = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, p->n_tokens);
            ggml_set_name(b.kv_idxs, "kv_idxs");
            ggml_set_input(b.kv_idxs);
        }

        struct ggml_tensor * inpL = named(ggml_get_rows(ctx, tok_embd, inp_tokens), "inp_embd", -1);
        for (int il = 0; il < p->n_layer; il++) {
            const struct llama_layer * l = &layers[il];
            struct ggml_tensor * cur = named(ggml_rms_norm(ctx, inpL, LLAMA_RMS_EPS), "norm", il);
            firsts[il] = cur;
            cur = named(ggml_mul(ctx, cur, l->attn_norm), "attn_norm", il);
            cur = attention(&b, l, cur, il);
            cur = named(ggml_mul_mat(ctx, l->wo, cur), "attn_out", il);
            struct ggml_tensor * ffn_inp = named(ggml_add(ctx, cur, inpL), "ffn_inp", il);

            cur = named(ggml_rms_norm(ctx, ffn_inp, LLAMA_RMS_EPS), "ffn_rms", il);
            cur = named(ggml_mul(ctx, cur, l->ffn_norm), "ffn_norm", il);
            struct ggml_tensor * gate = named(ggml_mul_mat(ctx, l->ffn_gate, cur), "ffn_gate", il);
            struct ggml_tensor * up   = named(ggml_mul_mat(ctx, l->ffn_up, cur), "ffn_up", il);
            cur = named(ggml_swiglu_split(ctx, gate, up), "ffn_swiglu", il);
            cur = named(ggml_mul_mat(ctx, l->ffn_down, cur), "ffn_out", il);
            inpL = named(ggml_add(ctx, cur, ffn_inp), "l_out", il);
        }
        struct ggml_tensor * cur = named(ggml_rms_norm(ctx, inpL, LLAMA_RMS_EPS), "result_rms", -1);
        firsts[p->n_layer] = cur;
        cur = named(ggml_mul(ctx, cur, out_norm), "result_norm", -1);
        cur = named(ggml_mul_mat(ctx, output, cur), "result_output", -1);
        ggml_set_output(cur);
        ggml_build_forward_expand(b.gf, cur);
        ok = !b.gf->out_of_memory; // the walk's stack could not grow: tensors are missing

        if (ok && g->n_bufts > 1) {
            ok = assign_node_ids(g, p, firsts) && assign_leaf_ids(g);
        }
    }
    free(layers);
    free(firsts);
    if (!ok) {
        galloc_llama_free(g);
        return NULL;
    }
    return g;
}

char * galloc_llama_document(const struct galloc_llama_params * p, const char * name, size_t * len) {
    struct galloc_llama_graph * g = galloc_llama_build(p);
    if (!g) {
        return NULL;
    }
    char * doc = galloc_export_graph(g->graph, name, g->bufts, g->n_bufts, g->node_buffer_ids, g->leaf_buffer_ids, len);
    galloc_llama_free(g);
    return doc;
}

//
// presets
//

struct llama_preset {
    const char * name;
    const char * description;
    struct galloc_llama_params params;
};

// listed: the tiny decoders that teach, and llama-7b-decode, the twin of upstream's golden graph
// of that name (labelled synthetic). The other 7B/70B llama-like graphs are built by name only (test
// and benchmark baselines): real models are offered as llama.cpp's own graphs (model cards).
static bool llama_preset_teaching(const char * name) {
    return name != NULL && (strncmp(name, "llama-tiny", 10) == 0 || strcmp(name, "llama-7b-decode") == 0);
}

#define F32 GGML_TYPE_F32
#define F16 GGML_TYPE_F16

//  layer embd head kv  ff     vocab  tok  n_kv  wtype kvtype atype flash set_rows align max_size  bufts
static const struct llama_preset llama_presets[] = {
    { "llama-tiny",
      "A 2-layer llama decoder (64 embd, 8 tokens, 32 KV cells) written to its KV cache with views and ggml_cpy.",
      { 2, 64, 4, 4, 172, 256, 8, 32, F32, F32, F32, false, false, 32, SIZE_MAX, 1 } },
    { "llama-tiny-flash",
      "The tiny llama decoder with flash attention (ggml_flash_attn_ext on an f16 mask, V cache not transposed).",
      { 2, 64, 4, 4, 172, 256, 8, 32, F32, F32, F32, true, false, 32, SIZE_MAX, 1 } },
    { "llama-tiny-setrows",
      "The tiny llama decoder writing its KV cache with ggml_set_rows at kv_idxs, as newer llama.cpp does.",
      { 2, 64, 4, 4, 172, 256, 8, 32, F32, F32, F32, false, true, 32, SIZE_MAX, 1 } },
    { "llama-tiny-2buft",
      "The tiny llama decoder split over two devices, one layer each, with node and leaf buffer ids.",
      { 2, 64, 4, 4, 172, 256, 8, 32, F32, F32, F32, false, false, 32, SIZE_MAX, 2 } },
    { "llama-tiny-max4k",
      "The tiny llama decoder with a 4 KiB max buffer size, so its compute buffer spreads over several chunks.",
      { 2, 64, 4, 4, 172, 256, 8, 32, F32, F32, F32, false, false, 32, 4096, 1 } },
    { "llama-7b-pp512",
      "Synthetic llama-like 7B graph (not llama.cpp's): 32 layers, 4096 embd, f16 weights and KV, a 512-token prompt, 4096 cells.",
      { 32, 4096, 32, 32, 11008, 32000, 512, 4096, F16, F16, F32, false, false, 32, SIZE_MAX, 1 } },
    { "llama-7b-decode",
      "Synthetic llama-like 7B graph (not llama.cpp's; the twin of upstream's golden llama-7b-decode): one token, 4096 f16 cells.",
      { 32, 4096, 32, 32, 11008, 32000, 1, 4096, F16, F16, F32, false, false, 32, SIZE_MAX, 1 } },
    { "llama-70b-pp512",
      "Synthetic llama-like 70B graph (not llama.cpp's): 80 layers, 8192 embd, 64 heads / 8 KV, a 512-token prompt, 8192 cells.",
      { 80, 8192, 64, 8, 28672, 32000, 512, 8192, F16, F16, F32, false, false, 32, SIZE_MAX, 1 } },
};

#undef F32
#undef F16

#define N_LLAMA_PRESETS ((int) (sizeof(llama_presets) / sizeof(llama_presets[0])))

int galloc_llama_preset_count(void) {
    return N_LLAMA_PRESETS;
}

const char * galloc_llama_preset_name(int i) {
    return i >= 0 && i < N_LLAMA_PRESETS ? llama_presets[i].name : NULL;
}

const char * galloc_llama_preset_description(int i) {
    return i >= 0 && i < N_LLAMA_PRESETS ? llama_presets[i].description : NULL;
}

bool galloc_llama_preset_listed(int i) {
    return i >= 0 && i < N_LLAMA_PRESETS && llama_preset_teaching(llama_presets[i].name);
}

bool galloc_llama_preset_params(const char * name, struct galloc_llama_params * p) {
    for (int i = 0; name && i < N_LLAMA_PRESETS; i++) {
        if (strcmp(llama_presets[i].name, name) == 0) {
            *p = llama_presets[i].params;
            return true;
        }
    }
    return false;
}

char * galloc_llama_preset_document(const char * name, size_t * len) {
    struct galloc_llama_params p;
    return galloc_llama_preset_params(name, &p) ? galloc_llama_document(&p, name, len) : NULL;
}
