// test-gallocr-realloc.c: ggml_gallocr_alloc_graph's "re-reserve or not", compared with upstream ggml.
//
// Sequences of reserve / reserve_n_size / alloc_graph (changed shapes, grown
// nodes, grown sources, an unconsumed leaf grown, tensors allocated outside or
// no longer, one and two buffer types, an empty graph) run on a recording
// buffer type; after every call the program writes one line of facts: the
// result, the buffers allocated and freed during the call, every buffer's size,
// and where each tensor lies (buffer serial + offset). Whether a call re-planned
// shows in those facts (each sequence is built so it does).
//
// It uses only ggml's public API (and ggml-backend-impl.h for the buffer type),
// so the very same file also builds against upstream: linked against llama.cpp
// 3f545bec's libggml-base.so (ggml 0.21.0) and run with --print, it wrote
// tests/fixtures/gallocr-realloc-upstream.txt. Run normally it compares its own
// lines with that file: every line is a case. Then it checks what the project
// does where upstream would crash (placing into a buffer a no_alloc reserve or a
// failed reserve left unallocated): alloc_graph returns false, as it does not
// re-reserve either.

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- a buffer type that records its buffers --------------------------------------------------

struct rec_buffer {
    int serial; // 1, 2, ... in allocation order within a sequence
};

struct rec_type {
    struct ggml_backend_buffer_type buft;
    const char *                    name;
    size_t                          alignment;
    size_t                          pad_to; // > 0: alloc size rounded up to a multiple of it
    int                             fail_next; // > 0: the next allocations fail
};

static int rec_serial; // buffers allocated in the current sequence
static int rec_frees;  // buffers freed in the current sequence

static const char * rec_name(ggml_backend_buffer_type_t buft) {
    return ((struct rec_type *) buft->context)->name;
}

static size_t rec_alignment(ggml_backend_buffer_type_t buft) {
    return ((struct rec_type *) buft->context)->alignment;
}

static size_t rec_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * t) {
    size_t pad = ((struct rec_type *) buft->context)->pad_to;
    size_t n   = ggml_nbytes(t);
    return pad ? (n + pad - 1) / pad * pad : n;
}

static void rec_free(ggml_backend_buffer_t buffer) {
    rec_frees++;
    free(buffer->context);
}

// a fake address per buffer: nothing reads or writes tensor memory
static void * rec_base(ggml_backend_buffer_t buffer) {
    return (void *) ((uintptr_t) ((struct rec_buffer *) buffer->context)->serial << 24);
}

static ggml_backend_buffer_t rec_alloc(ggml_backend_buffer_type_t buft, size_t size) {
    struct rec_type * type = buft->context;
    if (type->fail_next > 0) {
        type->fail_next--;
        return NULL;
    }
    struct rec_buffer * b = malloc(sizeof(*b));
    if (b == NULL) {
        return NULL;
    }
    b->serial = ++rec_serial;
    struct ggml_backend_buffer_i iface = { .free_buffer = rec_free, .get_base = rec_base };
    return ggml_backend_buffer_init(buft, iface, b, size);
}

static void rec_type_init(struct rec_type * t, const char * name, size_t alignment, size_t pad_to) {
    memset(t, 0, sizeof(*t));
    t->name                     = name;
    t->alignment                = alignment;
    t->pad_to                   = pad_to;
    t->buft.iface.get_name      = rec_name;
    t->buft.iface.alloc_buffer  = rec_alloc;
    t->buft.iface.get_alignment = rec_alignment;
    t->buft.iface.get_alloc_size = pad_to ? rec_alloc_size : NULL;
    t->buft.context             = t;
}

// ---- graphs -----------------------------------------------------------------------------------

#define MAX_CONTEXTS 16

static struct ggml_context * contexts[MAX_CONTEXTS]; // of the current sequence, freed at its end
static int                   n_contexts;

static struct ggml_context * ctx_new(void) {
    struct ggml_init_params params = { 64 * ggml_tensor_overhead() + 2 * ggml_graph_overhead(), NULL, true };
    struct ggml_context *   ctx    = ggml_init(params);
    if (ctx == NULL || n_contexts == MAX_CONTEXTS) {
        fprintf(stderr, "test-gallocr-realloc: ggml_init failed\n");
        exit(1);
    }
    contexts[n_contexts++] = ctx;
    return ctx;
}

