// galloc-model-place-compute.c: the compute column of a placement, from the scheduler.
//
// As llama_context in no_alloc mode: backends for the devices in use (virtual devices of
// galloc-device.h) and the CPU's, whose buffer type is the first device's host buffer type when
// it has one; the prompt graph built with every weight and KV cache tensor on a dummy buffer of
// its placed buffer type (weights' buffers marked as weights), the graph callback's pins of
// "norm"/"l_last" to their layer's device when the batch is below 32 tokens or every layer is
// offloaded; then ggml_backend_sched_new(..., op_offload) and ggml_backend_sched_reserve_size on
// the first prompt graph (sched_reserve's backend_buf_exp_size), each backend's bytes counted
// for its buffer type.

#include "galloc-device.h"
#include "galloc-error.h"
#include "galloc-export.h"
#include "galloc-model-impl.h"
#include "galloc-model-place-impl.h"
#include "ggml-backend.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BACKENDS (GALLOC_PLACE_MAX_DEVICES + 1)

struct compute_state {
    const struct place_compute_in * in;
    ggml_backend_t             backends[MAX_BACKENDS];
    ggml_backend_dev_t         devs[MAX_BACKENDS];
    ggml_backend_buffer_type_t bufts[MAX_BACKENDS];
    int                        n_backends;
    int32_t                    backend_device[MAX_BACKENDS];  // --device index, -1 for the CPU
    ggml_backend_buffer_type_t place_buft[2 * GALLOC_PLACE_MAX_DEVICES + 2]; // per placement buffer type
    ggml_backend_buffer_t      wbuf[2 * GALLOC_PLACE_MAX_DEVICES + 2], kvbuf[2 * GALLOC_PLACE_MAX_DEVICES + 2];
    ggml_backend_sched_t       sched;
    bool                       pins;    // n_tokens < 32 or every layer offloaded
    struct galloc_error *      err;
    bool                       failed;
};

static void fail(struct compute_state * cs, enum galloc_status status, const char * what) {
    if (!cs->failed) {
        galloc_fail(cs->err, status, "%s", what);
        cs->failed = true;
    }
}

// the dummy buffer of buffer type b for weights or for the memory
static ggml_backend_buffer_t slot_of(struct compute_state * cs, int32_t b, bool memory) {
    ggml_backend_buffer_t * slot = memory ? &cs->kvbuf[b] : &cs->wbuf[b];
    if (!*slot) {
        *slot = ggml_backend_buft_alloc_buffer(cs->place_buft[b], 0);
        if (!*slot) {
            fail(cs, GALLOC_STATUS_NO_MEMORY, "out of memory");
            return NULL;
        }
        if (!memory) {
            ggml_backend_buffer_set_usage(*slot, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        }
    }
    return *slot;
}

// a weight llama.cpp holds in several buffer types (TENSOR_DUPLICATED: a tied output, rope_freqs
// of layers on other devices): t on its first use's buffer type, a copy of the same name on each
// other one, and the layers (the output) that use that buffer type pointed at their copy
static void place_weight_uses(struct compute_state * cs, struct model_graph * g, struct ggml_tensor * t) {
    const struct galloc_placement * pl = cs->in->pl;
    const char * name = ggml_get_name(t);
    struct ggml_tensor * copies[2 * GALLOC_PLACE_MAX_DEVICES + 2] = { NULL };
    int32_t first = -1;
    for (int32_t i = 0; i < pl->n_weights && !cs->failed; i++) {
        const struct galloc_place_weight * w = &pl->weights[i];
        if (strcmp(w->name, name) != 0) {
            continue;
        }
        if (first < 0) {
            first = w->buft;
            copies[first] = t;
            t->buffer = slot_of(cs, first, false);
            continue;
        }
        if (!copies[w->buft]) {
            struct ggml_tensor * c = ggml_dup_tensor(g->wctx, t);
            if (!c) {
                fail(cs, GALLOC_STATUS_NO_MEMORY, "out of memory");
                return;
            }
            ggml_set_name(c, name);
            c->buffer = slot_of(cs, w->buft, false);
            copies[w->buft] = c;
        }
        struct ggml_tensor * c = copies[w->buft];
        if (w->layer == pl->n_layer && g->output == t) {
            g->output = c;
        } else if (w->layer >= 0 && w->layer < pl->n_layer) {
            struct model_layer * l = &g->layers[w->layer];
            l->rope_freqs = l->rope_freqs == t ? c : l->rope_freqs;
            l->rope_long  = l->rope_long == t ? c : l->rope_long;
            l->rope_short = l->rope_short == t ? c : l->rope_short;
        }
    }
    if (first < 0) {
        fail(cs, GALLOC_STATUS_DECLINED, "compute: a tensor of the graph has no placement");
    }
}

// every weight and memory tensor on a dummy buffer of its placed buffer type
static void on_weights(struct model_graph * g, void * ud) {
    struct compute_state * cs = ud;
    const struct galloc_placement * pl = cs->in->pl;
    // the tensors the builder made (copies made here come after the last of them)
    struct ggml_tensor * last = NULL;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t; t = ggml_get_next_tensor(g->wctx, t)) {
        last = t;
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t && !cs->failed; t = ggml_get_next_tensor(g->wctx, t)) {
        const char * name = ggml_get_name(t);
        if (strncmp(name, "cache_", 6) == 0) {
            const int il = atoi(name + 9);
            const int32_t b = il >= 0 && il < pl->n_layer ? pl->kv_buft[il] : -1;
            if (b < 0) {
                fail(cs, GALLOC_STATUS_DECLINED, "compute: a memory tensor of the graph has no placement");
                return;
            }
            t->buffer = slot_of(cs, b, true);
        } else {
            place_weight_uses(cs, g, t);
        }
        if (t == last) {
            break;
        }
    }
}

