// galloc-wasm.c: the WebAssembly module's whole interface, for web/src/core/galloc.js.
//
// Every export is here, named galloc_wasm_*, declared in galloc-wasm.h, and crosses to JS as
// galloc_js_* (galloc-wasm-abi.c: the same call with 32-bit addresses and lengths; listed in
// c/wasm/exports.txt). Only numbers and pointers cross; strings cross as UTF-8 in malloc'd
// buffers. No export aborts on its input: a failure returns 0 (NULL) and leaves a status
// and a one-line message (galloc_wasm_last_status, galloc_wasm_last_error).
//
// Example usage (JS; galloc.js does the same with error handling and try/finally):
//
//   const p = M._galloc_js_alloc(n + 1);  M.HEAPU8.set(utf8, p);  M.HEAPU8[p + n] = 0;
//   const r = M._galloc_js_plan(p, n);    M._galloc_js_free(p);
//   if (r === 0) throw new Error(/* NUL-terminated text at */ M._galloc_js_last_error());
//   const plan = decode(M.HEAPU8.subarray(r, r + M._galloc_js_result_length()));
//   M._galloc_js_free(r);

#include "galloc-binary.h"
#include "galloc-document.h"
#include "galloc-explain.h"
#include "galloc-gguf.h"
#include "galloc-model-fit.h"
#include "galloc-model-place.h"
#include "galloc-model.h"
#include "galloc-planner.h"
#include "galloc-presets.h"
#include "galloc-wasm.h"
#include "galloc-whatif.h"
#include "json.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __EMSCRIPTEN__
// dlmalloc's struct mallinfo, as dlmalloc.c writes it: size_t fields (its MALLINFO_FIELD_TYPE).
// emscripten's <malloc.h> declares them int, the same layout only where size_t has 32 bits; in
// this wasm64 module mallinfo() would write 80 bytes into a 40-byte struct on the stack.
struct dlmalloc_mallinfo {
    size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
struct dlmalloc_mallinfo dlmalloc_mallinfo(void) __asm__("mallinfo");
#endif

#ifndef GALLOC_VERSION
#    define GALLOC_VERSION "0.1.0"
#endif

// what the last call to an export that can fail ended with (galloc_wasm_last_status) is the
// library's own status (galloc-status.h); JS names it with galloc_wasm_status_name

#define GALLOC_WASM_ERROR_SIZE 1024 // bytes of the last error message, NUL included

static enum galloc_status galloc_wasm_status                = GALLOC_STATUS_OK;
static char    galloc_wasm_error[GALLOC_WASM_ERROR_SIZE]  = "";
static size_t  galloc_wasm_length                         = 0; // bytes of the last returned string, NUL excluded

//
// status bookkeeping
//

static void galloc_wasm_ok(void) {
    galloc_wasm_status   = GALLOC_STATUS_OK;
    galloc_wasm_error[0] = '\0';
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
// record a failure; returns NULL so that callers can `return galloc_wasm_fail(...)`
static void * galloc_wasm_fail(enum galloc_status status, const char * fmt, ...) {
    galloc_wasm_status = status;
    galloc_wasm_length = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(galloc_wasm_error, sizeof(galloc_wasm_error), fmt, ap);
    va_end(ap);
    return NULL;
}

// a string handed back to JS: remember its length, or fail when it is NULL (out of memory)
static char * galloc_wasm_result(char * text, size_t len) {
    if (text == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    galloc_wasm_ok();
    galloc_wasm_length = len;
    return text;
}

//
// memory shared with JS
//

// size bytes for JS to write into (at least 1); NULL with status NO_MEMORY when malloc fails
GALLOC_WASM_EXPORT void * galloc_wasm_alloc(size_t size) {
    void * p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory (%zu bytes)", size);
    }
    galloc_wasm_ok();
    return p;
}

// release a buffer from galloc_wasm_alloc or a string returned by another export; NULL is fine
GALLOC_WASM_EXPORT void galloc_wasm_free(void * ptr) {
    free(ptr);
}

// bytes the module's malloc has handed out and not taken back (dlmalloc's uordblks):
// equal before and after a call that frees everything it allocated
GALLOC_WASM_EXPORT double galloc_wasm_heap_used(void) {
#ifdef __EMSCRIPTEN__
    struct dlmalloc_mallinfo info = dlmalloc_mallinfo();
    return (double) info.uordblks;
#else
    return -1.0; // not measured outside the WebAssembly build
#endif
}

//
// status of the last call
//

// the galloc_status of the last call that can fail
GALLOC_WASM_EXPORT int32_t galloc_wasm_last_status(void) {
    return (int32_t) galloc_wasm_status;
}

// a status' stable name ("invalid-input", "out-of-memory", ...; galloc_status_name), static;
// "unknown" past the last one, so that JS can list them all
GALLOC_WASM_EXPORT const char * galloc_wasm_status_name(int32_t status) {
    return galloc_status_name(status);
}

// its one-line message, "" after a success; owned by the module, valid until the next call
GALLOC_WASM_EXPORT const char * galloc_wasm_last_error(void) {
    return galloc_wasm_error;
}

// bytes (without the NUL) of the string returned by the last successful call
GALLOC_WASM_EXPORT size_t galloc_wasm_result_length(void) {
    return galloc_wasm_length;
}

// the library's version, "0.1.0"; static
GALLOC_WASM_EXPORT const char * galloc_wasm_version(void) {
    return GALLOC_VERSION;
}

// ggml's tables (types with block sizes, ops, which ops may run in place, unary ops, GLU ops,
// flags) as galloc_document_write_tables writes them: web/src/core/ggml-tables.js is generated
// from this (make tables) and tests/js check that they agree. Free with galloc_wasm_free.
GALLOC_WASM_EXPORT char * galloc_wasm_tables(void) {
    size_t len  = 0;
    char * text = galloc_document_write_tables(&len);
    return galloc_wasm_result(text, len);
}

//
// planning
//

static char g_warning[1024]; // what the last document read warns about

// read len bytes of a graph document (need not be NUL-terminated) into *doc; false with the
// reader's message (JSON path first) otherwise
static bool galloc_wasm_read(const char * json, size_t len, struct galloc_document * doc) {
    if (json == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no document (NULL pointer)");
        return false;
    }
    struct galloc_error err;
    g_warning[0] = '\0';
    if (!galloc_document_read(json, len, doc, &err)) {
        galloc_wasm_fail(err.status, "%s", err.message);
        return false;
    }
    galloc_document_warning(doc, g_warning, sizeof(g_warning));
    return true;
}

// read and plan a graph document (galloc_planned_read, the CLI's path); false with the status and
// message set (the reader's, JSON path first, or the planner's), the warning kept as galloc_wasm_read does
static bool galloc_wasm_read_and_plan(const char * json, size_t len, struct galloc_planned * p) {
    g_warning[0] = '\0';
    if (json == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no document (NULL pointer)");
        return false;
    }
    struct galloc_error err;
    if (!galloc_planned_read(json, len, p, &err)) {
        galloc_wasm_fail(err.status, "%s", err.message);
        return false;
    }
    galloc_document_warning(&p->doc, g_warning, sizeof(g_warning));
    return true;
}

// the warning of the last document read (names the tables lack, galloc_document_warning), "" for none
GALLOC_WASM_EXPORT const char * galloc_wasm_last_warning(void) {
    return g_warning;
}

// plan a graph document: the "galloc-plan" document (malloc'd, NUL-terminated, free with
// galloc_wasm_free; length from galloc_wasm_result_length), or NULL with a status and message
GALLOC_WASM_EXPORT char * galloc_wasm_plan(const char * json, size_t len) {
    struct galloc_planned p;
    if (!galloc_wasm_read_and_plan(json, len, &p)) {
        return NULL;
    }
    size_t out_len = 0;
    char * out = galloc_document_write_plan(&p.doc, &p.plan, &out_len);
    galloc_planned_free(&p);
    return galloc_wasm_result(out, out_len);
}

//
// documents kept in the module: the UI reads and plans a document once, then asks for its graph,
// its plan and its explanation from what was kept (a 300,000-tensor document is 27 MB of JSON:
// reading it again for each would cost more than the planning)
//

#define GALLOC_WASM_MAX_DOCUMENTS 16 // documents open at once

struct galloc_wasm_document {
    struct galloc_planned planned;
    char                  warning[sizeof(g_warning)];
};

static struct galloc_wasm_document * galloc_wasm_documents[GALLOC_WASM_MAX_DOCUMENTS + 1]; // by handle; 0 unused
// the sizes of a document galloc_wasm_model_build_document made, by handle; NULL for the others
static struct galloc_model_sizes *   galloc_wasm_document_sizes[GALLOC_WASM_MAX_DOCUMENTS + 1];

// the document of a handle, or NULL with status ARGUMENT
static struct galloc_wasm_document * galloc_wasm_document_at(int32_t handle) {
    if (handle < 1 || handle > GALLOC_WASM_MAX_DOCUMENTS || galloc_wasm_documents[handle] == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no open document with handle %d", (int) handle);
        return NULL;
    }
    return galloc_wasm_documents[handle];
}

// read and plan len bytes of a graph document and keep both: its handle, or 0 with the reader's or
// the planner's status and message (as galloc_wasm_plan fails) or ARGUMENT when every handle is taken
static int32_t galloc_wasm_doc_keep(const char * json, size_t len) {
    int32_t h = 1;
    while (h <= GALLOC_WASM_MAX_DOCUMENTS && galloc_wasm_documents[h] != NULL) {
        h++;
    }
    if (h > GALLOC_WASM_MAX_DOCUMENTS) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "%d documents are open already: close one first", GALLOC_WASM_MAX_DOCUMENTS);
        return 0;
    }
    struct galloc_wasm_document * d = malloc(sizeof(*d));
    if (d == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
        return 0;
    }
    if (!galloc_wasm_read_and_plan(json, len, &d->planned)) {
        free(d);
        return 0;
    }
    memcpy(d->warning, g_warning, sizeof(d->warning));
    galloc_wasm_documents[h] = d;
    galloc_wasm_ok();
    return h;
}

