// test-alloc-failure.c: out of memory at any allocation is a status, never an abort or a leak.
//
// The program is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
// --wrap=posix_memalign (see the Makefile) and with the WebAssembly glue, c/wasm/galloc-wasm.c,
// compiled natively: the cases call the module's exports themselves. Each case runs once to
// count its allocations and keep its answer, then once for every allocation k (or a spread of
// them when there are many), with allocation k failing: the export must answer NULL with the
// status GALLOC_STATUS_NO_MEMORY (or, when the failure was recovered from, the same answer), leave
// no block allocated, and the next call, with memory again, must answer as the first did (the
// module goes on working). ASan and UBSan see what a missed NULL check does; the wrappers count
// the blocks a failure path forgets to free. ggml's allocator API (ggml_gallocr_new, which
// returns NULL when it cannot allocate, and reserve) is run the same way on the fake backend.
// The model builder is failed at every allocation on a tiny GGUF (two layers: every allocation
// site of the builder, the document, its plan and sizes); a card (Llama 3 8B, 32 layers: the same
// sites 32 times over) at its first allocations and a spread of the rest.

#include "check.h"
#include "fake-backend.h"
#include "files.h"
#include "galloc-status.h"
#include "ggml-alloc.h"
#include "ggml.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// the exports under test (defined in c/wasm/galloc-wasm.c, linked in)
int32_t      galloc_wasm_last_status(void);
const char * galloc_wasm_last_error(void);
void         galloc_wasm_free(void * ptr);
char *       galloc_wasm_plan(const char * json, size_t len);
char *       galloc_wasm_graph(const char * json, size_t len);
int32_t      galloc_wasm_doc_open(const char * json, size_t len);
void         galloc_wasm_doc_close(int32_t handle);
char *       galloc_wasm_doc_plan(int32_t handle);
char *       galloc_wasm_doc_explain(int32_t handle);
char *       galloc_wasm_whatif(const char * json, size_t len, int32_t buffer_type, uint32_t budget_ms);
char *       galloc_wasm_whatif_csv(const char * csv, size_t len, uint32_t capacity_lo, uint32_t capacity_hi, uint32_t budget_ms);
char *       galloc_wasm_explain(const char * json, size_t len);
char *       galloc_wasm_explain_compare(const char * a, size_t len_a, const char * b, size_t len_b, int32_t fold);
char *       galloc_wasm_preset_document(const char * name);
char *       galloc_wasm_tables(void);
char *       galloc_wasm_gguf_summary(const uint8_t * data, size_t len, double file_size, int32_t max_items);
int32_t      galloc_wasm_model_open_gguf(const uint8_t * data, size_t len);
int32_t      galloc_wasm_model_open_card(const char * name);
void         galloc_wasm_model_close(int32_t handle);
int32_t      galloc_wasm_model_build_document(int32_t handle, const char * settings, size_t len);
char *       galloc_wasm_doc_model_sizes(int32_t handle);
uint8_t *    galloc_wasm_doc_graph_binary(int32_t handle);
uint8_t *    galloc_wasm_doc_plan_binary(int32_t handle);
size_t       galloc_wasm_result_length(void);
char *       galloc_wasm_model_sizes(int32_t handle, const char * settings, size_t len);

//
// the wrappers: count live blocks, fail the allocation numbered fail_at
//

void * __real_malloc(size_t size);
void * __real_calloc(size_t n, size_t size);
void * __real_realloc(void * p, size_t size);
void   __real_free(void * p);
int    __real_posix_memalign(void ** p, size_t alignment, size_t size);
void * __wrap_malloc(size_t size);
void * __wrap_calloc(size_t n, size_t size);
void * __wrap_realloc(void * p, size_t size);
void   __wrap_free(void * p);
int    __wrap_posix_memalign(void ** p, size_t alignment, size_t size);

static long n_calls = 0;  // allocation calls so far
static long fail_at = -1; // the call that fails (-1: none)
static long live    = 0;  // blocks allocated and not freed

// true when this call is the one to fail
static bool failing(void) {
    return n_calls++ == fail_at;
}

void * __wrap_malloc(size_t size) {
    void * p = failing() ? NULL : __real_malloc(size);
    live += p != NULL;
    return p;
}

