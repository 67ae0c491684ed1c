// bench-graphs.c: the benchmark graphs, built with ggml's public API (see bench-graphs.h).

#include "bench-graphs.h"

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// llama shapes: the 7B (32 layers, 4096 wide, MHA) and 70B (80 layers, 8192 wide, 8 KV heads)
// configurations, a 512-token prompt and a one-token decode into a 4096-cell KV cache;
// random DAGs: reach 8 (second sources mostly near) and 0 (from anywhere: many free blocks)
const struct bench_case bench_cases[] = {
    { "llama-7b-pp512", 101, 32, 4096, 32, 32, 11008, 32000, 512, 4096, 0, 0, 0 },
    { "llama-7b-decode", 101, 32, 4096, 32, 32, 11008, 32000, 1, 4096, 0, 0, 0 },
    { "llama-70b-pp512", 51, 80, 8192, 64, 8, 28672, 32000, 512, 4096, 0, 0, 0 },
    { "llama-70b-decode", 51, 80, 8192, 64, 8, 28672, 32000, 1, 4096, 0, 0, 0 },
    { "random-10k", 31, 0, 0, 0, 0, 0, 0, 0, 0, 10000, 2, 8 },
    { "random-100k", 7, 0, 0, 0, 0, 0, 0, 0, 0, 100000, 3, 8 },
    { "random-1000k", 3, 0, 0, 0, 0, 0, 0, 0, 0, 1000000, 4, 8 },
    { "random-far-10k", 31, 0, 0, 0, 0, 0, 0, 0, 0, 10000, 2, 0 },
    { "random-far-100k", 7, 0, 0, 0, 0, 0, 0, 0, 0, 100000, 3, 0 },
    { "random-far-1000k", 3, 0, 0, 0, 0, 0, 0, 0, 0, 1000000, 4, 0 },
};
const int bench_n_cases = (int) (sizeof(bench_cases) / sizeof(bench_cases[0]));

//
// a buffer type without memory: every buffer starts at a fixed fake address
//

static uint8_t * const fake_base = (uint8_t *) 4096;

static void *      nomem_get_base(ggml_backend_buffer_t buffer) { (void) buffer; return fake_base; }
static void        nomem_free_buffer(ggml_backend_buffer_t buffer) { (void) buffer; }
static void        nomem_clear(ggml_backend_buffer_t buffer, uint8_t value) { (void) buffer; (void) value; }
static const char * nomem_name(ggml_backend_buffer_type_t buft) { (void) buft; return "nomem"; }
static size_t      nomem_alignment(ggml_backend_buffer_type_t buft) { (void) buft; return 32; }
static bool        nomem_is_host(ggml_backend_buffer_type_t buft) { (void) buft; return false; }

static ggml_backend_buffer_t nomem_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct ggml_backend_buffer_i iface;
    memset(&iface, 0, sizeof(iface));
    iface.free_buffer = nomem_free_buffer;
    iface.get_base    = nomem_get_base;
    iface.clear       = nomem_clear;
    return ggml_backend_buffer_init(buft, iface, NULL, size);
}

static struct ggml_backend_buffer_type nomem_buft;

ggml_backend_buffer_type_t bench_nomem_buffer_type(void) {
    memset(&nomem_buft, 0, sizeof(nomem_buft));
    nomem_buft.iface.get_name      = nomem_name;
    nomem_buft.iface.alloc_buffer  = nomem_alloc_buffer;
    nomem_buft.iface.get_alignment = nomem_alignment;
    nomem_buft.iface.is_host       = nomem_is_host;
    return &nomem_buft;
}

//
// graphs
//

// place every tensor of wctx in one fake buffer, so the allocator sees them as allocated
static void place_weights(struct bench_graph * g) {
    size_t total = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        total += ggml_nbytes(t);
    }
    g->wbuf = ggml_backend_buft_alloc_buffer(bench_nomem_buffer_type(), total + 1);
    uint8_t * addr = fake_base;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        ggml_backend_tensor_alloc(g->wbuf, t, addr);
        addr += ggml_nbytes(t);
    }
}

