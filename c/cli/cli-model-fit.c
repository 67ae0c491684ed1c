// cli-model-fit.c: `galloc model ... --sweep ngl|c` and `--max-ctx` (see cli-model-fit.h).
//
// Each point is a whole placement (weights, KV cache, the scheduler's compute buffers) of the
// model with one flag changed; a device fits when its memory minus what llama.cpp would use there
// leaves at least the margin llama.cpp's --fit keeps (--fit-target, 1024 MiB by default), the
// host when --host-memory is given and it leaves the same margin. This is not llama.cpp's --fit
// (common/fit.cpp moves layers and tensors one by one); it answers "at which -ngl / -c does it
// fit" with exact sizes.

#include "cli-model-fit.h"
#include "cli-exit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((uint64_t) 1 << 20)

struct point {
    bool     ok;
    bool     fits;
    uint64_t used[GALLOC_PLACE_MAX_DEVICES];
    uint64_t host;
};

static bool measure(const struct galloc_model * m, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                    const struct cli_fit_options * o, struct point * pt, struct galloc_error * err) {
    memset(pt, 0, sizeof(*pt));
    struct galloc_placement * pl = galloc_model_place(m, s, p, err);
    if (!pl) {
        return false;
    }
    pt->ok = true;
    pt->fits = true;
    for (int32_t b = 0; b < pl->n_bufts; b++) {
        const uint64_t self = pl->bufts[b].model + pl->bufts[b].context + pl->bufts[b].compute;
        if (pl->bufts[b].is_host) {
            pt->host += self;
        } else if (pl->bufts[b].device >= 0 && pl->bufts[b].device < GALLOC_PLACE_MAX_DEVICES) {
            pt->used[pl->bufts[b].device] += self;
        }
    }
    for (int32_t d = 0; d < pl->n_devices; d++) {
        pt->fits = pt->fits && pt->used[d] + o->margin <= pl->devices[d].free;
    }
    if (o->host_memory) {
        pt->fits = pt->fits && pt->host + o->margin <= o->host_memory;
    }
    galloc_placement_free(pl);
    return true;
}

static void print_header(const struct galloc_place_settings * p, const char * what, const struct cli_fit_options * o) {
    printf("%8s", what);
    for (int32_t d = 0; d < p->n_devices; d++) {
        const uint64_t mem = p->devices[d].memory ? p->devices[d].memory : galloc_device_kind_default_memory(p->devices[d].kind);
        printf("  dev%d %s (%" PRIu64 " MiB)", (int) d, galloc_device_kind_name(p->devices[d].kind), mem / MIB);
    }
    printf("  host%s  fits (margin %" PRIu64 " MiB)\n", o->host_memory ? " (limited)" : "", o->margin / MIB);
}

static void print_point(const struct galloc_place_settings * p, long long x, const struct point * pt) {
    printf("%8lld", x);
    for (int32_t d = 0; d < p->n_devices; d++) {
        printf("  %18" PRIu64 " MiB", pt->used[d] / MIB);
    }
    printf("  %8" PRIu64 " MiB  %s\n", pt->host / MIB, pt->fits ? "yes" : "no");
}