void * __wrap_calloc(size_t n, size_t size) {
    void * p = failing() ? NULL : __real_calloc(n, size);
    live += p != NULL;
    return p;
}

void * __wrap_realloc(void * p, size_t size) {
    void * q = failing() ? NULL : __real_realloc(p, size);
    live += p == NULL && q != NULL; // a new block; a moved one is the same block
    return q;
}

void __wrap_free(void * p) {
    live -= p != NULL;
    __real_free(p);
}

int __wrap_posix_memalign(void ** p, size_t alignment, size_t size) {
    if (failing()) {
        return 12; // ENOMEM
    }
    int r = __real_posix_memalign(p, alignment, size);
    live += r == 0;
    return r;
}

//
// the runner
//

// one case: an answer (malloc'd text, NULL on failure) from a call that cleans up after itself
typedef char * (*case_fn)(void);

// a copy out of sight of the wrappers' counts, the what-if timings (`"..._us": N`) zeroed
static char * keep(const char * text) {
    size_t n = strlen(text) + 1;
    char * c = __real_malloc(n);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        c[o++] = text[i];
        if (i >= 5 && memcmp(text + i - 5, "_us\": ", 6) == 0 && text[i + 1] >= '0' && text[i + 1] <= '9') {
            c[o++] = '0';
            while (text[i + 1] >= '0' && text[i + 1] <= '9') {
                i++;
            }
        }
    }
    return c;
}

// text is expected once its timings are zeroed
static bool same_answer(const char * text, const char * expected) {
    char * t  = keep(text);
    bool   eq = strcmp(t, expected) == 0;
    __real_free(t);
    return eq;
}

// a what-if that could not check a plan (its checker's arrays could not be had) says so, with
// "checked": false, rather than fail; such a plan is not the best one, so the answer differs
static bool says_unchecked(const char * text) {
    return strstr(text, "\"checked\": false") != NULL;
}

// stderr sent to /dev/null while on (unless ALLOC_FAILURE_SHOW is set: a sanitizer's report
// from a failing call is then lost, the exit status is not)
static void quiet(bool on) {
    static int saved = -1;
    if (getenv("ALLOC_FAILURE_SHOW")) {
        return;
    }
    fflush(stderr);
    if (on) {
        int null = open("/dev/null", O_WRONLY);
        saved = dup(2);
        dup2(null, 2);
        close(null);
    } else if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
        saved = -1;
    }
}

#define MAX_POINTS 400 // failure points tried per case: all of them, or this many spread evenly
#define DENSE      64  // ... and always every one of the first DENSE

// runs fn with every (or a spread of) allocation failing once; a NULL answer must come with the
// status NO_MEMORY and a message (with_status; ggml's API answers NULL or false alone); at most
// max_points points past the first DENSE
static void run_failing_n(const char * name, case_fn fn, bool with_status, long max_points) {
    long   live0 = live;
    n_calls      = 0;
    fail_at      = -1;
    char * first = fn();
    long   total = n_calls;
    CHECK(first != NULL);
    CHECK(live == live0 + (first != NULL));
    if (first == NULL) {
        fprintf(stderr, "%s: %s\n", name, galloc_wasm_last_error());
        return;
    }
    char * expected = keep(first);
    galloc_wasm_free(first);

    long step = total > max_points ? total / max_points : 1;
    int  failed = 0, recovered = 0, bad = 0;
    for (long k = 0; k < total; k += k < DENSE ? 1 : step) {
        n_calls = 0;
        fail_at = k;
        quiet(true); // the library's error lines ("failed to allocate ..."), hundreds of them
        char * got = fn();
        quiet(false);
        fail_at = -1;
        int32_t status = galloc_wasm_last_status();
        char    message[256];
        snprintf(message, sizeof(message), "%s", galloc_wasm_last_error());
        bool ok = got == NULL ? !with_status || (status == GALLOC_STATUS_NO_MEMORY && message[0] != '\0')
                              : same_answer(got, expected) || (says_unchecked(got) && !says_unchecked(expected));
        const char * what = got == NULL ? "NULL" : ok ? "the same answer" : "another answer";
        failed += got == NULL;
        recovered += got != NULL;
        if (getenv("ALLOC_FAILURE_SHOW") && got && !ok) {
            fprintf(stderr, "--- expected\n%s\n--- got\n%s\n", expected, got);
        }
        galloc_wasm_free(got);
        long left = live - live0;
        ok = ok && left == 0;
        // the next call, with memory, answers as the first did
        char * again = fn();
        bool same_again = again != NULL && same_answer(again, expected);
        if (getenv("ALLOC_FAILURE_SHOW") && again && !same_again) {
            fprintf(stderr, "--- expected\n%s\n--- next\n%s\n", expected, again);
        }
        galloc_wasm_free(again);
        ok = ok && same_again && live == live0 + left;
        if (!ok && bad++ < 3) {
            fprintf(stderr, "%s: allocation %ld of %ld failing: %s, status %d (%s), %ld blocks left; the next call %s\n", name, k,
                    total, what, (int) status, message, left,
                    same_again ? "answers the same" : "answers otherwise");
        }
        live = live0; // one report per leak
    }
    CHECK(bad == 0);
    CHECK(failed > 0); // the case allocates: some failure must reach the caller
    fprintf(stderr, "  %-24s %5ld allocations, %4d failures answered out-of-memory, %d recovered from\n", name, total, failed,
            recovered);
    __real_free(expected);
}