GALLOC_WASM_EXPORT int32_t galloc_wasm_doc_open(const char * json, size_t len) {
    return galloc_wasm_doc_keep(json, len);
}

// forget a kept document (an unknown handle is ignored)
GALLOC_WASM_EXPORT void galloc_wasm_doc_close(int32_t handle) {
    if (handle >= 1 && handle <= GALLOC_WASM_MAX_DOCUMENTS && galloc_wasm_documents[handle] != NULL) {
        galloc_planned_free(&galloc_wasm_documents[handle]->planned);
        free(galloc_wasm_documents[handle]);
        free(galloc_wasm_document_sizes[handle]);
        galloc_wasm_documents[handle]      = NULL;
        galloc_wasm_document_sizes[handle] = NULL;
    }
}

// the kept document in full, as galloc_wasm_graph writes it
GALLOC_WASM_EXPORT char * galloc_wasm_doc_graph(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    size_t out_len = 0;
    char * out = galloc_document_write_graph(&d->planned.doc, &out_len);
    return galloc_wasm_result(out, out_len);
}

// its plan, as galloc_wasm_plan writes it
GALLOC_WASM_EXPORT char * galloc_wasm_doc_plan(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    size_t out_len = 0;
    char * out = galloc_document_write_plan(&d->planned.doc, &d->planned.plan, &out_len);
    return galloc_wasm_result(out, out_len);
}

