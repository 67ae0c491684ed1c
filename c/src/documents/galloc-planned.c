// galloc-planned.c: a graph document read and planned, the one path every front end takes
// (galloc-document.h): the CLI, the WASM module and the benchmarks' timing.

#include "galloc-document.h"

#include <string.h>

bool galloc_planned_read(const char * json, size_t len, struct galloc_planned * out, struct galloc_error * err) {
    memset(out, 0, sizeof(*out));
    if (!galloc_document_read(json, len, &out->doc, err)) {
        return false;
    }
    if (!galloc_plan_graph(&out->doc.graph, &out->plan, err)) {
        galloc_document_free(&out->doc);
        memset(out, 0, sizeof(*out));
        return false;
    }
    return true;
}

void galloc_planned_free(struct galloc_planned * p) {
    galloc_plan_free(&p->plan);
    galloc_document_free(&p->doc);
}
