// capture-demo.c: a small ggml program for the capture library's end-to-end test.
//
// Linked against the project's ggml built as a shared library and run with
// libgalloc-capture.so preloaded (tests/capture/check-capture.sh), it uses the
// graph allocator the ways real programs do:
//   A  one buffer type (ggml_gallocr_new): reserve + alloc_graph; alloc_graph of a
//      larger graph, which alloc_graph re-reserves by itself; the first graph built
//      again and reserved again (the same document: written once)
//   B  three buffer types, "gpu" listed twice (one shared allocator), max 4 KiB per
//      chunk: reserve_n + alloc_graph; a larger graph: alloc_graph refuses it, then
//      reserve_n + alloc_graph, as ggml's scheduler does
//   C  two buffer types: reserve_n_size only (a memory estimate, nothing allocated)
//   D  "gpu" alone: a node flagged as an input is placed before the nodes listed
//      before it, so the chunks are not met in chunk order in the document
//   E  one buffer type: reserve a graph, then alloc_graph a smaller graph of the same
//      shape, which fits and is placed by the reserve's plan (as llama.cpp's batches are);
//      then reserve_n_size of the first and alloc_graph of the smaller one again: no re-reserve
// Graphs have inputs, in-place ops, views, outputs and a weight allocated before the
// graph allocator runs. The program checks only that ggml's calls succeed; the
// script checks what the capture library wrote.

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml.h"

#include <stdio.h>
#include <stdlib.h>

// a buffer type with its own name, alignment and max size, backed by malloc
struct demo_type {
    struct ggml_backend_buffer_type buft;
    const char *                    name;
    size_t                          alignment;
    size_t                          max_size;
};

static const char * demo_name(ggml_backend_buffer_type_t buft) {
    return ((struct demo_type *) buft->context)->name;
}

static size_t demo_alignment(ggml_backend_buffer_type_t buft) {
    return ((struct demo_type *) buft->context)->alignment;
}

static size_t demo_max_size(ggml_backend_buffer_type_t buft) {
    return ((struct demo_type *) buft->context)->max_size;
}

static void demo_free(ggml_backend_buffer_t buffer) {
    free(buffer->context);
}

static void * demo_base(ggml_backend_buffer_t buffer) {
    size_t align = ggml_backend_buft_get_alignment(buffer->buft);
    return (void *) (((uintptr_t) buffer->context + align - 1) / align * align);
}

static ggml_backend_buffer_t demo_alloc(ggml_backend_buffer_type_t buft, size_t size) {
    void * memory = malloc(size + demo_alignment(buft));
    if (memory == NULL) {
        return NULL;
    }
    struct ggml_backend_buffer_i iface = { .free_buffer = demo_free, .get_base = demo_base };
    return ggml_backend_buffer_init(buft, iface, memory, size);
}

static void demo_type_init(struct demo_type * t, const char * name, size_t alignment, size_t max_size) {
    *t = (struct demo_type) { .name = name, .alignment = alignment, .max_size = max_size };
    t->buft.iface.get_name      = demo_name;
    t->buft.iface.alloc_buffer  = demo_alloc;
    t->buft.iface.get_alignment = demo_alignment;
    t->buft.iface.get_max_size  = demo_max_size;
    t->buft.context             = t;
}

static struct ggml_context * new_context(void) {
    struct ggml_init_params params = { .mem_size = 4 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context *   ctx    = ggml_init(params);
    if (ctx == NULL) {
        fprintf(stderr, "capture-demo: ggml_init failed\n");
        exit(1);
    }
    return ctx;
}

// x (input), then `steps` ops over as many floats as the weight w has (allocated before):
// scale (in place), mul by w, add of x, a view of half scaled; the last one an output
static struct ggml_cgraph * chain(struct ggml_context * ctx, struct ggml_tensor * w, int steps) {
    int64_t              n = w->ne[0];
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    ggml_set_name(x, "x");
    ggml_set_input(x);
    struct ggml_tensor * cur = x;
    for (int i = 0; i < steps; i++) {
        switch (i % 4) {
            case 0: cur = ggml_scale(ctx, cur, 0.5f); break;
            case 1: cur = ggml_mul(ctx, cur, w); break;
            case 2: cur = ggml_add(ctx, cur, x); break;
            default: {
                struct ggml_tensor * half = ggml_view_1d(ctx, cur, n / 2, (size_t) (n / 2) * sizeof(float));
                cur = ggml_add(ctx, cur, ggml_concat(ctx, ggml_scale(ctx, half, 2.0f), half, 0));
                break;
            }
        }
        ggml_format_name(cur, "step-%d", i);
    }
    ggml_set_output(cur);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, cur);
    return gf;
}