// the kept document in full, as binary words (galloc_binary_write_graph)
GALLOC_WASM_EXPORT uint8_t * galloc_wasm_doc_graph_binary(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    size_t    out_len = 0;
    uint8_t * out = galloc_binary_write_graph(&d->planned.doc, &out_len);
    return (uint8_t *) galloc_wasm_result((char *) out, out_len);
}

// its plan, as binary words (galloc_binary_write_plan)
GALLOC_WASM_EXPORT uint8_t * galloc_wasm_doc_plan_binary(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    size_t    out_len = 0;
    uint8_t * out = galloc_binary_write_plan(&d->planned.doc, &d->planned.plan, &out_len);
    return (uint8_t *) galloc_wasm_result((char *) out, out_len);
}

// its plan explained, as galloc_wasm_explain writes it
GALLOC_WASM_EXPORT char * galloc_wasm_doc_explain(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    struct galloc_explain ex;
    struct galloc_error   err;
    if (!galloc_explain_plan(&d->planned.doc, &d->planned.plan, &ex, &err)) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    size_t out_len = 0;
    char * out = galloc_explain_write_json(&d->planned.doc, &ex, &out_len);
    galloc_explain_free(&ex);
    return galloc_wasm_result(out, out_len);
}

// what the kept document warns about (galloc_wasm_last_warning when it was read), "" for none
GALLOC_WASM_EXPORT const char * galloc_wasm_doc_warning(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    galloc_wasm_ok();
    return d->warning;
}

#ifdef GALLOC_WASM_BENCH
#    include "galloc-timing.h"

