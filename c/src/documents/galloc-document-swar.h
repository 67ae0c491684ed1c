// galloc-document-swar.h: eight bytes of a document's text at a time (private).
//
// For the scanners of galloc-document-scan.h: a word is eight bytes loaded with memcpy (no
// alignment assumed) and held in little-endian order on every host (byte k of the text is bits
// 8k..8k+7 of the word), so the masks and "the first byte that ..." below
// mean the same everywhere. Each mask is exact: 0x80 in a byte that has the property, 0 in the
// others (no false positive from a carry between bytes). The caller makes sure 8 bytes are there.

#pragma once

#include <stdint.h>
#include <string.h>

#define GALLOC_SWAR_ONES  0x0101010101010101ull
#define GALLOC_SWAR_HIGHS 0x8080808080808080ull
#define GALLOC_SWAR_LOWS7 0x7F7F7F7F7F7F7F7Full

// the 8 bytes at p, byte k of the text in bits 8k..8k+7
static inline uint64_t galloc_swar_load(const unsigned char * p) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#else
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) {
        w = (w << 8) | p[k];
    }
    return w;
#endif
}

// the word's 8 bytes at p, in text order (galloc_swar_load's inverse)
static inline void galloc_swar_store(unsigned char * p, uint64_t w) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &w, 8);
#else
    for (int k = 0; k < 8; k++) {
        p[k] = (unsigned char) (w >> (8 * k));
    }
#endif
}

// the first n bytes (n <= 8) at p, the rest of the word zero; reads only those n bytes
static inline uint64_t galloc_swar_load_short(const unsigned char * p, size_t n) {
    uint64_t w = 0;
    for (size_t k = n; k-- > 0;) {
        w = (w << 8) | p[k];
    }
    return w;
}

// the word's first n bytes (from 8 on: all of them), the others zeroed
static inline uint64_t galloc_swar_head(uint64_t w, size_t n) {
    return n >= 8 ? w : w & ((1ull << (8 * n)) - 1);
}

// 0x80 in each byte of x that is not zero
static inline uint64_t galloc_swar_nonzero(uint64_t x) {
    return (((x & GALLOC_SWAR_LOWS7) + GALLOC_SWAR_LOWS7) | x) & GALLOC_SWAR_HIGHS;
}

// 0x80 in each byte of x that is zero
static inline uint64_t galloc_swar_zero(uint64_t x) {
    return galloc_swar_nonzero(x) ^ GALLOC_SWAR_HIGHS;
}

// 0x80 in each byte equal to c
static inline uint64_t galloc_swar_equal(uint64_t x, unsigned char c) {
    return galloc_swar_zero(x ^ (GALLOC_SWAR_ONES * c));
}

// zero when no byte of x is a byte a JSON string cannot hold as itself ('"', '\\', a control byte
// below 0x20, any byte from 0x80: UTF-8, checked one sequence at a time); else 0x80 in the first such
// byte and maybe in later ones (a borrow from a flagged byte can flag the byte above it, never one
// below). Each (y - 0x01..) & ~y flags the bytes of y that are zero, (x - 0x20..) & ~x those below 0x20
static inline uint64_t galloc_swar_not_plain_first(uint64_t x) {
    uint64_t quote     = x ^ (GALLOC_SWAR_ONES * '"');
    uint64_t backslash = x ^ (GALLOC_SWAR_ONES * '\\');
    return (((quote - GALLOC_SWAR_ONES) & ~quote) | ((backslash - GALLOC_SWAR_ONES) & ~backslash) |
            ((x - GALLOC_SWAR_ONES * 0x20) & ~x) | x) & GALLOC_SWAR_HIGHS;
}

// 0xFF in each byte below the first byte flagged in a nonzero mask of 0x80s, 0 in the others (the
// word's head before that byte: galloc_swar_head of galloc_swar_first bytes)
static inline uint64_t galloc_swar_below_first(uint64_t mask) {
    return ((mask & (0 - mask)) >> 7) - 1;
}

// the index (0..7) of the first byte flagged in a nonzero mask of 0x80s
static inline unsigned galloc_swar_first(uint64_t mask) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned) __builtin_ctzll(mask) >> 3;
#else
    unsigned k = 0;
    while ((mask & 0x80u) == 0) {
        mask >>= 8;
        k++;
    }
    return k;
#endif
}
