// galloc-decimal.h: the project's one integer formatter and one integer scanner (decimal ASCII).
//
// Every integer the library writes as text (JSON documents, plans, messages built by hand) goes
// through galloc_decimal_format_u64, and every run of digits it reads (JSON numbers, CSV fields,
// options, layer numbers in names) through galloc_decimal_scan_u64. Signs, quotes and the grammar
// around the digits are the caller's.

#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GALLOC_DECIMAL_U64_DIGITS 20 // the most digits of a uint64_t (18446744073709551615)

// the decimal digits of v at out (1 to GALLOC_DECIMAL_U64_DIGITS bytes, no NUL); their count
size_t galloc_decimal_format_u64(char * out, uint64_t v);

// the n bytes at s as a decimal number: 1 to GALLOC_DECIMAL_U64_DIGITS ASCII digits and nothing
// else (no sign, no space; leading zeros allowed), at most max; false otherwise, *out untouched
bool galloc_decimal_scan_u64(const char * s, size_t n, uint64_t max, uint64_t * out);
