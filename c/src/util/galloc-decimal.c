// galloc-decimal.c: decimal integers in and out (galloc-decimal.h).

#include "galloc-decimal.h"

size_t galloc_decimal_format_u64(char * out, uint64_t v) {
    char   digits[GALLOC_DECIMAL_U64_DIGITS];
    size_t i = sizeof(digits);
    do {
        digits[--i] = (char) ('0' + v % 10);
        v /= 10;
    } while (v != 0);
    size_t n = sizeof(digits) - i;
    for (size_t k = 0; k < n; k++) {
        out[k] = digits[i + k];
    }
    return n;
}

bool galloc_decimal_scan_u64(const char * s, size_t n, uint64_t max, uint64_t * out) {
    if (n == 0 || n > GALLOC_DECIMAL_U64_DIGITS) {
        return false;
    }
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') {
            return false;
        }
        uint64_t d = (uint64_t) (s[k] - '0');
        if (d > max || v > (max - d) / 10) { // v * 10 + d > max, without wrapping
            return false;
        }
        v = v * 10 + d;
    }
    *out = v;
    return true;
}