// time the planner on a document: {"nodes","tensors","runs","median_ms","min_ms","heap_bytes"}
// (malloc'd, free with galloc_wasm_free), or NULL with a status and message
GALLOC_WASM_EXPORT char * galloc_wasm_time_plan(const char * json, size_t len, int32_t runs) {
    if (json == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no document");
    }
    struct galloc_timing timing;
    struct galloc_error err;
    if (!galloc_time_plan(json, len, runs, &timing, &err)) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    char * out = malloc(256);
    if (out == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    int n = snprintf(out, 256, "{\"nodes\": %d, \"tensors\": %d, \"runs\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"heap_bytes\": %.0f}",
                     timing.n_nodes, timing.n_tensors, timing.runs, timing.median_ms, timing.min_ms, timing.heap_bytes);
    return galloc_wasm_result(out, (size_t) n);
}
#endif // GALLOC_WASM_BENCH

// read and check a graph document and write it back in full (nodes and leafs built when it
// gave "outputs", defaults filled in): a "galloc-graph" document as galloc_wasm_plan returns a plan
GALLOC_WASM_EXPORT char * galloc_wasm_graph(const char * json, size_t len) {
    struct galloc_document doc;
    if (!galloc_wasm_read(json, len, &doc)) {
        return NULL;
    }
    size_t out_len = 0;
    char * out = galloc_document_write_graph(&doc, &out_len);
    galloc_document_free(&doc);
    return galloc_wasm_result(out, out_len);
}

//
// what-if: how far ggml's plan is from the best possible, and what would do better
//

// the result as its JSON text (galloc_whatif_write_json), freeing the result
static char * galloc_wasm_whatif_text(struct galloc_whatif_result * r) {
    size_t out_len = 0;
    char * out = galloc_whatif_write_json(r, &out_len);
    galloc_whatif_free(r);
    return galloc_wasm_result(out, out_len);
}

// a graph document read, planned and explained (one side of galloc_wasm_explain_compare)
struct galloc_wasm_explained {
    struct galloc_document doc;
    struct galloc_plan     plan;
    struct galloc_explain  ex;
};

static void galloc_wasm_explained_free(struct galloc_wasm_explained * e) {
    galloc_explain_free(&e->ex);
    galloc_plan_free(&e->plan);
    galloc_document_free(&e->doc);
}

// false with the status and message set; on failure e holds nothing
static bool galloc_wasm_explain_one(const char * json, size_t len, struct galloc_wasm_explained * e) {
    memset(e, 0, sizeof(*e));
    struct galloc_planned p;
    if (!galloc_wasm_read_and_plan(json, len, &p)) {
        return false;
    }
    e->doc  = p.doc;
    e->plan = p.plan;
    struct galloc_error err;
    if (!galloc_explain_plan(&e->doc, &e->plan, &e->ex, &err)) {
        galloc_wasm_explained_free(e);
        galloc_wasm_fail(err.status, "%s", err.message);
        return false;
    }
    return true;
}

// plan a graph document and explain the plan: the "galloc-explain" JSON text (malloc'd, as
// galloc_wasm_plan returns a plan), or NULL with a status and message
GALLOC_WASM_EXPORT char * galloc_wasm_explain(const char * json, size_t len) {
    struct galloc_wasm_explained e;
    if (!galloc_wasm_explain_one(json, len, &e)) {
        return NULL;
    }
    size_t out_len = 0;
    char * out = galloc_explain_write_json(&e.doc, &e.ex, &out_len);
    galloc_wasm_explained_free(&e);
    return galloc_wasm_result(out, out_len);
}

// two explanations compared (B minus A): {"diff": galloc-explain-diff, "a": ..., "b": ...} as
// text (malloc'd), or NULL with the status set
static char * galloc_wasm_compare_text(const struct galloc_document * doc_a, const struct galloc_explain * ex_a,
                                       const struct galloc_document * doc_b, const struct galloc_explain * ex_b, int32_t fold) {
    struct galloc_explain_diff d;
    struct galloc_error        err;
    char * out = NULL, * text_a = NULL, * text_b = NULL, * text_d = NULL;
    size_t len_ta = 0, len_tb = 0, len_td = 0;
    if (galloc_explain_compare(doc_a, ex_a, doc_b, ex_b, fold != 0, &d, &err)) {
        text_d = galloc_explain_diff_write_json(&d, &len_td);
        galloc_explain_diff_free(&d);
    }
    text_a = galloc_explain_write_json(doc_a, ex_a, &len_ta);
    text_b = galloc_explain_write_json(doc_b, ex_b, &len_tb);
    size_t n = 0;
    if (text_a && text_b && text_d) {
        // {"diff": ..., "a": ..., "b": ...}
        size_t cap = len_ta + len_tb + len_td + 32;
        out = malloc(cap);
        if (out) {
            n = (size_t) snprintf(out, cap, "{\"diff\": %s,\n\"a\": %s,\n\"b\": %s}\n", text_d, text_a, text_b);
        }
    }
    free(text_a);
    free(text_b);
    free(text_d);
    return galloc_wasm_result(out, n);
}

// two graph documents explained and compared (B minus A): the "galloc-explain-diff" JSON text
// with "a" and "b" holding both explanations; a failing document's message starts with "A: " or "B: "
GALLOC_WASM_EXPORT char * galloc_wasm_explain_compare(const char * galloc_json_a, size_t len_a, const char * galloc_json_b, size_t len_b,
                                                      int32_t fold) {
    struct galloc_wasm_explained a, b;
    for (int side = 0; side < 2; side++) {
        if (!galloc_wasm_explain_one(side ? galloc_json_b : galloc_json_a, side ? len_b : len_a, side ? &b : &a)) {
            char msg[GALLOC_WASM_ERROR_SIZE];
            snprintf(msg, sizeof(msg), "%s", galloc_wasm_error);
            if (side) {
                galloc_wasm_explained_free(&a);
            }
            return galloc_wasm_fail(galloc_wasm_status, "%s: %s", side ? "B" : "A", msg);
        }
    }
    char * out = galloc_wasm_compare_text(&a.doc, &a.ex, &b.doc, &b.ex, fold);
    galloc_wasm_explained_free(&a);
    galloc_wasm_explained_free(&b);
    return out;
}

// ggml's plan of a graph document (A) against the same graph with buffer type buffer_type's
// allocator packed as an offline planner packed it (B). placement: 3 numbers per item of that
// allocator's what-if problem (the items galloc_wasm_whatif lists, in order): chunk, offset's low
// and high 32 bits. The {"diff", "a", "b"} text of galloc_wasm_explain_compare; a placement that
// is no plan of the problem fails (INVALID, the checker's message; a wrong count: ARGUMENT).
GALLOC_WASM_EXPORT char * galloc_wasm_explain_offline(const char * json, size_t len, int32_t buffer_type, const uint32_t * placement,
                                                      int32_t n_items, int32_t fold) {
    struct galloc_wasm_explained a;
    if (!galloc_wasm_explain_one(json, len, &a)) {
        return NULL;
    }
    struct galloc_error         err;
    struct galloc_whatif_result r;
    if (buffer_type < 0 || buffer_type >= a.doc.n_buffer_types) {
        int32_t n = a.doc.n_buffer_types;
        galloc_wasm_explained_free(&a);
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "buffer type %d out of range (%d buffer types)", (int) buffer_type, (int) n);
    }
    if (!galloc_whatif_items_from_plan(&a.doc.graph, &a.plan, buffer_type, &r, &err)) {
        galloc_wasm_explained_free(&a);
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    if (n_items != r.problem.n_items || (n_items > 0 && placement == NULL)) {
        int32_t want = r.problem.n_items;
        galloc_whatif_free(&r);
        galloc_wasm_explained_free(&a);
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "placement of %d items for a problem of %d", (int) n_items, (int) want);
    }
    int32_t  * chunks  = malloc(((size_t) n_items + 1) * sizeof(int32_t));
    uint64_t * offsets = malloc(((size_t) n_items + 1) * sizeof(uint64_t));
    struct galloc_plan    plan_b = { 0 };
    struct galloc_explain ex_b   = { 0 };
    bool ok = chunks && offsets;
    if (!ok) {
        galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    for (int32_t i = 0; ok && i < n_items; i++) {
        chunks[i]  = placement[3 * i] > INT32_MAX ? -1 : (int32_t) placement[3 * i]; // the checker refuses -1
        offsets[i] = (uint64_t) placement[3 * i + 1] | ((uint64_t) placement[3 * i + 2] << 32);
    }
    if (ok && !(galloc_whatif_apply(&a.doc.graph, &a.plan, &r, chunks, offsets, n_items, &plan_b, &err) &&
                galloc_explain_plan(&a.doc, &plan_b, &ex_b, &err))) {
        galloc_wasm_fail(err.status, "%s", err.message);
        ok = false;
    }
    char * out = ok ? galloc_wasm_compare_text(&a.doc, &a.ex, &a.doc, &ex_b, fold) : NULL;
    free(chunks);
    free(offsets);
    galloc_explain_free(&ex_b);
    galloc_plan_free(&plan_b);
    galloc_whatif_free(&r);
    galloc_wasm_explained_free(&a);
    return out;
}

// plan a graph document and compare ggml's plan of buffer type buffer_type's allocator with the
// offline planners (the exact search for at most budget_ms): the "galloc-whatif" JSON text
// (malloc'd, as galloc_wasm_plan returns a plan), or NULL with a status and message
GALLOC_WASM_EXPORT char * galloc_wasm_whatif(const char * json, size_t len, int32_t buffer_type, uint32_t budget_ms) {
    struct galloc_planned p;
    if (!galloc_wasm_read_and_plan(json, len, &p)) {
        return NULL;
    }
    if (buffer_type < 0 || buffer_type >= p.doc.n_buffer_types) {
        int32_t n = p.doc.n_buffer_types;
        galloc_planned_free(&p);
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "buffer type %d out of range (%d buffer types)", (int) buffer_type, (int) n);
    }
    struct galloc_error         err;
    struct galloc_whatif_result r;
    bool ok = galloc_whatif_from_plan(&p.doc.graph, &p.plan, buffer_type, budget_ms, &r, &err);
    galloc_planned_free(&p);
    if (!ok) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    return galloc_wasm_whatif_text(&r);
}