static void run_failing(const char * name, case_fn fn, bool with_status) {
    run_failing_n(name, fn, with_status, MAX_POINTS);
}

//
// the cases (inputs read once, before counting)
//

static char * doc_a;
static size_t doc_a_len;
static char * doc_b;
static size_t doc_b_len;
static char * csv;
static size_t csv_len;
static char * gguf;
static size_t gguf_len;

static char * case_plan(void) {
    return galloc_wasm_plan(doc_a, doc_a_len);
}

static char * case_graph(void) {
    return galloc_wasm_graph(doc_a, doc_a_len);
}

// open, plan and explain from what was kept, close: the two texts joined
static char * case_kept_document(void) {
    int32_t h = galloc_wasm_doc_open(doc_b, doc_b_len);
    if (h == 0) {
        return NULL;
    }
    char * plan    = galloc_wasm_doc_plan(h);
    char * explain = plan ? galloc_wasm_doc_explain(h) : NULL;
    char * both    = NULL;
    if (explain) {
        size_t a = strlen(plan), b = strlen(explain);
        both = __real_malloc(a + b + 1); // not counted: the module's failures only
        memcpy(both, plan, a);
        memcpy(both + a, explain, b + 1);
        live++; // freed by galloc_wasm_free
    }
    galloc_wasm_free(plan);
    galloc_wasm_free(explain);
    galloc_wasm_doc_close(h);
    return both;
}

// open, the binary graph and plan (galloc-binary.h), close: the two in hex, joined
static char * case_kept_binary(void) {
    int32_t h = galloc_wasm_doc_open(doc_b, doc_b_len);
    if (h == 0) {
        return NULL;
    }
    uint8_t * parts[2] = { galloc_wasm_doc_graph_binary(h), NULL };
    size_t    lens[2]  = { galloc_wasm_result_length(), 0 };
    if (parts[0] != NULL) {
        parts[1] = galloc_wasm_doc_plan_binary(h);
        lens[1]  = galloc_wasm_result_length();
    }
    char * both = NULL;
    if (parts[1] != NULL) {
        both = __real_malloc(2 * (lens[0] + lens[1]) + 1); // not counted: the module's failures only
        char * at = both;
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < lens[k]; i++, at += 2) {
                snprintf(at, 3, "%02x", parts[k][i]);
            }
        }
        *at = '\0';
        live++; // freed by galloc_wasm_free
    }
    galloc_wasm_free(parts[0]);
    galloc_wasm_free(parts[1]);
    galloc_wasm_doc_close(h);
    return both;
}

static char * case_explain(void) {
    return galloc_wasm_explain(doc_b, doc_b_len);
}

static char * case_explain_compare(void) {
    return galloc_wasm_explain_compare(doc_a, doc_a_len, doc_b, doc_b_len, 1);
}

