// test-model-fit.c: llama.cpp's --fit (galloc-model-fit.h) on toy models whose answers are derived by hand.
//
// A toy model's memory is a sum anyone can redo: each repeating layer costs its attention and its
// three FFN tensors (experts for a MoE toy) on the device llama.cpp's layer split gives it, the
// output layer its own, each layer's KV cache kv_per_cell bytes per context cell; no compute
// buffers. -ot overrides move tensors by llama.cpp's regular expressions (first match wins).
// The expected flags, messages and measurement counts are worked out beside each case from
// common/fit.cpp's arithmetic. The comparison with llama.cpp's own runs (real models, RPC devices)
// is tests/fit (scripts/check-fit.sh).

#include "check.h"
#include "galloc-model-fit.h"
#include "galloc-model-place-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((int64_t) 1 << 20)

struct toy {
    int32_t  n_layer;               // repeating layers; the output layer is layer n_layer
    uint32_t n_expert;              // > 0: the FFN tensors are experts (ffn_*_exps) with a router
    int64_t  attn, up, gate, down;  // MiB per repeating layer
    int64_t  output;                // MiB of the output layer
    int64_t  kv_per_cell;           // bytes per layer per context cell
    uint32_t n_ctx_train;
    int32_t  n_dev;
    int64_t  dev_mib[4];            // each device's memory
};

// llama.cpp's layer split (llama_model::load_tensors): the device of layer il, -1 for the CPU
static int32_t toy_layer_device(const struct toy * t, const struct galloc_place_settings * p, int32_t il) {
    const int32_t n = t->n_layer;
    const int32_t ngl = p->n_gpu_layers < 0 ? n + 1 : (p->n_gpu_layers < n + 1 ? p->n_gpu_layers : n + 1);
    float splits[4];
    bool all_zero = true;
    for (int32_t k = 0; k < t->n_dev && k < p->n_tensor_split; k++) {
        all_zero = all_zero && p->tensor_split[k] == 0.0f;
    }
    float sum = 0.0f;
    for (int32_t k = 0; k < t->n_dev; k++) {
        sum += all_zero ? (float) t->dev_mib[k] : (k < p->n_tensor_split ? p->tensor_split[k] : 0.0f);
        splits[k] = sum;
    }
    const int32_t start = n + 1 - ngl;
    if (il < start || ngl == 0) {
        return -1;
    }
    const float x = (float) (il - start) / (float) ngl;
    int32_t k = 0;
    while (k < t->n_dev - 1 && !(splits[k] / sum > x)) {
        k++;
    }
    return k;
}

// where a tensor of layer il goes: an override's buffer type or its layer's device (-1: the host)
static int32_t toy_tensor_device(const struct toy * t, const struct galloc_place_settings * p, int32_t il, const char * name) {
    for (int32_t o = 0; o < p->n_overrides; o++) {
        if (p->overrides[o].kind == GALLOC_OVERRIDE_N_CPU_MOE) {
            continue; // the toy's tests give -ncmoe 0 only
        }
        struct galloc_error err;
        const char * pattern = p->overrides[o].kind == GALLOC_OVERRIDE_CPU_MOE ? "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"
                                                                                : p->overrides[o].pattern;
        struct place_regex * re = galloc_place_regex_new(pattern, &err);
        CHECK(re != NULL);
        const bool match = re && galloc_place_regex_search(re, name);
        galloc_place_regex_free(re);
        if (match) {
            return strcmp(p->overrides[o].buft, "CPU") == 0 ? -1 : p->overrides[o].buft[3] - '0'; // "DEVk"
        }
    }
    return toy_layer_device(t, p, il);
}

struct toy_tensor {
    const char * n;
    int64_t      mib;
};

