// test-sched.c: the scheduler (ggml_backend_sched) on hand-made graphs, the answers derived by hand.
//
// Each case builds a small graph with weights in virtual buffers of virtual devices
// (galloc-device.h), splits it, and checks the splits, the copies (named as upstream names
// them, BACKEND#tensor#c), the graph handed to the allocator (order, and the backend id of
// every node and leaf). The derivations follow ggml_backend_sched_split_graph's passes.

#include "check.h"
#include "galloc-device.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <stdlib.h>
#include <string.h>

#define RPC0 "RPC0[127.0.0.1:50052]"

struct rig {
    ggml_backend_dev_t         dev;
    ggml_backend_t             backends[2];
    ggml_backend_buffer_type_t bufts[2];
    struct ggml_context *      ctx;
    ggml_backend_buffer_t      wbuf[2]; // weights of the device, weights on the host
    size_t                     woff[2];
};

static void rig_init(struct rig * r, const char * kind) {
    memset(r, 0, sizeof(*r));
    r->dev         = galloc_device_new(kind, 0, NULL);
    ggml_backend_dev_t cpu = galloc_device_new("cpu", 0, NULL);
    r->backends[0] = ggml_backend_dev_init(r->dev, NULL);
    r->backends[1] = ggml_backend_dev_init(cpu, NULL);
    ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(r->dev);
    r->bufts[0]    = ggml_backend_dev_buffer_type(r->dev);
    r->bufts[1]    = host ? host : ggml_backend_dev_buffer_type(cpu);
    struct ggml_init_params params = { 64 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    r->ctx = ggml_init(params);
    for (int i = 0; i < 2; i++) {
        r->wbuf[i] = ggml_backend_buft_alloc_buffer(r->bufts[i], 1 << 20);
        ggml_backend_buffer_set_usage(r->wbuf[i], GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    }
}

// a weight f32[n, n] in the device's (where = 0) or the host's (1) weight buffer
static struct ggml_tensor * weight(struct rig * r, int where, const char * name, int64_t n) {
    struct ggml_tensor * w = ggml_new_tensor_2d(r->ctx, GGML_TYPE_F32, n, n);
    ggml_set_name(w, name);
    CHECK(ggml_backend_tensor_alloc(r->wbuf[where], w, (char *) ggml_backend_buffer_get_base(r->wbuf[where]) + r->woff[where]) ==
          GGML_STATUS_SUCCESS);
    r->woff[where] += 1024;
    return w;
}

static struct ggml_tensor * input(struct rig * r, const char * name, int64_t ne0, int64_t ne1) {
    struct ggml_tensor * x = ggml_new_tensor_2d(r->ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_set_name(x, name);
    ggml_set_input(x);
    return x;
}

static void rig_free(struct rig * r) {
    ggml_backend_buffer_free(r->wbuf[0]);
    ggml_backend_buffer_free(r->wbuf[1]);
    ggml_free(r->ctx);
    ggml_backend_free(r->backends[0]);
    ggml_backend_free(r->backends[1]);
    galloc_device_free(r->dev);
}

// "name@id name@id ..." of the allocator's graph: its nodes, then " | ", then its leafs
static void describe(ggml_backend_sched_t sched, char * out, size_t cap) {
    struct ggml_cgraph * g = ggml_backend_sched_get_graph_copy(sched);
    const int * nid = ggml_backend_sched_get_node_backend_ids(sched);
    const int * lid = ggml_backend_sched_get_leaf_backend_ids(sched);
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
        n += (size_t) snprintf(out + n, cap - n, "%s%s@%d", i ? " " : "", ggml_graph_node(g, i)->name, nid[i]);
    }
    n += (size_t) snprintf(out + n, cap - n, " |");
    for (int i = 0; i < g->n_leafs; i++) {
        n += (size_t) snprintf(out + n, cap - n, " %s@%d", g->leafs[i]->name, lid[i]);
    }
}

static void check_describe(ggml_backend_sched_t sched, const char * expected) {
    char got[4096];
    describe(sched, got, sizeof(got));
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "graph copy:\n  got      %s\n  expected %s\n", got, expected);
        CHECK(!"graph copy as derived");
    }
}

