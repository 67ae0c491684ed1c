// galloc-error.h: the one way the library reports a failure (see galloc-status.h).
//
// Functions that can fail take a `struct galloc_error * err` and return false with a
// status and a one-line message; galloc_fail fills both and returns false, so a check
// reads `return galloc_fail(err, GALLOC_STATUS_INVALID, "...", ...);`.

#pragma once

#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#    define GALLOC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#    define GALLOC_PRINTF(fmt, args)
#endif

// make s (NUL-terminated) one line of text: control characters become '?'; when cut (the
// message was truncated), a partial UTF-8 character at its end is dropped. galloc_fail does it;
// code that formats err->message itself calls it after.
void galloc_error_one_line(char * s, bool cut);

// set err's status and format its message (when err is not NULL); returns false
GALLOC_PRINTF(3, 4)
bool galloc_fail(struct galloc_error * err, enum galloc_status status, const char * fmt, ...);
