// galloc-error.c: formats input-failure messages (see galloc-error.h).
//
// Kept in one place so that every module words and truncates messages alike.

#include "galloc-error.h"

#include <stdarg.h>
#include <stdio.h>

bool galloc_fail(char * err, size_t err_size, const char * fmt, ...) {
    if (err && err_size) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, err_size, fmt, args);
        va_end(args);
    }
    return false;
}