static bool toy_measure(void * user, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                        struct galloc_fit_measurement * out, struct galloc_error * err) {
    (void) err;
    const struct toy * t = user;
    const int64_t n_ctx = s->n_ctx ? s->n_ctx : t->n_ctx_train;
    out->n_devices = t->n_dev;
    for (int32_t k = 0; k < t->n_dev; k++) {
        out->mem[k].total = out->mem[k].free = t->dev_mib[k] * MIB;
        snprintf(out->name[k], sizeof(out->name[k]), "DEV%d (toy)", (int) k);
        snprintf(out->buft[k], sizeof(out->buft[k]), "DEV%d", (int) k);
    }
    const char * ffn_moe[3] = { "ffn_up_exps", "ffn_gate_exps", "ffn_down_exps" };
    const char * ffn_dense[3] = { "ffn_up", "ffn_gate", "ffn_down" };
    for (int32_t il = 0; il <= t->n_layer; il++) {
        char name[64];
        struct toy_tensor ts[5];
        int nt = 0;
        if (il == t->n_layer) {
            ts[nt++] = (struct toy_tensor) { "output", t->output };
        } else {
            ts[nt++] = (struct toy_tensor) { "attn_q", t->attn };
            const int64_t mib[3] = { t->up, t->gate, t->down };
            for (int f = 0; f < 3; f++) {
                ts[nt++] = (struct toy_tensor) { t->n_expert ? ffn_moe[f] : ffn_dense[f], mib[f] };
            }
            if (t->n_expert) {
                ts[nt++] = (struct toy_tensor) { "ffn_gate_inp", 0 };
            }
        }
        for (int i = 0; i < nt; i++) {
            if (il == t->n_layer) {
                snprintf(name, sizeof(name), "%s.weight", ts[i].n);
            } else {
                snprintf(name, sizeof(name), "blk.%d.%s.weight", (int) il, ts[i].n);
            }
            const int32_t d = toy_tensor_device(t, p, il, name);
            out->mem[d < 0 ? t->n_dev : d].model += (uint64_t) (ts[i].mib * MIB);
        }
        if (il < t->n_layer) {
            const int32_t d = toy_layer_device(t, p, il);
            out->mem[d < 0 ? t->n_dev : d].context += (uint64_t) (t->kv_per_cell * n_ctx);
        }
    }
    out->n_layer = (uint32_t) t->n_layer;
    out->n_ctx_train = t->n_ctx_train;
    out->n_expert = t->n_expert;
    return true;
}

// runs the fit on a toy; the flags llama-fit-params would print, or "FAIL: reason"
static char * toy_fit(struct toy * t, int64_t n_ctx, int32_t ngl, uint64_t margin_mib, uint32_t n_ctx_min, struct galloc_fit_result * r) {
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    struct galloc_fit_settings f;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    galloc_fit_settings_default(&f);
    s.n_ctx = n_ctx;
    p.n_gpu_layers = ngl;
    for (int i = 0; i < GALLOC_PLACE_MAX_DEVICES; i++) {
        f.margins[i] = margin_mib << 20;
    }
    f.n_ctx_min = n_ctx_min;
    struct galloc_error err;
    CHECK(galloc_fit(toy_measure, t, &s, &p, &f, r, &err));
    if (r->status != GALLOC_FIT_SUCCESS) {
        char * out = malloc(300);
        snprintf(out, 300, "FAIL: %s", r->reason);
        return out;
    }
    return galloc_fit_flags(r);
}

static bool has_line(const struct galloc_fit_result * r, const char * line) {
    const char * at = r->log ? strstr(r->log, line) : NULL;
    const bool ok = at && (at == r->log || at[-1] == '\n') && at[strlen(line)] == '\n';
    if (!ok) {
        fprintf(stderr, "  no line '%s' in:\n%s", line, r->log ? r->log : "");
    }
    return ok;
}

static void expect(char * got, const char * want) {
    CHECK(got && strcmp(got, want) == 0);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "  got  %s\n  want %s\n", got ? got : "(null)", want);
    }
    free(got);
}

