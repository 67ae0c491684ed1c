// galloc-document-digits.h: decimal integers, three digits per table look-up (private).
//
// For the plan writer's tensors, where integers are most of the text. A number is cut into groups
// of three digits from the right (v = g2 * 10^6 + g1 * 10^3 + g0): the leading group is copied
// from a table of 0..999 without leading zeros, the others from one with them, four bytes per copy.
// The bytes a copy writes past the digits are junk that the text after the number overwrites:
// the caller leaves 3 bytes of room past the longest number and always writes something after it.

#pragma once

#include <stdint.h>
#include <string.h>

// entry v (0..999), four bytes each: v's digits without leading zeros, zero bytes up to the fourth,
// which holds the digit count (1..3)
extern const unsigned char galloc_digits_lead[4 * 1000 + 1];
// entry v (0..999), four bytes each: v's three digits with leading zeros, then a zero byte
extern const unsigned char galloc_digits_group[4 * 1000 + 1];

#define GALLOC_DIGITS_THOUSAND 1000u
#define GALLOC_DIGITS_MILLION  1000000u
#define GALLOC_DIGITS_BILLION  1000000000u

// v < 1000 without leading zeros at `at` (4 bytes written); past its digits
static inline char * galloc_digits_put_lead(char * at, uint32_t v) {
    const unsigned char * entry = &galloc_digits_lead[4 * v];
    memcpy(at, entry, 4);
    return at + entry[3];
}

// v < 1000 as three digits at `at` (4 bytes written); past them
static inline char * galloc_digits_put_group(char * at, uint32_t v) {
    memcpy(at, &galloc_digits_group[4 * v], 4);
    return at + 3;
}

// v < 10^6 as six digits with leading zeros at `at` (7 bytes written); past them
static inline char * galloc_digits_put_six(char * at, uint32_t v) {
    uint32_t high = v / GALLOC_DIGITS_THOUSAND;
    return galloc_digits_put_group(galloc_digits_put_group(at, high), v - high * GALLOC_DIGITS_THOUSAND);
}

// v < 10^9 as nine digits with leading zeros at `at` (10 bytes written); past them
static inline char * galloc_digits_put_nine(char * at, uint32_t v) {
    uint32_t high = v / GALLOC_DIGITS_MILLION;
    return galloc_digits_put_six(galloc_digits_put_group(at, high), v - high * GALLOC_DIGITS_MILLION);
}

// the decimal digits of v at `at` (at most 13 bytes written); past them
static inline char * galloc_digits_put_u32(char * at, uint32_t v) {
    if (v < GALLOC_DIGITS_THOUSAND) {
        return galloc_digits_put_lead(at, v);
    }
    if (v < GALLOC_DIGITS_MILLION) {
        uint32_t high = v / GALLOC_DIGITS_THOUSAND;
        return galloc_digits_put_group(galloc_digits_put_lead(at, high), v - high * GALLOC_DIGITS_THOUSAND);
    }
    if (v < GALLOC_DIGITS_BILLION) {
        uint32_t high = v / GALLOC_DIGITS_MILLION;
        return galloc_digits_put_six(galloc_digits_put_lead(at, high), v - high * GALLOC_DIGITS_MILLION);
    }
    uint32_t high = v / GALLOC_DIGITS_BILLION; // 1..4
    return galloc_digits_put_nine(galloc_digits_put_lead(at, high), v - high * GALLOC_DIGITS_BILLION);
}

// the decimal digits of v < 10^18 at `at` (at most 21 bytes written); past them
static inline char * galloc_digits_put_u64(char * at, uint64_t v) {
    if (v <= UINT32_MAX) {
        return galloc_digits_put_u32(at, (uint32_t) v);
    }
    uint64_t high = v / GALLOC_DIGITS_BILLION; // above 4, below 10^9
    return galloc_digits_put_nine(galloc_digits_put_u32(at, (uint32_t) high), (uint32_t) (v - high * GALLOC_DIGITS_BILLION));
}
#define GALLOC_DIGITS_U64_LIMIT 1000000000000000000ull // galloc_digits_put_u64 takes v below this