// the same for len bytes of a MiniMalloc CSV problem ("id,lower,upper,size", header optional)
// with a capacity of capacity_hi * 2^32 + capacity_lo bytes (0: none); a rejected CSV leaves
// status CSV and a message naming its line ("line 12: upper 5 <= lower 7")
GALLOC_WASM_EXPORT char * galloc_wasm_whatif_csv(const char * csv, size_t len, uint32_t capacity_lo, uint32_t capacity_hi,
                                                 uint32_t budget_ms) {
    if (csv == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no CSV text (NULL pointer)");
    }
    uint64_t capacity = ((uint64_t) capacity_hi << 32) | (uint64_t) capacity_lo;
    struct galloc_whatif_result r;
    struct galloc_error err;
    if (!galloc_whatif_from_csv(csv, len, capacity, budget_ms, &r, &err)) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    return galloc_wasm_whatif_text(&r);
}

//
// presets: the built-in example graphs (ggml's allocator test cases, llama-shaped graphs)
//

GALLOC_WASM_EXPORT int32_t galloc_wasm_preset_count(void) {
    return (int32_t) galloc_preset_count();
}

// true for a preset index in range; else records the failure
static bool preset_index_ok(int32_t i) {
    if (i < 0 || i >= (int32_t) galloc_preset_count()) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "preset index %d out of range (%d presets)", (int) i, (int) galloc_preset_count());
        return false;
    }
    galloc_wasm_ok();
    return true;
}

// name of preset i (static), or NULL when i is out of range
GALLOC_WASM_EXPORT const char * galloc_wasm_preset_name(int32_t i) {
    return preset_index_ok(i) ? galloc_preset_name(i) : NULL;
}

// one-line description of preset i (static), or NULL when i is out of range
GALLOC_WASM_EXPORT const char * galloc_wasm_preset_description(int32_t i) {
    return preset_index_ok(i) ? galloc_preset_description(i) : NULL;
}

// the graph document of the preset named by the NUL-terminated name, as galloc_wasm_plan
// returns a plan; NULL with status NOT_FOUND when there is none
GALLOC_WASM_EXPORT char * galloc_wasm_preset_document(const char * name) {
    if (name == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no preset name (NULL pointer)");
    }
    if (!galloc_preset_exists(name)) { // the names the CLI builds, listed or not
        return galloc_wasm_fail(GALLOC_STATUS_NOT_FOUND, "unknown preset \"%.64s\"", name);
    }
    size_t out_len = 0;
    char * out = galloc_preset_document(name, &out_len);
    return galloc_wasm_result(out, out_len);
}

//
// GGUF headers
//

// The header read from the first len bytes of a GGUF file of file_size bytes (< 0 or above 2^53:
// unknown): the "galloc-gguf-summary" JSON (galloc_gguf_write_summary, arrays cut to max_items
// elements), or, when the prefix ends too early, {"need_bytes": N, "message": "..."} (read at least
// N bytes and call again). NULL with status INVALID and a message naming the byte offset and the key
// or tensor when the file is not one llama.cpp reads.
GALLOC_WASM_EXPORT char * galloc_wasm_gguf_summary(const uint8_t * data, size_t len, double file_size, int32_t max_items) {
    if (data == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no GGUF bytes (NULL pointer)");
    }
    if (max_items < 0) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "max_items %d is negative", (int) max_items);
    }
    const uint64_t size = file_size >= 0 && file_size <= 9007199254740992.0 ? (uint64_t) file_size : GALLOC_GGUF_SIZE_UNKNOWN;
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err;
    enum galloc_gguf_status st = galloc_gguf_read_prefix(data, len, size, &g, &need, &err);
    if (st == GALLOC_GGUF_NEED_MORE) {
        struct galloc_json_writer w;
        galloc_json_writer_init(&w);
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "need_bytes");
        galloc_json_write_u64(&w, need);
        galloc_json_write_key(&w, "message");
        galloc_json_write_cstr(&w, err.message);
        galloc_json_write_end_object(&w);
        size_t out_len = 0;
        char * out = galloc_json_writer_finish(&w, &out_len);
        return galloc_wasm_result(out, out_len);
    }
    if (st != GALLOC_GGUF_OK) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    size_t out_len = 0;
    char * out = galloc_gguf_write_summary(&g, (uint64_t) max_items, &out_len);
    galloc_gguf_free(&g);
    return galloc_wasm_result(out, out_len);
}

//
// models: llama.cpp's graphs from a GGUF header or a card (galloc-model.h)
//

#define GALLOC_WASM_MAX_MODELS 16 // models open at once

static struct galloc_model * galloc_wasm_models[GALLOC_WASM_MAX_MODELS + 1]; // by handle; 0 unused

