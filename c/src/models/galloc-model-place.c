// galloc-model-place.c: llama.cpp's placement of weights and memory over devices (see galloc-model-place.h).
//
// As llama_model_load (the device list, -sm none keeping the main device), load_tensors (the layer
// split by -ts or the devices' free memory, the CPU and device buffer type lists),
// llama_model_loader::create_tensor (the layer's list by the tensor's info, -ot overrides with CPU
// overrides choosing among the CPU's list, select_weight_buft's first buffer type whose device
// supports the weight's op, TENSOR_DUPLICATED's one tensor per buffer type) and the memory
// (llama_kv_cache, llama_memory_recurrent, the hybrid memories: each layer's tensors on its
// layer's device, or the CPU with -nkvo). Every architecture galloc builds is placed from what its
// builder creates: the weights (with llama.cpp's generic pass of scales) and the memory tensors of
// its memory kind and layer filters, in creation order (galloc_model_build_memory). Sizes
// are ggml_backend_alloc_ctx_tensors_from_buft_size's: every tensor's alloc size padded to its
// buffer type's alignment, per buffer type, as llama_get_memory_breakdown reports them in
// no_alloc mode (load mode none: a device's host buffer type keeps the CPU's weights).

#include "galloc-error.h"
#include "galloc-model-impl.h"
#include "galloc-model-place-impl.h"
#include "galloc-virtual.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLACE_MAX_BUFTS (2 * GALLOC_PLACE_MAX_DEVICES + 2)

//
// settings
//

void galloc_place_settings_default(struct galloc_place_settings * p) {
    memset(p, 0, sizeof(*p));
    p->n_gpu_layers = -1;
    p->split_mode   = GALLOC_SPLIT_LAYER;
}

bool galloc_place_add_device(struct galloc_place_settings * p, enum galloc_device_kind kind, uint64_t memory,
                             struct galloc_error * err) {
    if (p->n_devices >= GALLOC_PLACE_MAX_DEVICES) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "--device: at most %d devices", GALLOC_PLACE_MAX_DEVICES);
    }
    if (!galloc_place_profile(kind)) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "--device: unknown device kind %d", (int) kind);
    }
    p->devices[p->n_devices].kind   = kind;
    p->devices[p->n_devices].memory = memory;
    p->n_devices++;
    return true;
}

bool galloc_place_add_override(struct galloc_place_settings * p, enum galloc_override_kind kind, const char * value, int32_t n,
                               struct galloc_error * err) {
    if (kind == GALLOC_OVERRIDE_CPU_MOE || kind == GALLOC_OVERRIDE_N_CPU_MOE) {
        if (kind == GALLOC_OVERRIDE_N_CPU_MOE && n < 0) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ncmoe: invalid value");
        }
        if (p->n_overrides >= GALLOC_PLACE_MAX_OVERRIDES) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: at most %d overrides", kind == GALLOC_OVERRIDE_CPU_MOE ? "-cmoe" : "-ncmoe",
                               GALLOC_PLACE_MAX_OVERRIDES);
        }
        struct galloc_place_override * o = &p->overrides[p->n_overrides++];
        memset(o, 0, sizeof(*o));
        o->kind = kind;
        o->n    = n;
        snprintf(o->buft, sizeof(o->buft), "CPU");
        return true;
    }
    if (kind != GALLOC_OVERRIDE_PATTERN || !value) {
        return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ot: invalid value");
    }
    // PATTERN=BUFT,PATTERN=BUFT (llama.cpp splits at every ',' and each item at its first '=')
    const char * s = value;
    for (;;) {
        const char * end = strchr(s, ',');
        const size_t len = end ? (size_t) (end - s) : strlen(s);
        const char * eq = memchr(s, '=', len);
        if (!eq) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ot: invalid value '%.*s' (PATTERN=BUFFER_TYPE)", (int) (len > 100 ? 100 : len), s);
        }
        const size_t plen = (size_t) (eq - s), blen = len - plen - 1;
        if (plen >= GALLOC_PLACE_MAX_PATTERN || blen >= sizeof(p->overrides[0].buft)) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ot: '%.*s' is too long", (int) (len > 100 ? 100 : len), s);
        }
        if (p->n_overrides >= GALLOC_PLACE_MAX_OVERRIDES) {
            return galloc_fail(err, GALLOC_STATUS_ARGUMENT, "-ot: at most %d overrides", GALLOC_PLACE_MAX_OVERRIDES);
        }
        struct galloc_place_override * o = &p->overrides[p->n_overrides++];
        memset(o, 0, sizeof(*o));
        o->kind = GALLOC_OVERRIDE_PATTERN;
        memcpy(o->pattern, s, plen);
        memcpy(o->buft, eq + 1, blen);
        if (!end) {
            return true;
        }
        s = end + 1;
    }
}

