// cli-diff.c: plan comparison (see cli-diff.h).
//
// Compares two plans read by galloc_plan_document_read (checked, compact): exactly the
// fields that define plan equality. Every difference counts; at most max_report are printed.

#include "cli-diff.h"

#include <inttypes.h>

struct report {
    FILE * out;
    int    max;
    long   n; // differences so far
};

// true when this difference is to be printed
static bool report_next(struct report * r) {
    return r->n++ < r->max;
}

static void diff_buffers(struct report * r, const struct galloc_plan_document * a, const struct galloc_plan_document * b) {
    if (a->n_buffers != b->n_buffers && report_next(r)) {
        fprintf(r->out, "buffers: %d vs %d entries\n", a->n_buffers, b->n_buffers);
    }
    for (int32_t i = 0; i < a->n_buffers && i < b->n_buffers; i++) {
        const struct galloc_plan_document_buffer * x = &a->buffers[i], * y = &b->buffers[i];
        if (x->n_chunks != y->n_chunks) {
            if (report_next(r)) {
                fprintf(r->out, "buffers[%d]: %d chunks vs %d\n", i, x->n_chunks, y->n_chunks);
            }
            continue;
        }
        for (int32_t c = 0; c < x->n_chunks; c++) {
            if (x->chunk_sizes[c] != y->chunk_sizes[c] && report_next(r)) {
                fprintf(r->out, "buffers[%d].chunk_sizes[%d]: %" PRIu64 " vs %" PRIu64 "\n", i, c, x->chunk_sizes[c], y->chunk_sizes[c]);
            }
        }
    }
}

static void diff_tensors(struct report * r, const struct galloc_plan_document * a, const struct galloc_plan_document * b) {
    if (a->n_tensors != b->n_tensors && report_next(r)) {
        fprintf(r->out, "tensors: %d vs %d entries\n", a->n_tensors, b->n_tensors);
    }
    for (int32_t i = 0; i < a->n_tensors && i < b->n_tensors; i++) {
        const struct galloc_plan_document_tensor * x = &a->tensors[i], * y = &b->tensors[i];
        bool xn = x->buffer < 0, yn = y->buffer < 0;
        if (xn || yn) {
            if (xn != yn && report_next(r)) {
                fprintf(r->out, "tensors[%d]: %s vs %s\n", i, xn ? "null" : "placed", yn ? "null" : "placed");
            }
            continue;
        }
        if (x->buffer != y->buffer && report_next(r)) {
            fprintf(r->out, "tensors[%d].buffer: %d vs %d\n", i, x->buffer, y->buffer);
        }
        if (x->chunk != y->chunk && report_next(r)) {
            fprintf(r->out, "tensors[%d].chunk: %d vs %d\n", i, x->chunk, y->chunk);
        }
        if (x->offset != y->offset && report_next(r)) {
            fprintf(r->out, "tensors[%d].offset: %" PRIu64 " vs %" PRIu64 "\n", i, x->offset, y->offset);
        }
    }
}

int cli_diff_plans(const struct galloc_plan_document * a, const struct galloc_plan_document * b, FILE * out, int max_report) {
    struct report r = { out, max_report, 0 };
    diff_buffers(&r, a, b);
    diff_tensors(&r, a, b);
    if (r.n > max_report) {
        fprintf(out, "... %ld differences in all\n", r.n);
    }
    return r.n ? 1 : 0;
}
