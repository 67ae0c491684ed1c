// fuzz-document.c: libFuzzer target for the document reader, the planner, both writers and ggml_gallocr.
//
// Each input is read as a graph document; one that reads is planned, its plan and
// graph are written, the graph must read back, the same graph rebuilt as ggml
// objects must be placed by ggml_gallocr exactly where the planner put it, and
// everything is freed. Findings: crashes, asserts, sanitizer reports, leaks,
// multi-line errors, a graph that does not read back, ggml_gallocr and the planner disagreeing.
// That last comparison is self-consistency only: ggml_gallocr is built on the planner, and a fuzz
// input has no upstream plan to compare with; it checks the ggml API path (the document rebuilt
// as ggml objects, reserve_n's bookkeeping, placement read back from data pointers). Upstream's
// plans are compared with in test-gallocr-golden (golden and golden-real graphs).
//
// Build and run: new inputs go to the first directory (keep it out of tests/golden),
// the golden graphs are seeds, the dictionary helps:
//
//   make build/fuzz/fuzz-document        (clang -fsanitize=fuzzer,address,undefined over c/src/*/*.c and the
//                                          gallocr comparison of tests/c/support)
//   mkdir -p build/fuzz/corpus
//   ./build/fuzz/fuzz-document -max_len=65536 -dict=tests/fuzz/fuzz-document.dict build/fuzz/corpus tests/golden

#include "galloc-document.h"
#include "galloc-planner.h"
#include "gallocr-compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);
const char * fuzz_replay_note(void);

// said by the corpus replay (tests/fuzz/replay.c) before its count
const char * fuzz_replay_note(void) {
    return "ggml_gallocr compared with the planner it is built on (self-consistency; no upstream plan for fuzz inputs)";
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    struct galloc_document doc;
    struct galloc_error err;
    if (!galloc_document_read((const char *) data, size, &doc, &err)) {
        if (strchr(err.message, '\n') != NULL || err.message[0] == '\0' || err.status == GALLOC_STATUS_OK) {
            abort(); // every error is one non-empty line
        }
        return 0;
    }

    struct galloc_plan plan;
    if (galloc_plan_graph(&doc.graph, &plan, &err)) {
        size_t len  = 0;
        char * text = galloc_document_write_plan(&doc, &plan, &len);
        if (text != NULL && strlen(text) != len) {
            abort();
        }
        free(text);
        // -1: not expressible as ggml buffer types (a per-tensor alloc_size), which is fine
        if (gallocr_compare_plan(&doc, &plan, "fuzz input", &err) > 0) {
            abort(); // ggml_gallocr and the planner must agree
        }
        galloc_plan_free(&plan);
    }

    size_t len  = 0;
    char * text = galloc_document_write_graph(&doc, &len);
    if (text != NULL) {
        struct galloc_document again;
        if (!galloc_document_read(text, len, &again, &err) || again.n_tensors != doc.n_tensors ||
            again.n_nodes != doc.n_nodes || again.n_leafs != doc.n_leafs) {
            abort(); // what we write must read back
        }
        galloc_document_free(&again);
        free(text);
    }
    galloc_document_free(&doc);
    return 0;
}