//
// the placement's state
//

struct buft_entry {
    const struct place_profile * profile; // alloc size rule; NULL: ggml_nbytes
    size_t  alignment;
    int32_t dev;          // the kept device whose supports_op decides (-1: the CPU, which supports everything)
    bool    has_weights, has_kv, is_backend;
};

struct place_state {
    const struct galloc_model *  m;
    const struct model_hparams * hp;
    struct galloc_placement *    pl;
    struct buft_entry            bufts[PLACE_MAX_BUFTS];
    // kept devices (after -sm none)
    int32_t n_kept;
    int32_t kept[GALLOC_PLACE_MAX_DEVICES];        // index in --device order
    const struct place_profile * kept_profile[GALLOC_PLACE_MAX_DEVICES];
    int32_t kept_buft[GALLOC_PLACE_MAX_DEVICES];   // each kept device's default buffer type
    int32_t host_buft;                             // the CPU list's host buffer type (-1: none)
    int32_t cpu_buft;
    int32_t cpu_list[2], n_cpu_list;
    struct place_regex * regex[GALLOC_PLACE_MAX_OVERRIDES];
    int32_t override_buft[GALLOC_PLACE_MAX_OVERRIDES]; // -1: CPU (choose among the CPU list)
    const struct galloc_place_settings * p;
    struct galloc_error * err;
};

static bool n_cpu_moe_match(const struct galloc_place_settings * p, int32_t o, const char * name);

