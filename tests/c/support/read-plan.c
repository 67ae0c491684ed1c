// read-plan.c: graph documents read, planned and explained for the C tests (see read-plan.h).

#include "read-plan.h"

#include "files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool read_doc_text(const char * text, struct galloc_document * doc) {
    struct galloc_error err;
    if (!galloc_document_read(text, strlen(text), doc, &err)) {
        fprintf(stderr, "read failed: %s\n", err.message);
        return false;
    }
    return true;
}

bool plan_doc_text(const char * text, struct galloc_document * doc, struct galloc_plan * plan) {
    struct galloc_planned p;
    struct galloc_error   err;
    if (!galloc_planned_read(text, strlen(text), &p, &err)) {
        fprintf(stderr, "read or plan failed: %s\n", err.message);
        return false;
    }
    *doc  = p.doc;
    *plan = p.plan;
    return true;
}

bool explain_doc_text(const char * text, struct explained * out) {
    memset(out, 0, sizeof(*out));
    if (!plan_doc_text(text, &out->doc, &out->plan)) {
        return false;
    }
    struct galloc_error err;
    if (!galloc_explain_plan(&out->doc, &out->plan, &out->ex, &err)) {
        fprintf(stderr, "explain failed: %s\n", err.message);
        explained_free(out);
        return false;
    }
    return true;
}

bool explain_golden(const char * name, struct explained * out) {
    memset(out, 0, sizeof(*out));
    size_t len  = 0;
    char * json = golden_read(name, "graph", &len);
    if (json == NULL) {
        fprintf(stderr, "%s: no golden graph\n", name);
        return false;
    }
    bool ok = explain_doc_text(json, out);
    free(json);
    return ok;
}

void explained_free(struct explained * e) {
    galloc_explain_free(&e->ex);
    galloc_plan_free(&e->plan);
    galloc_document_free(&e->doc);
}
