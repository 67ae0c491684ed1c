// cli-io.c: whole-file input and output for the CLI (see cli-io.h).
//
// Reads in chunks up to one byte past the limit, so an oversized input is
// refused without reading (or allocating) all of it.

#include "cli-io.h"
#include "galloc-error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char * cli_read_file(const char * path, size_t max_bytes, size_t * len, struct galloc_error * err) {
    bool   is_stdin = strcmp(path, "-") == 0;
    FILE * f        = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        galloc_fail(err, GALLOC_STATUS_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char * buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap > max_bytes) {
                break;
            }
            char * grown = realloc(buf, cap * 2 + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t want = cap - n;
        if (n + want > max_bytes + 1) {
            want = max_bytes + 1 - n;
        }
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got < want || n > max_bytes) {
            break;
        }
    }
    bool read_error = ferror(f);
    if (!is_stdin) {
        fclose(f);
    }
    if (!buf) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "%s: out of memory", path);
        return NULL;
    }
    if (read_error) {
        galloc_fail(err, GALLOC_STATUS_IO, "%s: read error", path);
        free(buf);
        return NULL;
    }
    if (n > max_bytes) {
        galloc_fail(err, GALLOC_STATUS_LIMIT, "%s: larger than the %zu-byte limit", path, max_bytes);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len   = n;
    return buf;
}

bool cli_write_file(const char * path, const char * text, size_t len, struct galloc_error * err) {
    bool   to_stdout = path == NULL || strcmp(path, "-") == 0;
    FILE * f         = to_stdout ? stdout : fopen(path, "wb");
    if (!f) {
        galloc_fail(err, GALLOC_STATUS_IO, "%s: %s", path, strerror(errno));
        return false;
    }
    bool ok = fwrite(text, 1, len, f) == len;
    ok = (to_stdout ? fflush(f) : fclose(f)) == 0 && ok;
    if (!ok) {
        galloc_fail(err, GALLOC_STATUS_IO, "%s: write error", to_stdout ? "stdout" : path);
    }
    return ok;
}