// a llama-style decoder step: embeddings, per layer RMS norm, Q/K/V, RoPE, KV cache written
// through views, mul_mat + soft_max_ext attention, SwiGLU FFN, residuals; final norm, logits
static void build_llama(struct bench_graph * g, const struct bench_case * s) {
    const int hd = s->n_embd / s->n_head;
    struct ggml_init_params wp = { (size_t) (s->n_layer * 12 + 16) * ggml_tensor_overhead(), NULL, true };
    struct ggml_init_params gp = { (size_t) (s->n_layer * 64 + 64) * ggml_tensor_overhead() + ggml_graph_overhead_custom(16384, false), NULL, true };
    g->wctx = ggml_init(wp);
    g->ctx  = ggml_init(gp);
    struct ggml_context * w = g->wctx, * c = g->ctx;

    struct ggml_tensor * tok_embd = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_vocab);
    struct ggml_tensor * out_norm = ggml_new_tensor_1d(w, GGML_TYPE_F32, s->n_embd);
    struct ggml_tensor * output   = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_vocab);
    struct ggml_tensor * layers[256][9];
    for (int l = 0; l < s->n_layer; l++) {
        layers[l][0] = ggml_new_tensor_1d(w, GGML_TYPE_F32, s->n_embd);                          // attn_norm
        layers[l][1] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_embd);               // wq
        layers[l][2] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, hd * s->n_head_kv);       // wk
        layers[l][3] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, hd * s->n_head_kv);       // wv
        layers[l][4] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_embd);               // wo
        layers[l][5] = ggml_new_tensor_1d(w, GGML_TYPE_F32, s->n_embd);                          // ffn_norm
        layers[l][6] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_ff);                 // gate
        layers[l][7] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_embd, s->n_ff);                 // up
        layers[l][8] = ggml_new_tensor_2d(w, GGML_TYPE_Q4_0, s->n_ff, s->n_embd);                 // down
    }
    struct ggml_tensor * cache_k[256], * cache_v[256];
    for (int l = 0; l < s->n_layer; l++) {
        cache_k[l] = ggml_new_tensor_1d(w, GGML_TYPE_F16, (int64_t) hd * s->n_head_kv * s->n_kv);
        cache_v[l] = ggml_new_tensor_1d(w, GGML_TYPE_F16, (int64_t) hd * s->n_head_kv * s->n_kv);
    }
    place_weights(g);

    g->gf = ggml_new_graph_custom(c, 16384, false);
    struct ggml_tensor * inp_tokens = ggml_new_tensor_1d(c, GGML_TYPE_I32, s->n_tokens);
    struct ggml_tensor * inp_pos    = ggml_new_tensor_1d(c, GGML_TYPE_I32, s->n_tokens);
    struct ggml_tensor * kq_mask    = ggml_new_tensor_2d(c, GGML_TYPE_F32, s->n_kv, s->n_tokens);
    ggml_set_input(inp_tokens);
    ggml_set_input(inp_pos);
    ggml_set_input(kq_mask);

    struct ggml_tensor * inpL = ggml_get_rows(c, tok_embd, inp_tokens);
    const int kv_head = s->n_kv - s->n_tokens; // the batch goes into the last cells
    for (int l = 0; l < s->n_layer; l++) {
        struct ggml_tensor ** L = layers[l];
        struct ggml_tensor * cur = ggml_mul(c, ggml_rms_norm(c, inpL, 1e-5f), L[0]);
        struct ggml_tensor * q = ggml_rope_ext(c, ggml_reshape_3d(c, ggml_mul_mat(c, L[1], cur), hd, s->n_head, s->n_tokens), inp_pos, NULL,
                                               hd, 0, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
        struct ggml_tensor * k = ggml_rope_ext(c, ggml_reshape_3d(c, ggml_mul_mat(c, L[2], cur), hd, s->n_head_kv, s->n_tokens), inp_pos, NULL,
                                               hd, 0, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
        struct ggml_tensor * v = ggml_mul_mat(c, L[3], cur);
        const size_t row = (size_t) hd * s->n_head_kv * ggml_element_size(cache_k[l]);
        struct ggml_tensor * k_dst = ggml_view_1d(c, cache_k[l], (int64_t) s->n_tokens * hd * s->n_head_kv, row * (size_t) kv_head);
        struct ggml_tensor * v_dst = ggml_view_1d(c, cache_v[l], (int64_t) s->n_tokens * hd * s->n_head_kv, row * (size_t) kv_head);
        ggml_build_forward_expand(g->gf, ggml_cpy(c, k, k_dst));
        ggml_build_forward_expand(g->gf, ggml_cpy(c, v, v_dst));

        struct ggml_tensor * kk = ggml_view_3d(c, cache_k[l], hd, s->n_kv, s->n_head_kv, row, (size_t) hd * ggml_element_size(cache_k[l]), 0);
        struct ggml_tensor * vv = ggml_view_3d(c, cache_v[l], s->n_kv, hd, s->n_head_kv, (size_t) s->n_kv * ggml_element_size(cache_v[l]),
                                               (size_t) s->n_kv * hd * ggml_element_size(cache_v[l]), 0);
        struct ggml_tensor * qp  = ggml_permute(c, q, 0, 2, 1, 3);
        struct ggml_tensor * kq  = ggml_soft_max_ext(c, ggml_mul_mat(c, kk, qp), kq_mask, 1.0f, 0.0f);
        struct ggml_tensor * kqv = ggml_permute(c, ggml_mul_mat(c, vv, kq), 0, 2, 1, 3);
        cur = ggml_mul_mat(c, L[4], ggml_cont_2d(c, kqv, s->n_embd, s->n_tokens));
        struct ggml_tensor * ffn_inp = ggml_add(c, cur, inpL);

        cur = ggml_mul(c, ggml_rms_norm(c, ffn_inp, 1e-5f), L[5]);
        struct ggml_tensor * gate = ggml_mul_mat(c, L[6], cur);
        struct ggml_tensor * up   = ggml_mul_mat(c, L[7], cur);
        cur  = ggml_mul_mat(c, L[8], ggml_mul(c, ggml_silu(c, gate), up));
        inpL = ggml_add(c, cur, ffn_inp);
    }
    struct ggml_tensor * logits = ggml_mul_mat(c, output, ggml_mul(c, ggml_rms_norm(c, inpL, 1e-5f), out_norm));
    ggml_set_output(logits);
    ggml_build_forward_expand(g->gf, logits);
}

static uint64_t rng_state;

static int rng_below(int n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int) ((uint32_t) (rng_state >> 33) % (uint32_t) n);
}