// a NUL-terminated copy of src cut to size - 1 bytes
static void set_str(char * dst, size_t size, const char * src) {
    size_t n = strlen(src);
    n = n < size ? n : size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int32_t add_buft(struct place_state * st, const char * name, int32_t device, bool is_host, const struct place_profile * pr,
                        size_t alignment, int32_t dev) {
    struct galloc_placement * pl = st->pl;
    const int32_t i = pl->n_bufts++;
    set_str(pl->bufts[i].name, sizeof(pl->bufts[i].name), name);
    pl->bufts[i].device  = device;
    pl->bufts[i].is_host = is_host;
    st->bufts[i].profile   = pr;
    st->bufts[i].alignment = alignment;
    st->bufts[i].dev       = dev;
    return i;
}

static uint64_t pad_to(uint64_t x, uint64_t a) {
    return (x + a - 1) / a * a;
}

// does the device behind buffer type b support op on weight w (weight_buft_supported)? Only a
// size limit on the op's tensors is modelled (llvmpipe's storage buffer range): 1 yes, 0 no, -1
// for an op whose test tensors are not modelled here
static int weight_supported(const struct place_state * st, int32_t b, const struct ggml_tensor * w, enum ggml_op op) {
    const int32_t dev = st->bufts[b].dev;
    if (dev < 0 || st->kept_profile[dev]->max_tensor == 0) {
        return 1;
    }
    const uint64_t limit = st->kept_profile[dev]->max_tensor;
    const uint64_t n_used = st->hp->n_expert_used, f32 = 4, t = 512;
    const uint64_t ne0 = (uint64_t) w->ne[0], ne1 = (uint64_t) w->ne[1], ne23 = (uint64_t) (w->ne[2] * w->ne[3]);
    uint64_t sizes[4] = { ggml_nbytes(w), 0, 0, 0 };
    switch (op) {
        case GGML_OP_GET_ROWS:   sizes[1] = t * 4; sizes[2] = ne0 * t * f32; break;
        case GGML_OP_MUL_MAT:    sizes[1] = ne0 * t * ne23 * f32; sizes[2] = ne1 * t * ne23 * f32; break;
        case GGML_OP_MUL_MAT_ID: sizes[1] = ne0 * n_used * t * f32; sizes[2] = n_used * t * 4; sizes[3] = ne1 * n_used * t * f32; break;
        case GGML_OP_ADD:
        case GGML_OP_MUL:        sizes[1] = sizes[2] = (uint64_t) ggml_nelements(w) * f32; break;
        case GGML_OP_ADD_ID:     sizes[1] = sizes[3] = ne0 * n_used * t * f32; sizes[2] = n_used * t * 4; break;
        case GGML_OP_ROPE:       sizes[1] = sizes[2] = (uint64_t) galloc_hp_n_embd_head_v(st->hp, 0) * st->hp->n_head[0] * t * f32;
                                 sizes[3] = t * 4; break;
        case GGML_OP_SCALE:      sizes[1] = ggml_nbytes(w); break;
        case GGML_OP_DIV:        sizes[1] = ne0 * f32; break;
        default: return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (sizes[i] > limit) {
            return 0;
        }
    }
    return 1;
}

// the first buffer type of the list whose device supports the weight; -1 for none, -2 for a
// device whose answer is not modelled
static int32_t select_buft(const struct place_state * st, const int32_t * list, int32_t n, const struct ggml_tensor * w, enum ggml_op op) {
    for (int32_t i = 0; i < n; i++) {
        const int r = weight_supported(st, list[i], w, op);
        if (r != 0) {
            return r > 0 ? list[i] : -2;
        }
    }
    return -1;
}

// the buffer type list of layer il (n_layer: the output layer): its device's, then the CPU's
static int32_t layer_list(const struct place_state * st, int32_t il, int32_t * list) {
    const int32_t dev = st->pl->layer_device[il];
    int32_t n = 0;
    if (dev >= 0) {
        for (int32_t k = 0; k < st->n_kept; k++) {
            if (st->kept[k] == dev) {
                list[n++] = st->kept_buft[k];
            }
        }
    }
    for (int32_t i = 0; i < st->n_cpu_list; i++) {
        list[n++] = st->cpu_list[i];
    }
    return n;
}

// a weight's use by a layer in buffer type b; counted: the first in b (a duplicated tensor's other
// uses there share it, bytes 0)
static bool add_weight(struct place_state * st, const struct ggml_tensor * t, int32_t layer, int32_t b, bool counted) {
    struct galloc_placement * pl = st->pl;
    struct galloc_place_weight * w = &pl->weights[pl->n_weights++];
    set_str(w->name, sizeof(w->name), ggml_get_name(t));
    w->layer = layer;
    w->buft  = b;
    w->bytes = counted ? pad_to(galloc_place_alloc_size(st->bufts[b].profile, t), st->bufts[b].alignment) : 0;
    pl->bufts[b].model += w->bytes;
    st->bufts[b].has_weights = true;
    return true;
}

// create_tensor's choice for one weight: overrides first, then the layer's list
static bool place_weight(struct place_state * st, const struct ggml_tensor * t, const struct place_tensor_info * info, bool bias,
                         int32_t il, int32_t * out) {
    const char * name = ggml_get_name(t);
    enum ggml_op op = info->op;
    if (bias) {
        op = info->op == GGML_OP_MUL_MAT_ID ? GGML_OP_ADD_ID : GGML_OP_ADD;
    }
    int32_t list[PLACE_MAX_BUFTS];
    int32_t n;
    if (info->layer == LAYER_INPUT) {
        n = st->n_cpu_list;
        memcpy(list, st->cpu_list, sizeof(int32_t) * (size_t) n);
    } else {
        n = layer_list(st, info->layer == LAYER_OUTPUT ? (int32_t) st->hp->n_layer : il, list);
    }
    int32_t b = -1;
    // the first override whose pattern the name matches (-ncmoe's patterns in their place)
    for (int32_t o = 0; o < st->p->n_overrides; o++) {
        const bool cpu_moe = st->p->overrides[o].kind == GALLOC_OVERRIDE_N_CPU_MOE;
        if (cpu_moe ? n_cpu_moe_match(st->p, o, name) : galloc_place_regex_search(st->regex[o], name)) {
            const int32_t ob = cpu_moe ? -1 : st->override_buft[o];
            b = ob < 0 ? select_buft(st, st->cpu_list, st->n_cpu_list, t, op) : ob;
            if (b == -2) {
                break;
            }
            if (b < 0) {
                return galloc_fail(st->err, GALLOC_STATUS_INVALID, "failed to find a compatible buffer type for tensor %s", name);
            }
            break;
        }
    }
    if (b == -1) {
        b = select_buft(st, list, n, t, op);
    }
    if (b == -2) {
        return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: whether %s supports %s on tensor %s is not modelled",
                           st->kept_profile[0]->kind_name, op == GGML_OP_COUNT ? "its op" : ggml_op_name(op), name);
    }
    if (b < 0) {
        return galloc_fail(st->err, GALLOC_STATUS_INVALID, "failed to find a compatible buffer type for tensor %s", name);
    }
    *out = b;
    return true;
}

//
// devices and buffer types
//