static char * case_whatif(void) {
    return galloc_wasm_whatif(doc_b, doc_b_len, 0, 0);
}

static char * case_whatif_csv(void) {
    return galloc_wasm_whatif_csv(csv, csv_len, 0, 0, 0);
}

static char * case_preset(void) {
    return galloc_wasm_preset_document("llama-tiny");
}

static char * case_tables(void) {
    return galloc_wasm_tables();
}

static char * case_gguf_summary(void) {
    return galloc_wasm_gguf_summary((const uint8_t *) gguf, gguf_len, (double) gguf_len, 16);
}

static const char settings[] = "{\"n_ctx\":256,\"n_batch\":64,\"n_ubatch\":64}";

static char * model_case(int32_t h, bool sizes_only) {
    if (h == 0) {
        return NULL;
    }
    char * out = NULL;
    if (sizes_only) {
        out = galloc_wasm_model_sizes(h, settings, sizeof(settings) - 1);
    } else { // the document built, read, planned and kept; its sizes
        int32_t d = galloc_wasm_model_build_document(h, settings, sizeof(settings) - 1);
        out = d != 0 ? galloc_wasm_doc_model_sizes(d) : NULL;
        galloc_wasm_doc_close(d);
    }
    galloc_wasm_model_close(h);
    return out;
}

static char * case_model_card(void) {
    return model_case(galloc_wasm_model_open_card("llama-3-8b"), false);
}

static char * case_model_gguf(void) {
    return model_case(galloc_wasm_model_open_gguf((const uint8_t *) gguf, gguf_len), true);
}

static char * case_model_gguf_build(void) {
    return model_case(galloc_wasm_model_open_gguf((const uint8_t *) gguf, gguf_len), false);
}

// ggml's API: a new allocator (NULL when out of memory), reserve, alloc_graph; the buffer size as text
static char * case_gallocr(void) {
    struct fake_backend fb;
    fake_backend_init(&fb, SIZE_MAX, 32);
    struct ggml_init_params params = { ggml_tensor_overhead() * 64 + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        return NULL;
    }
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    struct ggml_tensor * c = ggml_add(ctx, ggml_mul(ctx, a, b), ggml_scale(ctx, b, 2.0f));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    char * out = NULL;
    ggml_gallocr_t galloc = ggml_gallocr_new(&fb.buft);
    if (galloc && ggml_gallocr_reserve(galloc, gf) && ggml_gallocr_alloc_graph(galloc, gf)) {
        out = __real_malloc(32); // not counted: the library's failures only
        snprintf(out, 32, "%zu", ggml_gallocr_get_buffer_size(galloc, 0));
        live++; // freed by galloc_wasm_free
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
    return out;
}

int main(void) {
    doc_a = golden_read("rand-n10-s0-a8", "graph", &doc_a_len);
    doc_b = golden_read("llama-tiny-2buft", "graph", &doc_b_len);
    csv   = read_whole_file("tests/fixtures/minimalloc/A.1048576.csv", &csv_len);
    gguf  = read_whole_file("tests/models-real/gguf/llama3-tiny.meta.gguf", &gguf_len);
    if (!doc_a || !doc_b || !csv || !gguf) {
        fprintf(stderr, "test-alloc-failure: missing test data\n");
        return 1;
    }
    live = 0;
    run_failing("plan", case_plan, true);
    run_failing("graph", case_graph, true);
    run_failing("kept document", case_kept_document, true);
    run_failing("kept document binary", case_kept_binary, true);
    run_failing("explain", case_explain, true);
    run_failing("explain compare", case_explain_compare, true);
    run_failing("whatif", case_whatif, true);
    run_failing("whatif csv", case_whatif_csv, true);
    run_failing("preset", case_preset, true);
    run_failing("tables", case_tables, true);
    run_failing("gguf summary", case_gguf_summary, true);
    run_failing_n("model card build", case_model_card, true, 16);
    run_failing("model gguf build", case_model_gguf_build, true);
    run_failing("model gguf sizes", case_model_gguf, true);
    run_failing("ggml_gallocr", case_gallocr, false);
    check_cases = 15;
    free(doc_a);
    free(doc_b);
    free(csv);
    free(gguf);
    return check_report("alloc-failure");
}
