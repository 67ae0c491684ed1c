// galloc-layer.c: the layer index a tensor's name carries (see galloc-layer.h).
//
// Looks at the base of the name (before ggml's " (view)"-style suffixes) for "-N" at its
// end, then "blk.N." at its start, then "_lN" at its end.

#include "galloc-decimal.h"
#include "galloc-layer.h"

#include <string.h>

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

// value of the n digits at s (n in 1..GALLOC_LAYER_MAX_DIGITS), or -1
static int32_t digits_value(const char * s, size_t n) {
    uint64_t v = 0;
    return n <= GALLOC_LAYER_MAX_DIGITS && galloc_decimal_scan_u64(s, n, INT32_MAX, &v) ? (int32_t) v : -1;
}

static struct galloc_layer_name layer_at(int32_t layer, size_t at, size_t n) {
    struct galloc_layer_name l = { -1, -1, 0 };
    if (layer >= 0) {
        l.layer     = layer;
        l.digits_at = (int32_t) at;
        l.n_digits  = (int32_t) n;
    }
    return l;
}

// digits ending the base [0, end) right after the marker character(s), e.g. "-12" or "_l12"
static struct galloc_layer_name trailing_index(const char * name, size_t end, const char * marker) {
    size_t start = end;
    while (start > 0 && is_digit(name[start - 1])) {
        start--;
    }
    size_t m = strlen(marker);
    if (start == end || start < m + 1 || strncmp(name + start - m, marker, m) != 0) {
        return layer_at(-1, 0, 0); // also needs something before the marker: "-12" alone is no layer
    }
    return layer_at(digits_value(name + start, end - start), start, end - start);
}

struct galloc_layer_name galloc_layer_parse(const char * name) {
    if (name == NULL) {
        return layer_at(-1, 0, 0);
    }
    const char * suffix = strstr(name, " (");
    size_t       end    = suffix ? (size_t) (suffix - name) : strlen(name);

    struct galloc_layer_name l = trailing_index(name, end, "-");
    if (l.layer >= 0) {
        return l;
    }
    if (end > 4 && strncmp(name, "blk.", 4) == 0) {
        size_t n = 0;
        while (4 + n < end && is_digit(name[4 + n])) {
            n++;
        }
        if (4 + n < end && name[4 + n] == '.') {
            l = layer_at(digits_value(name + 4, n), 4, n);
            if (l.layer >= 0) {
                return l;
            }
        }
    }
    return trailing_index(name, end, "_l");
}

int32_t galloc_layer_fold(const char * name, char * out, size_t size) {
    if (out == NULL || size == 0) {
        return -1;
    }
    out[0] = '\0';
    if (name == NULL) {
        return -1;
    }
    struct galloc_layer_name l = galloc_layer_parse(name);
    size_t len = strlen(name), o = 0;
    for (size_t i = 0; i < len && o + 1 < size; i++) {
        if (l.layer >= 0 && (int32_t) i >= l.digits_at && (int32_t) i < l.digits_at + l.n_digits) {
            if ((int32_t) i == l.digits_at) {
                out[o++] = '*';
            }
            continue;
        }
        out[o++] = name[i];
    }
    out[o] = '\0';
    return l.layer;
}