static bool setup_devices(struct place_state * st, const struct galloc_place_settings * p) {
    struct galloc_placement * pl = st->pl;
    // names are given at registration, over every device: RPC0.., Vulkan0.., CUDA0..
    char names[GALLOC_PLACE_MAX_DEVICES][32], bufts[GALLOC_PLACE_MAX_DEVICES][64], descs[GALLOC_PLACE_MAX_DEVICES][48];
    int32_t n_rpc = 0;
    bool seen_other = false;
    for (int32_t i = 0; i < p->n_devices; i++) {
        const struct place_profile * pr = galloc_place_profile(p->devices[i].kind);
        if (!pr) {
            return galloc_fail(st->err, GALLOC_STATUS_ARGUMENT, "--device: unknown device kind %d", (int) p->devices[i].kind);
        }
        if (pr->kind == GALLOC_DEVICE_RPC && seen_other) {
            return galloc_fail(st->err, GALLOC_STATUS_ARGUMENT,
                               "--device: llama.cpp puts RPC devices before the others; give the rpc devices first");
        }
        seen_other = seen_other || pr->kind != GALLOC_DEVICE_RPC;
        int32_t index = 0;
        for (int32_t j = 0; j < i; j++) {
            index += strcmp(galloc_place_profile(p->devices[j].kind)->dev_prefix, pr->dev_prefix) == 0;
        }
        snprintf(names[i], sizeof(names[i]), "%s%d", pr->dev_prefix, (int) index);
        if (pr->kind == GALLOC_DEVICE_RPC) {
            snprintf(descs[i], sizeof(descs[i]), "127.0.0.1:%d", 50052 + (int) n_rpc++);
            snprintf(bufts[i], sizeof(bufts[i]), "RPC0[%s]", descs[i]);
        } else {
            set_str(descs[i], sizeof(descs[i]), pr->description);
            set_str(bufts[i], sizeof(bufts[i]), names[i]);
        }
    }
    // -sm none: only the main device (none when -mg < 0)
    st->n_kept = 0;
    if (p->split_mode == GALLOC_SPLIT_NONE && p->n_devices > 0) {
        if (p->main_gpu >= p->n_devices) {
            return galloc_fail(st->err, GALLOC_STATUS_ARGUMENT, "-mg: invalid value for main_gpu: %d (available devices: %d)",
                               (int) p->main_gpu, (int) p->n_devices);
        }
        if (p->main_gpu >= 0) {
            st->kept[st->n_kept++] = p->main_gpu;
        }
    } else {
        for (int32_t i = 0; i < p->n_devices; i++) {
            st->kept[st->n_kept++] = i;
        }
    }
    if (p->split_mode == GALLOC_SPLIT_ROW) {
        for (int32_t k = 0; k < st->n_kept; k++) {
            const struct place_profile * pr = galloc_place_profile(p->devices[st->kept[k]].kind);
            if (pr->kind != GALLOC_DEVICE_CUDA && pr->kind != GALLOC_DEVICE_ROCM) {
                return galloc_fail(st->err, GALLOC_STATUS_ARGUMENT, "-sm row: device %s does not support split buffers",
                                   names[st->kept[k]]);
            }
        }
        if (st->n_kept > 0) {
            return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "-sm row: split buffer types are not modelled");
        }
    }
    pl->n_devices = p->n_devices;
    for (int32_t i = 0; i < p->n_devices; i++) {
        const struct place_profile * pr = galloc_place_profile(p->devices[i].kind);
        set_str(pl->devices[i].name, sizeof(pl->devices[i].name), names[i]);
        set_str(pl->devices[i].description, sizeof(pl->devices[i].description), descs[i]);
        pl->devices[i].total = pl->devices[i].free = p->devices[i].memory ? p->devices[i].memory : pr->default_memory;
    }
    // buffer types: each kept device's, the host buffer type of the first kept device that has one, the CPU's
    for (int32_t k = 0; k < st->n_kept; k++) {
        const struct place_profile * pr = galloc_place_profile(p->devices[st->kept[k]].kind);
        st->kept_profile[k] = pr;
        st->kept_buft[k]    = add_buft(st, bufts[st->kept[k]], st->kept[k], false, pr, pr->alignment, k);
    }
    st->host_buft = -1;
    for (int32_t k = 0; k < st->n_kept && !p->no_host; k++) {
        if (st->kept_profile[k]->host_buft) {
            st->host_buft = add_buft(st, st->kept_profile[k]->host_buft, -1, true, NULL, st->kept_profile[k]->host_alignment, k);
            break;
        }
    }
    st->cpu_buft = add_buft(st, "CPU", -1, true, NULL, 32, -1);
    st->n_cpu_list = 0;
    if (st->host_buft >= 0) {
        st->cpu_list[st->n_cpu_list++] = st->host_buft;
    }
    st->cpu_list[st->n_cpu_list++] = st->cpu_buft;
    // the compute buffers' buffer types (the backends'): each device's, and for the CPU the host
    // buffer type of the first device, if it has one
    for (int32_t k = 0; k < st->n_kept; k++) {
        st->bufts[st->kept_buft[k]].is_backend = true;
    }
    if (st->n_kept > 0 && st->kept_profile[0]->host_buft) {
        // the first device's host buffer type is the CPU list's (it is the first that has one)
        int32_t b = st->host_buft;
        if (b < 0) { // --no-host still gives the CPU backend the first device's host buffer type
            b = add_buft(st, st->kept_profile[0]->host_buft, -1, true, NULL, st->kept_profile[0]->host_alignment, 0);
        }
        st->bufts[b].is_backend = true;
    } else {
        st->bufts[st->cpu_buft].is_backend = true;
    }
    return true;
}

