// fuzz-model.c: libFuzzer target over the model builder: a GGUF header and llama.cpp's settings together.
//
// Input: 16 bytes of settings (flags: flash attention, decode graph; K and V cache types; -c, -b, -ub as
// 32-bit numbers, wide enough for every limit; -np), then the GGUF file. The header is read, the model
// opened and its graph built and planned as `galloc model` and the page do. Nothing may crash, hang, leak
// or reach an assert of the ggml layer; a refusal has a status and a message; and a graph document the
// builder writes is read by the graph reader without refusal (`galloc model` never writes what
// `galloc plan` refuses), its node count the one the sizes report.
// Seeds: tests/fuzz/corpus-model (the tiny models of tests/models-real and the hostile-model table,
// each with settings in front).

#include "galloc-document.h"
#include "galloc-gguf.h"
#include "galloc-model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#define REQUIRE(x) do { if (!(x)) { abort(); } } while (0)
#define SETTINGS_BYTES 16

static uint32_t le32(const uint8_t * p) {
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (size < SETTINGS_BYTES) {
        return 0;
    }
    static const enum ggml_type cache_types[] = { GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
                                                  GGML_TYPE_Q4_1, GGML_TYPE_IQ4_NL, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1 };
    const size_t n_types = sizeof(cache_types) / sizeof(cache_types[0]);
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.flash_attn = data[0] & 1;
    s.graph      = data[0] & 2 ? GALLOC_MODEL_GRAPH_DECODE : GALLOC_MODEL_GRAPH_PROMPT;
    s.type_k     = cache_types[data[1] % n_types];
    s.type_v     = cache_types[data[2] % n_types];
    s.n_ctx      = le32(data + 3) & 0x3ffffff;  // to 2^26: past the library's limit of 2^24
    s.n_batch    = le32(data + 7) & 0x3ffffff;
    s.n_ubatch   = le32(data + 11) & 0x3ffffff;
    s.n_seq      = data[15];                    // 0 and past the limit of 256 too
    const uint8_t * file = data + SETTINGS_BYTES;
    const size_t    len  = size - SETTINGS_BYTES;

    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err;
    if (galloc_gguf_read_prefix(file, len, len, &g, &need, &err) != GALLOC_GGUF_OK) {
        return 0;
    }
    struct galloc_model * m = NULL;
    bool opened = galloc_model_from_gguf(&g, &m, &err);
    galloc_gguf_free(&g);
    if (!opened) {
        REQUIRE(m == NULL && err.status != GALLOC_STATUS_OK && err.message[0] != '\0');
        return 0;
    }
    struct galloc_model_sizes z;
    size_t doc_len = 0;
    char * doc = galloc_model_document_sizes(m, &s, &z, &doc_len, &err);
    if (!doc) {
        REQUIRE(err.status != GALLOC_STATUS_OK && err.message[0] != '\0');
    } else {
        struct galloc_document d;
        struct galloc_error derr;
        if (!galloc_document_read(doc, doc_len, &d, &derr)) {
            REQUIRE(derr.status == GALLOC_STATUS_NO_MEMORY); // a limit or a rule broken: the builder wrote what plan refuses
        } else {
            REQUIRE(z.n_nodes > 0);
            galloc_document_free(&d);
        }
        free(doc);
    }
    galloc_model_free(m);
    return 0;
}