// name the tensors of ctx t0, t1, ... in creation order, but for the one-letter names given
// (the names ggml gives nodes and views are no part of the comparison)
static void name_all(struct ggml_context * ctx) {
    int i = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t), i++) {
        if (t->name[0] == '\0' || t->name[1] != '\0') {
            ggml_format_name(t, "t%d", i);
        }
    }
}

static struct ggml_tensor * input(struct ggml_context * ctx, const char * name, int64_t n) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    ggml_set_name(t, name);
    ggml_set_input(t);
    return t;
}

// x (input, n floats) -> s = scale(x) -> a = add(s, x) -> m = mul(a, s) -> steps more scales;
// the last one an output. With leaf_n > 0 a leaf L of leaf_n floats that no node consumes
// comes first (expanded on its own, as a program may do to keep a tensor allocated).
static struct ggml_cgraph * chain_graph(struct ggml_context * ctx, int64_t n, int64_t leaf_n, int steps) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    if (leaf_n > 0) {
        struct ggml_tensor * leaf = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, leaf_n);
        ggml_set_name(leaf, "L");
        ggml_build_forward_expand(gf, leaf);
    }
    struct ggml_tensor * x = input(ctx, "x", n);
    struct ggml_tensor * s = ggml_scale(ctx, x, 0.5f);
    struct ggml_tensor * a = ggml_add(ctx, s, x);
    struct ggml_tensor * m = ggml_mul(ctx, a, s);
    for (int i = 0; i < steps; i++) {
        m = ggml_scale(ctx, m, 2.0f);
    }
    ggml_set_output(m);
    ggml_build_forward_expand(gf, m);
    name_all(ctx);
    return gf;
}

static struct ggml_cgraph * chain(int64_t n) {
    return chain_graph(ctx_new(), n, 0, 0);
}

// ---- facts --------------------------------------------------------------------------------------

static FILE * facts_out;           // --print: facts go here
static char   facts[256][1024];    // otherwise collected here
static int    n_facts;
static int    seq_serial0, seq_frees0; // counters at the start of the call

static const char * where(const struct ggml_tensor * t, char * buf, size_t len) {
    if (t->data == NULL) {
        snprintf(buf, len, "-");
    } else if (t->buffer == NULL || t->buffer->context == NULL || t->buffer->iface.get_base != rec_base) {
        snprintf(buf, len, "?");
    } else {
        uintptr_t base = (uintptr_t) ggml_backend_buffer_get_base(t->buffer);
        snprintf(buf, len, "b%d+%zu", ((struct rec_buffer *) t->buffer->context)->serial, (size_t) ((uintptr_t) t->data - base));
    }
    return buf;
}

static void call_begin(void) {
    seq_serial0 = rec_serial;
    seq_frees0  = rec_frees;
}

// one line: label, result, buffers allocated/freed by the call, sizes, every tensor of ctx
static void call_end(const char * label, int result, ggml_gallocr_t galloc, int n_bufs, struct ggml_context * ctx) {
    char line[1024];
    int  len = snprintf(line, sizeof(line), "%s: ok=%d new=%d freed=%d size=[", label, result, rec_serial - seq_serial0,
                        rec_frees - seq_frees0);
    for (int i = 0; i < n_bufs; i++) {
        len += snprintf(line + len, sizeof(line) - (size_t) len, "%s%zu", i ? "," : "", ggml_gallocr_get_buffer_size(galloc, i));
    }
    len += snprintf(line + len, sizeof(line) - (size_t) len, "]");
    for (struct ggml_tensor * t = ctx ? ggml_get_first_tensor(ctx) : NULL; t; t = ggml_get_next_tensor(ctx, t)) {
        char w[64];
        len += snprintf(line + len, sizeof(line) - (size_t) len, " %s=%s", t->name, where(t, w, sizeof(w)));
    }
    if (facts_out) {
        fprintf(facts_out, "%s\n", line);
    } else if (n_facts < (int) (sizeof(facts) / sizeof(facts[0]))) {
        snprintf(facts[n_facts++], sizeof(facts[0]), "%s", line);
    }
}

static void do_reserve(const char * label, ggml_gallocr_t g, int n_bufs, struct ggml_cgraph * gf, const int * node_ids,
                       const int * leaf_ids, struct ggml_context * ctx) {
    call_begin();
    bool ok = n_bufs == 1 && node_ids == NULL ? ggml_gallocr_reserve(g, gf) : ggml_gallocr_reserve_n(g, gf, node_ids, leaf_ids);
    call_end(label, ok, g, n_bufs, ctx);
}

