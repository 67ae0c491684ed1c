// galloc-status.h: how a library call failed, as a status next to a one-line message.
//
// Functions that can fail take a `struct galloc_error *` (may be NULL) and return false
// (or NULL) after filling it. Callers decide by `status`, never by the message's text:
// the CLI maps statuses to exit codes (c/cli/galloc.c), the WASM glue hands them to JS,
// which names them with galloc_status_name (c/wasm/galloc-wasm.c, web/src/core/galloc.js).

#pragma once

#ifdef __cplusplus
extern "C" {
#endif

enum galloc_status {
    GALLOC_STATUS_OK        = 0,
    GALLOC_STATUS_INVALID   = 1, // the input (document, CSV, graph) breaks its format or a rule; the message names the place
    GALLOC_STATUS_LIMIT     = 2, // the input is well formed but past a limit of the library (bytes, tensors, rows, conflicts)
    GALLOC_STATUS_NO_MEMORY = 3, // malloc failed
    GALLOC_STATUS_ARGUMENT  = 4, // the caller passed a bad argument (NULL, an index or a count out of range)
    GALLOC_STATUS_NOT_FOUND = 5, // nothing by that name (a preset)
    GALLOC_STATUS_IO        = 6, // a file could not be read or written (the CLI)
    GALLOC_STATUS_DECLINED  = 7, // valid input an analysis declines to take on (what-if: too many items live at once)
};
#define GALLOC_STATUS_COUNT 8

#define GALLOC_ERROR_SIZE 512 // bytes of a message, NUL included

struct galloc_error {
    enum galloc_status status;
    char               message[GALLOC_ERROR_SIZE]; // one line; "" while status is GALLOC_STATUS_OK
};

// the status' stable name: "ok", "invalid-input", "limit", "out-of-memory", "bad-argument",
// "not-found", "io-error", "declined"; "unknown" out of range
const char * galloc_status_name(int status);

// status OK and an empty message (err may be NULL)
void galloc_error_clear(struct galloc_error * err);

#ifdef __cplusplus
}
#endif
