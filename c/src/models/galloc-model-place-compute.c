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

static int32_t weight_buft(const struct galloc_placement * pl, const char * name, int * count) {
    int32_t b = -1;
    *count = 0;
    for (int32_t i = 0; i < pl->n_weights; i++) {
        if (strcmp(pl->weights[i].name, name) == 0) {
            b = pl->weights[i].buft;
            (*count)++;
        }
    }
    return b;
}

static void fail(struct compute_state * cs, enum galloc_status status, const char * what) {
    if (!cs->failed) {
        galloc_fail(cs->err, status, "%s", what);
        cs->failed = true;
    }
}

// every weight and cache tensor on a dummy buffer of its placed buffer type
static void on_weights(struct model_graph * g, void * ud) {
    struct compute_state * cs = ud;
    const struct galloc_placement * pl = cs->in->pl;
    for (struct ggml_tensor * t = ggml_get_first_tensor(g->wctx); t && !cs->failed; t = ggml_get_next_tensor(g->wctx, t)) {
        const char * name = ggml_get_name(t);
        int32_t b = -1;
        bool kv = false;
        int il = -1;
        if (strncmp(name, "cache_k_l", 9) == 0 || strncmp(name, "cache_v_l", 9) == 0) {
            il = atoi(name + 9);
            b = il >= 0 && il < pl->n_layer ? pl->kv_buft[il] : -1;
            kv = true;
        } else {
            int count = 0;
            b = weight_buft(pl, name, &count);
            if (count > 1) {
                fail(cs, GALLOC_STATUS_DECLINED, "compute: a weight placed in two buffer types (a tied output or rope_freqs) is not modelled");
                return;
            }
        }
        if (b < 0) {
            fail(cs, GALLOC_STATUS_DECLINED, "compute: a tensor of the graph has no placement");
            return;
        }
        ggml_backend_buffer_t * slot = kv ? &cs->kvbuf[b] : &cs->wbuf[b];
        if (!*slot) {
            *slot = ggml_backend_buft_alloc_buffer(cs->place_buft[b], 0);
            if (!*slot) {
                fail(cs, GALLOC_STATUS_NO_MEMORY, "out of memory");
                return;
            }
            if (!kv) {
                ggml_backend_buffer_set_usage(*slot, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
            }
        }
        t->buffer = *slot;
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