// the model of a handle, or NULL with status ARGUMENT
static const struct galloc_model * galloc_wasm_model_at(int32_t handle) {
    if (handle < 1 || handle > GALLOC_WASM_MAX_MODELS || galloc_wasm_models[handle] == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no open model with handle %d", (int) handle);
        return NULL;
    }
    return galloc_wasm_models[handle];
}

// keep a model under a free handle (> 0), or free it and return 0 with status ARGUMENT
static int32_t galloc_wasm_model_keep(struct galloc_model * m) {
    for (int32_t h = 1; h <= GALLOC_WASM_MAX_MODELS; h++) {
        if (galloc_wasm_models[h] == NULL) {
            galloc_wasm_models[h] = m;
            galloc_wasm_ok();
            return h;
        }
    }
    galloc_model_free(m);
    galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "%d models are open already: close one first", GALLOC_WASM_MAX_MODELS);
    return 0;
}

// a model from a GGUF header (the first len bytes of the file, at least through the tensor infos):
// its handle, or 0 with the reader's or the builders' status (INVALID: the header, message "offset N: ...",
// or a model the builders refuse)
GALLOC_WASM_EXPORT int32_t galloc_wasm_model_open_gguf(const uint8_t * data, size_t len) {
    if (data == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no GGUF bytes (NULL pointer)");
        return 0;
    }
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err;
    enum galloc_gguf_status st = galloc_gguf_read(data, len, &g, &need, &err);
    if (st != GALLOC_GGUF_OK) {
        galloc_wasm_fail(err.status, "%s", err.message);
        return 0;
    }
    struct galloc_model * m = NULL;
    bool ok = galloc_model_from_gguf(&g, &m, &err);
    galloc_gguf_free(&g);
    if (!ok) {
        galloc_wasm_fail(err.status, "%s", err.message);
        return 0;
    }
    return galloc_wasm_model_keep(m);
}

// a model from a built-in card (NUL-terminated name): its handle, or 0 with status NOT_FOUND
GALLOC_WASM_EXPORT int32_t galloc_wasm_model_open_card(const char * name) {
    if (name == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no card name (NULL pointer)");
        return 0;
    }
    struct galloc_model * m = NULL;
    struct galloc_error err;
    if (!galloc_model_from_card(name, &m, &err)) {
        galloc_wasm_fail(err.status, "%s", err.message);
        return 0;
    }
    return galloc_wasm_model_keep(m);
}

GALLOC_WASM_EXPORT void galloc_wasm_model_close(int32_t handle) {
    if (handle >= 1 && handle <= GALLOC_WASM_MAX_MODELS) {
        galloc_model_free(galloc_wasm_models[handle]);
        galloc_wasm_models[handle] = NULL;
    }
}

// {"architecture": ..., "name": ...} of an open model
GALLOC_WASM_EXPORT char * galloc_wasm_model_info(int32_t handle) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    if (m == NULL) {
        return NULL;
    }
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_key(&w, "architecture");
    galloc_json_write_cstr(&w, galloc_model_arch_name(m));
    galloc_json_write_key(&w, "name");
    galloc_json_write_cstr(&w, galloc_model_name(m));
    galloc_json_write_end_object(&w);
    size_t out_len = 0;
    char * out = galloc_json_writer_finish(&w, &out_len);
    return galloc_wasm_result(out, out_len);
}

// settings from a JSON object {n_ctx, n_batch, n_ubatch, flash_attn, type_k, type_v, n_seq, graph};
// absent keys keep llama.cpp's defaults. false with status ARGUMENT naming the key.
static bool galloc_wasm_settings(const char * json, size_t len, struct galloc_model_settings * s) {
    galloc_model_settings_default(s);
    struct galloc_error err;
    galloc_error_clear(&err);
    struct galloc_json_doc * doc = galloc_json_parse(json, len, &err);
    if (doc == NULL) {
        galloc_wasm_fail(err.status == GALLOC_STATUS_NO_MEMORY ? GALLOC_STATUS_NO_MEMORY : GALLOC_STATUS_ARGUMENT, "settings: %s", err.message);
        return false;
    }
    const struct galloc_json_value * root = galloc_json_doc_root(doc);
    bool ok = galloc_json_type_of(root) == JSON_TYPE_OBJECT;
    if (!ok) {
        galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "settings: not an object");
    }
    for (size_t i = 0; ok && i < galloc_json_object_size(root); i++) {
        size_t klen;
        const char * key = galloc_json_object_key_at(root, i, &klen);
        const struct galloc_json_value * v = galloc_json_object_value_at(root, i);
        int64_t n = 0;
        const char * str = NULL;
        const bool is_int = galloc_json_get_i64(v, &n) == JSON_INT_OK;
        if (galloc_json_type_of(v) == JSON_TYPE_STRING) {
            str = galloc_json_get_string(v, NULL);
        }
        const bool small = is_int && n >= INT32_MIN && n <= INT32_MAX;
#define KEY(k) (klen == strlen(k) && memcmp(key, k, klen) == 0)
        if (KEY("n_ctx") && is_int)           { s->n_ctx = n; }
        else if (KEY("n_batch") && is_int)    { s->n_batch = n; }
        else if (KEY("n_ubatch") && is_int)   { s->n_ubatch = n; }
        else if (KEY("flash_attn") && small)  { s->flash_attn = (int32_t) n; }
        else if (KEY("n_seq") && small)       { s->n_seq = (int32_t) n; }
        else if (KEY("type_k") && str)        { ok = galloc_model_cache_type_from_name(str, &s->type_k); }
        else if (KEY("type_v") && str)        { ok = galloc_model_cache_type_from_name(str, &s->type_v); }
        else if (KEY("graph") && str && strcmp(str, "prompt") == 0) { s->graph = GALLOC_MODEL_GRAPH_PROMPT; }
        else if (KEY("graph") && str && strcmp(str, "decode") == 0) { s->graph = GALLOC_MODEL_GRAPH_DECODE; }
        else { ok = false; }
#undef KEY
        if (!ok) {
            char shown[160];
            galloc_json_describe(v, shown, sizeof(shown));
            galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "settings.%.*s: %s is not a valid value", (int) (klen < 64 ? klen : 64), key, shown);
        }
    }
    galloc_json_doc_free(doc);
    return ok;
}