static void do_reserve_size(const char * label, ggml_gallocr_t g, int n_bufs, struct ggml_cgraph * gf, const int * node_ids,
                            const int * leaf_ids) {
    size_t sizes[4] = { 0 };
    call_begin();
    ggml_gallocr_reserve_n_size(g, gf, node_ids, leaf_ids, sizes);
    char l[128];
    snprintf(l, sizeof(l), "%s sizes=[%zu,%zu]", label, sizes[0], n_bufs > 1 ? sizes[1] : 0);
    call_end(l, 1, g, n_bufs, NULL);
}

static void do_alloc(const char * label, ggml_gallocr_t g, int n_bufs, struct ggml_cgraph * gf, struct ggml_context * ctx) {
    call_begin();
    bool ok = ggml_gallocr_alloc_graph(g, gf);
    call_end(label, ok, g, n_bufs, ctx);
}

static void sequence_end(ggml_gallocr_t g) {
    ggml_gallocr_free(g);
    for (int i = 0; i < n_contexts; i++) {
        ggml_free(contexts[i]);
    }
    n_contexts = 0;
    rec_serial = 0;
    rec_frees  = 0;
}

// ---- the sequences (each ends with every buffer freed) ---------------------------------------

static struct rec_type cpu_type, gpu_type, padded_type;

// w (a leaf) -> sum(w) -> add to x: a grown source whose consumer keeps its size is re-reserved
static struct ggml_cgraph * sum_graph(struct ggml_context * ctx, int64_t w_n) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    struct ggml_tensor * x  = input(ctx, "x", 16);
    struct ggml_tensor * w  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, w_n);
    ggml_set_name(w, "w");
    struct ggml_tensor * s = ggml_sum(ctx, w);
    struct ggml_tensor * y = ggml_add(ctx, ggml_scale(ctx, x, 3.0f), s);
    ggml_set_output(y);
    ggml_build_forward_expand(gf, y);
    name_all(ctx);
    return gf;
}

// x given memory outside the allocator after the reserve: still fits; then a graph whose x
// had memory when reserved and has none now: re-reserved
static void seq_external(void) {
    ggml_gallocr_t g = ggml_gallocr_new(&cpu_type.buft);
    struct ggml_cgraph * g1 = chain(64);
    do_reserve("ext.1 reserve(64)", g, 1, g1, NULL, NULL, contexts[0]);
    ggml_backend_buffer_t outside = ggml_backend_buft_alloc_buffer(&cpu_type.buft, 4096); // serial 2
    struct ggml_tensor * x = ggml_get_tensor(contexts[0], "x");
    ggml_backend_tensor_alloc(outside, x, (char *) ggml_backend_buffer_get_base(outside) + 1024);
    do_alloc("ext.2 alloc(64, x outside)", g, 1, g1, contexts[0]);
    do_reserve("ext.3 reserve(64, x outside)", g, 1, g1, NULL, NULL, contexts[0]);
    struct ggml_cgraph * g2 = chain(64);
    do_alloc("ext.4 alloc(64 rebuilt, x inside)", g, 1, g2, contexts[1]);
    struct ggml_cgraph * g3 = chain(64);
    struct ggml_tensor * x3 = ggml_get_tensor(contexts[2], "x");
    ggml_backend_tensor_alloc(outside, x3, (char *) ggml_backend_buffer_get_base(outside) + 2048);
    do_alloc("ext.5 alloc(64 rebuilt, x outside)", g, 1, g3, contexts[2]);
    ggml_backend_buffer_free(outside);
    sequence_end(g);
}

