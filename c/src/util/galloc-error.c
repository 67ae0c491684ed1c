// galloc-error.c: failure statuses and their messages (see galloc-status.h, galloc-error.h).
//
// Kept in one place so that every module words and truncates messages alike, and the
// statuses have one table of names.

#include "galloc-error.h"

#include <stdarg.h>
#include <stdio.h>

static const char * const status_names[GALLOC_STATUS_COUNT] = {
    [GALLOC_STATUS_OK]        = "ok",
    [GALLOC_STATUS_INVALID]   = "invalid-input",
    [GALLOC_STATUS_LIMIT]     = "limit",
    [GALLOC_STATUS_NO_MEMORY] = "out-of-memory",
    [GALLOC_STATUS_ARGUMENT]  = "bad-argument",
    [GALLOC_STATUS_NOT_FOUND] = "not-found",
    [GALLOC_STATUS_IO]        = "io-error",
};

const char * galloc_status_name(int status) {
    return status >= 0 && status < GALLOC_STATUS_COUNT ? status_names[status] : "unknown";
}

void galloc_error_clear(struct galloc_error * err) {
    if (err) {
        err->status     = GALLOC_STATUS_OK;
        err->message[0] = '\0';
    }
}

bool galloc_fail(struct galloc_error * err, enum galloc_status status, const char * fmt, ...) {
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, args);
        va_end(args);
    }
    return false;
}