// a random DAG of element-wise ops, broadcasts, pads, concats and views over 1-D tensors;
// reach: how far back a second source may come from (a long reach leaves many free blocks,
// more than upstream's 256 per chunk)
static void build_random(struct bench_graph * g, int n_nodes, uint64_t seed, int reach) {
    rng_state = seed;
    const size_t size = (size_t) n_nodes * 2 + 64;
    struct ggml_init_params ip = { (size_t) n_nodes * 3 * ggml_tensor_overhead() + ggml_graph_overhead_custom(size, false), NULL, true };
    g->ctx  = ggml_init(ip);
    g->wctx = NULL;
    g->wbuf = NULL;
    g->gf   = ggml_new_graph_custom(g->ctx, size, false);
    struct ggml_context * c = g->ctx;
    const int cap = n_nodes * 2 + 64;
    struct ggml_tensor ** pool = malloc(sizeof(*pool) * (size_t) cap);
    int n = 0;
    while (ggml_graph_n_nodes(g->gf) < n_nodes && n + 1 < cap) {
        if (n < 4 || rng_below(reach == 0 ? 32 : 256) == 0) {
            struct ggml_tensor * in = ggml_new_tensor_1d(c, GGML_TYPE_F32, 16 + rng_below(4096));
            ggml_set_input(in);
            pool[n++] = in;
            continue;
        }
        struct ggml_tensor * a = pool[n - 1 - rng_below(n < 16 ? n : 16)];
        struct ggml_tensor * b = pool[reach == 0 && rng_below(8) == 0 ? rng_below(n) : n - 1 - rng_below(n < reach || reach == 0 ? (n < 64 ? n : 64) : reach)];
        struct ggml_tensor * t;
        switch (reach == 0 ? rng_below(6) : (int[]) { 0, 1, 4, 5 }[rng_below(4)]) {
            case 0:  t = ggml_scale(c, a, 0.5f); break;
            case 1:  t = ggml_add(c, a, ggml_mean(c, b)); break;
            case 2:  t = a->ne[0] < 8192 ? ggml_pad(c, a, 1 + rng_below(512), 0, 0, 0) : ggml_scale(c, a, 2.0f); break;
            case 3:  t = a->ne[0] + b->ne[0] < 16384 ? ggml_concat(c, a, b, 0) : ggml_mul(c, a, ggml_mean(c, b)); break;
            case 4:  t = ggml_view_1d(c, a, a->ne[0] / 2 + 1, 0); break;
            default: t = ggml_silu(c, a); break;
        }
        if (rng_below(reach == 0 ? 64 : 4096) == 0) {
            ggml_set_output(t);
        }
        pool[n++] = t;
        ggml_build_forward_expand(g->gf, t);
    }
    free(pool);
}

void bench_graph_free(struct bench_graph * g) {
    if (g->wbuf) {
        ggml_backend_buffer_free(g->wbuf);
    }
    if (g->wctx) {
        ggml_free(g->wctx);
    }
    ggml_free(g->ctx);
}

void bench_graph_reset(struct bench_graph * g) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->ctx); t; t = ggml_get_next_tensor(g->ctx, t)) {
        t->data   = NULL;
        t->buffer = NULL;
    }
}


int64_t bench_nomem_offset(const struct ggml_tensor * t) {
    return (int64_t) ((uint8_t *) t->data - fake_base);
}

void bench_graph_build(struct bench_graph * g, const struct bench_case * c) {
    if (c->n_layer > 0) {
        build_llama(g, c);
    } else {
        build_random(g, c->n_nodes, c->seed, c->reach);
    }
    if (!g->ctx || !g->gf) {
        fprintf(stderr, "%s: out of memory building the graph\n", c->name);
        exit(1);
    }
}
