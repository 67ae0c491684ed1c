// bench-graphs.h: the graphs of bench-ggml-api and bench-planner-path, built with ggml's public API.
//
// llama-style decoder steps (prompt and one-token decode, 7B and 70B shapes) and random DAGs
// (10k to 1M nodes), over a buffer type that allocates no memory (every buffer starts at one
// fake address), as ggml's own test-alloc.cpp makes one. Uses only ggml.h, ggml-alloc.h,
// ggml-backend.h and ggml-backend-impl.h, so it compiles unchanged against upstream ggml.

#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>

//
// the graphs
//

struct bench_graph {
    struct ggml_context * ctx;  // graph tensors (no_alloc)
    struct ggml_context * wctx; // weights and KV cache (no_alloc, placed in wbuf); NULL for random graphs
    ggml_backend_buffer_t wbuf;
    struct ggml_cgraph  * gf;
};

// one graph of the benchmarks: a llama shape, or a random DAG of n_nodes (reach: how far back a
// second source may come from; 0: anywhere, which leaves many free blocks, past upstream's 256)
struct bench_case {
    const char * name;
    int          runs; // default measured plans (wall time)
    int          n_layer, n_embd, n_head, n_head_kv, n_ff, n_vocab, n_tokens, n_kv; // llama (n_layer > 0)
    int          n_nodes;                                                         // random
    uint64_t     seed;
    int          reach;
};

extern const struct bench_case bench_cases[];
extern const int               bench_n_cases;

// the buffer type without memory (alignment 32, no maximum size)
ggml_backend_buffer_type_t bench_nomem_buffer_type(void);
// offset of a tensor placed in a nomem buffer
int64_t bench_nomem_offset(const struct ggml_tensor * t);

// build c's graph into g (weights placed in a nomem buffer); aborts when out of memory
void bench_graph_build(struct bench_graph * g, const struct bench_case * c);
// forget the placements of the last plan, as a newly built graph has none (weights keep theirs)
void bench_graph_reset(struct bench_graph * g);
void bench_graph_free(struct bench_graph * g);