// load_tensors' split: layer il's device (-1: CPU)
static void assign_layers(struct place_state * st, const struct galloc_place_settings * p) {
    struct galloc_placement * pl = st->pl;
    const int32_t n_layer = (int32_t) st->hp->n_layer;
    const int32_t n_gpu_layers = p->n_gpu_layers >= 0 ? p->n_gpu_layers : n_layer + 1;
    float splits[GALLOC_PLACE_MAX_DEVICES];
    bool all_zero = true;
    for (int32_t k = 0; k < st->n_kept && k < p->n_tensor_split; k++) {
        all_zero = all_zero && p->tensor_split[k] == 0.0f;
    }
    for (int32_t k = 0; k < st->n_kept; k++) {
        splits[k] = all_zero ? (float) pl->devices[st->kept[k]].free : (k < p->n_tensor_split ? p->tensor_split[k] : 0.0f);
    }
    float sum = 0.0f;
    for (int32_t k = 0; k < st->n_kept; k++) {
        sum += splits[k];
        splits[k] = sum;
    }
    for (int32_t k = 0; k < st->n_kept; k++) {
        splits[k] /= sum;
    }
    const int32_t i_gpu_start = n_layer + 1 - n_gpu_layers > 0 ? n_layer + 1 - n_gpu_layers : 0;
    const int32_t act = st->n_kept == 0 ? 0 : (n_gpu_layers < n_layer + 1 ? n_gpu_layers : n_layer + 1);
    for (int32_t il = 0; il <= n_layer; il++) {
        if (il < i_gpu_start || il - i_gpu_start >= act) {
            pl->layer_device[il] = -1;
            continue;
        }
        const float x = (float) (il - i_gpu_start) / (float) act;
        int32_t k = 0;
        while (k < st->n_kept && !(splits[k] > x)) {
            k++; // std::upper_bound
        }
        if (k >= st->n_kept) {
            k = st->n_kept - 1; // not reached with sum > 0; a zero sum (all -ts 0) takes the last
        }
        pl->layer_device[il] = st->kept[k];
    }
}

static bool setup_overrides(struct place_state * st, const struct galloc_place_settings * p) {
    for (int32_t o = 0; o < p->n_overrides && o < GALLOC_PLACE_MAX_OVERRIDES; o++) {
        const struct galloc_place_override * ov = &p->overrides[o];
        char pattern[GALLOC_PLACE_MAX_PATTERN + 32];
        const char * exps = "\\.ffn_(up|down|gate|gate_up)_(ch|)exps";
        if (ov->kind == GALLOC_OVERRIDE_CPU_MOE) {
            snprintf(pattern, sizeof(pattern), "%s", exps);
        } else if (ov->kind == GALLOC_OVERRIDE_N_CPU_MOE) {
            // N patterns blk\.I\.ffn_... for I < N: one pattern matching them all, blk\.(0|1|...)
            continue;
        } else {
            snprintf(pattern, sizeof(pattern), "%s", ov->pattern);
        }
        // the buffer type: a device's default one ("CPU" chooses among the CPU's list)
        int32_t b = -2;
        if (strcmp(ov->buft, "CPU") == 0) {
            b = -1;
        } else {
            for (int32_t k = 0; k < st->n_kept; k++) {
                if (strcmp(st->pl->bufts[st->kept_buft[k]].name, ov->buft) == 0) {
                    b = st->kept_buft[k];
                }
            }
        }
        if (b == -2) {
            char known[512] = "CPU";
            for (int32_t k = 0; k < st->n_kept; k++) {
                const size_t n = strlen(known);
                snprintf(known + n, sizeof(known) - n, ", %s", st->pl->bufts[st->kept_buft[k]].name);
            }
            return galloc_fail(st->err, GALLOC_STATUS_ARGUMENT, "-ot: unknown buffer type '%s' (available: %s)", ov->buft, known);
        }
        st->override_buft[o] = b;
        st->regex[o] = galloc_place_regex_new(pattern, st->err);
        if (!st->regex[o]) {
            return false;
        }
    }
    return true;
}

