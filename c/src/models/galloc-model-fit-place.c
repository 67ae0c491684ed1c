// galloc-model-fit-place.c: --fit over galloc's placement, and the line llama-fit-params prints.
//
// A measurement is common_get_device_memory_data: a whole placement (galloc_model_place: weights,
// KV cache, the scheduler's compute buffers) summed per device in use and over the host's
// buffer types, with the memory each device reports before loading and the model's n_layer,
// n_ctx_train and n_expert.

#include "galloc-model-fit.h"

#include "galloc-error.h"
#include "galloc-model-impl.h"
#include "json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool galloc_fit_measure_model(void * user, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                              struct galloc_fit_measurement * out, struct galloc_error * err) {
    const struct galloc_fit_model_user * u = user;
    struct galloc_place_settings * q = malloc(sizeof(*q));
    if (!q) {
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    *q = *p;
    q->skip_compute = false;
    q->keep_graph   = false;
    struct galloc_placement * pl = galloc_model_place(u->m, s, q, err);
    free(q);
    if (!pl) {
        return false;
    }
    // the model's devices: every device, or -sm none's main device
    int32_t used[GALLOC_PLACE_MAX_DEVICES];
    int32_t n = 0;
    for (int32_t i = 0; i < pl->n_devices && i < GALLOC_PLACE_MAX_DEVICES; i++) {
        if (p->split_mode != GALLOC_SPLIT_NONE || i == p->main_gpu) {
            used[n++] = i;
        }
    }
    memset(out, 0, sizeof(*out));
    out->n_devices = n;
    for (int32_t k = 0; k < n; k++) {
        const struct galloc_place_device_info * d = &pl->devices[used[k]];
        out->mem[k].total = (int64_t) d->total;
        out->mem[k].free  = (int64_t) d->free;
        snprintf(out->name[k], sizeof(out->name[k]), "%s (%s)", d->name, d->description);
        for (int32_t b = 0; b < pl->n_bufts; b++) {
            if (!pl->bufts[b].is_host && pl->bufts[b].device == used[k]) {
                snprintf(out->buft[k], sizeof(out->buft[k]), "%s", pl->bufts[b].name);
                break;
            }
        }
    }
    out->mem[n].total = out->mem[n].free = (int64_t) u->host_memory;
    for (int32_t b = 0; b < pl->n_bufts; b++) {
        const struct galloc_place_buft * bt = &pl->bufts[b];
        struct galloc_fit_memory * to = NULL;
        if (bt->is_host) {
            to = &out->mem[n];
        } else {
            for (int32_t k = 0; k < n; k++) {
                to = used[k] == bt->device ? &out->mem[k] : to;
            }
        }
        if (to) {
            to->model   += bt->model;
            to->context += bt->context;
            to->compute += bt->compute;
        }
    }
    out->n_layer     = (uint32_t) pl->n_layer;
    out->n_ctx_train = (uint32_t) pl->n_ctx_train;
    out->n_expert    = u->m->hp.n_expert;
    galloc_placement_free(pl);
    return true;
}

bool galloc_fit_model(const struct galloc_model * m, const struct galloc_model_settings * s,
                      const struct galloc_place_settings * p, const struct galloc_fit_settings * f,
                      struct galloc_fit_result * out, struct galloc_error * err) {
    struct galloc_fit_model_user u = { m, f->host_memory };
    return galloc_fit(galloc_fit_measure_model, &u, s, p, f, out, err);
}

struct line {
    char * s;
    size_t n, cap;
    bool   oom;
};

static void put(struct line * l, const char * t) {
    const size_t k = strlen(t);
    if (l->oom) {
        return;
    }
    if (l->n + k + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (l->n + k + 1 > cap) {
            cap *= 2;
        }
        char * s = realloc(l->s, cap);
        if (!s) {
            l->oom = true;
            return;
        }
        l->s = s;
        l->cap = cap;
    }
    memcpy(l->s + l->n, t, k + 1);
    l->n += k;
}

// the overrides as llama.cpp holds them: -cmoe one pattern, -ncmoe N N patterns (none for 0)
static int32_t override_count(const struct galloc_place_override * o) {
    return o->kind == GALLOC_OVERRIDE_N_CPU_MOE ? (o->n > 0 ? o->n : 0) : 1;
}

// the i-th pattern of o into out; returns its buffer type's name
static const char * override_at(const struct galloc_place_override * o, int32_t i, char * out, size_t size) {
    const char * exps = "\\.ffn_(up|down|gate|gate_up)_(ch|)exps";
    if (o->kind == GALLOC_OVERRIDE_N_CPU_MOE) {
        snprintf(out, size, "blk\\.%d%s", (int) i, exps);
        return "CPU";
    }
    snprintf(out, size, "%s", o->kind == GALLOC_OVERRIDE_CPU_MOE ? exps : o->pattern);
    return o->kind == GALLOC_OVERRIDE_CPU_MOE ? "CPU" : o->buft;
}

