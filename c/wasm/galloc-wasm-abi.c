// galloc-wasm-abi.c: the module's exports as galloc.js calls them, with 32-bit addresses and lengths.
//
// The module is built with -sMEMORY64=2 (c/wasm/wasm.mk): in C, size_t and pointers have 64 bits,
// so the planner counts bytes as the native CLI does; the memory itself is lowered to wasm32 (at
// most 2 GiB), so that every browser and node run it. A 64-bit parameter or result would cross to
// JS as a BigInt. Each galloc_js_NAME here is galloc_wasm_NAME (galloc-wasm.h) with its addresses
// and lengths as uint32_t: JS passes and gets plain numbers, as from a wasm32 module. Every name in
// c/wasm/exports.txt is one of these; a new galloc_wasm_* export needs its line here.

#include "galloc-wasm.h"

#include <emscripten.h>
#include <stddef.h>
#include <stdint.h>

#define GALLOC_JS_EXPORT EMSCRIPTEN_KEEPALIVE

// called from JS only: no C caller needs a prototype
#pragma clang diagnostic ignored "-Wmissing-prototypes"

// an address in the module's memory (below 2 GiB: -sMAXIMUM_MEMORY=2GB) as JS holds it, and back
static void * ptr(uint32_t addr) {
    return (void *) (uintptr_t) addr;
}

static uint32_t addr(const void * p) {
    return (uint32_t) (uintptr_t) p;
}

// memory shared with JS
GALLOC_JS_EXPORT uint32_t galloc_js_alloc(uint32_t size) { return addr(galloc_wasm_alloc(size)); }
GALLOC_JS_EXPORT void     galloc_js_free(uint32_t p) { galloc_wasm_free(ptr(p)); }
GALLOC_JS_EXPORT double   galloc_js_heap_used(void) { return galloc_wasm_heap_used(); }

// the last call
GALLOC_JS_EXPORT int32_t  galloc_js_last_status(void) { return galloc_wasm_last_status(); }
GALLOC_JS_EXPORT uint32_t galloc_js_status_name(int32_t status) { return addr(galloc_wasm_status_name(status)); }
GALLOC_JS_EXPORT uint32_t galloc_js_last_error(void) { return addr(galloc_wasm_last_error()); }
// a result lies in the memory: its length is below 2^32
GALLOC_JS_EXPORT uint32_t galloc_js_result_length(void) { return (uint32_t) galloc_wasm_result_length(); }
GALLOC_JS_EXPORT uint32_t galloc_js_version(void) { return addr(galloc_wasm_version()); }
GALLOC_JS_EXPORT uint32_t galloc_js_tables(void) { return addr(galloc_wasm_tables()); }
GALLOC_JS_EXPORT uint32_t galloc_js_last_warning(void) { return addr(galloc_wasm_last_warning()); }

