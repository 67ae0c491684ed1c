// cli-io.c: whole-file input and output for the CLI (see cli-io.h).
//
// Reads in chunks up to one byte past the limit, so an oversized input is
// refused without reading (or allocating) all of it.

#include "cli-io.h"
#include "cli-exit.h"
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

const char * cli_safe_text(char * buf, size_t size, const char * s, int max_chars, int pad_chars) {
    size_t n = 0;
    int    chars = 0;
    const unsigned char * p = (const unsigned char *) (s ? s : "");
    while (*p && (max_chars == 0 || chars < max_chars)) {
        size_t len = *p < 0x80 ? 1 : (*p >> 5) == 0x6 ? 2 : (*p >> 4) == 0xE ? 3 : (*p >> 3) == 0x1E ? 4 : 1;
        for (size_t k = 1; k < len; k++) {
            if ((p[k] & 0xC0) != 0x80) {
                len = 1; // not a sequence (documents hold valid UTF-8; be safe anyway)
                break;
            }
        }
        bool control = *p < 0x20 || *p == 0x7F || (len == 1 && *p >= 0x80) || (len == 2 && p[0] == 0xC2 && p[1] < 0xA0);
        size_t out = control ? 1 : len;
        if (n + out + 1 > size) {
            break; // only whole characters
        }
        if (control) {
            buf[n++] = '?';
        } else {
            memcpy(buf + n, p, len);
            n += len;
        }
        p += len;
        chars++;
    }
    while (chars < pad_chars && n + 2 <= size) {
        buf[n++] = ' ';
        chars++;
    }
    if (size > 0) {
        buf[n < size ? n : size - 1] = '\0';
    }
    return buf;
}

int cli_read_planned(const char * path, struct galloc_planned * out) {
    struct galloc_error err;
    size_t              len  = 0;
    char *              text = cli_read_file(path, GALLOC_DOCUMENT_MAX_BYTES, &len, &err);
    if (!text) {
        fprintf(stderr, "galloc: %s\n", err.message);
        return cli_exit_code(err.status);
    }
    bool ok = galloc_planned_read(text, len, out, &err);
    free(text);
    if (!ok) {
        fprintf(stderr, "galloc: %s: %s\n", path, err.message);
        return cli_exit_code(err.status);
    }
    return EXIT_OK;
}
