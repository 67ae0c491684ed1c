// galloc-model-fit-args.c: --fit's own flags, as llama.cpp reads them (common/arg.cpp at 3f545bec).
//
// --fit-target (-fitt) MiB0,MiB1,... split at ',' and '/', one value for every device; --fit-ctx
// (-fitc) N, an int read as uint32_t; --host-memory, the host's memory (llama.cpp: the machine's);
// and -c 0, which llama.cpp takes as "keep the full context" (n_ctx_min = UINT32_MAX).

#include "galloc-model-fit.h"

#include "galloc-error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is(const char * a, const char * x, const char * y) {
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

int galloc_fit_parse_flag(int argc, char ** argv, int i, struct galloc_fit_settings * f, struct galloc_error * err) {
    if (i < 0 || i >= argc || !argv[i]) {
        return 0;
    }
    const char * a = argv[i];
    const char * v = i + 1 < argc ? argv[i + 1] : NULL;
    const char * vs = v ? v : "";
    if (is(a, "-c", "--ctx-size")) {
        if (v && strcmp(v, "0") == 0) {
            f->n_ctx_min = UINT32_MAX; // -c itself is the model settings' (galloc_model_parse_flag)
        }
        return 0;
    }
    if (is(a, "--fit-target", "-fitt")) {
        uint64_t margins[GALLOC_PLACE_MAX_DEVICES];
        int n = 0;
        const char * c = vs;
        do {
            char * end = NULL;
            errno = 0;
            const unsigned long long mib = (*c >= '0' && *c <= '9') ? strtoull(c, &end, 10) : 0;
            if (!end || errno != 0 || mib > (1ull << 30) || (*end != '\0' && *end != ',' && *end != '/')) {
                galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not MiB or a list MiB0,MiB1,...", a, vs);
                return -1;
            }
            if (n >= GALLOC_PLACE_MAX_DEVICES - 1) {
                galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: got %d input configs, but system only has %d devices", a, n + 1,
                            GALLOC_PLACE_MAX_DEVICES);
                return -1;
            }
            margins[n++] = (uint64_t) mib << 20;
            for (c = end; *c == ',' || *c == '/'; c++) {
            }
        } while (*c != '\0');
        for (int d = 0; d < GALLOC_PLACE_MAX_DEVICES; d++) {
            if (n == 1) {
                f->margins[d] = margins[0];
            } else if (d < n) {
                f->margins[d] = margins[d];
            }
        }
        return 2;
    }
    if (is(a, "--fit-ctx", "-fitc")) {
        char * end = NULL;
        errno = 0;
        const long long n = v ? strtoll(v, &end, 10) : 0;
        if (!v || end == v || *end != '\0' || errno != 0 || n < -2147483648LL || n > 2147483647LL) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a context size", a, vs);
            return -1;
        }
        f->n_ctx_min = (uint32_t) (int32_t) n; // llama.cpp keeps an int32_t and passes it as uint32_t
        return 2;
    }
    if (is(a, "--host-memory", NULL)) {
        if (!galloc_parse_memory(v, &f->host_memory) || f->host_memory == 0) {
            galloc_fail(err, GALLOC_STATUS_ARGUMENT, "%s: '%s' is not a memory size (64GiB, 32000MiB)", a, vs);
            return -1;
        }
        return 2;
    }
    return 0;
}

bool galloc_fit_parse_flags(const char * line, struct galloc_model_settings * s, struct galloc_place_settings * p,
                            struct galloc_fit_settings * f, struct galloc_error * err) {
    char * copy = line ? strdup(line) : NULL;
    char ** words = copy ? malloc((strlen(copy) / 2 + 2) * sizeof(*words)) : NULL;
    if (!words) {
        free(copy);
        return galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
    }
    int n = 0;
    for (char * w = strtok(copy, " \t\n"); w; w = strtok(NULL, " \t\n")) {
        words[n++] = w;
    }
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        int took = galloc_fit_parse_flag(n, words, i, f, err);
        if (took == 0) {
            took = galloc_model_parse_flag(n, words, i, s, p, err);
        }
        if (took == 0 && (strcmp(words[i], "--fit") == 0 || strcmp(words[i], "-fit") == 0)) {
            took = i + 1 < n && (strcmp(words[i + 1], "on") == 0 || strcmp(words[i + 1], "off") == 0) ? 2 : 1;
        }
        if (took == 0) {
            ok = galloc_fail(err, GALLOC_STATUS_ARGUMENT, "unknown option '%s'", words[i]);
        } else if (took < 0) {
            ok = false;
        } else {
            i += took - 1;
        }
    }
    free(words);
    free(copy);
    return ok;
}
