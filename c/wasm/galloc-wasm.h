// galloc-wasm.h: the WebAssembly module's interface in C (defined in galloc-wasm.c).
//
// Pointers and lengths are C's: 64-bit in the module (built with -sMEMORY64=2, c/wasm/wasm.mk) as in
// the native build. JS does not call these directly: galloc-wasm-abi.c exports each one as
// galloc_js_* with 32-bit addresses and lengths, the names galloc.js calls.

#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__
#    define GALLOC_WASM_EXPORT // exported through galloc-wasm-abi.c
#else
#    define GALLOC_WASM_EXPORT __attribute__((used, visibility("default")))
#endif

// memory shared with JS
GALLOC_WASM_EXPORT void *       galloc_wasm_alloc        (size_t size);  // >= 1 byte; NULL when out of memory
GALLOC_WASM_EXPORT void         galloc_wasm_free         (void * ptr);   // a buffer or a returned string; NULL is fine
GALLOC_WASM_EXPORT double       galloc_wasm_heap_used    (void);         // bytes malloc'd and not freed
// the last call
GALLOC_WASM_EXPORT int32_t      galloc_wasm_last_status  (void);         // enum galloc_status (galloc-status.h)
GALLOC_WASM_EXPORT const char * galloc_wasm_status_name  (int32_t status); // its name; "unknown" past the last
GALLOC_WASM_EXPORT const char * galloc_wasm_last_error   (void);         // its message, "" after a success
GALLOC_WASM_EXPORT size_t       galloc_wasm_result_length(void);         // bytes of the string it returned
GALLOC_WASM_EXPORT const char * galloc_wasm_version      (void);         // "0.1.0"
GALLOC_WASM_EXPORT char *       galloc_wasm_tables       (void);         // ggml's tables as JSON (free it)
GALLOC_WASM_EXPORT const char * galloc_wasm_last_warning (void);         // the last document's warning, "" for none
// documents: json is len bytes of UTF-8; the result is malloc'd (free with galloc_wasm_free) or NULL
GALLOC_WASM_EXPORT char *       galloc_wasm_plan         (const char * json, size_t len); // the plan document
GALLOC_WASM_EXPORT char *       galloc_wasm_graph        (const char * json, size_t len); // the graph, checked and filled in
// a document kept in the module: read and planned once (handles 1..GALLOC_WASM_MAX_DOCUMENTS), then
// written, explained or analysed from what was kept, without reading or planning it again
GALLOC_WASM_EXPORT int32_t      galloc_wasm_doc_open     (const char * json, size_t len); // 0 on failure (status, message)
GALLOC_WASM_EXPORT void         galloc_wasm_doc_close    (int32_t handle);
GALLOC_WASM_EXPORT char *       galloc_wasm_doc_graph    (int32_t handle); // as galloc_wasm_graph
GALLOC_WASM_EXPORT char *       galloc_wasm_doc_plan     (int32_t handle); // as galloc_wasm_plan
GALLOC_WASM_EXPORT char *       galloc_wasm_doc_explain  (int32_t handle); // as galloc_wasm_explain
GALLOC_WASM_EXPORT const char * galloc_wasm_doc_warning  (int32_t handle); // its galloc_wasm_last_warning, "" for none
// the same graph and plan as compact binary (galloc-binary.h; web/src/core/galloc-binary.js decodes
// them into what JSON.parse makes of doc_graph's and doc_plan's text): the result is malloc'd (free
// with galloc_wasm_free), 4-byte aligned, galloc_wasm_result_length bytes; NULL on failure
GALLOC_WASM_EXPORT uint8_t *    galloc_wasm_doc_graph_binary(int32_t handle);
GALLOC_WASM_EXPORT uint8_t *    galloc_wasm_doc_plan_binary (int32_t handle);
#ifdef GALLOC_WASM_BENCH
// benchmarks only (the module bench/bench.mk builds for bench-wasm.mjs, not the UI's): plan the
// document `runs` times; a small JSON object of timings (bench/galloc-timing.h)
GALLOC_WASM_EXPORT char *       galloc_wasm_time_plan    (const char * json, size_t len, int32_t runs);
#endif
// what-if (galloc-whatif.h): ggml's plan against offline planners; the galloc_whatif_write_json text.
// budget_ms bounds the exact search (0: heuristics only); the call blocks for up to that long.
GALLOC_WASM_EXPORT char *       galloc_wasm_whatif       (const char * json, size_t len, int32_t buffer_type, uint32_t budget_ms);
// a MiniMalloc CSV problem; capacity (bytes, 0: none) = capacity_hi * 2^32 + capacity_lo, exact to 2^64
GALLOC_WASM_EXPORT char *       galloc_wasm_whatif_csv   (const char * csv, size_t len, uint32_t capacity_lo, uint32_t capacity_hi,
                                                          uint32_t budget_ms);
