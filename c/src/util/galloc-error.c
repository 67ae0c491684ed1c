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
    [GALLOC_STATUS_DECLINED]  = "declined",
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

// a message is one line of text wherever it goes (terminal, page, log): control characters
// quoted from the input (a name holding ESC, CR, LF) become '?'; a message cut short loses
// the partial UTF-8 character at its end
void galloc_error_one_line(char * s, bool cut) {
    size_t n = 0;
    for (; s[n] != '\0'; n++) {
        unsigned char c = (unsigned char) s[n];
        if (c < 0x20 || c == 0x7F) {
            s[n] = '?';
        } else if (c == 0xC2 && (unsigned char) s[n + 1] >= 0x80 && (unsigned char) s[n + 1] < 0xA0) {
            s[n] = '?'; // a C1 control (U+0080..U+009F): two bytes become "??"
            s[n + 1] = '?';
        }
    }
    if (cut) {
        size_t k = n, cont = 0;
        while (k > 0 && ((unsigned char) s[k - 1] & 0xC0) == 0x80 && cont < 3) {
            k--;
            cont++;
        }
        if (k > 0 && (unsigned char) s[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char) s[k - 1];
            size_t        need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
            if (cont < need) {
                s[k - 1] = '\0'; // the last character is incomplete
            }
        }
    }
}

bool galloc_fail(struct galloc_error * err, enum galloc_status status, const char * fmt, ...) {
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, fmt);
        int n = vsnprintf(err->message, sizeof(err->message), fmt, args);
        va_end(args);
        galloc_error_one_line(err->message, n >= 0 && (size_t) n >= sizeof(err->message));
    }
    return false;
}
