// read-plan.h: graph documents read, planned and explained for the C tests, the reason on
// stderr when that fails, so that no test carries its own copy of this setup.
//
// Reading and planning go the library's one path (galloc_planned_read, as the CLI and the
// WASM module do); explaining adds galloc_explain_plan. On failure nothing is held.

#pragma once

#include "galloc-document.h"
#include "galloc-explain.h"

#include <stdbool.h>

// text (NUL-terminated) read as a graph document
bool read_doc_text(const char * text, struct galloc_document * doc);
// text read and planned; release with galloc_plan_free and galloc_document_free
bool plan_doc_text(const char * text, struct galloc_document * doc, struct galloc_plan * plan);

// a document, its plan and the plan's explanation
struct explained {
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_explain  ex;
};
// text read, planned and explained; release with explained_free
bool explain_doc_text(const char * text, struct explained * out);
// the golden graph NAME (tests/golden/NAME.graph.json) read, planned and explained
bool explain_golden(const char * name, struct explained * out);
void explained_free(struct explained * e);
