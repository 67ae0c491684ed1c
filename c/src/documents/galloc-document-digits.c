// galloc-document-digits.c: the tables of galloc-document-digits.h, spelled out by the preprocessor.
//
// Each table is one string literal of 1000 four-byte entries in the order 0..999, built from
// "0".."9" by nested macros (a level per digit: a macro cannot expand inside itself, so each level
// has its own). Separate literals keep an escape from running into the digit after it.

#include "galloc-document-digits.h"

// m(p "0") ... m(p "9") at each level (the first, second and third digit of an entry); LEAD: without "0"
#define LEVEL1_LEAD(m, p) m(p "1") m(p "2") m(p "3") m(p "4") m(p "5") m(p "6") m(p "7") m(p "8") m(p "9")
#define LEVEL1_ALL(m, p)  m(p "0") m(p "1") m(p "2") m(p "3") m(p "4") m(p "5") m(p "6") m(p "7") m(p "8") m(p "9")
#define LEVEL2_ALL(m, p)  m(p "0") m(p "1") m(p "2") m(p "3") m(p "4") m(p "5") m(p "6") m(p "7") m(p "8") m(p "9")
#define LEVEL3_ALL(m, p)  m(p "0") m(p "1") m(p "2") m(p "3") m(p "4") m(p "5") m(p "6") m(p "7") m(p "8") m(p "9")

// galloc_digits_lead: 0..9, then 10..99, then 100..999, each padded with zero bytes to three, then its count
#define LEAD_ONE(s)         s "\0\0" "\1"
#define LEAD_TWO(s)         s "\0" "\2"
#define LEAD_TWO_ONES(p)    LEVEL2_ALL(LEAD_TWO, p)
#define LEAD_THREE(s)       s "\3"
#define LEAD_THREE_ONES(p)  LEVEL3_ALL(LEAD_THREE, p)
#define LEAD_THREE_TENS(p)  LEVEL2_ALL(LEAD_THREE_ONES, p)

const unsigned char galloc_digits_lead[4 * 1000 + 1] =
    LEVEL1_ALL(LEAD_ONE, "") LEVEL1_LEAD(LEAD_TWO_ONES, "") LEVEL1_LEAD(LEAD_THREE_TENS, "");

// galloc_digits_group: 000..999, each followed by a zero byte
#define GROUP(s)      s "\0"
#define GROUP_ONES(p) LEVEL3_ALL(GROUP, p)
#define GROUP_TENS(p) LEVEL2_ALL(GROUP_ONES, p)

const unsigned char galloc_digits_group[4 * 1000 + 1] = LEVEL1_ALL(GROUP_TENS, "");
