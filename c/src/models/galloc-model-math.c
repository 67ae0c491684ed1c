// galloc-model-math.c: the square roots and logarithms the model builders need, without libm.
//
// They only set op parameters (attention scales, YaRN factors), which no plan depends on;
// the library links without -lm, as it does for the WASM module and the benchmarks.

#include "galloc-model-impl.h"

#include <float.h>

float galloc_model_sqrtf(float x) {
    if (!(x > 0.0f)) {
        return 0.0f;
    }
    double r = x >= 1.0f ? (double) x : 1.0; // Newton's method from above the root
    for (int i = 0; i < 64; i++) {
        const double next = 0.5 * (r + (double) x / r);
        if (next >= r) {
            break;
        }
        r = next;
    }
    return (float) r;
}

// natural logarithm: x = m * 2^e with m in [1, 2), ln m by the atanh series
float galloc_model_logf(float x) {
    if (!(x > 0.0f)) {
        return 0.0f;
    }
    if (x > FLT_MAX) {
        return x; // ln inf = inf (the loops below would never end)
    }
    double m = x;
    int    e = 0;
    while (m >= 2.0) {
        m *= 0.5;
        e++;
    }
    while (m < 1.0) {
        m *= 2.0;
        e--;
    }
    const double z = (m - 1.0) / (m + 1.0), z2 = z * z;
    double term = z, sum = 0.0;
    for (int k = 1; k < 80; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return (float) (2.0 * sum + e * 0.69314718055994530942);
}
