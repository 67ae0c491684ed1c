// galloc-explain-compare.c: two analyses side by side: sizes, the difference, and the
// tensors (by name, or by layer-folded name) whose bytes at the peak account for it.
//
// Buffer types are matched by name. Per buffer type the size difference splits exactly into
// the difference of the peaks (the rows: every name's bytes live at B's peak minus at A's)
// and the difference of the overheads above the peaks (packing, no tensor's own bytes). The
// packing has its tensors too: each side's tensors placed above the other side's size of their
// chunk (two plans of one graph have the same peak; these say where one needs more room).

#include "galloc-error.h"
#include "galloc-explain.h"
#include "galloc-layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// one tensor live at one side's peak, under its (folded) name
struct entry {
    char     name[GGML_MAX_NAME + 8];
    int32_t  side;   // 0: A, 1: B
    int32_t  tensor;
    uint64_t bytes;
};

static int compare_entries(const void * x, const void * y) {
    const struct entry * a = x, * b = y;
    int c = strcmp(a->name, b->name);
    if (c) {
        return c;
    }
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1; // the largest first: it names the row
    }
    return (a->tensor > b->tensor) - (a->tensor < b->tensor);
}

static uint64_t abs_diff(uint64_t a, uint64_t b) {
    return a > b ? a - b : b - a;
}

static int compare_rows(const void * x, const void * y) {
    const struct galloc_explain_diff_row * a = x, * b = y;
    uint64_t da = abs_diff(a->bytes_a, a->bytes_b), db = abs_diff(b->bytes_a, b->bytes_b);
    if (da != db) {
        return da > db ? -1 : 1;
    }
    return strcmp(a->name, b->name);
}

static void entry_name(const struct galloc_document * doc, int32_t t, bool fold, char * out, size_t size) {
    const char * name = doc->tensor_names[t];
    if (name[0] == '\0') {
        snprintf(out, size, "#%d", t); // unnamed: its index
    } else if (fold) {
        galloc_layer_fold(name, out, size);
    } else {
        snprintf(out, size, "%s", name);
    }
}

// the first buffer type of that name not matched yet (used: per buffer type of ex)
static int32_t find_buffer(const struct galloc_document * doc, const struct galloc_explain * ex, const char * name, const bool * used) {
    for (int32_t b = 0; b < ex->n_buffers; b++) {
        if (!used[b] && ex->buffers[b].shared_with < 0 && strcmp(doc->buffer_type_names[b], name) == 0) {
            return b;
        }
    }
    return -1;
}

// the rows of one matched buffer type (ba or bb may be -1)
static bool diff_rows(const struct galloc_document * doc_a, const struct galloc_explain * a, int32_t ba,
                      const struct galloc_document * doc_b, const struct galloc_explain * b, int32_t bb, bool fold,
                      struct galloc_explain_diff_buffer * out) {
    int32_t na = ba >= 0 ? a->buffers[ba].n_live : 0, nb = bb >= 0 ? b->buffers[bb].n_live : 0;
    struct entry * e = malloc((size_t) (na + nb > 0 ? na + nb : 1) * sizeof(*e));
    out->rows = malloc((size_t) (na + nb > 0 ? na + nb : 1) * sizeof(*out->rows));
    if (!e || !out->rows) {
        free(e);
        return false;
    }
    for (int32_t i = 0; i < na; i++) {
        const struct galloc_explain_live * l = &a->buffers[ba].live[i];
        entry_name(doc_a, l->tensor, fold, e[i].name, sizeof(e[i].name));
        e[i].side = 0, e[i].tensor = l->tensor, e[i].bytes = l->bytes;
    }
    for (int32_t i = 0; i < nb; i++) {
        const struct galloc_explain_live * l = &b->buffers[bb].live[i];
        entry_name(doc_b, l->tensor, fold, e[na + i].name, sizeof(e[na + i].name));
        e[na + i].side = 1, e[na + i].tensor = l->tensor, e[na + i].bytes = l->bytes;
    }
    qsort(e, (size_t) (na + nb), sizeof(*e), compare_entries);
    int32_t n_rows = 0;
    for (int32_t i = 0; i < na + nb;) {
        struct galloc_explain_diff_row r = { .tensor_a = -1, .tensor_b = -1 };
        memcpy(r.name, e[i].name, sizeof(r.name));
        int32_t j = i;
        for (; j < na + nb && strcmp(e[j].name, e[i].name) == 0; j++) {
            if (e[j].side == 0) {
                r.bytes_a += e[j].bytes;
                r.tensor_a = r.count_a++ ? r.tensor_a : e[j].tensor;
            } else {
                r.bytes_b += e[j].bytes;
                r.tensor_b = r.count_b++ ? r.tensor_b : e[j].tensor;
            }
        }
        if (r.bytes_a != r.bytes_b) {
            out->rows[n_rows++] = r;
        }
        i = j;
    }
    free(e);
    qsort(out->rows, (size_t) n_rows, sizeof(*out->rows), compare_rows);
    out->n_rows = n_rows;
    return true;
}

static int compare_above(const void * x, const void * y) {
    const struct galloc_explain_above * a = x, * b = y;
    if (a->above != b->above) {
        return a->above > b->above ? -1 : 1;
    }
    if (a->step != b->step) {
        return a->step < b->step ? -1 : 1;
    }
    return (a->tensor > b->tensor) - (a->tensor < b->tensor);
}

