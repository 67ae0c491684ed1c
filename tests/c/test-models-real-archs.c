// test-models-real-archs.c: real models' shapes of the architectures galloc builds, against llama.cpp.
//
// tests/models-real-archs/gguf holds metadata-only GGUF files of published models (manifest.tsv:
// each file's Hugging Face source; make-ggufs.py writes them as llama.cpp's converter would).
// checks.tsv has, per model and setting, what llama.cpp 3f545bec measured (its memory breakdown in
// bytes: model, context, compute) and the graph it reserved (node and tensor counts and
// model_graph_digest of the captured graph document; graphs/ keeps a few whole documents, compared
// tensor for tensor). galloc must build each graph equal to llama.cpp's and report the same bytes.

#include "check.h"
#include "files.h"
#include "galloc-gguf.h"
#include "galloc-model-place.h"
#include "galloc-model.h"
#include "model-compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR "tests/models-real-archs"

static struct galloc_model * load(const char * name) {
    char path[256];
    snprintf(path, sizeof(path), DIR "/gguf/%s.meta.gguf", name);
    size_t len;
    char * bytes = read_whole_file(path, &len);
    if (!bytes) {
        fprintf(stderr, "  %s: unreadable\n", path);
        return NULL;
    }
    struct galloc_gguf g;
    uint64_t need = 0;
    struct galloc_error err = { 0 };
    struct galloc_model * m = NULL;
    if (galloc_gguf_read((const uint8_t *) bytes, len, &g, &need, &err) == GALLOC_GGUF_OK) {
        galloc_model_from_gguf(&g, &m, &err);
        galloc_gguf_free(&g);
    }
    if (!m) {
        fprintf(stderr, "  %s: %s\n", path, err.message);
    }
    free(bytes);
    return m;
}

// one row of checks.tsv: model n_ctx n_ubatch n_batch fa model context compute nodes tensors digest graph
static void check_row(const char * line) {
    char name[64], digest_hex[32], graph[160];
    long long n_ctx, n_ubatch, n_batch;
    int fa;
    unsigned long long want_model, want_context, want_compute, want_nodes, want_tensors;
    if (sscanf(line, "%63s %lld %lld %lld %d %llu %llu %llu %llu %llu %31s %159s", name, &n_ctx, &n_ubatch, &n_batch, &fa,
               &want_model, &want_context, &want_compute, &want_nodes, &want_tensors, digest_hex, graph) != 12) {
        fprintf(stderr, "  checks.tsv: unreadable row: %s\n", line);
        check_failures++;
        return;
    }
    char row[128];
    snprintf(row, sizeof(row), "%s -c %lld -ub %lld -fa %d", name, n_ctx, n_ubatch, fa);
    struct galloc_model * m = load(name);
    CHECK(m != NULL);
    if (!m) {
        return;
    }
    struct galloc_model_settings s;
    galloc_model_settings_default(&s);
    s.n_ctx      = n_ctx;
    s.n_ubatch   = n_ubatch;
    s.n_batch    = n_batch;
    s.flash_attn = fa;
    struct galloc_error err = { 0 };
    size_t len = 0;
    char * built = galloc_model_document(m, &s, &len, &err);
    if (!built) {
        fprintf(stderr, "  %s: %s\n", row, err.message);
    }
    CHECK(built != NULL);
    uint64_t digest = 0;
    size_t n_tensors = 0, n_nodes = 0;
    if (built && model_graph_digest(built, len, &digest, &n_tensors, &n_nodes)) {
        CHECK_EQ_U64(n_nodes, want_nodes);
        CHECK_EQ_U64(n_tensors, want_tensors);
        const uint64_t want_digest = strtoull(digest_hex, NULL, 16);
        if (digest != want_digest) {
            fprintf(stderr, "  %s: graph digest %016llx, llama.cpp's %s\n", row, (unsigned long long) digest, digest_hex);
            check_failures++;
        }
    } else {
        CHECK(false);
    }
    // the whole document where it is kept: tensor for tensor, differences named
    if (built && strcmp(graph, "-") != 0) {
        char path[256];
        snprintf(path, sizeof(path), DIR "/%s", graph);
        size_t ref_len = 0;
        char * ref = read_whole_file(path, &ref_len);
        CHECK(ref != NULL);
        model_compare_reset();
        CHECK(ref && model_same_graph(row, built, len, ref, ref_len));
        free(ref);
    }
    // llama.cpp's memory breakdown (CPU): weights, KV cache and recurrent states, compute buffer
    struct galloc_place_settings p;
    galloc_place_settings_default(&p);
    struct galloc_placement * pl = galloc_model_place(m, &s, &p, &err);
    CHECK(pl != NULL);
    if (pl) {
        CHECK(pl->n_bufts >= 1 && strcmp(pl->bufts[0].name, "CPU") == 0);
        CHECK_EQ_U64(pl->bufts[0].model, want_model);
        CHECK_EQ_U64(pl->bufts[0].context, want_context);
        CHECK_EQ_U64(pl->bufts[0].compute, want_compute);
        galloc_placement_free(pl);
    } else {
        fprintf(stderr, "  %s: placement: %s\n", row, err.message);
    }
    free(built);
    galloc_model_free(m);
}

static void test_checks(void) {
    size_t len;
    char * text = read_whole_file(DIR "/checks.tsv", &len);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    int n = 0, n_failed = 0;
    char * line = strchr(text, '\n'); // skip the header
    while (line && *++line) {
        char * end = strchr(line, '\n');
        if (end) {
            *end = '\0';
        }
        const int before = check_failures;
        check_row(line);
        if (check_failures != before) {
            fprintf(stderr, "  row FAILED: %.80s\n", line);
            n_failed++;
        }
        n++;
        line = end;
    }
    free(text);
    CHECK(n >= 4);
    printf("models-real-archs: %d settings of real models, %d equal to llama.cpp's graph and breakdown\n", n, n - n_failed);
}

// every model of the manifest has rows in checks.tsv
static void test_manifest(void) {
    size_t len, clen;
    char * text   = read_whole_file(DIR "/manifest.tsv", &len);
    char * checks = read_whole_file(DIR "/checks.tsv", &clen);
    CHECK(text != NULL && checks != NULL);
    int n = 0;
    for (char * line = text ? strchr(text, '\n') : NULL; line && *++line; line = strchr(line, '\n')) {
        char name[64], key[80];
        if (sscanf(line, "%63s", name) == 1) {
            snprintf(key, sizeof(key), "\n%s\t", name);
            if (!checks || !strstr(checks, key)) {
                fprintf(stderr, "  %s: in manifest.tsv, no row in checks.tsv\n", name);
                check_failures++;
            }
            n++;
        }
    }
    CHECK(n >= 2);
    free(text);
    free(checks);
}

int main(void) {
    RUN(test_manifest);
    RUN(test_checks);
    return check_report("test-models-real-archs");
}