// dense, one device of 2000 MiB, margin 1024: target 976 MiB; 11 layers of 100 MiB = 1100 MiB.
// False position: 0 layers 0 MiB, 11 layers 1100; step 11 * 976 / 1100 = 9 (900 MiB: fits);
// step 2 * 76 / 200 = 0 -> 1: 10 layers 1000 MiB > 976; so 9 layers. Measurements: the initial
// one, 0 layers, 11, 9, 10.
static void test_dense_one_device(void) {
    struct toy t = { .n_layer = 10, .attn = 40, .up = 20, .gate = 20, .down = 20, .output = 100, .n_ctx_train = 8192,
                     .n_dev = 1, .dev_mib = { 2000 } };
    struct galloc_fit_result r;
    expect(toy_fit(&t, 4096, -1, 1024, 4096, &r), "-c 4096 -ngl 9");
    CHECK_EQ_U64(r.n_measurements, 5);
    CHECK(has_line(&r, "common_params_fit_impl: projected to use 1100 MiB of device memory vs. 2000 MiB of free device memory"));
    CHECK(has_line(&r, "common_params_fit_impl: cannot meet free memory target of 1024 MiB, need to reduce device memory by 124 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl: context size set by user to 4096 -> no change"));
    CHECK(has_line(&r, "common_params_fit_impl: start filling device 0, delta=11"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device[0].n_layer=9"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device_high[0].n_layer=10"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):  9 layers,    900 MiB used,   1100 MiB free"));
    CHECK(has_line(&r, "common_fit_params: successfully fit params to free device memory"));
    galloc_fit_result_free(&r);
}

// dense, two devices of 1500 MiB (targets 476): back to front. Device 1: 11 layers 1100 MiB;
// step 11 * 476 / 1100 = 4 (400: fits); step 7 * 76 / 700 = 0 -> 1: 5 layers 500 > 476: 4.
// Device 0: the 7 left, 700 MiB; step 7 * 476 / 700 = 4 (fits); 3 * 76 / 300 -> 1: 5 too many: 4.
static void test_dense_two_devices(void) {
    struct toy t = { .n_layer = 10, .attn = 40, .up = 20, .gate = 20, .down = 20, .output = 100, .n_ctx_train = 8192,
                     .n_dev = 2, .dev_mib = { 1500, 1500 } };
    struct galloc_fit_result r;
    expect(toy_fit(&t, 4096, -1, 1024, 4096, &r), "-c 4096 -ngl 8 -ts 4,4");
    // the initial split by free memory: 6 layers on device 0 (x = 0/11 .. 5/11 < 0.5), 5 on device 1
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):   1500 total,    600 used,    900 free vs. target of   1024"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV1 (toy):   1500 total,    500 used,   1000 free vs. target of   1024"));
    CHECK(has_line(&r, "common_params_fit_impl: cannot meet free memory targets on all devices, need to use 148 MiB less in total"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV1 (toy):  4 layers,    400 MiB used,   1100 MiB free"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):  4 layers,    400 MiB used,   1100 MiB free"));
    galloc_fit_result_free(&r);

    // the last device empty: -ts stops at the last device with layers ("-ts 4,0" is not printed)
    struct toy u = t;
    u.dev_mib[1] = 1024;
    expect(toy_fit(&u, 4096, -1, 1024, 4096, &r), "-c 4096 -ngl 4");
    galloc_fit_result_free(&r);
}

// the context: 10 layers of 100 MiB plus 10 MiB of KV cache per 4096 cells (2560 bytes a cell),
// trained at 16384: 1100 + 400 = 1500 MiB. On 2410 MiB (target 1386): at --fit-ctx 4096 1200 MiB;
// 4096 + 12288 * 186 / 300 = 11714, rounded down to 256: 11520; 25600 bytes a cell, 4864 fewer
// cells: 118 MiB. One device: that ends it, -ngl stays -1.
static void test_context(void) {
    struct toy t = { .n_layer = 10, .attn = 40, .up = 20, .gate = 20, .down = 20, .output = 100, .kv_per_cell = 2560,
                     .n_ctx_train = 16384, .n_dev = 1, .dev_mib = { 2410 } };
    struct galloc_fit_result r;
    expect(toy_fit(&t, 0, -1, 1024, 4096, &r), "-c 11520 -ngl -1");
    CHECK(has_line(&r, "common_params_fit_impl: context size reduced from 16384 to 11520 -> need 118 MiB less memory in total"));
    CHECK(has_line(&r, "common_params_fit_impl: entire model can be fit by reducing context"));
    CHECK_EQ_U64(r.n_measurements, 2);
    galloc_fit_result_free(&r);

    // on 2000 MiB (target 976) even 4096 cells (1200 MiB) are too many: -c 4096, then layers at
    // 110 MiB (the output 100): 11 -> 1200; 11 * 976 / 1200 = 8: 870 fits; 3 * 106 / 330 -> 1: 980 > 976
    t.dev_mib[0] = 2000;
    expect(toy_fit(&t, 0, -1, 1024, 4096, &r), "-c 4096 -ngl 8");
    CHECK(has_line(&r, "common_params_fit_impl: context size reduced from 16384 to 4096 -> need 300 MiB less memory in total"));
    galloc_fit_result_free(&r);

    // -ngl 9 given: 8 layers of 140 MiB and the output, 1220 > 976; at 4096 cells still 980 > 976:
    // the context is lowered to 4096, then llama.cpp gives up
    expect(toy_fit(&t, 0, 9, 1024, 4096, &r), "FAIL: n_gpu_layers already set by user to 9, abort");
    CHECK(r.status == GALLOC_FIT_FAILURE);
    CHECK_EQ_U64(r.s.n_ctx, 4096);
    CHECK(has_line(&r, "common_fit_params: failed to fit params to free device memory: n_gpu_layers already set by user to 9, abort"));
    galloc_fit_result_free(&r);

    // -c 0 given (n_ctx_min UINT32_MAX): the full context stays
    expect(toy_fit(&t, 0, -1, 1024, UINT32_MAX, &r), "-c 16384 -ngl 7");
    CHECK(has_line(&r, "common_params_fit_impl: user has requested full context size of 16384 -> no change"));
    galloc_fit_result_free(&r);

    // enough memory: nothing changes, the context is the training context
    t.dev_mib[0] = 4000;
    expect(toy_fit(&t, 0, -1, 1024, 4096, &r), "-c 16384 -ngl -1");
    CHECK(has_line(&r, "common_params_fit_impl: will leave 2500 >= 1024 MiB of free device memory, no changes needed"));
    galloc_fit_result_free(&r);
}

