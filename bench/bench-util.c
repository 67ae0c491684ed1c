// bench-util.c: what the native benchmarks share (see bench-util.h).

#include "bench-util.h"

#include <sys/resource.h>

#ifdef __GLIBC__
#    include <malloc.h>
#endif

void bench_keep_freed_memory(void) {
#ifdef __GLIBC__
    // no block from mmap (M_MMAP_THRESHOLD cannot go past 32 MiB: larger blocks would still be
    // mapped and unmapped per plan), and the heap's top never handed back
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

long bench_minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

int bench_cmp_double(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}