// Two devices in a chain: RPC0 (0) then the CPU (1).
//   x (input), w0 (RPC0 weights), w1 (CPU weights)
//   a = mul_mat(w0, x); b = add(a, a); c = mul_mat(w1, b)
// Pass 1: leafs: w0 -> 0 (its buffer), x -> 1 (input: the last backend), w1 -> 1 (host memory,
// which the CPU reads); nodes: a -> 0 (weight w0), c -> 1 (weight w1; RPC has no offload_op),
// b: none. Pass 2 (GPU down): after a (0), b -> 0; c (CPU) stops it. Pass 5: split 0 on RPC0
// from a: x is on the CPU, whose buffer RPC cannot read: copy RPC0[127.0.0.1:50052]#x#0; split
// 1 on the CPU from c: b is in RPC memory: copy CPU#b#0.
// The allocator's graph: per split its inputs' views (on the input's backend) and copies (on
// the split's), then the split's nodes:
//   x (view)@1 RPC0#x#0@0 a@0 b@0 | b (view)@0 CPU#b#0@1 c@1; leafs in the graph's order (the
// walk from c visits w1, then b's sources: w0, x).
static void test_two_device_chain(void) {
    struct rig r;
    rig_init(&r, "rpc");
    struct ggml_tensor * x  = input(&r, "x", 4, 8);
    struct ggml_tensor * w0 = weight(&r, 0, "w0", 4);
    struct ggml_tensor * w1 = weight(&r, 1, "w1", 4);
    struct ggml_tensor * a  = ggml_set_name(ggml_mul_mat(r.ctx, w0, x), "a");
    struct ggml_tensor * b  = ggml_set_name(ggml_add(r.ctx, a, a), "b");
    struct ggml_tensor * c  = ggml_set_name(ggml_mul_mat(r.ctx, w1, b), "c");
    ggml_set_output(c);
    struct ggml_cgraph * gf = ggml_new_graph(r.ctx);
    ggml_build_forward_expand(gf, c);

    ggml_backend_sched_t sched = ggml_backend_sched_new(r.backends, r.bufts, 2, 64, false, true);
    CHECK(sched != NULL);
    size_t sizes[2] = { 0, 0 };
    ggml_backend_sched_reserve_size(sched, gf, sizes);
    CHECK_EQ_U64(ggml_backend_sched_get_n_splits(sched), 2);
    CHECK_EQ_U64(ggml_backend_sched_get_split_backend(sched, 0), 0);
    CHECK_EQ_U64(ggml_backend_sched_get_split_backend(sched, 1), 1);
    CHECK(ggml_backend_sched_get_split_n_inputs(sched, 0) == 1 && ggml_backend_sched_get_split_input(sched, 0, 0) == x);
    CHECK(ggml_backend_sched_get_split_n_inputs(sched, 1) == 1 && ggml_backend_sched_get_split_input(sched, 1, 0) == b);
    check_describe(sched, "x (view)@1 " RPC0 "#x#0@0 a@0 b@0 b (view)@0 CPU#b#0@1 c@1 | w1@1 w0@0 x@1");
    // RPC0: its copy of x (128 bytes) and a (128) live together; b takes a's place (ADD in
    // place). The CPU: x (128) at 0, freed once its view, its one reader, is passed; CPU#b#0
    // then takes offset 0 and c (128) comes after it: 256.
    CHECK_EQ_U64(sizes[0], 256);
    CHECK_EQ_U64(sizes[1], 256);
    CHECK(c->src[1] != b && strcmp(c->src[1]->name, "CPU#b#0") == 0); // the node reads the copy
    ggml_backend_sched_free(sched);
    rig_free(&r);
}