// MoE, one device of 400 MiB, margin 100 (target 300). Layers: attention 20, three experts of 30;
// output 20. All: 4 * 110 + 20 = 460. Experts in the CPU: 100, surplus 400 - 100 - 100 = 200.
// Dense-only fill: 5 layers, 4 partial (layers 1..4; the output's pattern matches nothing):
// 110 + 3 * 20 + 20 = 190 fits. Conversion: all full 460 > 300; delta 4, step 4 * 110 / 270 = 1:
// 2 full 280 fits; step 3 * 20 / 180 -> 1: 3 full 370 too many. One more layer: layer 2 keeps
// its up experts (LAYER_FRACTION_UP): 280 + 30 = 310, not < 300; attention only
// (LAYER_FRACTION_ATTN): 280 < 300, taken.
static void test_moe_one_device(void) {
    struct toy t = { .n_layer = 4, .n_expert = 8, .attn = 20, .up = 30, .gate = 30, .down = 30, .output = 20, .n_ctx_train = 4096,
                     .n_dev = 1, .dev_mib = { 400 } };
    struct galloc_fit_result r;
    expect(toy_fit(&t, 4096, -1, 100, 4096, &r),
           "-c 4096 -ngl 5 -ot \"blk\\.2\\.ffn_(gate|up|gate_up|down).*=CPU,blk\\.3\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU,"
           "blk\\.4\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU\"");
    CHECK(has_line(&r, "common_params_fit_impl: with only dense weights in device memory there is a total surplus of 200 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl: id=0, n_layer= 5, n_part= 4, overflow_type=4, mem=   190 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device[0].(n_layer, n_part)=(5, 3), id_dense_start=0"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device_high[0].(n_layer, n_part)=(5, 2), id_dense_start_high=0"));
    CHECK(has_line(&r, "common_params_fit_impl: id=0, n_layer= 5, n_part= 3, overflow_type=2, mem=   310 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device[0].(n_layer, n_part, overflow_type)=(5, 3, ATTN), id_dense_start=0"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):  5 layers ( 3 overflowing),    280 MiB used,    120 MiB free"));
    galloc_fit_result_free(&r);

    // 10 MiB more (target 310): the up experts of layer 2 give 310, not < 310: attention only again
    t.dev_mib[0] = 410;
    expect(toy_fit(&t, 4096, -1, 100, 4096, &r),
           "-c 4096 -ngl 5 -ot \"blk\\.2\\.ffn_(gate|up|gate_up|down).*=CPU,blk\\.3\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU,"
           "blk\\.4\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU\"");
    galloc_fit_result_free(&r);

    // 20 MiB more: the up experts of layer 2 fit (310 < 320), then its gate experts too
    // (LAYER_FRACTION_GATE: 340, not < 320): UP stays
    t.dev_mib[0] = 420;
    expect(toy_fit(&t, 4096, -1, 100, 4096, &r),
           "-c 4096 -ngl 5 -ot \"blk\\.2\\.ffn_(gate|gate_up|down).*=CPU,blk\\.3\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU,"
           "blk\\.4\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU\"");
    CHECK(has_line(&r, "common_params_fit_impl: trying to fit one extra layer with overflow_type=LAYER_FRACTION_GATE"));
    galloc_fit_result_free(&r);

    // an override given: llama.cpp gives up after the context step
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    struct galloc_fit_settings f;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    galloc_fit_settings_default(&f);
    s.n_ctx = 4096;
    for (int i = 0; i < GALLOC_PLACE_MAX_DEVICES; i++) {
        f.margins[i] = (uint64_t) 100 << 20;
    }
    struct galloc_error err;
    CHECK(galloc_place_add_override(&p, GALLOC_OVERRIDE_N_CPU_MOE, NULL, 0, &err)); // -ncmoe 0: no override in llama.cpp
    CHECK(galloc_fit(toy_measure, &t, &s, &p, &f, &r, &err) && r.status == GALLOC_FIT_SUCCESS);
    galloc_fit_result_free(&r);
    // -cmoe on 150 MiB: 100 MiB used, 50 free < 100
    t.dev_mib[0] = 150;
    CHECK(galloc_place_add_override(&p, GALLOC_OVERRIDE_CPU_MOE, NULL, 0, &err));
    CHECK(galloc_fit(toy_measure, &t, &s, &p, &f, &r, &err) && r.status == GALLOC_FIT_FAILURE);
    CHECK(strcmp(r.reason, "model_params::tensor_buft_overrides already set by user, abort") == 0);
    galloc_fit_result_free(&r);
}

// MoE on 250 MiB (target 150): the dense-only layers do not all fit (5 layers, 4 of them partial:
// 190). False position: 5 * 150 / 190 = 3 layers, of which 2 partial (the output layer counts as
// the whole first one): layer 2 whole, 3 and the output dense-only: 110 + 20 + 20 = 150 fits;
// 2 * 0 / 40 -> 1: 4 layers 170 too many. Conversion: all 3 whole 240 > 150, delta 2, one step:
// (3, 1) 240 too many. One more layer: layer 3 with its up experts 180, not < 150; attention
// only 150, not < 150: (3, 2) stays, its partial layers' experts in the CPU.
static void test_moe_dense_only_steps(void) {
    struct toy t = { .n_layer = 4, .n_expert = 8, .attn = 20, .up = 30, .gate = 30, .down = 30, .output = 20, .n_ctx_train = 4096,
                     .n_dev = 1, .dev_mib = { 250 } };
    struct galloc_fit_result r;
    expect(toy_fit(&t, 4096, -1, 100, 4096, &r),
           "-c 4096 -ngl 3 -ot \"blk\\.3\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU,blk\\.4\\.ffn_(up|down|gate_up|gate)_(ch|)exps=CPU\"");
    CHECK(has_line(&r, "common_params_fit_impl: filling dense-only layers back-to-front:"));
    CHECK(has_line(&r, "common_params_fit_impl: id=0, n_layer= 3, n_part= 2, overflow_type=4, mem=   150 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device_high[0].n_layer=4"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):  3 layers,    150 MiB used,    100 MiB free"));
    CHECK(has_line(&r, "common_params_fit_impl: set ngl_per_device_high[0].(n_layer, n_part)=(3, 1), id_dense_start_high=0"));
    CHECK(has_line(&r, "common_params_fit_impl: id=0, n_layer= 3, n_part= 2, overflow_type=1, mem=   150 MiB"));
    CHECK(has_line(&r, "common_params_fit_impl:   - DEV0 (toy):  3 layers ( 2 overflowing),    150 MiB used,    100 MiB free"));
    galloc_fit_result_free(&r);
}

int main(void) {
    RUN(test_dense_one_device);
    RUN(test_dense_two_devices);
    RUN(test_context);
    RUN(test_moe_one_device);
    RUN(test_moe_dense_only_steps);
    return check_report("test-model-fit");
}