// the settings llama.cpp starts from, as the JSON object galloc_wasm_model_document takes
GALLOC_WASM_EXPORT char * galloc_wasm_model_defaults(void) {
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_key(&w, "n_ctx");      galloc_json_write_i64(&w, s.n_ctx);
    galloc_json_write_key(&w, "n_batch");    galloc_json_write_i64(&w, s.n_batch);
    galloc_json_write_key(&w, "n_ubatch");   galloc_json_write_i64(&w, s.n_ubatch);
    galloc_json_write_key(&w, "flash_attn"); galloc_json_write_i64(&w, s.flash_attn);
    galloc_json_write_key(&w, "type_k");     galloc_json_write_cstr(&w, ggml_type_name(s.type_k));
    galloc_json_write_key(&w, "type_v");     galloc_json_write_cstr(&w, ggml_type_name(s.type_v));
    galloc_json_write_key(&w, "n_seq");      galloc_json_write_i64(&w, s.n_seq);
    galloc_json_write_key(&w, "graph");      galloc_json_write_cstr(&w, s.graph == GALLOC_MODEL_GRAPH_DECODE ? "decode" : "prompt");
    galloc_json_write_end_object(&w);
    size_t out_len = 0;
    char * out = galloc_json_writer_finish(&w, &out_len);
    return galloc_wasm_result(out, out_len);
}

// the graph document llama.cpp reserves for a model and settings (JSON, see galloc_wasm_settings)
GALLOC_WASM_EXPORT char * galloc_wasm_model_document(int32_t handle, const char * settings, size_t len) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    struct galloc_model_settings s;
    if (m == NULL || settings == NULL || !galloc_wasm_settings(settings, len, &s)) {
        return m == NULL || settings != NULL ? NULL : galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no settings (NULL pointer)");
    }
    struct galloc_error err;
    size_t out_len = 0;
    char * out = galloc_model_document(m, &s, &out_len, &err);
    if (out == NULL) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    return galloc_wasm_result(out, out_len);
}

// the sizes as JSON: {buffer_types: [{name, compute}], n_ctx, n_ctx_seq, n_ctx_swa, n_tokens, n_nodes, n_leafs, kv_bytes}
static char * galloc_wasm_sizes_json(const struct galloc_model_sizes * z, size_t * out_len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_key(&w, "buffer_types");
    galloc_json_write_begin_array(&w);
    for (int b = 0; b < z->n_bufts; b++) {
        galloc_json_write_begin_object(&w);
        galloc_json_write_key(&w, "name");    galloc_json_write_cstr(&w, z->names[b]);
        galloc_json_write_key(&w, "compute"); galloc_json_write_u64(&w, z->compute[b]);
        galloc_json_write_end_object(&w);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key(&w, "n_ctx");     galloc_json_write_i64(&w, z->n_ctx);
    galloc_json_write_key(&w, "n_ctx_seq"); galloc_json_write_i64(&w, z->n_ctx_seq);
    galloc_json_write_key(&w, "n_ctx_swa"); galloc_json_write_i64(&w, z->n_ctx_swa);
    galloc_json_write_key(&w, "n_tokens");  galloc_json_write_i64(&w, z->n_tokens);
    galloc_json_write_key(&w, "n_nodes");   galloc_json_write_i64(&w, z->n_nodes);
    galloc_json_write_key(&w, "n_leafs");   galloc_json_write_i64(&w, z->n_leafs);
    galloc_json_write_key(&w, "kv_bytes");  galloc_json_write_u64(&w, z->kv_bytes);
    galloc_json_write_end_object(&w);
    return galloc_json_writer_finish(&w, out_len);
}

// the compute buffer sizes llama.cpp logs for a model and settings, as JSON (galloc_wasm_sizes_json)
GALLOC_WASM_EXPORT char * galloc_wasm_model_sizes(int32_t handle, const char * settings, size_t len) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    struct galloc_model_settings s;
    if (m == NULL || settings == NULL || !galloc_wasm_settings(settings, len, &s)) {
        return m == NULL || settings != NULL ? NULL : galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no settings (NULL pointer)");
    }
    struct galloc_error err;
    struct galloc_model_sizes z;
    if (!galloc_model_compute_sizes(m, &s, &z, &err)) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    size_t out_len = 0;
    char * out = galloc_wasm_sizes_json(&z, &out_len);
    return out ? galloc_wasm_result(out, out_len) : galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory writing the sizes");
}

GALLOC_WASM_EXPORT char * galloc_wasm_model_memory(int32_t handle, const char * flags, size_t len) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    if (m == NULL) {
        return NULL;
    }
    if (flags == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no flags (NULL pointer)");
    }
    char * line = malloc(len + 1);
    if (line == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    memcpy(line, flags, len);
    line[len] = '\0';
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    struct galloc_error err;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    const bool parsed = strlen(line) == len && galloc_model_parse_flags(line, &s, &p, &err);
    free(line);
    if (!parsed) {
        return strlen(flags) < len ? galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "flags with a NUL byte")
                                   : galloc_wasm_fail(err.status, "%s", err.message);
    }
    struct galloc_placement * pl = galloc_model_place(m, &s, &p, &err);
    if (pl == NULL) {
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    char * out = galloc_placement_json(pl);
    galloc_placement_free(pl);
    return out ? galloc_wasm_result(out, strlen(out)) : galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory writing the breakdown");
}

