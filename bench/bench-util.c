// bench-util.c: what the native benchmarks share (see bench-util.h).

#include "bench-util.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef __GLIBC__
#    include <malloc.h>
#endif

char * bench_read_file(const char * path, size_t * len) {
    FILE * f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char * text = n >= 0 ? malloc((size_t) n + 1) : NULL;
    if (text && fread(text, 1, (size_t) n, f) != (size_t) n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        *len    = (size_t) n;
    }
    return text;
}

void bench_keep_freed_memory(void) {
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
}
