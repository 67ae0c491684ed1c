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
