// galloc-model-place-print.c: a placement's memory as llama.cpp's table and as galloc-memory JSON.
//
// The table is common_memory_breakdown_print's (common/fit.cpp): a row per device (total = free +
// (self = model + context + compute) + unaccounted, MiB rounded down; free as the device would
// report it after loading), the host's buffer types summed in one row, any other buffer type on a
// row of its own; columns padded to their widest cell, the first to the right, the others to the left.

#include "galloc-model-place.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((uint64_t) 1 << 20)
#define N_COLS 9
#define CELL 96

struct text {
    char * s;
    size_t n, cap;
    bool   oom;
};

static void add(struct text * t, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text * t, const char * fmt, ...) {
    if (t->oom) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    const int k = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (k < 0) {
        t->oom = true;
        va_end(again);
        return;
    }
    if (t->n + (size_t) k + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (t->n + (size_t) k + 1 > cap) {
            cap *= 2;
        }
        char * s = realloc(t->s, cap);
        if (!s) {
            t->oom = true;
            va_end(again);
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->n, (size_t) k + 1, fmt, again);
    va_end(again);
    t->n += (size_t) k;
}

static char * finish(struct text * t) {
    if (t->oom || !t->s) {
        free(t->s);
        return NULL;
    }
    return t->s;
}

enum row_kind { ROW_HEADER, ROW_DEVICE, ROW_OTHER };

struct row {
    enum row_kind kind;
    char cells[N_COLS][CELL];
};

static void set_u64(char * cell, uint64_t v) {
    snprintf(cell, CELL, "%" PRIu64, v);
}

static void fill_sums(struct row * r, uint64_t model, uint64_t context, uint64_t compute) {
    set_u64(r->cells[4], (model + context + compute) / MIB);
    set_u64(r->cells[5], model / MIB);
    set_u64(r->cells[6], context / MIB);
    set_u64(r->cells[7], compute / MIB);
}

// the description with a vendor's prefixes taken off, as llama.cpp does
static const char * strip_prefixes(const char * desc) {
    static const char * const prefixes[] = { "NVIDIA ", "GeForce ", "Tesla ", "AMD ", "Radeon ", "Instinct " };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        const size_t n = strlen(prefixes[i]);
        if (strncmp(desc, prefixes[i], n) == 0) {
            desc += n;
        }
    }
    return desc;
}