int cli_model_fit(const struct galloc_model * m, struct galloc_model_settings * s, struct galloc_place_settings * p,
                  const struct cli_fit_options * o, int64_t n_layer, int64_t n_ctx_train) {
    struct galloc_error err;
    struct point pt;
    if (o->mode == CLI_FIT_SWEEP_NGL) {
        print_header(p, "-ngl", o);
        for (int64_t ngl = 0; ngl <= n_layer + 1; ngl++) {
            p->n_gpu_layers = (int32_t) ngl;
            if (!measure(m, s, p, o, &pt, &err)) {
                fprintf(stderr, "galloc model: -ngl %lld: %s\n", (long long) ngl, err.message);
                return cli_exit_code(err.status);
            }
            print_point(p, ngl, &pt);
        }
        return EXIT_OK;
    }
    if (o->mode == CLI_FIT_SWEEP_CTX) {
        print_header(p, "-c", o);
        for (int64_t c = 1024; ; c *= 2) {
            const int64_t cc = c > n_ctx_train ? n_ctx_train : c;
            s->n_ctx = cc;
            if (!measure(m, s, p, o, &pt, &err)) {
                fprintf(stderr, "galloc model: -c %lld: %s\n", (long long) cc, err.message);
                return cli_exit_code(err.status);
            }
            print_point(p, cc, &pt);
            if (cc >= n_ctx_train) {
                break;
            }
        }
        return EXIT_OK;
    }
    // the largest context (a multiple of 256, at most the training context) that fits
    int64_t lo = 0, hi = n_ctx_train / 256; // in units of 256 cells; lo fits (0: none known yet)
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        s->n_ctx = mid * 256;
        if (!measure(m, s, p, o, &pt, &err)) {
            fprintf(stderr, "galloc model: -c %lld: %s\n", (long long) s->n_ctx, err.message);
            return cli_exit_code(err.status);
        }
        if (pt.fits) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if (lo == 0) {
        printf("no context fits: -c 256 already leaves less than %" PRIu64 " MiB on a device\n", o->margin / MIB);
        return EXIT_OK;
    }
    s->n_ctx = lo * 256;
    if (!measure(m, s, p, o, &pt, &err)) {
        fprintf(stderr, "galloc model: -c %lld: %s\n", (long long) s->n_ctx, err.message);
        return cli_exit_code(err.status);
    }
    printf("largest context that fits: -c %lld%s\n", (long long) s->n_ctx, lo * 256 == n_ctx_train ? " (the training context)" : "");
    print_header(p, "-c", o);
    print_point(p, s->n_ctx, &pt);
    return EXIT_OK;
}

int cli_model_llama_fit(const struct galloc_model * m, const struct galloc_model_settings * s, const struct galloc_place_settings * p,
                        const struct cli_fit_options * o, bool json) {
    struct galloc_error err;
    struct galloc_fit_result r;
    if (p->n_devices == 0 && o->llama.host_memory == 0) {
        fprintf(stderr, "galloc model: --fit without --device fits the host: give --host-memory\n");
        return EXIT_USAGE;
    }
    if (!galloc_fit_model(m, s, p, &o->llama, &r, &err)) {
        if (!json && r.log) {
            fputs(r.log, stdout);
        }
        galloc_fit_result_free(&r);
        fprintf(stderr, "galloc model: --fit: %s\n", err.message);
        return err.status == GALLOC_STATUS_ARGUMENT ? EXIT_USAGE : cli_exit_code(err.status);
    }
    // the breakdown with the flags chosen (as llama.cpp then loads the model)
    struct galloc_placement * pl = NULL;
    if (r.status == GALLOC_FIT_SUCCESS && !(pl = galloc_model_place(m, &r.s, &r.p, &err))) {
        galloc_fit_result_free(&r);
        fprintf(stderr, "galloc model: --fit: the chosen flags: %s\n", err.message);
        return err.status == GALLOC_STATUS_ARGUMENT ? EXIT_USAGE : cli_exit_code(err.status);
    }
    char * flags = galloc_fit_flags(&r);
    char * memory = pl ? (json ? galloc_placement_json(pl) : galloc_placement_table(pl)) : NULL;
    char * doc = json ? galloc_fit_json(&r, memory) : NULL;
    int code = r.status == GALLOC_FIT_SUCCESS ? EXIT_OK : EXIT_NO_FIT;
    if (!flags || (pl && !memory) || (json && !doc)) {
        fprintf(stderr, "galloc model: out of memory\n");
        code = EXIT_MEMORY;
    } else if (json) {
        fputs(doc, stdout);
    } else {
        fputs(r.log, stdout);
        if (r.status == GALLOC_FIT_SUCCESS) {
            printf("%s\n", flags);
            fputs(memory, stdout);
        } else {
            fprintf(stderr, "galloc model: --fit: llama.cpp's fit fails (llama-fit-params exits 1): %s\n", r.reason);
        }
    }
    free(doc);
    free(memory);
    free(flags);
    galloc_placement_free(pl);
    galloc_fit_result_free(&r);
    return code;
}