// explain (galloc-explain.h): the peak, what is live there, memory over time; two graphs compared
// (fold: nonzero groups names by layer). The galloc_explain_write_json / _diff_write_json text.
GALLOC_WASM_EXPORT char *       galloc_wasm_explain      (const char * json, size_t len);
GALLOC_WASM_EXPORT char *       galloc_wasm_explain_offline(const char * json, size_t len, int32_t buffer_type, const uint32_t * placement,
                                                            int32_t n_items, int32_t fold);
GALLOC_WASM_EXPORT char *       galloc_wasm_explain_compare(const char * galloc_json_a, size_t len_a, const char * galloc_json_b, size_t len_b,
                                                            int32_t fold);
// presets
GALLOC_WASM_EXPORT int32_t      galloc_wasm_preset_count      (void);
GALLOC_WASM_EXPORT const char * galloc_wasm_preset_name       (int32_t i);          // static; NULL out of range
GALLOC_WASM_EXPORT const char * galloc_wasm_preset_description(int32_t i);          // static; NULL out of range
GALLOC_WASM_EXPORT char *       galloc_wasm_preset_document   (const char * name);  // malloc'd graph document or NULL

// GGUF headers: the first len bytes of a file of file_size bytes (< 0: unknown)
GALLOC_WASM_EXPORT char *       galloc_wasm_gguf_summary      (const uint8_t * data, size_t len, double file_size, int32_t max_items);

// models (galloc-model.h): handles 1..16; settings cross as a JSON object (galloc_wasm_settings)
GALLOC_WASM_EXPORT int32_t      galloc_wasm_model_open_gguf   (const uint8_t * data, size_t len); // 0 on failure
GALLOC_WASM_EXPORT int32_t      galloc_wasm_model_open_card   (const char * name);               // 0 on failure
GALLOC_WASM_EXPORT void         galloc_wasm_model_close       (int32_t handle);
GALLOC_WASM_EXPORT char *       galloc_wasm_model_info        (int32_t handle);                  // {architecture, name}
GALLOC_WASM_EXPORT char *       galloc_wasm_model_defaults    (void);                            // llama.cpp's settings
GALLOC_WASM_EXPORT char *       galloc_wasm_model_document    (int32_t handle, const char * settings, size_t len);
GALLOC_WASM_EXPORT char *       galloc_wasm_model_sizes       (int32_t handle, const char * settings, size_t len);
// what a settings change shows, from one build of the graph: the graph document read and planned
// and kept as galloc_wasm_doc_open keeps a document (its handle; 0 on failure), with the sizes
// (galloc_wasm_doc_model_sizes). Close it with galloc_wasm_doc_close.
GALLOC_WASM_EXPORT int32_t      galloc_wasm_model_build_document(int32_t handle, const char * settings, size_t len);
// the sizes of a document galloc_wasm_model_build_document made, as galloc_wasm_model_sizes writes them
GALLOC_WASM_EXPORT char *       galloc_wasm_doc_model_sizes   (int32_t handle);
// llama.cpp's memory breakdown (galloc-model-place.h) for a line of llama.cpp's flags, as the CLI
// takes them ("-c 4096 -ngl 16 --device cuda:12GiB"): galloc-memory JSON
GALLOC_WASM_EXPORT char *       galloc_wasm_model_memory      (int32_t handle, const char * flags, size_t len);
// llama.cpp's --fit (galloc-model-fit.h) for a line of flags as the CLI takes them, --fit-target,
// --fit-ctx and --host-memory included: galloc-fit JSON (its "memory": the breakdown with the flags
// chosen)
GALLOC_WASM_EXPORT char *       galloc_wasm_model_fit         (int32_t handle, const char * flags, size_t len);
GALLOC_WASM_EXPORT int32_t      galloc_wasm_model_card_count  (void);
GALLOC_WASM_EXPORT const char * galloc_wasm_model_card_name   (int32_t i);                       // static; NULL out of range
GALLOC_WASM_EXPORT const char * galloc_wasm_model_card_description(int32_t i);