char * galloc_fit_flags(const struct galloc_fit_result * r) {
    struct line l = { NULL, 0, 0, false };
    char buf[64];
    snprintf(buf, sizeof(buf), "-c %" PRIu32 " -ngl %" PRIi32, (uint32_t) r->s.n_ctx, r->p.n_gpu_layers);
    put(&l, buf);
    // -ts: up to the last device with a share, when that is not the first
    int32_t nd = r->p.n_tensor_split;
    while (nd > 1 && r->p.tensor_split[nd - 1] == 0.0f) {
        nd--;
    }
    for (int32_t id = 0; nd > 1 && id < nd; id++) {
        snprintf(buf, sizeof(buf), "%s%" PRIu32, id == 0 ? " -ts " : ",", (uint32_t) r->p.tensor_split[id]);
        put(&l, buf);
    }
    bool first = true;
    for (int32_t o = 0; o < r->p.n_overrides && o < GALLOC_PLACE_MAX_OVERRIDES; o++) {
        for (int32_t i = 0; i < override_count(&r->p.overrides[o]); i++) {
            char pattern[GALLOC_PLACE_MAX_PATTERN];
            const char * buft = override_at(&r->p.overrides[o], i, pattern, sizeof(pattern));
            put(&l, first ? " -ot \"" : ",");
            put(&l, pattern);
            put(&l, "=");
            put(&l, buft);
            first = false;
        }
    }
    if (!first) {
        put(&l, "\"");
    }
    if (l.oom) {
        free(l.s);
        return NULL;
    }
    return l.s;
}

char * galloc_fit_json(const struct galloc_fit_result * r, const char * memory_json) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    char * flags = galloc_fit_flags(r);
    galloc_json_write_begin_object(&w);
    galloc_json_write_key_cstr(&w, "format", "galloc-fit");
    galloc_json_write_key_u64(&w, "version", 1);
    galloc_json_write_key_cstr(&w, "status", r->status == GALLOC_FIT_SUCCESS ? "success" : "failure");
    galloc_json_write_key(&w, "reason");
    if (r->status == GALLOC_FIT_SUCCESS) {
        galloc_json_write_null(&w);
    } else {
        galloc_json_write_cstr(&w, r->reason);
    }
    galloc_json_write_key_cstr(&w, "flags", flags ? flags : "");
    galloc_json_write_key_i64(&w, "n_ctx", r->s.n_ctx);
    galloc_json_write_key_i64(&w, "n_gpu_layers", r->p.n_gpu_layers);
    galloc_json_write_key(&w, "tensor_split");
    galloc_json_write_begin_array(&w);
    for (int32_t id = 0; id < r->p.n_tensor_split && id < GALLOC_PLACE_MAX_DEVICES; id++) {
        galloc_json_write_f32(&w, r->p.tensor_split[id]);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key(&w, "overrides");
    galloc_json_write_begin_array(&w);
    for (int32_t o = 0; o < r->p.n_overrides && o < GALLOC_PLACE_MAX_OVERRIDES; o++) {
        for (int32_t i = 0; i < override_count(&r->p.overrides[o]); i++) {
            char pattern[GALLOC_PLACE_MAX_PATTERN];
            const char * buft = override_at(&r->p.overrides[o], i, pattern, sizeof(pattern));
            galloc_json_write_newline(&w, 4);
            galloc_json_write_begin_object(&w);
            galloc_json_write_key_cstr(&w, "pattern", pattern);
            galloc_json_write_key_cstr(&w, "buft", buft);
            galloc_json_write_end_object(&w);
        }
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key_i64(&w, "measurements", r->n_measurements);
    galloc_json_write_key(&w, "log");
    galloc_json_write_begin_array(&w);
    for (const char * line = r->log; line && *line;) {
        const char * nl = strchr(line, '\n');
        const size_t n = nl ? (size_t) (nl - line) : strlen(line);
        galloc_json_write_newline(&w, 4);
        galloc_json_write_string(&w, line, n);
        line += n + (nl ? 1 : 0);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key(&w, "memory");
    if (memory_json) {
        galloc_json_write_raw(&w, memory_json, strlen(memory_json), true);
    } else {
        galloc_json_write_null(&w);
    }
    galloc_json_write_end_object(&w);
    free(flags);
    size_t len;
    return flags ? galloc_json_writer_finish(&w, &len) : (galloc_json_writer_free(&w), NULL);
}