// llama_context::graph_get_cb's pins
static void on_cb(struct model_graph * g, struct ggml_tensor * t, const char * name, int il, void * ud) {
    (void) g;
    struct compute_state * cs = ud;
    if (!cs->pins || il < 0 || (strcmp(name, "norm") != 0 && strcmp(name, "l_last") != 0)) {
        return;
    }
    const int32_t dev = cs->in->pl->layer_device[il];
    for (int i = 0; i < cs->n_backends; i++) {
        if (cs->backend_device[i] == dev && ggml_backend_supports_op(cs->backends[i], t)) {
            ggml_backend_sched_set_tensor_backend(cs->sched, t, cs->backends[i]);
        }
    }
}

// the graph copy the scheduler hands to ggml_gallocr, with the backends' buffer types and ids
static bool export_graph(struct compute_state * cs, struct galloc_error * err) {
    struct galloc_placement * pl = cs->in->pl;
    struct ggml_cgraph * copy = ggml_backend_sched_get_graph_copy(cs->sched);
    if (!copy) {
        return galloc_fail(err, GALLOC_STATUS_DECLINED, "compute: the scheduler kept no graph");
    }
    free(pl->graph);
    pl->graph = galloc_export_graph(copy, "galloc model (scheduler graph)", cs->bufts, cs->n_backends,
                                    ggml_backend_sched_get_node_backend_ids(cs->sched),
                                    ggml_backend_sched_get_leaf_backend_ids(cs->sched), &pl->graph_len);
    return pl->graph ? true : galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory writing the graph document");
}

static int trailing_number(const char * name) {
    const char * p = name + strlen(name);
    while (p > name && p[-1] >= '0' && p[-1] <= '9') {
        p--;
    }
    return atoi(p);
}