GALLOC_WASM_EXPORT char * galloc_wasm_model_fit(int32_t handle, const char * flags, size_t len) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    if (m == NULL) {
        return NULL;
    }
    if (flags == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no flags (NULL pointer)");
    }
    char * line = malloc(len + 1);
    if (line == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    memcpy(line, flags, len);
    line[len] = '\0';
    struct galloc_model_settings s;
    struct galloc_place_settings p;
    struct galloc_fit_settings f;
    struct galloc_error err;
    galloc_model_settings_default(&s);
    galloc_place_settings_default(&p);
    galloc_fit_settings_default(&f);
    const bool parsed = strlen(line) == len && galloc_fit_parse_flags(line, &s, &p, &f, &err);
    free(line);
    if (!parsed) {
        return strlen(flags) < len ? galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "flags with a NUL byte")
                                   : galloc_wasm_fail(err.status, "%s", err.message);
    }
    if (p.n_devices > 0 && SIZE_MAX < UINT64_MAX) { // each measurement needs the scheduler's compute buffers
        return galloc_wasm_fail(GALLOC_STATUS_DECLINED, "--fit over devices needs 64-bit sizes (use the CLI)");
    }
    if (p.n_devices == 0 && f.host_memory == 0) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "--fit without --device fits the host: give --host-memory");
    }
    struct galloc_fit_result r;
    if (!galloc_fit_model(m, &s, &p, &f, &r, &err)) {
        galloc_fit_result_free(&r);
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    struct galloc_placement * pl = r.status == GALLOC_FIT_SUCCESS ? galloc_model_place(m, &r.s, &r.p, &err) : NULL;
    if (r.status == GALLOC_FIT_SUCCESS && pl == NULL) {
        galloc_fit_result_free(&r);
        return galloc_wasm_fail(err.status, "%s", err.message);
    }
    char * memory = pl ? galloc_placement_json(pl) : NULL;
    char * out = (pl == NULL || memory != NULL) ? galloc_fit_json(&r, memory) : NULL;
    free(memory);
    galloc_placement_free(pl);
    galloc_fit_result_free(&r);
    return out ? galloc_wasm_result(out, strlen(out)) : galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory writing the fit");
}

// what a settings change shows, from one build of the graph: its document read, planned and kept
// (galloc_wasm_doc_keep) with the sizes; the handle of the document, 0 on failure
GALLOC_WASM_EXPORT int32_t galloc_wasm_model_build_document(int32_t handle, const char * settings, size_t len) {
    const struct galloc_model * m = galloc_wasm_model_at(handle);
    struct galloc_model_settings s;
    if (m == NULL || settings == NULL || !galloc_wasm_settings(settings, len, &s)) {
        if (m != NULL && settings == NULL) {
            galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "no settings (NULL pointer)");
        }
        return 0;
    }
    struct galloc_error err;
    struct galloc_model_sizes * z = malloc(sizeof(*z));
    if (z == NULL) {
        galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory");
        return 0;
    }
    size_t doc_len = 0;
    char * doc = galloc_model_document_sizes(m, &s, z, &doc_len, &err);
    if (doc == NULL) {
        free(z);
        galloc_wasm_fail(err.status, "%s", err.message);
        return 0;
    }
    const int32_t h = galloc_wasm_doc_keep(doc, doc_len);
    free(doc);
    if (h > 0) {
        galloc_wasm_document_sizes[h] = z;
    } else {
        free(z);
    }
    return h;
}

// the sizes kept with a document galloc_wasm_model_build_document made (JSON: galloc_wasm_sizes_json);
// NULL with status ARGUMENT for another document
GALLOC_WASM_EXPORT char * galloc_wasm_doc_model_sizes(int32_t handle) {
    struct galloc_wasm_document * d = galloc_wasm_document_at(handle);
    if (d == NULL) {
        return NULL;
    }
    if (galloc_wasm_document_sizes[handle] == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "document %d was not built from a model", (int) handle);
    }
    size_t out_len = 0;
    char * out = galloc_wasm_sizes_json(galloc_wasm_document_sizes[handle], &out_len);
    return out ? galloc_wasm_result(out, out_len) : galloc_wasm_fail(GALLOC_STATUS_NO_MEMORY, "out of memory writing the sizes");
}

GALLOC_WASM_EXPORT int32_t galloc_wasm_model_card_count(void) {
    return (int32_t) galloc_model_card_count();
}

// name / description of card i (static), or NULL with status ARGUMENT when out of range
GALLOC_WASM_EXPORT const char * galloc_wasm_model_card_name(int32_t i) {
    const char * s = galloc_model_card_name(i);
    if (s == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "card index %d out of range (%d cards)", (int) i, galloc_model_card_count());
    }
    galloc_wasm_ok();
    return s;
}

GALLOC_WASM_EXPORT const char * galloc_wasm_model_card_description(int32_t i) {
    const char * s = galloc_model_card_description(i);
    if (s == NULL) {
        return galloc_wasm_fail(GALLOC_STATUS_ARGUMENT, "card index %d out of range (%d cards)", (int) i, galloc_model_card_count());
    }
    galloc_wasm_ok();
    return s;
}