// -ncmoe N's patterns, tested in their place among the overrides
static bool n_cpu_moe_match(const struct galloc_place_settings * p, int32_t o, const char * name) {
    int il = -1;
    char base[64], suffix[16];
    if (p->overrides[o].kind != GALLOC_OVERRIDE_N_CPU_MOE || !galloc_place_split_name(name, &il, base, sizeof(base), suffix, sizeof(suffix)) ||
        il < 0 ||
        il >= p->overrides[o].n) {
        return false;
    }
    // "\.ffn_(up|down|gate|gate_up)_(ch|)exps" right after "blk.I"
    const char * s = strchr(name + 4, '.');
    static const char * const parts[] = { ".ffn_up_", ".ffn_down_", ".ffn_gate_", ".ffn_gate_up_" };
    for (size_t i = 0; s && i < sizeof(parts) / sizeof(parts[0]); i++) {
        const size_t n = strlen(parts[i]);
        if (strncmp(s, parts[i], n) == 0 && (strncmp(s + n, "exps", 4) == 0 || strncmp(s + n, "chexps", 6) == 0)) {
            return true;
        }
    }
    return false;
}

//
// the whole placement
//

void galloc_placement_free(struct galloc_placement * pl) {
    if (pl) {
        free(pl->layer_device);
        free(pl->kv_buft);
        free(pl->weights);
        free(pl->graph);
        free(pl);
    }
}