// An op offloaded by batch size: Vulkan0 (llvmpipe) then the CPU, whose buffer type is
// Vulkan_Host. w (host weights, f32[4, 4]); y = mul_mat(w, x).
// With x of 32 tokens: pass 1 gives y the weight's backend, the CPU (last, weights in host
// memory), but op_offload asks Vulkan0 first: MUL_MAT's batch is ne[1] = 32 >= 32, so y -> 0.
// Pass 5: one split on Vulkan0 with two inputs, w (Vulkan cannot read Vulkan_Host) and x:
//   w (view)@1 Vulkan0#w#0@0 x (view)@1 Vulkan0#x#0@0 y@0
// With 31 tokens, or op_offload off, y stays on the CPU: one split, no copies.
static void test_offload_by_batch(void) {
    for (int n_tokens = 31; n_tokens <= 32; n_tokens++) {
        for (int offload = 0; offload <= 1; offload++) {
            struct rig r;
            rig_init(&r, "llvmpipe");
            CHECK(strcmp(ggml_backend_buft_name(r.bufts[1]), "Vulkan_Host") == 0);
            struct ggml_tensor * w = weight(&r, 1, "w", 4);
            struct ggml_tensor * x = input(&r, "x", 4, n_tokens);
            struct ggml_tensor * y = ggml_set_name(ggml_mul_mat(r.ctx, w, x), "y");
            ggml_set_output(y);
            struct ggml_cgraph * gf = ggml_new_graph(r.ctx);
            ggml_build_forward_expand(gf, y);
            ggml_backend_sched_t sched = ggml_backend_sched_new(r.backends, r.bufts, 2, 64, false, offload);
            CHECK(ggml_backend_sched_reserve(sched, gf));
            CHECK_EQ_U64(ggml_backend_sched_get_n_splits(sched), 1);
            if (n_tokens == 32 && offload) {
                check_describe(sched, "w (view)@1 Vulkan0#w#0@0 x (view)@1 Vulkan0#x#0@0 y@0 | w@1 x@1");
                // Vulkan0: the copies of w (64) and x (512) and y (512), 16-aligned, all live
                CHECK_EQ_U64(ggml_backend_sched_get_buffer_size(sched, r.backends[0]), 64 + 512 + 512);
                // Vulkan_Host: x (512), in a buffer 32 bytes larger than asked (ggml-vulkan's)
                CHECK_EQ_U64(ggml_backend_sched_get_buffer_size(sched, r.backends[1]), 512 + 32);
            } else {
                check_describe(sched, "y@1 | w@1 x@1");
            }
            ggml_backend_sched_free(sched);
            rig_free(&r);
        }
    }
}

// A copy of an input used by two splits: RPC0 (0), the CPU (1).
//   x (input); a = mul_mat(w0, x) [RPC0 weights]; c = mul_mat(w1, a) [CPU weights];
//   e = mul_mat(w2, c) [RPC0 weights]; f = add(e, x)
// Pass 1: a -> 0, c -> 1, e -> 0, f none; pass 2 (GPU down) f -> 0 after e. Splits: 0 (RPC0:
// a), 1 (CPU: c), 2 (RPC0: e, f). Split 0 copies x (RPC0#x#0); split 1 copies a (CPU#a#0);
// split 2 copies c (RPC0#c#0), and f's x is already copied to RPC0: f reads RPC0#x#0, made in
// split 0, which is not an input of split 2 (so the allocator keeps it alive from split 0 on).
static void test_input_copy_two_splits(void) {
    struct rig r;
    rig_init(&r, "rpc");
    struct ggml_tensor * x  = input(&r, "x", 4, 8);
    struct ggml_tensor * w0 = weight(&r, 0, "w0", 4);
    struct ggml_tensor * w1 = weight(&r, 1, "w1", 4);
    struct ggml_tensor * w2 = weight(&r, 0, "w2", 4);
    struct ggml_tensor * a  = ggml_set_name(ggml_mul_mat(r.ctx, w0, x), "a");
    struct ggml_tensor * c  = ggml_set_name(ggml_mul_mat(r.ctx, w1, a), "c");
    struct ggml_tensor * e  = ggml_set_name(ggml_mul_mat(r.ctx, w2, c), "e");
    struct ggml_tensor * f  = ggml_set_name(ggml_add(r.ctx, e, x), "f");
    ggml_set_output(f);
    struct ggml_cgraph * gf = ggml_new_graph(r.ctx);
    ggml_build_forward_expand(gf, f);

    ggml_backend_sched_t sched = ggml_backend_sched_new(r.backends, r.bufts, 2, 64, false, true);
    size_t sizes[2];
    ggml_backend_sched_reserve_size(sched, gf, sizes);
    CHECK_EQ_U64(ggml_backend_sched_get_n_splits(sched), 3);
    CHECK(ggml_backend_sched_get_split_n_inputs(sched, 2) == 1 && ggml_backend_sched_get_split_input(sched, 2, 0) == c);
    check_describe(sched, "x (view)@1 " RPC0 "#x#0@0 a@0 a (view)@0 CPU#a#0@1 c@1 c (view)@1 " RPC0 "#c#0@0 e@0 f@0"
                          " | w2@0 w1@1 w0@0 x@1");
    CHECK(f->src[1] == a->src[1]); // both read the one copy of x
    // RPC0: RPC0#x#0 (128) lives from split 0 to f; a (128) until its view; RPC0#c#0 (128) at
    // 256 (a's bytes are free again once its view was taken: the view is the last reader);
    // e (128) ... f in place of e. Peak: x copy + a = 256, then x copy + c copy + e = 384.
    CHECK_EQ_U64(sizes[0], 384);
    ggml_backend_sched_free(sched);
    rig_free(&r);
}