// a node whose slot held no source when reserved now has one; a view turned into a node
static void seq_changed_slots(void) {
    ggml_gallocr_t g = ggml_gallocr_new(&cpu_type.buft);
    // A: s = scale(x), y = add(s, z)      B: s = add(x, z), y = scale(s): same counts, slot 1 of node 0 filled
    struct ggml_context * ca = ctx_new();
    struct ggml_cgraph *  ga = ggml_new_graph(ca);
    {
        struct ggml_tensor * x = input(ca, "x", 64), * z = input(ca, "z", 64);
        struct ggml_tensor * y = ggml_add(ca, ggml_scale(ca, x, 2.0f), z);
        ggml_set_output(y);
        ggml_build_forward_expand(ga, y);
        name_all(ca);
    }
    do_reserve("slot.1 reserve(scale, add)", g, 1, ga, NULL, NULL, ca);
    struct ggml_context * cb = ctx_new();
    struct ggml_cgraph *  gb = ggml_new_graph(cb);
    {
        struct ggml_tensor * x = input(cb, "x", 64), * z = input(cb, "z", 64);
        struct ggml_tensor * y = ggml_scale(cb, ggml_add(cb, x, z), 2.0f);
        ggml_set_output(y);
        ggml_build_forward_expand(gb, y);
        name_all(cb);
    }
    do_alloc("slot.2 alloc(add, scale)", g, 1, gb, cb);
    // C: v = view(x) then y = scale(v)     D: v = scale(x) (not a view, same size) then y = scale(v)
    struct ggml_context * cc = ctx_new();
    struct ggml_cgraph *  gc = ggml_new_graph(cc);
    {
        struct ggml_tensor * x = input(cc, "x", 64);
        struct ggml_tensor * v = ggml_view_1d(cc, x, 32, 0);
        struct ggml_tensor * y = ggml_scale(cc, v, 2.0f);
        ggml_set_output(y);
        ggml_build_forward_expand(gc, y);
        name_all(cc);
    }
    do_reserve("slot.3 reserve(view, scale)", g, 1, gc, NULL, NULL, cc);
    struct ggml_context * cd = ctx_new();
    struct ggml_cgraph *  gd = ggml_new_graph(cd);
    {
        struct ggml_tensor * x = input(cd, "x", 32);
        struct ggml_tensor * v = ggml_scale(cd, x, 1.0f);
        struct ggml_tensor * y = ggml_scale(cd, v, 2.0f);
        ggml_set_output(y);
        ggml_build_forward_expand(gd, y);
        name_all(cd);
    }
    do_alloc("slot.4 alloc(scale, scale)", g, 1, gd, cd);
    sequence_end(g);
}

// a source put in a slot after the last one filled when reserved (the check and the placing look at
// those slots together, as one test): a view there is placed from its root without a re-reserve,
// a tensor that needs memory there makes alloc_graph re-reserve
static void seq_late_slots(void) {
    ggml_gallocr_t g = ggml_gallocr_new(&cpu_type.buft);
    struct ggml_cgraph * g1 = chain(64);
    do_reserve("late.1 reserve(64)", g, 1, g1, NULL, NULL, contexts[0]);
    struct ggml_cgraph * g2 = chain(64); // s = scale(x) gets a view of x in slot 5, in no other place
    struct ggml_tensor * x2 = ggml_get_tensor(contexts[1], "x");
    struct ggml_tensor * u  = ggml_view_1d(contexts[1], x2, 16, 8 * sizeof(float));
    ggml_set_name(u, "u");
    ggml_graph_node(g2, 0)->src[5] = u;
    do_alloc("late.2 alloc(64, view in slot 5)", g, 1, g2, contexts[1]);
    struct ggml_cgraph * g3 = chain(64); // a tensor of 48 floats in slot 7 of add(s, x)
    struct ggml_tensor * z = ggml_new_tensor_1d(contexts[2], GGML_TYPE_F32, 48);
    ggml_set_name(z, "z");
    ggml_graph_node(g3, 1)->src[7] = z;
    do_alloc("late.3 alloc(64, tensor in slot 7)", g, 1, g3, contexts[2]);
    struct ggml_cgraph * g4 = chain(64); // the shape reserved again, without the late slots
    do_alloc("late.4 alloc(64)", g, 1, g4, contexts[3]);
    sequence_end(g);
}

// A sequence is a list of steps on one allocator: each step builds its graph in a context of
// its own (or takes the previous step's graph again) and makes one call; its label starts the
// line of facts. The sequences whose graphs are built by hand (tensors given memory outside,
// slots changed) are functions instead.
enum call { RESERVE, RESERVE_SIZE, ALLOC };
enum graph_kind {
    CHAIN, // chain_graph(n, leaf_n, steps)
    SUM,   // sum_graph(w of n floats)
    EMPTY, // a graph without nodes
    AGAIN, // the previous step's graph, in its context
};

struct step {
    enum call       call;
    const char    * label;
    enum graph_kind graph;
    int64_t         n;
    int64_t         leaf_n;
    int             steps;
};