int32_t galloc_placement_buft_index(const struct galloc_placement * pl, const char * name) {
    for (int32_t i = 0; pl && name && i < pl->n_bufts; i++) {
        if (strcmp(pl->bufts[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

// the layers whose own pointer is t (llama.cpp creates rope_freqs and the rope factors once per
// layer with TENSOR_DUPLICATED: one tensor per buffer type the layers choose)
static bool layer_uses(const struct model_layer * l, const struct ggml_tensor * t) {
    return l->rope_freqs == t || l->rope_long == t || l->rope_short == t;
}

// one weight: its tensor info, its llama.cpp layer(s), its buffer type(s)
static bool place_one_weight(struct place_state * st, const struct model_graph * g, struct ggml_tensor * t, int32_t * tok_embd_buft) {
    const int32_t n_layer = (int32_t) st->hp->n_layer;
    const char * name = ggml_get_name(t);
    int il = -1;
    char base[64], suffix[16];
    if (!galloc_place_split_name(name, &il, base, sizeof(base), suffix, sizeof(suffix)) || il >= n_layer) {
        return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: tensor '%s' has a name this does not know", name);
    }
    // the model's final norm is an output tensor whatever its name (LFM2's is token_embd_norm)
    const struct place_tensor_info * info = galloc_place_tensor_info(t == g->output_norm || t == g->output_norm_b ? "output_norm" : base);
    if (!info || (info->layer != LAYER_REPEATING && il >= 0)) {
        return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: no llama.cpp tensor info for '%s' here", name);
    }
    if (info->op == GGML_OP_NONE) {
        return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: llama.cpp leaves tensor '%s' unused (not modelled)", name);
    }
    const bool bias = strcmp(suffix, "bias") == 0;
    int32_t b = -1;
    if (info->layer == LAYER_REPEATING && il < 0) {
        bool any = false, done[PLACE_MAX_BUFTS] = { false };
        for (int32_t l = 0; l < n_layer; l++) {
            if (!layer_uses(&g->layers[l], t)) {
                continue;
            }
            if (!place_weight(st, t, info, bias, l, &b)) {
                return false;
            }
            add_weight(st, t, l, b, !done[b]);
            done[b] = any = true;
        }
        if (!any && strcmp(base, "token_embd_norm") == 0) {
            any = place_weight(st, t, info, bias, 0, &b) && add_weight(st, t, 0, b, true); // created at layer 0
            if (!any) {
                return false;
            }
        }
        return any ? true
                   : galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: the layer of '%s' (a repeating tensor without one) is not modelled",
                                 name);
    }
    if (!place_weight(st, t, info, bias, il, &b)) {
        return false;
    }
    add_weight(st, t, info->layer == LAYER_INPUT ? -1 : info->layer == LAYER_OUTPUT ? n_layer : il, b, true);
    if (t == g->tok_embd) {
        *tok_embd_buft = b;
    }
    return true;
}

// every weight the builder created (after llama.cpp's generic pass of scales), in creation order
static bool place_all_weights(struct place_state * st, const struct model_graph * g) {
    struct galloc_placement * pl = st->pl;
    const int32_t n_layer = (int32_t) st->hp->n_layer;
    int32_t n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        n++;
    }
    pl->weights = calloc((size_t) n * ((size_t) n_layer + 1) + 2, sizeof(*pl->weights));
    if (!pl->weights) {
        return galloc_fail(st->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    int32_t tok_embd_buft = -1;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        if (strncmp(ggml_get_name(t), "cache_", 6) == 0) {
            continue; // the memory's (place_memory)
        }
        if (!place_one_weight(st, g, t, &tok_embd_buft)) {
            return false;
        }
    }
    // a tied output: the token embeddings again, as the output layer's matrix (a second tensor
    // when the output's buffer type is another one)
    if (g->output && g->output == g->tok_embd) {
        static const struct place_tensor_info output_info = { "output", LAYER_OUTPUT, GGML_OP_MUL_MAT };
        int32_t b = -1;
        if (!place_weight(st, g->tok_embd, &output_info, false, n_layer, &b)) {
            return false;
        }
        add_weight(st, g->tok_embd, n_layer, b, b != tok_embd_buft);
    }
    return true;
}

// the memory's tensors (llama_kv_cache's cache_k_l/cache_v_l, llama_memory_recurrent's
// cache_r_l/cache_s_l, as the builder created them for its memory kind and layer filters): each
// on its layer's device (dev_layer: the CPU for a layer left there) or, with -nkvo, the CPU
static bool place_memory(struct place_state * st, const struct galloc_place_settings * p, const struct model_graph * g) {
    struct galloc_placement * pl = st->pl;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        const char * name = ggml_get_name(t);
        if (strncmp(name, "cache_", 6) != 0) {
            continue;
        }
        const bool known = strncmp(name, "cache_k_l", 9) == 0 || strncmp(name, "cache_v_l", 9) == 0 || strncmp(name, "cache_r_l", 9) == 0 ||
                           strncmp(name, "cache_s_l", 9) == 0;
        const int il = known ? atoi(name + 9) : -1;
        if (il < 0 || il >= pl->n_layer) {
            return galloc_fail(st->err, GALLOC_STATUS_DECLINED, "placement: the memory tensor '%s' is not modelled", name);
        }
        int32_t b = st->cpu_buft;
        const int32_t dev = pl->layer_device[il];
        if (!p->no_kv_offload && dev >= 0) {
            for (int32_t k = 0; k < st->n_kept; k++) {
                if (st->kept[k] == dev) {
                    b = st->kept_buft[k];
                }
            }
        }
        pl->bufts[b].context += pad_to(galloc_place_alloc_size(st->bufts[b].profile, t), st->bufts[b].alignment);
        pl->kv_buft[il] = b;
        st->bufts[b].has_kv = true;
    }
    return true;
}

// llama_get_memory_breakdown's map holds the buffer types with weights, KV cache or a compute
// buffer: keep those, in this order: the devices', then the host ones
static void keep_listed(struct place_state * st) {
    struct galloc_placement * pl = st->pl;
    int32_t map[PLACE_MAX_BUFTS];
    int32_t n = 0;
    for (int32_t i = 0; i < pl->n_bufts; i++) {
        const bool listed = st->bufts[i].has_weights || st->bufts[i].has_kv || st->bufts[i].is_backend;
        map[i] = listed ? n : -1;
        if (listed) {
            pl->bufts[n] = pl->bufts[i];
            n++;
        }
    }
    pl->n_bufts = n;
    for (int32_t i = 0; i < pl->n_weights; i++) {
        pl->weights[i].buft = map[pl->weights[i].buft];
    }
    for (int32_t il = 0; il < pl->n_layer; il++) {
        pl->kv_buft[il] = pl->kv_buft[il] >= 0 ? map[pl->kv_buft[il]] : -1;
    }
}

struct galloc_placement * galloc_model_place(const struct galloc_model * m, const struct galloc_model_settings * s,
                                             const struct galloc_place_settings * p, struct galloc_error * err) {
    galloc_error_clear(err);
    if (!m || !s || !p) {
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "no model or settings");
        return NULL;
    }
    if (p->n_devices < 0 || p->n_devices > GALLOC_PLACE_MAX_DEVICES || p->n_overrides < 0 ||
        p->n_overrides > GALLOC_PLACE_MAX_OVERRIDES || p->n_tensor_split < 0 || p->n_tensor_split > GALLOC_PLACE_MAX_DEVICES) {
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "placement settings out of range");
        return NULL;
    }
    struct model_cparams cp;
    if (!galloc_model_cparams_init(m, s, &cp, err)) {
        // a limit on the compute graph's tensors (checked last, with cp filled) does not concern the
        // weights and KV cache, and skip_compute builds no graph
        if (!(p->skip_compute && err && err->status == GALLOC_STATUS_LIMIT)) {
            return NULL;
        }
        galloc_error_clear(err);
    }
    struct place_state * st = calloc(1, sizeof(*st));
    struct galloc_placement * pl = calloc(1, sizeof(*pl));
    const int32_t n_layer = (int32_t) m->hp.n_layer;
    if (pl) {
        pl->n_layer      = n_layer;
        pl->layer_device = calloc((size_t) n_layer + 1, sizeof(int32_t));
        pl->kv_buft      = calloc((size_t) n_layer + 1, sizeof(int32_t));
    }
    if (!st || !pl || !pl->layer_device || !pl->kv_buft) {
        free(st);
        galloc_placement_free(pl);
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    st->m  = m;
    st->hp = &m->hp;
    st->pl = pl;
    st->err = err;
    st->p   = p;
    for (int32_t il = 0; il < n_layer; il++) {
        pl->kv_buft[il] = -1;
    }
    pl->n_ctx    = cp.n_ctx;
    pl->n_ubatch = cp.n_ubatch;
    pl->n_batch  = cp.n_batch;
    pl->n_seq    = cp.n_seq_max;
    pl->n_ctx_train = m->hp.n_ctx_train;

    bool ok = setup_devices(st, p) && setup_overrides(st, p);
    if (ok) {
        assign_layers(st, p);
        // the weights and the memory as the builder creates them (no graph)
        ggml_backend_buffer_type_t vbuft = galloc_virtual_buft_new("CPU", 32, SIZE_MAX);
        struct model_build * mb = vbuft ? galloc_model_build_memory(m, &cp, vbuft, err) : NULL;
        if (!vbuft) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        }
        ok = mb != NULL && place_all_weights(st, galloc_model_build_graph_of(mb)) && place_memory(st, p, galloc_model_build_graph_of(mb));
        galloc_model_build_free(mb);
        galloc_virtual_buft_free(vbuft);
    }
    for (int32_t o = 0; o < GALLOC_PLACE_MAX_OVERRIDES; o++) {
        galloc_place_regex_free(st->regex[o]);
    }
    if (ok && st->n_kept == 0 && !p->skip_compute) {
        // the CPU alone: its compute buffer is the one galloc_model_compute_sizes plans
        struct galloc_model_sizes z;
        ok = galloc_model_compute_sizes(m, s, &z, err);
        if (ok) {
            pl->bufts[st->cpu_buft].compute = z.compute[0];
            pl->has_compute = true;
        }
    }
    if (ok) {
        keep_listed(st);
    }
    if (ok && st->n_kept > 0 && !p->skip_compute) {
        struct place_compute_in in;
        memset(&in, 0, sizeof(in));
        in.m  = m;
        in.cp = &cp;
        in.pl = pl;
        in.n_kept = st->n_kept;
        bool async = true;
        for (int32_t k = 0; k < st->n_kept; k++) {
            in.kept[k]  = st->kept[k];
            in.kinds[k] = st->kept_profile[k]->kind;
            // devices with async compute and events (llama.cpp's pipeline parallelism needs both)
            async = async && (in.kinds[k] == GALLOC_DEVICE_CUDA || in.kinds[k] == GALLOC_DEVICE_ROCM);
        }
        const int32_t n_gpu_layers = p->n_gpu_layers >= 0 ? p->n_gpu_layers : n_layer + 1;
        in.full_offload = n_gpu_layers > n_layer;
        in.parallel     = st->n_kept > 1 && in.full_offload && p->split_mode == GALLOC_SPLIT_LAYER && !p->no_kv_offload &&
                          p->n_overrides == 0 && async;
        in.op_offload   = !p->no_op_offload;
        in.keep_graph   = p->keep_graph;
        ok = galloc_place_compute(&in, err);
    }
    free(st);
    if (!ok) {
        galloc_placement_free(pl);
        return NULL;
    }
    return pl;
}
