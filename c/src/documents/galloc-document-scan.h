// galloc-document-scan.h: strict JSON tokens read straight from a document's text (private).
//
// For the readers that take a document without building a tree (galloc-document-fast.c, one
// entry; galloc-document-walk.c, the whole document in one pass). Each function takes only what
// the JSON parser (json.c) accepts AND gives the same value for: plain strings (no escapes; the
// parser's byte table and UTF-8 rule), integers of at most 19 digits without fraction or
// exponent, the literals. Anything else answers false (or -1) and the caller declines, leaving
// the text to the parser and the checked reader, so every verdict and message stays theirs.

#pragma once

#include "galloc-document-swar.h"
#include "json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct galloc_scan {
    const unsigned char * p;   // next byte
    const unsigned char * end; // just past the text
};

static inline void galloc_scan_ws(struct galloc_scan * s) {
    while (s->p < s->end && *s->p <= ' ' && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) {
        s->p++;
    }
}

// the text at p is lit (n bytes): consumed, true
static inline bool galloc_scan_literal(struct galloc_scan * s, const char * lit, size_t n) {
    if ((size_t) (s->end - s->p) >= n && memcmp(s->p, lit, n) == 0) {
        s->p += n;
        return true;
    }
    return false;
}

static inline bool galloc_scan_at(const struct galloc_scan * s, unsigned char c) {
    return s->p < s->end && *s->p == c;
}

// the first byte from p that a string cannot hold as itself (galloc_json_plain), or end
static inline const unsigned char * galloc_scan_plain_run(const unsigned char * p, const unsigned char * end) {
    for (; end - p >= 8; p += 8) {
        uint64_t special = galloc_swar_not_plain_first(galloc_swar_load(p));
        if (special != 0) {
            return p + galloc_swar_first(special);
        }
    }
    while (p < end && galloc_json_plain[*p]) {
        p++;
    }
    return p;
}

// a string whose value is its bytes (no escape, no control byte, valid UTF-8): *out, *n
static inline bool galloc_scan_string(struct galloc_scan * s, const char ** out, size_t * n) {
    const unsigned char * p   = s->p;
    const unsigned char * end = s->end;
    if (p >= end || *p != '"') {
        return false;
    }
    const unsigned char * start = ++p;
    for (;;) {
        p = galloc_scan_plain_run(p, end);
        if (p >= end) {
            return false;
        }
        if (*p == '"') {
            break;
        }
        if (*p < 0x80) {
            return false; // a backslash or a control byte
        }
        size_t seq = galloc_json_utf8_length(p, (size_t) (end - p)); // a valid sequence never holds the closing '"'
        if (seq == 0) {
            return false;
        }
        p += seq;
    }
    *out = (const char *) start;
    *n   = (size_t) (p - start);
    s->p = p + 1;
    return true;
}

// an integer as the parser reads one exactly: '-'? then 0 or 1 to 19 digits without a leading zero,
// no fraction or exponent after. *neg false for -0 (the parser's value is 0)
static inline bool galloc_scan_integer(struct galloc_scan * s, bool * neg, uint64_t * mag) {
    const unsigned char * p     = s->p;
    const unsigned char * end   = s->end;
    bool                  minus = false;
    if (p < end && *p == '-') {
        minus = true;
        p++;
    }
    const unsigned char * first = p;
    uint64_t              v     = 0;
    while (p < end && (unsigned) (*p - '0') < 10u) {
        v = v * 10u + (unsigned) (*p - '0'); // wraps past 19 digits, which are refused below
        p++;
    }
    size_t digits = (size_t) (p - first);
    if (digits - 1 >= 19 || (*first == '0' && digits > 1)) { // none, more than 19, or a leading zero
        return false;
    }
    if (p < end && (*p == '.' || (*p | 0x20) == 'e')) {
        return false;
    }
    s->p = p;
    *neg = minus && v != 0;
    *mag = v;
    return true;
}

static inline bool galloc_scan_u64(struct galloc_scan * s, uint64_t * out) {
    bool neg;
    return galloc_scan_integer(s, &neg, out) && !neg;
}

static inline bool galloc_scan_i64(struct galloc_scan * s, int64_t * out) {
    bool     neg;
    uint64_t mag;
    if (!galloc_scan_integer(s, &neg, &mag)) {
        return false;
    }
    if (!neg) {
        if (mag > (uint64_t) INT64_MAX) {
            return false;
        }
        *out = (int64_t) mag;
        return true;
    }
    if (mag > (uint64_t) INT64_MAX + 1) {
        return false;
    }
    *out = mag == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) mag;
    return true;
}