// the tensors of allocator b of ex (doc) that end above the other side's chunk sizes (other: that
// side's buffer type index or -1, its sizes then all 0); one row per tensor, never folded: where
// each one sits is the point
static bool find_above(const struct galloc_document * doc, const struct galloc_explain * ex, int32_t b,
                       const struct galloc_explain * other_ex, int32_t other,
                       struct galloc_explain_above ** out, int32_t * n_out) {
    *out   = NULL;
    *n_out = 0;
    if (b < 0) {
        return true;
    }
    int32_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int32_t t = 0; t < ex->n_tensors; t++) {
            if (ex->hold_buffer[t] != b || ex->hold_bytes[t] == 0) {
                continue;
            }
            int32_t  c     = ex->hold_chunk[t];
            uint64_t limit = other >= 0 && c < other_ex->buffers[other].n_chunks ? other_ex->buffers[other].chunk_sizes[c] : 0;
            uint64_t off = ex->hold_offset[t], end = off + ex->hold_bytes[t];
            if (end <= limit) {
                continue;
            }
            if (pass == 1) {
                struct galloc_explain_above * a = &(*out)[n];
                entry_name(doc, t, false, a->name, sizeof(a->name));
                a->tensor = t;
                a->chunk  = c;
                a->step   = ex->hold_first[t];
                a->offset = off;
                a->bytes  = ex->hold_bytes[t];
                a->above  = end - (off > limit ? off : limit);
            }
            n++;
        }
        if (pass == 0) {
            *out = malloc((size_t) (n > 0 ? n : 1) * sizeof(**out));
            if (!*out) {
                return false;
            }
        }
    }
    qsort(*out, (size_t) n, sizeof(**out), compare_above);
    *n_out = n;
    return true;
}

static void fill_side(const struct galloc_explain * ex, int32_t b, uint64_t * size, uint64_t * peak, int32_t * step) {
    *size = b >= 0 ? ex->buffers[b].size : 0;
    *peak = b >= 0 ? ex->buffers[b].peak_live : 0;
    *step = b >= 0 ? ex->buffers[b].peak_step : -1;
}

bool galloc_explain_compare(const struct galloc_document * doc_a, const struct galloc_explain * a,
                            const struct galloc_document * doc_b, const struct galloc_explain * b, bool fold,
                            struct galloc_explain_diff * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    out->folded  = fold;
    out->buffers = calloc((size_t) (a->n_buffers + b->n_buffers), sizeof(*out->buffers));
    bool * used  = calloc((size_t) (b->n_buffers > 0 ? b->n_buffers : 1), sizeof(bool)); // B's matched
    if (!out->buffers || !used) {
        free(used);
        galloc_explain_diff_free(out);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory comparing plans");
    }
    // A's buffer types in order, each with B's of the same name; then B's left over
    for (int32_t side = 0; side < 2; side++) {
        const struct galloc_document * doc = side ? doc_b : doc_a;
        const struct galloc_explain  * ex  = side ? b : a;
        for (int32_t i = 0; i < ex->n_buffers; i++) {
            if (ex->buffers[i].shared_with >= 0) {
                continue;
            }
            const char * name = doc->buffer_type_names[i];
            if (side && used[i]) {
                continue; // matched on A's turn
            }
            int32_t ba = side ? -1 : i;
            int32_t bb = side ? i : find_buffer(doc_b, b, name, used);
            if (bb >= 0) {
                used[bb] = true;
            }
            struct galloc_explain_diff_buffer * d = &out->buffers[out->n_buffers++];
            snprintf(d->name, sizeof(d->name), "%s", name);
            d->buffer_a = ba;
            d->buffer_b = bb;
            fill_side(a, ba, &d->size_a, &d->peak_a, &d->peak_step_a);
            fill_side(b, bb, &d->size_b, &d->peak_b, &d->peak_step_b);
            d->size_diff     = (int64_t) (d->size_b - d->size_a);
            d->peak_diff     = (int64_t) (d->peak_b - d->peak_a);
            d->overhead_diff = (int64_t) (galloc_overhead_bytes(d->size_b, d->peak_b) - galloc_overhead_bytes(d->size_a, d->peak_a));
            out->total_a += d->size_a;
            out->total_b += d->size_b;
            if (!diff_rows(doc_a, a, ba, doc_b, b, bb, fold, d) ||
                !find_above(doc_a, a, ba, b, bb, &d->above_a, &d->n_above_a) ||
                !find_above(doc_b, b, bb, a, ba, &d->above_b, &d->n_above_b)) {
                free(used);
                galloc_explain_diff_free(out);
                return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory comparing plans");
            }
        }
    }
    free(used);
    return true;
}

void galloc_explain_diff_free(struct galloc_explain_diff * diff) {
    if (!diff) {
        return;
    }
    for (int32_t b = 0; diff->buffers && b < diff->n_buffers; b++) {
        free(diff->buffers[b].rows);
        free(diff->buffers[b].above_a);
        free(diff->buffers[b].above_b);
    }
    free(diff->buffers);
    memset(diff, 0, sizeof(*diff));
}