// set_tensor_backend pins a node (as llama.cpp pins norm-N): a pinned ADD stays on the CPU
// although pass 2 would give it RPC0. reserve keeps the pin; reserve_size starts with
// ggml_backend_sched_reset, which forgets it (as upstream: llama.cpp's no_alloc reserve, the
// path of llama-fit-params and of the captures, runs without its pins).
static void test_pinned(void) {
    for (int sized = 0; sized <= 1; sized++) {
        struct rig r;
        rig_init(&r, "rpc");
        struct ggml_tensor * x  = input(&r, "x", 4, 8);
        struct ggml_tensor * w0 = weight(&r, 0, "w0", 4);
        struct ggml_tensor * a  = ggml_set_name(ggml_mul_mat(r.ctx, w0, x), "a");
        struct ggml_tensor * b  = ggml_set_name(ggml_add(r.ctx, a, a), "b");
        ggml_set_output(b);
        struct ggml_cgraph * gf = ggml_new_graph(r.ctx);
        ggml_build_forward_expand(gf, b);
        ggml_backend_sched_t sched = ggml_backend_sched_new(r.backends, r.bufts, 2, 64, false, true);
        ggml_backend_sched_set_tensor_backend(sched, b, r.backends[1]);
        if (sized) {
            size_t sizes[2];
            ggml_backend_sched_reserve_size(sched, gf, sizes);
            check_describe(sched, "x (view)@1 " RPC0 "#x#0@0 a@0 b@0 | w0@0 x@1");
            CHECK(ggml_backend_sched_get_tensor_backend(sched, b) == r.backends[0]); // kept until the next reset
        } else {
            CHECK(ggml_backend_sched_reserve(sched, gf));
            check_describe(sched, "x (view)@1 " RPC0 "#x#0@0 a@0 a (view)@0 CPU#a#0@1 b@1 | w0@0 x@1");
            CHECK(ggml_backend_sched_get_tensor_backend(sched, b) == NULL); // reserve resets after
        }
        ggml_backend_sched_free(sched);
        rig_free(&r);
    }
}

// the profiles' names and rules, as the backends name them
static void test_profiles(void) {
    ggml_backend_dev_t d = galloc_device_new("rpc", 1, NULL);
    CHECK(strcmp(ggml_backend_dev_name(d), "RPC1") == 0);
    CHECK(strcmp(ggml_backend_buft_name(ggml_backend_dev_buffer_type(d)), "RPC0[127.0.0.1:50053]") == 0);
    CHECK(ggml_backend_dev_host_buffer_type(d) == NULL && ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_GPU);
    ggml_backend_t b = ggml_backend_dev_init(d, NULL);
    CHECK(strcmp(ggml_backend_name(b), "RPC0[127.0.0.1:50053]") == 0);
    ggml_backend_free(b);
    galloc_device_free(d);

    ggml_backend_dev_t c0 = galloc_device_new("cuda", 0, NULL), c1 = galloc_device_new("cuda", 1, NULL);
    CHECK(strcmp(ggml_backend_dev_name(c1), "CUDA1") == 0);
    CHECK(ggml_backend_dev_host_buffer_type(c0) == ggml_backend_dev_host_buffer_type(c1));
    CHECK(strcmp(ggml_backend_buft_name(ggml_backend_dev_host_buffer_type(c0)), "CUDA_Host") == 0);
    CHECK_EQ_U64(ggml_backend_buft_get_alignment(ggml_backend_dev_buffer_type(c0)), 128);
    CHECK(!ggml_backend_dev_supports_buft(c0, ggml_backend_dev_buffer_type(c1)));
    galloc_device_free(c0);
    galloc_device_free(c1);

    CHECK(galloc_device_new("tpu", 0, NULL) == NULL);
    CHECK(galloc_device_new("cuda", 16, NULL) == NULL);
    CHECK(galloc_device_new("cuda", -1, NULL) == NULL);
}

int main(void) {
    RUN(test_two_device_chain);
    RUN(test_offload_by_batch);
    RUN(test_input_copy_two_splits);
    RUN(test_pinned);
    RUN(test_profiles);
    return check_report("test-sched");
}
