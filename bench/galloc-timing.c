// galloc-timing.c: times the planner on a document (see galloc-timing.h).
//
// Uses the project's clock (galloc-clock.h) and malloc's own
// statistics for the heap the planner holds (glibc's mallinfo2, dlmalloc's
// mallinfo in WebAssembly).

#include "galloc-timing.h"
#include "galloc-clock.h"
#include "galloc-error.h"
#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__GLIBC__) || defined(__EMSCRIPTEN__)
#    include <malloc.h>
#endif

static double heap_in_use(void) {
#if defined(__GLIBC__)
    return (double) mallinfo2().uordblks;
#elif defined(__EMSCRIPTEN__)
    return (double) mallinfo().uordblks;
#else
    return 0;
#endif
}

static int compare_doubles(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

bool galloc_time_plan(const char * json, size_t len, int32_t runs, struct galloc_timing * out, struct galloc_error * err) {
    if (runs < 1 || runs > 100000) {
        galloc_fail(err, GALLOC_STATUS_ARGUMENT, "runs: %d is not in 1..100000", runs);
        return false;
    }
    // read and planned as every front end does (galloc_planned_read); that first plan is not timed
    struct galloc_planned first;
    if (!galloc_planned_read(json, len, &first, err)) {
        return false;
    }
    galloc_plan_free(&first.plan);
    struct galloc_document doc = first.doc;
    double * times = malloc((size_t) runs * sizeof(double));
    if (!times) {
        galloc_document_free(&doc);
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return false;
    }
    bool ok = true;
    out->heap_bytes = 0;
    for (int32_t r = 0; r < runs && ok; r++) {
        struct galloc_plan plan;
        double before = heap_in_use();
        double t0     = galloc_now_ms();
        ok            = galloc_plan_graph(&doc.graph, &plan, err);
        times[r]      = galloc_now_ms() - t0;
        if (ok) {
            double held = heap_in_use() - before;
            out->heap_bytes = held > out->heap_bytes ? held : out->heap_bytes;
            galloc_plan_free(&plan);
        }
    }
    if (ok) {
        qsort(times, (size_t) runs, sizeof(double), compare_doubles);
        out->n_nodes   = doc.n_nodes;
        out->n_tensors = doc.n_tensors;
        out->runs      = runs;
        out->median_ms = times[runs / 2];
        out->min_ms    = times[0];
    }
    free(times);
    galloc_document_free(&doc);
    return ok;
}