char * galloc_placement_table(const struct galloc_placement * pl) {
    if (!pl) {
        return NULL;
    }
    const int32_t n_rows_max = 2 + pl->n_devices + pl->n_bufts;
    struct row * rows = calloc((size_t) n_rows_max, sizeof(*rows));
    bool * seen = calloc((size_t) pl->n_bufts + 1, sizeof(bool));
    if (!rows || !seen) {
        free(rows);
        free(seen);
        return NULL;
    }
    int32_t n = 0;
    static const char * const header[N_COLS] = { "", "memory breakdown [MiB]", "total", "free", "self", "model", "context",
                                                 "compute", "unaccounted" };
    rows[n].kind = ROW_HEADER;
    for (int c = 1; c < N_COLS; c++) {
        snprintf(rows[n].cells[c], CELL, "%s", header[c]);
    }
    n++;
    // the devices in use: those with a buffer type of their own
    uint64_t host[3] = { 0, 0, 0 };
    for (int32_t b = 0; b < pl->n_bufts; b++) {
        if (pl->bufts[b].is_host) {
            host[0] += pl->bufts[b].model;
            host[1] += pl->bufts[b].context;
            host[2] += pl->bufts[b].compute;
            seen[b] = true;
        }
    }
    for (int32_t d = 0; d < pl->n_devices; d++) {
        uint64_t sums[3] = { 0, 0, 0 };
        bool used = false;
        for (int32_t b = 0; b < pl->n_bufts; b++) {
            if (!pl->bufts[b].is_host && pl->bufts[b].device == d) {
                sums[0] += pl->bufts[b].model;
                sums[1] += pl->bufts[b].context;
                sums[2] += pl->bufts[b].compute;
                seen[b] = true;
                used = true;
            }
        }
        if (!used) {
            continue; // a device -sm none leaves out
        }
        struct row * r = &rows[n++];
        r->kind = ROW_DEVICE;
        snprintf(r->cells[1], CELL, "  - %s (%s)", pl->devices[d].name, strip_prefixes(pl->devices[d].description));
        set_u64(r->cells[2], pl->devices[d].total / MIB);
        // llama.cpp prints the free memory the device reports after loading: on a device holding
        // only what llama.cpp put there, its memory less self (0 when self does not fit, so that
        // unaccounted then says by how much it is over)
        const uint64_t self = sums[0] + sums[1] + sums[2];
        const uint64_t free_after = pl->devices[d].total > self ? pl->devices[d].total - self : 0;
        set_u64(r->cells[3], free_after / MIB);
        fill_sums(r, sums[0], sums[1], sums[2]);
        const int64_t unaccounted = (int64_t) pl->devices[d].total - (int64_t) free_after - (int64_t) self;
        snprintf(r->cells[8], CELL, "%" PRId64, unaccounted / (int64_t) MIB);
    }
    struct row * h = &rows[n++];
    h->kind = ROW_OTHER;
    snprintf(h->cells[1], CELL, "  - Host");
    fill_sums(h, host[0], host[1], host[2]);
    for (int32_t b = 0; b < pl->n_bufts; b++) {
        if (!seen[b]) {
            struct row * r = &rows[n++];
            r->kind = ROW_OTHER;
            snprintf(r->cells[1], CELL, "  - %s", pl->bufts[b].name);
            fill_sums(r, pl->bufts[b].model, pl->bufts[b].context, pl->bufts[b].compute);
        }
    }
    // pad every column to its widest cell: the first on the right, the others on the left
    for (int c = 1; c < N_COLS; c++) {
        size_t w = 0;
        for (int32_t i = 0; i < n; i++) {
            w = strlen(rows[i].cells[c]) > w ? strlen(rows[i].cells[c]) : w;
        }
        for (int32_t i = 0; i < n; i++) {
            char tmp[CELL];
            const size_t len = strlen(rows[i].cells[c]);
            if (c == 1) {
                snprintf(tmp, sizeof(tmp), "%s%*s", rows[i].cells[c], (int) (w - len), "");
            } else {
                snprintf(tmp, sizeof(tmp), "%*s%s", (int) (w - len), "", rows[i].cells[c]);
            }
            memcpy(rows[i].cells[c], tmp, sizeof(tmp));
        }
    }
    struct text t = { 0 };
    for (int32_t i = 0; i < n; i++) {
        char (*c)[CELL] = rows[i].cells;
        const char * f = "common_memory_breakdown_print: ";
        if (rows[i].kind == ROW_HEADER) {
            add(&t, "%s| %s | %s   %s    %s   %s   %s   %s    %s |\n", f, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
        } else if (rows[i].kind == ROW_DEVICE) {
            add(&t, "%s| %s | %s = %s + (%s = %s + %s + %s) + %s |\n", f, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
        } else {
            add(&t, "%s| %s | %s   %s    %s = %s + %s + %s    %s |\n", f, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
        }
    }
    free(rows);
    free(seen);
    return finish(&t);
}

static void add_json_string(struct text * t, const char * s) {
    add(t, "\"");
    for (; *s; s++) {
        const unsigned char ch = (unsigned char) *s;
        if (ch == '"' || ch == '\\') {
            add(t, "\\%c", ch);
        } else if (ch < 0x20) {
            add(t, "\\u%04x", ch);
        } else {
            add(t, "%c", ch);
        }
    }
    add(t, "\"");
}

char * galloc_placement_json(const struct galloc_placement * pl) {
    if (!pl) {
        return NULL;
    }
    struct text t = { 0 };
    add(&t, "{\"format\": \"galloc-memory\", \"version\": 1, \"buffer_types\": [");
    for (int32_t b = 0; b < pl->n_bufts; b++) {
        const struct galloc_place_buft * bt = &pl->bufts[b];
        add(&t, "%s\n  {\"name\": ", b ? "," : "");
        add_json_string(&t, bt->name);
        add(&t, ", \"device\": %d, \"model\": %" PRIu64 ", \"context\": %" PRIu64 ", \"compute\": ",
            bt->is_host ? -1 : (int) bt->device, bt->model, bt->context);
        if (pl->has_compute) {
            add(&t, "%" PRIu64 "}", bt->compute);
        } else {
            add(&t, "null}");
        }
    }
    add(&t, "\n]}\n");
    return finish(&t);
}