// an index in [0, n)
static inline bool galloc_scan_index(struct galloc_scan * s, int32_t n, int32_t * out) {
    uint64_t v;
    if (!galloc_scan_u64(s, &v) || v >= (uint64_t) n) {
        return false;
    }
    *out = (int32_t) v;
    return true;
}

// at '[' ('{'): opened, whitespace skipped; 0 when the container is empty (its close consumed),
// 1 at its first item (key), -1 when there is no such container
static inline int galloc_scan_open(struct galloc_scan * s, unsigned char open, unsigned char close) {
    if (!galloc_scan_at(s, open)) {
        return -1;
    }
    s->p++;
    galloc_scan_ws(s);
    if (galloc_scan_at(s, close)) {
        s->p++;
        return 0;
    }
    return 1;
}

// after an item (member): 1 at the next one (',' and whitespace consumed), 0 at the close (consumed), -1 otherwise
static inline int galloc_scan_next(struct galloc_scan * s, unsigned char close) {
    if (s->end - s->p >= 3 && s->p[0] == ',' && s->p[1] == ' ' && s->p[2] > ' ') { // ", " then the item: the common case
        s->p += 2;
        return 1;
    }
    if (s->p < s->end && *s->p == close) { // the close right after the last item
        s->p++;
        return 0;
    }
    galloc_scan_ws(s);
    if (s->p < s->end) {
        if (*s->p == ',') {
            s->p++;
            galloc_scan_ws(s);
            return 1;
        }
        if (*s->p == close) {
            s->p++;
            return 0;
        }
    }
    return -1;
}

// a member's key and ':', whitespace after it skipped
static inline bool galloc_scan_key(struct galloc_scan * s, const char ** key, size_t * n) {
    if (!galloc_scan_string(s, key, n)) {
        return false;
    }
    galloc_scan_ws(s);
    if (!galloc_scan_at(s, ':')) {
        return false;
    }
    s->p++;
    galloc_scan_ws(s);
    return true;
}

//
// the forms the writers give (galloc-export.c, galloc-document-write.c), read by the shortest way:
// each takes only text the readers above read to the same value, and answers false otherwise with
// nothing consumed, so that its caller can read the same text with them from the same place.
// They read digits without looking at end: the text's last byte must be no digit
// (galloc_scan_ends_in_digit false), so that a run of digits stops inside it
//

// whether the n bytes at text end in a digit (or are none): the tight readers are not for such a
// text (no JSON document ends so: its root is an object)
static inline bool galloc_scan_ends_in_digit(const char * text, size_t n) {
    return n == 0 || (unsigned) ((unsigned char) text[n - 1] - '0') < 10u;
}

// 1 to 18 digits without a leading zero (or a lone 0), as galloc_scan_u64 reads them when the
// byte after is none of '.', 'e', 'E': every caller then wants ',', ']' or '}' there, so a number
// with a fraction or an exponent goes to the scanner after all. *at after the digits; false
// (nothing consumed) otherwise
static inline bool galloc_scan_tight_u64(const unsigned char ** at, const unsigned char * end, uint64_t * out) {
    const unsigned char * p = *at;
    if (p >= end) {
        return false;
    }
    uint64_t v = (uint64_t) *p - '0';
    if (v >= 10) {
        return false;
    }
    const unsigned char * first = p++;
    // the text's last byte is no digit: the byte after a digit is in the text, and a run stops before end
    uint64_t d; // (64 bits: no widening)
    if (v != 0 && (d = (uint64_t) *p - '0') < 10u) { // digits 2 to 4 one by one (most numbers have no more), then a loop
        v = v * 10 + d;
        p++;
        if ((d = (uint64_t) *p - '0') < 10u) {
            v = v * 10 + d;
            p++;
            if ((d = (uint64_t) *p - '0') < 10u) {
                v = v * 10 + d;
                p++;
                while ((d = (uint64_t) *p - '0') < 10u) {
                    v = v * 10 + d;
                    p++;
                }
                if (p - first > 18) {
                    return false;
                }
            }
        }
    }
    *at  = p;
    *out = v;
    return true;
}

// after an array item: 1 at ", " (consumed: the next item must follow at once, or its reader
// declines), 0 at ']' (consumed), -1 otherwise
static inline int galloc_scan_tight_next(const unsigned char ** at, const unsigned char * end) {
    const unsigned char * p = *at;
    if (end - p >= 2 && memcmp(p, ", ", 2) == 0) {
        *at = p + 2;
        return 1;
    }
    if (p < end && *p == ']') {
        *at = p + 1;
        return 0;
    }
    return -1;
}
