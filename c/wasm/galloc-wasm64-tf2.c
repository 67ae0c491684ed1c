// galloc-wasm64-tf2.c: long double comparisons for the wasm64 module, returning int as their callers expect.
//
// In emscripten 3.1.6's wasm64 libraries, compiler-rt defines __letf2, __getf2, __eqtf2 and __netf2
// (long double, IEEE binary128, compared) returning long, 64 bits there, while clang and musl call
// them returning int: wasm-ld warns "function signature mismatch" and links a stub that traps, so
// that strtod (musl's decimal reader, through fmodl) stopped the module with "unreachable". These
// are compiler-rt's rules (lib/builtins/fp_compare_impl.inc) with an int result; linked as an
// object, they take the place of the library's comparetf2.o.

#include <stdint.h>

typedef __int128          tf2_srep;
typedef unsigned __int128 tf2_rep;

// the bits of a binary128
static tf2_rep tf2_bits(long double x) {
    union {
        long double f;
        tf2_rep     u;
    } v;
    v.f = x;
    return v.u;
}

static const tf2_rep tf2_abs_mask = ~(tf2_rep) 0 >> 1;                   // all but the sign
static const tf2_rep tf2_inf      = (tf2_rep) 0x7fff000000000000ull << 64; // +infinity

// -1 less, 0 equal, 1 greater; `unordered` when a or b is a NaN
static int tf2_compare(long double a, long double b, int unordered) {
    const tf2_rep a_bits = tf2_bits(a);
    const tf2_rep b_bits = tf2_bits(b);
    const tf2_rep a_abs  = a_bits & tf2_abs_mask;
    const tf2_rep b_abs  = b_bits & tf2_abs_mask;
    if (a_abs > tf2_inf || b_abs > tf2_inf) {
        return unordered;
    }
    if ((a_abs | b_abs) == 0) {
        return 0; // +0 and -0
    }
    const tf2_srep a_int = (tf2_srep) a_bits;
    const tf2_srep b_int = (tf2_srep) b_bits;
    if ((a_int & b_int) >= 0) { // at least one is positive: as signed integers
        return a_int < b_int ? -1 : a_int == b_int ? 0 : 1;
    }
    return a_int > b_int ? -1 : a_int == b_int ? 0 : 1; // both negative: reversed
}

int __letf2(long double a, long double b);
int __getf2(long double a, long double b);
int __eqtf2(long double a, long double b);
int __netf2(long double a, long double b);
int __lttf2(long double a, long double b);
int __gttf2(long double a, long double b);
int __cmptf2(long double a, long double b);
int __unordtf2(long double a, long double b);

int __letf2(long double a, long double b) { return tf2_compare(a, b, 1); }
int __getf2(long double a, long double b) { return tf2_compare(a, b, -1); }
int __eqtf2(long double a, long double b) { return tf2_compare(a, b, 1); }
int __netf2(long double a, long double b) { return tf2_compare(a, b, 1); }
int __lttf2(long double a, long double b) { return tf2_compare(a, b, 1); }
int __gttf2(long double a, long double b) { return tf2_compare(a, b, -1); }
int __cmptf2(long double a, long double b) { return tf2_compare(a, b, 1); }
int __unordtf2(long double a, long double b) {
    return (tf2_bits(a) & tf2_abs_mask) > tf2_inf || (tf2_bits(b) & tf2_abs_mask) > tf2_inf;
}
