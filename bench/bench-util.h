// bench-util.h: what the native benchmarks built on the project's library share (how malloc keeps
// memory, page faults, sorting times); files are read whole by the tests' reader
// (tests/c/support/files.h, read_whole_file), time by galloc_now_ms (galloc-clock.h).
// bench-ggml-api.c keeps its own copies: it compiles against upstream ggml with nothing of ours.

#pragma once

#include <stddef.h>

// tell glibc to keep freed memory (no trimming, no mmap for big blocks), so that each run measures
// planning, not the kernel handing the same pages back zeroed; nothing elsewhere
void bench_keep_freed_memory(void);

// minor page faults of this process so far (getrusage)
long bench_minor_faults(void);

// qsort comparator for doubles, ascending
int bench_cmp_double(const void * a, const void * b);