static void check(bool ok, const char * what) {
    if (!ok) {
        fprintf(stderr, "capture-demo: %s failed\n", what);
        exit(1);
    }
}

static int * cycle_ids(int n, int n_types) {
    int * ids = malloc((size_t) (n > 0 ? n : 1) * sizeof(int));
    check(ids != NULL, "malloc");
    for (int i = 0; i < n; i++) {
        ids[i] = i % n_types;
    }
    return ids;
}

int main(void) {
    struct demo_type gpu, pinned;
    demo_type_init(&gpu, "gpu", 64, 4096);
    demo_type_init(&pinned, "pinned", 32, SIZE_MAX);
    ggml_backend_buffer_type_t cpu = ggml_backend_cpu_buffer_type();

    struct ggml_context * weights_ctx = new_context();
    struct ggml_tensor  * w256        = ggml_new_tensor_1d(weights_ctx, GGML_TYPE_F32, 256);
    struct ggml_tensor  * w512        = ggml_new_tensor_1d(weights_ctx, GGML_TYPE_F32, 512);
    struct ggml_tensor  * w1024       = ggml_new_tensor_1d(weights_ctx, GGML_TYPE_F32, 1024);
    struct ggml_tensor  * w128        = ggml_new_tensor_1d(weights_ctx, GGML_TYPE_F32, 128);
    ggml_backend_buffer_t weights     = ggml_backend_alloc_ctx_tensors_from_buft(weights_ctx, cpu);
    check(weights != NULL, "weights");

    // A: one buffer type
    ggml_gallocr_t a = ggml_gallocr_new(cpu);
    struct ggml_context * ctx1 = new_context();
    struct ggml_cgraph  * g1   = chain(ctx1, w256, 8);
    struct ggml_context * ctx2 = new_context();
    struct ggml_cgraph  * g2   = chain(ctx2, w256, 13);
    check(ggml_gallocr_reserve(a, g1), "A reserve g1");
    check(ggml_gallocr_alloc_graph(a, g1), "A alloc g1");
    check(ggml_gallocr_alloc_graph(a, g2), "A alloc g2 (re-reserves)");
    check(ggml_gallocr_alloc_graph(a, g2), "A alloc g2 again (fits)");
    struct ggml_context * ctx1b = new_context();
    struct ggml_cgraph  * g1b   = chain(ctx1b, w256, 8);
    check(ggml_gallocr_reserve(a, g1b), "A reserve g1 rebuilt");
    check(ggml_gallocr_alloc_graph(a, g1b), "A alloc g1 rebuilt");

    // B: gpu, pinned, gpu again (shares the first's allocator), chunks of at most 4 KiB
    ggml_backend_buffer_type_t b_types[3] = { &gpu.buft, &pinned.buft, &gpu.buft };
    ggml_gallocr_t b = ggml_gallocr_new_n(b_types, 3);
    struct ggml_context * ctx3 = new_context();
    struct ggml_cgraph  * g3   = chain(ctx3, w512, 9);
    int * node_ids3 = cycle_ids(ggml_graph_n_nodes(g3), 3);
    int * leaf_ids3 = cycle_ids(g3->n_leafs, 2);
    check(ggml_gallocr_reserve_n(b, g3, node_ids3, leaf_ids3), "B reserve_n g3");
    check(ggml_gallocr_alloc_graph(b, g3), "B alloc g3");
    struct ggml_context * ctx4 = new_context();
    struct ggml_cgraph  * g4   = chain(ctx4, w512, 15);
    check(!ggml_gallocr_alloc_graph(b, g4), "B alloc g4 refused (several buffer types)");
    int * node_ids4 = cycle_ids(ggml_graph_n_nodes(g4), 3);
    int * leaf_ids4 = cycle_ids(g4->n_leafs, 2);
    check(ggml_gallocr_reserve_n(b, g4, node_ids4, leaf_ids4), "B reserve_n g4");
    check(ggml_gallocr_alloc_graph(b, g4), "B alloc g4");

    // C: a size estimate only
    ggml_backend_buffer_type_t c_types[2] = { cpu, &pinned.buft };
    ggml_gallocr_t c = ggml_gallocr_new_n(c_types, 2);
    struct ggml_context * ctx5 = new_context();
    struct ggml_cgraph  * g5   = chain(ctx5, w1024, 6);
    int * node_ids5 = cycle_ids(ggml_graph_n_nodes(g5), 2);
    size_t sizes[2] = { 0, 0 };
    ggml_gallocr_reserve_n_size(c, g5, node_ids5, NULL, sizes);
    check(sizes[0] > 0 && sizes[1] > 0, "C reserve_n_size");

    // D: chunks out of document order: a in chunk 0, n2 (an input, placed first) in 1, n1 in 2
    ggml_gallocr_t d = ggml_gallocr_new(&gpu.buft);
    struct ggml_context * ctx6 = new_context();
    struct ggml_tensor  * in   = ggml_new_tensor_1d(ctx6, GGML_TYPE_F32, 768);
    ggml_set_input(in);
    struct ggml_tensor * n1 = ggml_add(ctx6, in, in);
    struct ggml_tensor * n2 = ggml_mul(ctx6, n1, in);
    ggml_set_input(n2);
    ggml_set_output(n2);
    struct ggml_cgraph * g6 = ggml_new_graph(ctx6);
    ggml_build_forward_expand(g6, n2);
    check(ggml_gallocr_reserve(d, g6), "D reserve g6");
    check(ggml_gallocr_alloc_graph(d, g6), "D alloc g6");
    check(ggml_backend_buffer_get_base(in->buffer) != ggml_backend_buffer_get_base(n2->buffer), "D: several chunks");

    // E: the reserved graph's placement, read from the smaller graph placed by its plan
    ggml_gallocr_t e = ggml_gallocr_new(cpu);
    struct ggml_context * ctx7 = new_context();
    struct ggml_cgraph  * g7   = chain(ctx7, w256, 7);
    check(ggml_gallocr_reserve(e, g7), "E reserve g7");
    struct ggml_context * ctx8 = new_context();
    struct ggml_cgraph  * g8   = chain(ctx8, w128, 7);
    check(ggml_gallocr_alloc_graph(e, g8), "E alloc g8 (fits)");
    // a no_alloc reserve of g7 again (written before: not again) keeps the buffer it fits in and
    // records its assignment; g8 fits it, so alloc_graph does not re-reserve (as upstream)
    size_t e_size = 0;
    ggml_gallocr_reserve_n_size(e, g7, NULL, NULL, &e_size);
    check(ggml_gallocr_alloc_graph(e, g8), "E alloc g8 after reserve_n_size (fits)");

    ggml_gallocr_free(a);
    ggml_gallocr_free(d);
    ggml_gallocr_free(e);
    ggml_gallocr_free(b);
    ggml_gallocr_free(c);
    ggml_backend_buffer_free(weights);
    free(node_ids3);
    free(leaf_ids3);
    free(node_ids4);
    free(leaf_ids4);
    free(node_ids5);
    struct ggml_context * contexts[] = { weights_ctx, ctx1, ctx2, ctx1b, ctx3, ctx4, ctx5, ctx6, ctx7, ctx8 };
    for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
        ggml_free(contexts[i]);
    }
    return 0;
}
