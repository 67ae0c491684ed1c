// galloc-model-fit.c: llama.cpp's --fit (common/fit.cpp at 3f545bec), over a measuring function.
//
// The steps, their integer arithmetic (unsigned wrap-around included) and their messages follow
// common_params_fit_impl line by line; see galloc-model-fit.h for the algorithm in words. Its
// exceptions are a status here: FIT_FAIL for common_params_fit_exception (a failure to fit, with
// the reason), FIT_ERROR for an error (a measurement failed, out of memory, galloc's limits).

#include "galloc-model-fit.h"

#include "galloc-error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((int64_t) 1024 * 1024)
#define MAX_DEV GALLOC_PLACE_MAX_DEVICES
#define FN "common_params_fit_impl"

// which part of a layer overflows (common_layer_fraction_t)
enum layer_fraction { LF_NONE = 0, LF_ATTN = 1, LF_UP = 2, LF_GATE = 3, LF_MOE = 4 };

enum fit_exit { FIT_DONE, FIT_FAIL, FIT_ERROR };

struct ngl {
    uint32_t n_layer; // layers in total on the device
    uint32_t n_part;  // of which partial (their experts, or part of their FFN, elsewhere)
    enum layer_fraction overflow_type; // of the first partial layer; the others: LF_MOE
};

struct fit {
    galloc_fit_measure_fn measure;
    void *                user;
    const struct galloc_fit_settings * f;
    struct galloc_fit_result * out;
    struct galloc_error *      err;
    struct galloc_model_settings s; // cparams
    struct galloc_place_settings p; // mparams
    struct galloc_fit_measurement * m; // scratch for each measurement
    size_t   log_cap;
    bool     log_oom;
    uint32_t hp_ngl, hp_nct, hp_nex;
    size_t   nd;
    char     dev_names[MAX_DEV][112];
    char     dev_bufts[MAX_DEV][64];
};

// one dmds_t: per device in use, then the host
struct dmds {
    struct galloc_fit_memory d[MAX_DEV + 1];
};

static int64_t mem_total(const struct galloc_fit_memory * d) {
    return (int64_t) (d->model + d->context + d->compute);
}