bool galloc_place_compute(const struct place_compute_in * in, struct galloc_error * err) {
    struct galloc_placement * pl = in->pl;
    struct compute_state * cs = calloc(1, sizeof(*cs));
    if (!cs) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    cs->in  = in;
    cs->err = err;
    bool ok = true;
    // the backends: the devices in use, then the CPU
    for (int32_t k = 0; k < in->n_kept && ok; k++) {
        const int32_t d = in->kept[k];
        char endpoint[64];
        const char * ep = NULL;
        if (in->kinds[k] == GALLOC_DEVICE_RPC) {
            memcpy(endpoint, pl->devices[d].description, sizeof(endpoint));
            endpoint[sizeof(endpoint) - 1] = '\0';
            ep = endpoint;
        }
        cs->devs[k] = galloc_device_new(galloc_device_kind_name(in->kinds[k]), trailing_number(pl->devices[d].name), ep);
        cs->backends[k] = cs->devs[k] ? ggml_backend_dev_init(cs->devs[k], NULL) : NULL;
        cs->bufts[k] = cs->devs[k] ? ggml_backend_dev_buffer_type(cs->devs[k]) : NULL;
        cs->backend_device[k] = d;
        ok = cs->backends[k] != NULL;
        cs->n_backends++;
    }
    if (ok) {
        const int k = cs->n_backends++;
        cs->backends[k] = ggml_backend_cpu_init();
        ggml_backend_buffer_type_t host = in->n_kept > 0 ? ggml_backend_dev_host_buffer_type(cs->devs[0]) : NULL;
        cs->bufts[k] = host ? host : ggml_backend_cpu_buffer_type();
        cs->backend_device[k] = -1;
        ok = cs->backends[k] != NULL;
    }
    if (!ok) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory making the devices");
    }
    // the placement's buffer types as the devices name them
    for (int32_t b = 0; b < pl->n_bufts && ok; b++) {
        ggml_backend_buffer_type_t found = NULL;
        if (strcmp(pl->bufts[b].name, "CPU") == 0) {
            found = ggml_backend_cpu_buffer_type();
        }
        for (int i = 0; i < cs->n_backends - 1 && !found; i++) {
            ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(cs->devs[i]);
            if (strcmp(ggml_backend_buft_name(cs->bufts[i]), pl->bufts[b].name) == 0) {
                found = cs->bufts[i];
            } else if (host && strcmp(ggml_backend_buft_name(host), pl->bufts[b].name) == 0) {
                found = host;
            }
        }
        if (!found) {
            ok = galloc_fail(err, GALLOC_STATUS_DECLINED, "compute: no device has the buffer type %s", pl->bufts[b].name);
        }
        cs->place_buft[b] = found;
    }
    struct model_build * mb = NULL;
    if (ok) {
        const uint32_t n_tokens = in->cp->n_ctx < in->cp->n_ubatch ? in->cp->n_ctx : in->cp->n_ubatch;
        cs->pins = n_tokens < 32 || in->full_offload;
        size_t graph_size = 8 * (size_t) pl->n_weights;
        graph_size = graph_size < 1024 ? 1024 : graph_size;
        // the scheduler exists before the graph is built (the callback pins into it)
        cs->sched = ggml_backend_sched_new(cs->backends, cs->bufts, cs->n_backends, graph_size * 4, in->parallel, in->op_offload);
        if (!cs->sched) {
            ok = galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "compute: the scheduler could not be made");
        }
    }
    if (ok) {
        mb = galloc_model_build_prompt_hooked(in->m, in->cp, ggml_backend_cpu_buffer_type(), on_weights, on_cb, cs, err);
        ok = mb != NULL && !cs->failed;
    }
    if (ok) {
        size_t sizes[MAX_BACKENDS] = { 0 };
        ggml_backend_sched_reserve_size(cs->sched, galloc_model_build_graph_of(mb)->gf, sizes);
        for (int i = 0; i < cs->n_backends; i++) {
            for (int32_t b = 0; b < pl->n_bufts; b++) {
                if (strcmp(pl->bufts[b].name, ggml_backend_buft_name(cs->bufts[i])) == 0) {
                    pl->bufts[b].compute += sizes[i];
                }
            }
        }
        pl->has_compute = true;
        if (in->keep_graph) {
            ok = export_graph(cs, err);
        }
    }
    galloc_model_build_free(mb);
    ggml_backend_sched_free(cs->sched);
    for (int32_t b = 0; b < 2 * GALLOC_PLACE_MAX_DEVICES + 2; b++) {
        ggml_backend_buffer_free(cs->wbuf[b]);
        ggml_backend_buffer_free(cs->kvbuf[b]);
    }
    for (int i = 0; i < MAX_BACKENDS; i++) {
        ggml_backend_free(cs->backends[i]);
    }
    for (int i = 0; i < MAX_BACKENDS; i++) {
        galloc_device_free(cs->devs[i]);
    }
    free(cs);
    return ok;
}