#define MAX_STEPS 8

struct sequence {
    void (*run)(void);         // a sequence written out (then the fields below are unused)
    struct rec_type * type;    // the allocator's one buffer type; NULL: cpu and gpu (nodes on gpu, leafs on cpu)
    int               fail_next; // allocations of the type that fail first
    struct step       steps[MAX_STEPS];
};

static void run_sequence(const struct sequence * seq) {
    if (seq->run) {
        seq->run();
        return;
    }
    static const int node_ids[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, leaf_ids[8] = { 0 };
    ggml_backend_buffer_type_t bufts[2] = { &cpu_type.buft, &gpu_type.buft };
    ggml_gallocr_t g      = seq->type ? ggml_gallocr_new(&seq->type->buft) : ggml_gallocr_new_n(bufts, 2);
    int            n_bufs = seq->type ? 1 : 2;
    const int    * nodes  = seq->type ? NULL : node_ids;
    const int    * leafs  = seq->type ? NULL : leaf_ids;
    (seq->type ? seq->type : &cpu_type)->fail_next = seq->fail_next;
    struct ggml_context * ctx = NULL;
    struct ggml_cgraph  * gf  = NULL;
    for (int i = 0; i < MAX_STEPS && seq->steps[i].label; i++) {
        const struct step * st = &seq->steps[i];
        if (st->graph != AGAIN) {
            ctx = ctx_new();
            gf  = st->graph == EMPTY ? ggml_new_graph(ctx) : st->graph == SUM ? sum_graph(ctx, st->n) : chain_graph(ctx, st->n, st->leaf_n, st->steps);
        }
        if (st->call == RESERVE) {
            do_reserve(st->label, g, n_bufs, gf, nodes, leafs, ctx);
        } else if (st->call == RESERVE_SIZE) {
            do_reserve_size(st->label, g, n_bufs, gf, nodes, leafs);
        } else {
            do_alloc(st->label, g, n_bufs, gf, ctx);
        }
    }
    sequence_end(g);
}

static const struct sequence sequences[] = {
    // the same graph again, then the same shapes built anew: no re-reserve
    { .type = &cpu_type, .steps = {
        { RESERVE, "same.1 reserve(64)", CHAIN, 64, 0, 0 },
        { ALLOC,   "same.2 alloc(64)", AGAIN, 0, 0, 0 },
        { ALLOC,   "same.3 alloc(64)", AGAIN, 0, 0, 0 },
        { ALLOC,   "same.4 alloc(64 rebuilt)", CHAIN, 64, 0, 0 } } },
    // a grown node: re-reserved, the buffer grows; a shrunk one: placed by the larger plan
    { .type = &cpu_type, .steps = {
        { RESERVE, "grow.1 reserve(64)", CHAIN, 64, 0, 0 },
        { ALLOC,   "grow.2 alloc(128)", CHAIN, 128, 0, 0 },
        { ALLOC,   "grow.3 alloc(32)", CHAIN, 32, 0, 0 },
        { ALLOC,   "grow.4 alloc(100)", CHAIN, 100, 0, 0 } } },
    // a leaf that no node consumes, grown: upstream does not look at leafs, so no re-reserve
    // (the leaf keeps its offset); grown past its chunk's end the project re-reserves (own_cases)
    { .type = &cpu_type, .steps = {
        { RESERVE, "leaf.1 reserve(64, L 16)", CHAIN, 64, 16, 0 },
        { ALLOC,   "leaf.2 alloc(64, L 32)", CHAIN, 64, 32, 0 },
        { ALLOC,   "leaf.3 alloc(64, L 8)", CHAIN, 64, 8, 0 },
        { ALLOC,   "leaf.4 alloc(128, L 16)", CHAIN, 128, 16, 0 } } },
    // a grown source whose consumer keeps its size is re-reserved
    { .type = &cpu_type, .steps = {
        { RESERVE, "src.1 reserve(w 64)", SUM, 64, 0, 0 },
        { ALLOC,   "src.2 alloc(w 128)", SUM, 128, 0, 0 },
        { ALLOC,   "src.3 alloc(w 32)", SUM, 32, 0, 0 } } },
    { .run = seq_external },
    { .run = seq_changed_slots },
    { .run = seq_late_slots },
    // node and leaf counts changed: re-reserved even when everything is smaller
    { .type = &cpu_type, .steps = {
        { RESERVE, "count.1 reserve(128, 2 steps)", CHAIN, 128, 0, 2 },
        { ALLOC,   "count.2 alloc(64, 1 step)", CHAIN, 64, 0, 1 },
        { ALLOC,   "count.3 alloc(32, 1 step, L 4)", CHAIN, 32, 4, 1 } } },
    // reserve_n_size keeps a buffer the new plan fits in and frees one it does not; alloc_graph
    // then does not re-reserve a graph that fits the recorded (no_alloc) assignment
    { .type = &cpu_type, .steps = {
        { RESERVE,      "size.1 reserve(256)", CHAIN, 256, 0, 0 },
        { RESERVE_SIZE, "size.2 reserve_n_size(128)", CHAIN, 128, 0, 0 },
        { ALLOC,        "size.3 alloc(64)", CHAIN, 64, 0, 0 },
        { ALLOC,        "size.4 alloc(64 rebuilt)", CHAIN, 64, 0, 0 },
        { RESERVE_SIZE, "size.5 reserve_n_size(512)", CHAIN, 512, 0, 0 },
        { ALLOC,        "size.6 alloc(1024)", CHAIN, 1024, 0, 0 } } },
    // a new allocator: an empty graph fits what was "reserved" (nothing); then a real one
    { .type = &cpu_type, .steps = {
        { ALLOC, "empty.1 alloc(empty)", EMPTY, 0, 0, 0 },
        { ALLOC, "empty.2 alloc(64)", CHAIN, 64, 0, 0 },
        { ALLOC, "empty.3 alloc(empty)", EMPTY, 0, 0, 0 } } },
    // two buffer types: alloc_graph never re-reserves; refused when the graph no longer fits
    { .type = NULL, .steps = {
        { RESERVE, "two.1 reserve_n(64, L 16)", CHAIN, 64, 16, 0 },
        { ALLOC,   "two.2 alloc(64, L 16)", CHAIN, 64, 16, 0 },
        { ALLOC,   "two.3 alloc(64, L 32)", CHAIN, 64, 32, 0 },
        { ALLOC,   "two.4 alloc(128, L 16)", CHAIN, 128, 16, 0 },
        { ALLOC,   "two.5 alloc(32, L 16)", CHAIN, 32, 16, 0 },
        { ALLOC,   "two.6 alloc(32, L 16, 1 step)", CHAIN, 32, 16, 1 } } },
    // a type whose alloc size is padded to 256 bytes: the decision compares alloc sizes
    { .type = &padded_type, .steps = {
        { RESERVE, "pad.1 reserve(40)", CHAIN, 40, 0, 0 },
        { ALLOC,   "pad.2 alloc(64)", CHAIN, 64, 0, 0 },
        { ALLOC,   "pad.3 alloc(65)", CHAIN, 65, 0, 0 } } },
    // a reserve whose buffer could not be allocated, then a larger graph: re-reserved
    { .type = &cpu_type, .fail_next = 1, .steps = {
        { RESERVE, "fail.1 reserve(64), allocation fails", CHAIN, 64, 0, 0 },
        { ALLOC,   "fail.2 alloc(128)", CHAIN, 128, 0, 0 } } },
};

static void run_sequences(void) {
    for (size_t i = 0; i < sizeof(sequences) / sizeof(sequences[0]); i++) {
        run_sequence(&sequences[i]);
    }
}

// ---- where upstream would crash (not in the fixture): the project refuses instead ---------

static int own_failures;

#define OWN_CHECK(x) do { if (!(x)) { own_failures++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #x); } } while (0)

static int own_cases(void) {
    // reserve_n_size on a new allocator: the assignment is recorded, nothing allocated; alloc_graph of
    // the same graph does not re-reserve (upstream then dereferences the missing buffer)
    ggml_gallocr_t g = ggml_gallocr_new(&cpu_type.buft);
    struct ggml_cgraph * g1 = chain(64);
    size_t sizes[1] = { 0 };
    ggml_gallocr_reserve_n_size(g, g1, NULL, NULL, sizes);
    OWN_CHECK(sizes[0] > 0);
    OWN_CHECK(ggml_gallocr_get_buffer_size(g, 0) == 0);
    OWN_CHECK(!ggml_gallocr_alloc_graph(g, g1));
    OWN_CHECK(rec_serial == 0); // nothing allocated
    OWN_CHECK(ggml_gallocr_reserve(g, g1));
    OWN_CHECK(ggml_gallocr_alloc_graph(g, g1));
    OWN_CHECK(ggml_get_tensor(contexts[0], "x")->data != NULL);
    sequence_end(g);

    // a failed reserve keeps its assignment (as upstream's does); the same graph is not re-reserved
    g = ggml_gallocr_new(&cpu_type.buft);
    g1 = chain(64);
    cpu_type.fail_next = 1;
    OWN_CHECK(!ggml_gallocr_reserve(g, g1));
    OWN_CHECK(!ggml_gallocr_alloc_graph(g, g1));
    OWN_CHECK(rec_serial == 0);
    OWN_CHECK(ggml_gallocr_reserve(g, g1)); // an explicit reserve recovers
    OWN_CHECK(ggml_gallocr_alloc_graph(g, g1));
    sequence_end(g);

    // a leaf no node reads, grown past the end of the buffer since the reserve (upstream writes past
    // its buffer; the project aborted in ggml_backend_tensor_alloc): re-reserved, the leaf inside the
    // new buffer, the same graph then placed without another reserve
    g = ggml_gallocr_new(&cpu_type.buft);
    OWN_CHECK(ggml_gallocr_reserve(g, chain_graph(ctx_new(), 64, 16, 0)));
    const size_t before = ggml_gallocr_get_buffer_size(g, 0);
    const int    serial = rec_serial;
    struct ggml_cgraph * grown = chain_graph(ctx_new(), 64, 4096, 0);
    struct ggml_tensor * leaf  = ggml_get_tensor(contexts[n_contexts - 1], "L");
    OWN_CHECK(ggml_gallocr_alloc_graph(g, grown));
    OWN_CHECK(rec_serial == serial + 1 && ggml_gallocr_get_buffer_size(g, 0) > before &&
              ggml_gallocr_get_buffer_size(g, 0) >= 4096 * sizeof(float));
    OWN_CHECK(leaf->data != NULL && (char *) leaf->data + ggml_nbytes(leaf) <=
              (char *) ggml_backend_buffer_get_base(leaf->buffer) + ggml_backend_buffer_get_size(leaf->buffer));
    OWN_CHECK(ggml_gallocr_alloc_graph(g, grown) && rec_serial == serial + 1);
    sequence_end(g);
    return 3;
}

// ---- main -------------------------------------------------------------------------------------

static char * read_text(const char * path) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char * text = n >= 0 ? malloc((size_t) n + 1) : NULL;
    if (text == NULL || fread(text, 1, (size_t) n, f) != (size_t) n) {
        free(text);
        fclose(f);
        return NULL;
    }
    text[n] = '\0';
    fclose(f);
    return text;
}