// documents
GALLOC_JS_EXPORT uint32_t galloc_js_plan(uint32_t json, uint32_t len) { return addr(galloc_wasm_plan(ptr(json), len)); }
GALLOC_JS_EXPORT uint32_t galloc_js_graph(uint32_t json, uint32_t len) { return addr(galloc_wasm_graph(ptr(json), len)); }
GALLOC_JS_EXPORT int32_t  galloc_js_doc_open(uint32_t json, uint32_t len) { return galloc_wasm_doc_open(ptr(json), len); }
GALLOC_JS_EXPORT void     galloc_js_doc_close(int32_t handle) { galloc_wasm_doc_close(handle); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_graph(int32_t handle) { return addr(galloc_wasm_doc_graph(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_plan(int32_t handle) { return addr(galloc_wasm_doc_plan(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_explain(int32_t handle) { return addr(galloc_wasm_doc_explain(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_warning(int32_t handle) { return addr(galloc_wasm_doc_warning(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_graph_binary(int32_t handle) { return addr(galloc_wasm_doc_graph_binary(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_doc_plan_binary(int32_t handle) { return addr(galloc_wasm_doc_plan_binary(handle)); }
#ifdef GALLOC_WASM_BENCH
GALLOC_JS_EXPORT uint32_t galloc_js_time_plan(uint32_t json, uint32_t len, int32_t runs) {
    return addr(galloc_wasm_time_plan(ptr(json), len, runs));
}
#endif

// what-if and explain
GALLOC_JS_EXPORT uint32_t galloc_js_whatif(uint32_t json, uint32_t len, int32_t buffer_type, uint32_t budget_ms) {
    return addr(galloc_wasm_whatif(ptr(json), len, buffer_type, budget_ms));
}
GALLOC_JS_EXPORT uint32_t galloc_js_whatif_csv(uint32_t csv, uint32_t len, uint32_t capacity_lo, uint32_t capacity_hi,
                                               uint32_t budget_ms) {
    return addr(galloc_wasm_whatif_csv(ptr(csv), len, capacity_lo, capacity_hi, budget_ms));
}
GALLOC_JS_EXPORT uint32_t galloc_js_explain(uint32_t json, uint32_t len) { return addr(galloc_wasm_explain(ptr(json), len)); }
GALLOC_JS_EXPORT uint32_t galloc_js_explain_offline(uint32_t json, uint32_t len, int32_t buffer_type, uint32_t placement,
                                                    int32_t n_items, int32_t fold) {
    return addr(galloc_wasm_explain_offline(ptr(json), len, buffer_type, ptr(placement), n_items, fold));
}
GALLOC_JS_EXPORT uint32_t galloc_js_explain_compare(uint32_t json_a, uint32_t len_a, uint32_t json_b, uint32_t len_b,
                                                    int32_t fold) {
    return addr(galloc_wasm_explain_compare(ptr(json_a), len_a, ptr(json_b), len_b, fold));
}

// presets
GALLOC_JS_EXPORT int32_t  galloc_js_preset_count(void) { return galloc_wasm_preset_count(); }
GALLOC_JS_EXPORT uint32_t galloc_js_preset_name(int32_t i) { return addr(galloc_wasm_preset_name(i)); }
GALLOC_JS_EXPORT uint32_t galloc_js_preset_description(int32_t i) { return addr(galloc_wasm_preset_description(i)); }
GALLOC_JS_EXPORT uint32_t galloc_js_preset_document(uint32_t name) { return addr(galloc_wasm_preset_document(ptr(name))); }

// GGUF headers and models
GALLOC_JS_EXPORT uint32_t galloc_js_gguf_summary(uint32_t data, uint32_t len, double file_size, int32_t max_items) {
    return addr(galloc_wasm_gguf_summary(ptr(data), len, file_size, max_items));
}
GALLOC_JS_EXPORT int32_t  galloc_js_model_open_gguf(uint32_t data, uint32_t len) { return galloc_wasm_model_open_gguf(ptr(data), len); }
GALLOC_JS_EXPORT int32_t  galloc_js_model_open_card(uint32_t name) { return galloc_wasm_model_open_card(ptr(name)); }
GALLOC_JS_EXPORT void     galloc_js_model_close(int32_t handle) { galloc_wasm_model_close(handle); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_info(int32_t handle) { return addr(galloc_wasm_model_info(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_defaults(void) { return addr(galloc_wasm_model_defaults()); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_document(int32_t handle, uint32_t settings, uint32_t len) {
    return addr(galloc_wasm_model_document(handle, ptr(settings), len));
}
GALLOC_JS_EXPORT uint32_t galloc_js_model_sizes(int32_t handle, uint32_t settings, uint32_t len) {
    return addr(galloc_wasm_model_sizes(handle, ptr(settings), len));
}
GALLOC_JS_EXPORT int32_t galloc_js_model_build_document(int32_t handle, uint32_t settings, uint32_t len) {
    return galloc_wasm_model_build_document(handle, ptr(settings), len);
}
GALLOC_JS_EXPORT uint32_t galloc_js_doc_model_sizes(int32_t handle) { return addr(galloc_wasm_doc_model_sizes(handle)); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_memory(int32_t handle, uint32_t flags, uint32_t len) {
    return addr(galloc_wasm_model_memory(handle, ptr(flags), len));
}

GALLOC_JS_EXPORT uint32_t galloc_js_model_fit(int32_t handle, uint32_t flags, uint32_t len) {
    return addr(galloc_wasm_model_fit(handle, ptr(flags), len));
}
GALLOC_JS_EXPORT int32_t  galloc_js_model_card_count(void) { return galloc_wasm_model_card_count(); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_card_name(int32_t i) { return addr(galloc_wasm_model_card_name(i)); }
GALLOC_JS_EXPORT uint32_t galloc_js_model_card_description(int32_t i) { return addr(galloc_wasm_model_card_description(i)); }
