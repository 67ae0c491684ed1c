// bench-util.c: what the native benchmarks share (see bench-util.h).

#include "bench-util.h"

#ifdef __GLIBC__
#    include <malloc.h>
#endif

void bench_keep_freed_memory(void) {
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
}