int main(int argc, char ** argv) {
    rec_type_init(&cpu_type, "cpu", 32, 0);
    rec_type_init(&gpu_type, "gpu", 64, 0);
    rec_type_init(&padded_type, "padded", 32, 256);
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        facts_out = stdout;
        run_sequences();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--own") == 0) { // only the cases where upstream crashes
        own_cases();
        return own_failures != 0;
    }
    const char * path = argc > 1 ? argv[1] : "tests/fixtures/gallocr-realloc-upstream.txt";
    char * expected = read_text(path);
    if (expected == NULL) {
        fprintf(stderr, "test-gallocr-realloc: cannot read %s\n", path);
        return 1;
    }
    run_sequences();
    int cases = 0, failures = 0, line_no = 0;
    for (char * line = strtok(expected, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            continue;
        }
        if (line_no >= n_facts) {
            fprintf(stderr, "missing: %s\n", line);
            failures++;
        } else if (strcmp(line, facts[line_no]) != 0) {
            fprintf(stderr, "upstream: %s\nproject:  %s\n", line, facts[line_no]);
            failures++;
        }
        line_no++;
        cases++;
    }
    for (int i = line_no; i < n_facts; i++) {
        fprintf(stderr, "extra: %s\n", facts[i]);
        failures++;
    }
    free(expected);
    cases += own_cases();
    failures += own_failures;
    if (failures) {
        fprintf(stderr, "test-gallocr-realloc: %d of %d cases FAILED\n", failures, cases);
        return 1;
    }
    printf("test-gallocr-realloc: %d cases passed\n", cases);
    return 0;
}
