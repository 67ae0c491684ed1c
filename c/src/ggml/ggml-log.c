// ggml-log.c: ggml's logging (quiet unless verbose, warnings and errors always) and ggml_abort.
//
// On their own, below everything else of the ggml subset: ggml.c and the hash set (ggml-hash.c)
// both abort through ggml_abort, and neither depends on the other for it.

#include "ggml-impl.h"
#include "ggml.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static bool g_log_verbose = false;
static bool g_log_last_printed = false; // decides where a GGML_LOG_LEVEL_CONT line goes

void ggml_log_set_verbose(bool verbose) {
    g_log_verbose = verbose;
}

void ggml_log_internal(enum ggml_log_level level, const char * format, ...) {
    if (format == NULL) {
        return;
    }
    bool print;
    if (level == GGML_LOG_LEVEL_CONT) {
        print = g_log_last_printed;
    } else {
        print = g_log_verbose || level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR;
        g_log_last_printed = print;
    }
    if (!print) {
        return;
    }
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fflush(stderr);
}

void ggml_abort(const char * file, int line, const char * fmt, ...) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: ", file, line);
    va_list args;
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}