static void trc(struct fit * F, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
static void trc(struct fit * F, const char * fmt, ...) {
    if (F->log_oom) {
        return;
    }
    struct galloc_fit_result * r = F->out;
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    const int k = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (k < 0) {
        va_end(again);
        return;
    }
    if (r->log_len + (size_t) k + 1 > F->log_cap) {
        size_t cap = F->log_cap ? F->log_cap : 1024;
        while (r->log_len + (size_t) k + 1 > cap) {
            cap *= 2;
        }
        char * s = realloc(r->log, cap);
        if (!s) {
            F->log_oom = true;
            va_end(again);
            return;
        }
        r->log = s;
        F->log_cap = cap;
    }
    vsnprintf(r->log + r->log_len, (size_t) k + 1, fmt, again);
    va_end(again);
    r->log_len += (size_t) k;
}

static enum fit_exit fail(struct fit * F, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
static enum fit_exit fail(struct fit * F, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(F->out->reason, sizeof(F->out->reason), fmt, args);
    va_end(args);
    return FIT_FAIL;
}

// common_get_device_memory_data: measures s, p; the first measurement names the devices
static bool get(struct fit * F, const struct galloc_model_settings * s, const struct galloc_place_settings * p, struct dmds * out) {
    memset(F->m, 0, sizeof(*F->m));
    F->out->n_measurements++;
    if (!F->measure(F->user, s, p, F->m, F->err)) {
        return false;
    }
    if (F->m->n_devices < 0 || F->m->n_devices > MAX_DEV) {
        return galloc_fail(F->err, GALLOC_STATUS_ARGUMENT, "--fit: the measurement reports %d devices", (int) F->m->n_devices);
    }
    F->nd = (size_t) F->m->n_devices;
    F->hp_ngl = F->m->n_layer;
    F->hp_nct = F->m->n_ctx_train;
    F->hp_nex = F->m->n_expert;
    memset(out, 0, sizeof(*out));
    for (size_t id = 0; id < F->nd; id++) {
        out->d[id] = F->m->mem[id];
        memcpy(F->dev_names[id], F->m->name[id], sizeof(F->dev_names[id]));
        F->dev_names[id][sizeof(F->dev_names[id]) - 1] = '\0';
        memcpy(F->dev_bufts[id], F->m->buft[id], sizeof(F->dev_bufts[id]));
        F->dev_bufts[id][sizeof(F->dev_bufts[id]) - 1] = '\0';
    }
    out->d[F->nd] = F->m->mem[F->nd];
    return true;
}

// get_overflow_pattern: the tensors of layer il that a layer fraction leaves out
static void overflow_pattern(char * out, size_t size, uint32_t il, enum layer_fraction lf) {
    const char * tail = lf == LF_ATTN ? "\\.ffn_(gate|up|gate_up|down).*"
                      : lf == LF_UP   ? "\\.ffn_(gate|gate_up|down).*"
                      : lf == LF_GATE ? "\\.ffn_down.*"
                                      : "\\.ffn_(up|down|gate_up|gate)_(ch|)exps";
    snprintf(out, size, "blk\\.%u%s", (unsigned) il, tail);
}

static const char * const pattern_moe_all = "blk\\.\\d+\\.ffn_(up|down|gate_up|gate)_(ch|)exps";

static void set_override(struct galloc_place_override * o, const char * pattern, const char * buft) {
    memset(o, 0, sizeof(*o));
    o->kind = GALLOC_OVERRIDE_PATTERN;
    snprintf(o->pattern, sizeof(o->pattern), "%s", pattern);
    snprintf(o->buft, sizeof(o->buft), "%s", buft);
}

// set_ngl_tensor_split_tbo: -ngl, -ts and the overrides for layers per device; overflow[id]: the
// buffer type a device's first partial layer overflows to (-1: the CPU, else a device in use)
static enum fit_exit set_ngl(struct fit * F, const struct ngl * per, const int32_t * overflow, struct galloc_place_settings * p) {
    const size_t nd = F->nd;
    p->n_gpu_layers = 0;
    for (size_t id = 0; id < nd; id++) {
        p->n_gpu_layers += (int32_t) per[id].n_layer;
        if (nd > 1) {
            p->tensor_split[id] = (float) per[id].n_layer;
        }
    }
    if (nd > 1) {
        p->n_tensor_split = (int32_t) nd;
    }
    uint32_t il0 = F->hp_ngl + 1 - (uint32_t) p->n_gpu_layers;
    int32_t itbo = 0;
    p->n_overrides = 0;
    for (size_t id = 0; id < nd; id++) {
        il0 += per[id].n_layer - per[id].n_part;
        for (uint32_t il = il0; il < il0 + per[id].n_part; il++) {
            if (itbo + 1 >= 4096) {
                return fail(F, "llama_max_tensor_buft_overrides() == 4096 is insufficient for model");
            }
            if (itbo >= GALLOC_PLACE_MAX_OVERRIDES) {
                galloc_fail(F->err, GALLOC_STATUS_LIMIT, "--fit: more than %d tensor overrides (galloc's limit)",
                            GALLOC_PLACE_MAX_OVERRIDES);
                return FIT_ERROR;
            }
            char pattern[GALLOC_PLACE_MAX_PATTERN];
            overflow_pattern(pattern, sizeof(pattern), il, il == il0 ? per[id].overflow_type : LF_MOE);
            const int32_t to = il == il0 ? overflow[id] : -1;
            set_override(&p->overrides[itbo], pattern, to < 0 ? "CPU" : F->dev_bufts[to]);
            itbo++;
        }
        il0 += per[id].n_part;
    }
    p->n_overrides = itbo;
    return FIT_DONE;
}

// get_memory_for_layers: each device's memory with these layers
static enum fit_exit memory_for_layers(struct fit * F, const struct ngl * per, const int32_t * overflow, int64_t * mem) {
    struct galloc_place_settings * copy = malloc(sizeof(*copy));
    struct dmds * d = malloc(sizeof(*d));
    enum fit_exit e = FIT_ERROR;
    if (!copy || !d) {
        galloc_fail(F->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        goto done;
    }
    *copy = F->p;
    e = set_ngl(F, per, overflow, copy);
    if (e != FIT_DONE) {
        goto done;
    }
    if (!get(F, &F->s, copy, d)) {
        e = FIT_ERROR;
        goto done;
    }
    trc(F, "%s: memory for test allocation by device:\n", FN);
    for (size_t id = 0; id < F->nd; id++) {
        trc(F, "%s: id=%zu, n_layer=%2" PRIu32 ", n_part=%2" PRIu32 ", overflow_type=%d, mem=%6" PRId64 " MiB\n", FN, id,
            per[id].n_layer, per[id].n_part, (int) per[id].overflow_type, mem_total(&d->d[id]) / MIB);
    }
    for (size_t id = 0; id < F->nd; id++) {
        mem[id] = mem_total(&d->d[id]);
    }
done:
    free(copy);
    free(d);
    return e;
}

static void copy_ngl(struct ngl * dst, const struct ngl * src, size_t nd) {
    memcpy(dst, src, nd * sizeof(*dst));
}

// step 2: a smaller context (common_params_fit_impl's second block). Returns FIT_DONE with *done
// set when the fit ends here.
static enum fit_exit reduce_context(struct fit * F, const int64_t * margins, bool n_ctx_auto,
                                    uint32_t n_ctx_max, uint32_t n_ctx_min_total, int64_t sum_free, int64_t sum_projected_free,
                                    int64_t sum_projected_used, int64_t sum_projected_model, bool * done) {
    const size_t nd = F->nd;
    *done = false;
    int64_t global_surplus = sum_projected_free;
    if (nd == 0) {
        global_surplus -= margins[0];
    } else {
        for (size_t id = 0; id < nd; id++) {
            global_surplus -= margins[id];
        }
    }
    if (global_surplus >= 0) {
        return FIT_DONE;
    }
    if (nd <= 1) {
        trc(F, "%s: cannot meet free memory target of %" PRId64 " MiB, need to reduce device memory by %" PRId64 " MiB\n", FN,
            margins[0] / MIB, -global_surplus / MIB);
    } else {
        trc(F, "%s: cannot meet free memory targets on all devices, need to use %" PRId64 " MiB less in total\n", FN,
            -global_surplus / MIB);
    }
    if (!n_ctx_auto) {
        trc(F, "%s: context size set by user to %" PRIu32 " -> no change\n", FN, (uint32_t) F->s.n_ctx);
        return FIT_DONE;
    }
    if (n_ctx_max <= n_ctx_min_total) {
        if (F->f->n_ctx_min == UINT32_MAX) {
            trc(F, "%s: user has requested full context size of %" PRIu32 " -> no change\n", FN, n_ctx_max);
        } else {
            trc(F, "%s: default model context size is %" PRIu32 " which is <= the min. context size of %" PRIu32 " -> no change\n",
                FN, n_ctx_max, n_ctx_min_total);
        }
        return FIT_DONE;
    }
    int64_t sum_used_target = sum_free;
    if (nd == 0) {
        sum_used_target -= margins[0];
    } else {
        for (size_t id = 0; id < nd; id++) {
            sum_used_target -= margins[id];
        }
    }
    if (nd > 1) {
        // only whole layers (dense) or whole tensors (MoE) go to a device: half a layer (a sixth)
        // wasted per device on average, nd + 1 of them to be safe
        const uint32_t ngl = (uint32_t) F->p.n_gpu_layers < F->hp_ngl ? (uint32_t) F->p.n_gpu_layers : F->hp_ngl;
        if (ngl == 0) {
            galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: llama.cpp divides by zero layers here (-ngl 0 with a context to reduce)");
            return FIT_ERROR;
        }
        const int64_t model_per_layer = sum_projected_model / (int64_t) ngl;
        sum_used_target = (int64_t) ((uint64_t) sum_used_target -
                                     (uint64_t) (nd + 1) * (uint64_t) model_per_layer / (uint64_t) (F->hp_nex == 0 ? 2 : 6));
    }

    F->s.n_ctx = n_ctx_min_total;
    struct dmds * min_ctx = malloc(sizeof(*min_ctx));
    if (!min_ctx) {
        galloc_fail(F->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return FIT_ERROR;
    }
    if (!get(F, &F->s, &F->p, min_ctx)) {
        free(min_ctx);
        return FIT_ERROR;
    }
    int64_t used_min_ctx = 0;
    if (nd == 0) {
        used_min_ctx = mem_total(&min_ctx->d[0]);
    } else {
        for (size_t id = 0; id < nd; id++) {
            used_min_ctx += mem_total(&min_ctx->d[id]);
        }
    }
    free(min_ctx);
    if (sum_used_target > used_min_ctx) {
        if (sum_projected_used == used_min_ctx) {
            galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: llama.cpp divides by zero here (the memory does not change with the context)");
            return FIT_ERROR;
        }
        // linear interpolation between the minimum and the maximum context
        uint32_t n_ctx = (uint32_t) F->s.n_ctx;
        n_ctx += (uint32_t) ((int64_t) (n_ctx_max - n_ctx_min_total) * (sum_used_target - used_min_ctx) /
                             (sum_projected_used - used_min_ctx));
        // rounded down for the CUDA backend, a multiple of the streams
        const uint32_t n_streams = F->s.n_seq > 1 ? (uint32_t) F->s.n_seq : 1;
        const uint32_t align = 256 * n_streams;
        n_ctx = n_ctx - n_ctx % align > n_ctx_min_total ? n_ctx - n_ctx % align : n_ctx_min_total;
        F->s.n_ctx = n_ctx;
        const int64_t bytes_per_ctx = (sum_projected_used - used_min_ctx) / (int64_t) (n_ctx_max - n_ctx_min_total);
        const int64_t reduction = (int64_t) (n_ctx_max - n_ctx) * bytes_per_ctx;
        trc(F, "%s: context size reduced from %" PRIu32 " to %" PRIu32 " -> need %" PRId64 " MiB less memory in total\n", FN,
            n_ctx_max, n_ctx, reduction / MIB);
        if (nd <= 1) {
            trc(F, "%s: entire model can be fit by reducing context\n", FN);
            *done = true;
            return FIT_DONE;
        }
        trc(F, "%s: entire model should be fit across devices by reducing context\n", FN);
    } else {
        const int64_t reduction = sum_projected_used - used_min_ctx;
        trc(F, "%s: context size reduced from %" PRIu32 " to %" PRIu32 " -> need %" PRId64 " MiB less memory in total\n", FN,
            n_ctx_max, (uint32_t) F->s.n_ctx, reduction / MIB);
    }
    return FIT_DONE;
}

// step 3: whole (dense-only) layers back to front by false position. mem: each device's memory
// with ngl (updated)
static enum fit_exit fill_dense(struct fit * F, struct ngl * ngl, const int32_t * overflow, int64_t * mem, const int64_t * targets,
                                const struct dmds * full) {
    const size_t nd = F->nd;
    struct ngl high[MAX_DEV], test[MAX_DEV];
    int64_t mem_high[MAX_DEV], mem_test[MAX_DEV];
    enum fit_exit e;
    trc(F, "%s: filling %s layers back-to-front:\n", FN, F->hp_nex == 0 ? "dense" : "dense-only");
    for (int id = (int) nd - 1; id >= 0; id--) {
        uint32_t n_unassigned = F->hp_ngl + 1;
        for (size_t jd = (size_t) id + 1; jd < nd; jd++) {
            n_unassigned -= ngl[jd].n_layer;
        }
        copy_ngl(high, ngl, nd);
        high[id].n_layer = n_unassigned;
        if (F->hp_nex > 0) {
            high[id].n_part = (size_t) id < nd - 1 ? high[id].n_layer : high[id].n_layer - 1;
        }
        if (high[id].n_layer > 0) {
            if ((e = memory_for_layers(F, high, overflow, mem_high)) != FIT_DONE) {
                return e;
            }
            if (mem_high[id] > targets[id]) {
                uint32_t delta = high[id].n_layer - ngl[id].n_layer;
                trc(F, "%s: start filling device %" PRIu32 ", delta=%" PRIu32 "\n", FN, (uint32_t) id, delta);
                while (delta > 1) {
                    if (mem_high[id] == mem[id]) {
                        galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: llama.cpp divides by zero here (device %d)", id);
                        return FIT_ERROR;
                    }
                    uint32_t step = (uint32_t) ((int64_t) delta * (targets[id] - mem[id]) / (mem_high[id] - mem[id]));
                    step = step > 1 ? step : 1;
                    step = step < delta - 1 ? step : delta - 1;
                    copy_ngl(test, ngl, nd);
                    test[id].n_layer += step;
                    if (F->hp_nex) {
                        // the first layer is the output layer, which is always whole
                        test[id].n_part += (size_t) id == nd - 1 && test[id].n_part == 0 ? step - 1 : step;
                    }
                    if ((e = memory_for_layers(F, test, overflow, mem_test)) != FIT_DONE) {
                        return e;
                    }
                    if (mem_test[id] <= targets[id]) {
                        copy_ngl(ngl, test, nd);
                        memcpy(mem, mem_test, nd * sizeof(*mem));
                        trc(F, "%s: set ngl_per_device[%d].n_layer=%" PRIu32 "\n", FN, id, ngl[id].n_layer);
                    } else {
                        copy_ngl(high, test, nd);
                        memcpy(mem_high, mem_test, nd * sizeof(*mem));
                        trc(F, "%s: set ngl_per_device_high[%d].n_layer=%" PRIu32 "\n", FN, id, high[id].n_layer);
                    }
                    delta = high[id].n_layer - ngl[id].n_layer;
                }
            } else {
                copy_ngl(ngl, high, nd);
                memcpy(mem, mem_high, nd * sizeof(*mem));
                trc(F, "%s: set ngl_per_device[%d].n_layer=%" PRIu32 "\n", FN, id, ngl[id].n_layer);
            }
        }
        const int64_t projected_margin = full->d[id].free - mem[id];
        trc(F, "%s:   - %s: %2" PRIu32 " layers, %6" PRId64 " MiB used, %6" PRId64 " MiB free\n", FN, F->dev_names[id],
            ngl[id].n_layer, mem[id] / MIB, projected_margin / MIB);
    }
    return FIT_DONE;
}

// step 4 for device id: the extra partial layer (LAYER_FRACTION_UP, then _GATE; or _ATTN)
static enum fit_exit one_more_layer(struct fit * F, size_t id, struct ngl * ngl, int32_t * overflow, int64_t * mem,
                                    const int64_t * targets, size_t * id_dense_start) {
    const size_t nd = F->nd;
    struct ngl test[MAX_DEV];
    int32_t overflow_test[MAX_DEV];
    int64_t mem_test[MAX_DEV];
    enum fit_exit e;
    if (*id_dense_start >= nd) {
        galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: llama.cpp reads past its device list here (every layer converted)");
        return FIT_ERROR;
    }
    if (!(ngl[*id_dense_start].n_layer > (id < nd - 1 ? 0u : 1u))) {
        return FIT_DONE;
    }
    copy_ngl(test, ngl, nd);
    size_t id_dense_start_test = *id_dense_start;
    test[id_dense_start_test].n_layer--;
    test[id_dense_start_test].n_part--;
    test[id].n_layer++;
    test[id].n_part++;
    if (test[id_dense_start_test].n_part == 0) {
        id_dense_start_test++;
    }
    test[id].overflow_type = LF_UP;
    memcpy(overflow_test, overflow, nd * sizeof(*overflow));
    if (id < nd - 1) {
        overflow_test[id] = (int32_t) id + 1;
    }
    trc(F, "%s: trying to fit one extra layer with overflow_type=LAYER_FRACTION_UP\n", FN);
    if ((e = memory_for_layers(F, test, overflow_test, mem_test)) != FIT_DONE) {
        return e;
    }
    if (mem_test[id] < targets[id] && (id + 1 == nd || mem_test[id + 1] < targets[id + 1])) {
        copy_ngl(ngl, test, nd);
        memcpy(overflow, overflow_test, nd * sizeof(*overflow));
        memcpy(mem, mem_test, nd * sizeof(*mem));
        *id_dense_start = id_dense_start_test;
        trc(F, "%s: set ngl_per_device[%zu].(n_layer, n_part, overflow_type)=(%" PRIu32 ", %" PRIu32 ", UP), id_dense_start=%zu\n", FN,
            id, ngl[id].n_layer, ngl[id].n_part, *id_dense_start);

        test[id].overflow_type = LF_GATE;
        trc(F, "%s: trying to fit one extra layer with overflow_type=LAYER_FRACTION_GATE\n", FN);
        if ((e = memory_for_layers(F, test, overflow_test, mem_test)) != FIT_DONE) {
            return e;
        }
        if (mem_test[id] < targets[id] && (id + 1 == nd || mem_test[id + 1] < targets[id + 1])) {
            copy_ngl(ngl, test, nd);
            memcpy(overflow, overflow_test, nd * sizeof(*overflow));
            memcpy(mem, mem_test, nd * sizeof(*mem));
            *id_dense_start = id_dense_start_test;
            trc(F, "%s: set ngl_per_device[%zu].(n_layer, n_part, overflow_type)=(%" PRIu32 ", %" PRIu32 ", GATE), id_dense_start=%zu\n",
                FN, id, ngl[id].n_layer, ngl[id].n_part, *id_dense_start);
        }
    } else {
        test[id].overflow_type = LF_ATTN;
        trc(F, "%s: trying to fit one extra layer with overflow_type=LAYER_FRACTION_ATTN\n", FN);
        if ((e = memory_for_layers(F, test, overflow_test, mem_test)) != FIT_DONE) {
            return e;
        }
        if (mem_test[id] < targets[id] && (id + 1 == nd || mem_test[id + 1] < targets[id + 1])) {
            copy_ngl(ngl, test, nd);
            memcpy(overflow, overflow_test, nd * sizeof(*overflow));
            memcpy(mem, mem_test, nd * sizeof(*mem));
            *id_dense_start = id_dense_start_test;
            trc(F, "%s: set ngl_per_device[%zu].(n_layer, n_part, overflow_type)=(%" PRIu32 ", %" PRIu32 ", ATTN), id_dense_start=%zu\n",
                FN, id, ngl[id].n_layer, ngl[id].n_part, *id_dense_start);
        }
    }
    return FIT_DONE;
}

// step 4: a MoE model whose dense weights fit: dense-only layers in the back become full layers in
// the front, device by device
static enum fit_exit fill_moe(struct fit * F, struct ngl * ngl, int32_t * overflow, int64_t * mem, const int64_t * targets,
                              const struct dmds * full) {
    const size_t nd = F->nd;
    struct ngl high[MAX_DEV], test[MAX_DEV];
    int64_t mem_high[MAX_DEV], mem_test[MAX_DEV];
    enum fit_exit e;
    size_t id_dense_start = nd;
    for (int id = (int) nd - 1; id >= 0; id--) {
        if (ngl[id].n_layer > 0) {
            id_dense_start = (size_t) id;
            continue;
        }
        break;
    }
    if (id_dense_start >= nd) {
        galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: no device holds a layer (llama.cpp asserts here)");
        return FIT_ERROR;
    }
    trc(F, "%s: converting dense-only layers to full layers and filling them front-to-back with overflow to next device/system memory:\n",
        FN);
    for (size_t id = 0; id <= id_dense_start && id_dense_start < nd; id++) {
        copy_ngl(high, ngl, nd);
        for (size_t jd = id_dense_start; jd < nd; jd++) {
            const uint32_t n_layer_move = jd < nd - 1 ? high[jd].n_layer : high[jd].n_layer - 1;
            high[id].n_layer += n_layer_move;
            high[jd].n_layer -= n_layer_move;
            high[jd].n_part = 0;
        }
        size_t id_dense_start_high = nd - 1;
        if ((e = memory_for_layers(F, high, overflow, mem_high)) != FIT_DONE) {
            return e;
        }
        if (mem_high[id] > targets[id]) {
            uint32_t delta = (high[id].n_layer - high[id].n_part) - (ngl[id].n_layer - ngl[id].n_part);
            while (delta > 1) {
                if (mem_high[id] == mem[id]) {
                    galloc_fail(F->err, GALLOC_STATUS_DECLINED, "--fit: llama.cpp divides by zero here (device %zu)", id);
                    return FIT_ERROR;
                }
                uint32_t step = (uint32_t) ((int64_t) delta * (targets[id] - mem[id]) / (mem_high[id] - mem[id]));
                step = step > 1 ? step : 1;
                step = step < delta - 1 ? step : delta - 1;
                copy_ngl(test, ngl, nd);
                size_t id_dense_start_test = id_dense_start;
                uint32_t n_converted = 0;
                for (; id_dense_start_test < nd; id_dense_start_test++) {
                    const uint32_t left = step - n_converted;
                    const uint32_t n_convert = left < test[id_dense_start_test].n_part ? left : test[id_dense_start_test].n_part;
                    test[id_dense_start_test].n_layer -= n_convert;
                    test[id_dense_start_test].n_part -= n_convert;
                    test[id].n_layer += n_convert;
                    n_converted += n_convert;
                    if (test[id_dense_start_test].n_part > 0) {
                        break;
                    }
                }
                if ((e = memory_for_layers(F, test, overflow, mem_test)) != FIT_DONE) {
                    return e;
                }
                if (mem_test[id] <= targets[id]) {
                    copy_ngl(ngl, test, nd);
                    memcpy(mem, mem_test, nd * sizeof(*mem));
                    id_dense_start = id_dense_start_test;
                    trc(F, "%s: set ngl_per_device[%zu].(n_layer, n_part)=(%" PRIu32 ", %" PRIu32 "), id_dense_start=%zu\n", FN, id,
                        ngl[id].n_layer, ngl[id].n_part, id_dense_start);
                } else {
                    copy_ngl(high, test, nd);
                    memcpy(mem_high, mem_test, nd * sizeof(*mem));
                    id_dense_start_high = id_dense_start_test;
                    trc(F, "%s: set ngl_per_device_high[%zu].(n_layer, n_part)=(%" PRIu32 ", %" PRIu32 "), id_dense_start_high=%zu\n", FN,
                        id, high[id].n_layer, high[id].n_part, id_dense_start_high);
                }
                delta = (high[id].n_layer - high[id].n_part) - (ngl[id].n_layer - ngl[id].n_part);
            }
        } else {
            copy_ngl(ngl, high, nd);
            memcpy(mem, mem_high, nd * sizeof(*mem));
            id_dense_start = id_dense_start_high;
            trc(F, "%s: set ngl_per_device[%zu].(n_layer, n_part)=(%" PRIu32 ", %" PRIu32 "), id_dense_start=%zu\n", FN, id,
                ngl[id].n_layer, ngl[id].n_part, id_dense_start);
        }

        // try to fit at least part of one more layer
        if ((e = one_more_layer(F, id, ngl, overflow, mem, targets, &id_dense_start)) != FIT_DONE) {
            return e;
        }
        const int64_t projected_margin = full->d[id].free - mem[id];
        trc(F, "%s:   - %s: %2" PRIu32 " layers (%2" PRIu32 " overflowing), %6" PRId64 " MiB used, %6" PRId64 " MiB free\n", FN,
            F->dev_names[id], ngl[id].n_layer, ngl[id].n_part, mem[id] / MIB, projected_margin / MIB);
    }
    // the devices the conversion did not change
    for (size_t id = id_dense_start + 1; id < nd; id++) {
        const int64_t projected_margin = full->d[id].free - mem[id];
        trc(F, "%s:   - %s: %2" PRIu32 " layers (%2" PRIu32 " overflowing), %6" PRId64 " MiB used, %6" PRId64 " MiB free\n", FN,
            F->dev_names[id], ngl[id].n_layer, ngl[id].n_part, mem[id] / MIB, projected_margin / MIB);
    }
    return FIT_DONE;
}

// common_params_fit_impl
static enum fit_exit fit_impl(struct fit * F) {
    // (-sm tensor, which llama.cpp refuses here, is refused by galloc's flags already)
    struct dmds * full = malloc(sizeof(*full));
    if (!full) {
        galloc_fail(F->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return FIT_ERROR;
    }
    enum fit_exit e = FIT_ERROR;
    const uint32_t n_streams = F->s.n_seq > 1 ? (uint32_t) F->s.n_seq : 1;
    const bool n_ctx_auto = F->s.n_ctx == 0;

    // step 1: the memory with the user's flags; are changes needed at all?
    trc(F, "%s: getting device memory data for initial parameters:\n", FN);
    if (!get(F, &F->s, &F->p, full)) {
        goto done;
    }
    const uint64_t max64 = (uint64_t) F->hp_nct * n_streams, min64 = (uint64_t) F->f->n_ctx_min * n_streams;
    const uint32_t n_ctx_max = max64 < UINT32_MAX ? (uint32_t) max64 : UINT32_MAX;
    const uint32_t n_ctx_min_total = min64 < UINT32_MAX ? (uint32_t) min64 : UINT32_MAX;
    if (n_ctx_auto) {
        F->s.n_ctx = n_ctx_max;
        if (n_streams > 1) {
            trc(F, "%s: context size unset and KV cache not unified -> using %" PRIu32 " for %" PRIu32 " sequences:\n", FN, n_ctx_max,
                n_streams);
            if (!get(F, &F->s, &F->p, full)) {
                goto done;
            }
        }
    }
    const size_t nd = F->nd;
    int64_t margins[MAX_DEV];
    margins[0] = (int64_t) F->f->margins[0];
    for (size_t id = 0; id < nd; id++) {
        margins[id] = (int64_t) F->f->margins[id];
    }
    // device names padded to the longest
    size_t max_length = 0;
    for (size_t id = 0; id < nd; id++) {
        const size_t n = strlen(F->dev_names[id]);
        max_length = n > max_length ? n : max_length;
    }
    for (size_t id = 0; id < nd; id++) {
        const size_t n = strlen(F->dev_names[id]);
        if (max_length < sizeof(F->dev_names[id])) {
            memset(F->dev_names[id] + n, ' ', max_length - n);
            F->dev_names[id][max_length] = '\0';
        }
    }

    int64_t sum_free = 0, sum_projected_free = 0, sum_projected_used = 0, sum_projected_model = 0;
    if (nd == 0) {
        sum_projected_used = mem_total(&full->d[0]);
        sum_free = full->d[0].total;
        sum_projected_free = sum_free - sum_projected_used;
        trc(F, "%s: projected to use %" PRId64 " MiB of host memory vs. %" PRId64 " MiB of total host memory\n", FN,
            sum_projected_used / MIB, sum_free / MIB);
        if (sum_projected_free >= margins[0]) {
            trc(F, "%s: will leave %" PRId64 " >= %" PRId64 " MiB of system memory, no changes needed\n", FN, sum_projected_free / MIB,
                margins[0] / MIB);
            e = FIT_DONE;
            goto done;
        }
    } else {
        int64_t projected_free_per_device[MAX_DEV];
        if (nd > 1) {
            trc(F, "%s: projected memory use with initial parameters [MiB]:\n", FN);
        }
        for (size_t id = 0; id < nd; id++) {
            const struct galloc_fit_memory * d = &full->d[id];
            const int64_t projected_used = mem_total(d);
            const int64_t projected_free = d->free - projected_used;
            projected_free_per_device[id] = projected_free;
            sum_free += d->free;
            sum_projected_used += projected_used;
            sum_projected_free += projected_free;
            sum_projected_model += (int64_t) d->model;
            if (nd > 1) {
                trc(F, "%s:   - %s: %6" PRId64 " total, %6" PRId64 " used, %6" PRId64 " free vs. target of %6" PRId64 "\n", FN,
                    F->dev_names[id], d->total / MIB, projected_used / MIB, projected_free / MIB, margins[id] / MIB);
            }
        }
        trc(F, "%s: projected to use %" PRId64 " MiB of device memory vs. %" PRId64 " MiB of free device memory\n", FN,
            sum_projected_used / MIB, sum_free / MIB);
        if (nd == 1) {
            if (projected_free_per_device[0] >= margins[0]) {
                trc(F, "%s: will leave %" PRId64 " >= %" PRId64 " MiB of free device memory, no changes needed\n", FN,
                    projected_free_per_device[0] / MIB, margins[0] / MIB);
                e = FIT_DONE;
                goto done;
            }
        } else {
            bool changes_needed = false;
            for (size_t id = 0; id < nd; id++) {
                changes_needed = changes_needed || projected_free_per_device[id] < margins[id];
            }
            if (!changes_needed) {
                trc(F, "%s: targets for free memory can be met on all devices, no changes needed\n", FN);
                e = FIT_DONE;
                goto done;
            }
        }
    }

    // step 2: a smaller context
    bool done = false;
    e = reduce_context(F, margins, n_ctx_auto, n_ctx_max, n_ctx_min_total, sum_free, sum_projected_free, sum_projected_used,
                       sum_projected_model, &done);
    if (e != FIT_DONE || done) {
        goto done;
    }
    if (nd == 0) {
        e = fail(F, "was unable to fit model into system memory by reducing context, abort");
        goto done;
    }
    if (F->p.n_gpu_layers != -1) {
        e = fail(F, "n_gpu_layers already set by user to %d, abort", (int) F->p.n_gpu_layers);
        goto done;
    }
    if (nd > 1) {
        for (size_t id = 0; id < nd; id++) {
            if ((int32_t) id < F->p.n_tensor_split && F->p.tensor_split[id] != 0.0f) {
                e = fail(F, "model_params::tensor_split already set by user, abort");
                goto done;
            }
        }
        if (F->p.split_mode == GALLOC_SPLIT_ROW) {
            e = fail(F, "changing weight allocation for LLAMA_SPLIT_MODE_ROW not implemented, abort");
            goto done;
        }
    }
    bool user_overrides = false; // -ncmoe 0 adds none in llama.cpp
    for (int32_t o = 0; o < F->p.n_overrides; o++) {
        user_overrides = user_overrides || F->p.overrides[o].kind != GALLOC_OVERRIDE_N_CPU_MOE || F->p.overrides[o].n > 0;
    }
    if (user_overrides) {
        e = fail(F, "model_params::tensor_buft_overrides already set by user, abort");
        goto done;
    }

    // step 3: fill the devices back to front with dense (a MoE model: dense-only) layers
    int64_t global_surplus_cpu_moe = 0;
    if (F->hp_nex > 0) {
        struct galloc_place_settings * q = malloc(sizeof(*q));
        struct dmds * cpu_moe = malloc(sizeof(*cpu_moe));
        bool ok = q && cpu_moe;
        if (!ok) {
            galloc_fail(F->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        } else {
            *q = F->p;
            set_override(&q->overrides[0], pattern_moe_all, "CPU");
            q->n_overrides = 1;
            trc(F, "%s: getting device memory data with all MoE tensors moved to system memory:\n", FN);
            ok = get(F, &F->s, q, cpu_moe);
            for (size_t id = 0; ok && id < nd; id++) {
                global_surplus_cpu_moe += cpu_moe->d[id].free;
                global_surplus_cpu_moe -= mem_total(&cpu_moe->d[id]) + margins[id];
            }
        }
        free(q);
        free(cpu_moe);
        if (!ok) {
            e = FIT_ERROR;
            goto done;
        }
        if (global_surplus_cpu_moe > 0) {
            trc(F, "%s: with only dense weights in device memory there is a total surplus of %" PRId64 " MiB\n", FN,
                global_surplus_cpu_moe / MIB);
        } else {
            trc(F, "%s: with only dense weights in device memory there is still a total deficit of %" PRId64 " MiB\n", FN,
                -global_surplus_cpu_moe / MIB);
        }
    }
    int64_t targets[MAX_DEV];
    for (size_t id = 0; id < nd; id++) {
        targets[id] = full->d[id].free - margins[id];
        trc(F, "%s: id=%zu, target=%" PRId64 " MiB\n", FN, id, targets[id] / MIB);
    }
    int32_t overflow[MAX_DEV];
    struct ngl ngl[MAX_DEV];
    int64_t mem[MAX_DEV];
    for (size_t id = 0; id < nd; id++) {
        overflow[id] = -1;
        ngl[id] = (struct ngl) { 0, 0, LF_MOE };
    }
    if ((e = memory_for_layers(F, ngl, overflow, mem)) != FIT_DONE) {
        goto done;
    }
    if ((e = fill_dense(F, ngl, overflow, mem, targets, full)) != FIT_DONE) {
        goto done;
    }
    if (F->hp_nex == 0 || global_surplus_cpu_moe <= 0) {
        e = set_ngl(F, ngl, overflow, &F->p);
        goto done;
    }

    // step 4: a MoE model whose dense weights fit
    if ((e = fill_moe(F, ngl, overflow, mem, targets, full)) != FIT_DONE) {
        goto done;
    }
    e = set_ngl(F, ngl, overflow, &F->p);
done:
    free(full);
    return e;
}

void galloc_fit_settings_default(struct galloc_fit_settings * f) {
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < MAX_DEV; i++) {
        f->margins[i] = (uint64_t) 1024 * 1024 * 1024;
    }
    f->n_ctx_min = 4096;
}

bool galloc_fit(galloc_fit_measure_fn measure, void * user, const struct galloc_model_settings * s,
                const struct galloc_place_settings * p, const struct galloc_fit_settings * f, struct galloc_fit_result * out,
                struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    struct fit * F = calloc(1, sizeof(*F));
    struct galloc_fit_measurement * m = calloc(1, sizeof(*m));
    if (!F || !m) {
        free(F);
        free(m);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    F->measure = measure;
    F->user    = user;
    F->f       = f;
    F->out     = out;
    F->err     = err;
    F->s       = *s;
    F->p       = *p;
    F->m       = m;
    const enum fit_exit e = fit_impl(F);
    out->s = F->s;
    out->p = F->p;
    out->n_devices = (int32_t) F->nd;
    if (e == FIT_DONE) {
        out->status = GALLOC_FIT_SUCCESS;
        trc(F, "common_fit_params: successfully fit params to free device memory\n");
    } else if (e == FIT_FAIL) {
        out->status = GALLOC_FIT_FAILURE;
        trc(F, "common_fit_params: failed to fit params to free device memory: %s\n", out->reason);
    } else {
        trc(F, "common_fit_params: encountered an error while trying to fit params to free device memory: %s\n",
            err ? err->message : "");
    }
    const bool oom = F->log_oom;
    free(F);
    free(m);
    if (oom && e != FIT_ERROR) {
        galloc_fit_result_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    if (!out->log) {
        out->log = calloc(1, 1);
    }
    return e != FIT_ERROR;
}

void galloc_fit_result_free(struct galloc_fit_result * r) {
    if (r) {
        free(r->log);
        r->log = NULL;
        r->log_len = 0;
    }
}
