// galloc-error.h: the one way the library reports a failure caused by its input.
//
// Functions that can fail take (char * err, size_t err_size) and return false
// with a one-line message; galloc_fail writes that message and returns false,
// so a check reads `return galloc_fail(err, err_size, "...", ...);`.

#pragma once

#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>

// format the message into err (when err and err_size allow) and return false
GGML_ATTRIBUTE_FORMAT(3, 4)
bool galloc_fail(char * err, size_t err_size, const char * fmt, ...);
