// bench-util.h: what the native benchmarks share (how malloc keeps memory); files are read whole
// by the tests' reader (tests/c/support/files.h, read_whole_file).

#pragma once

#include <stddef.h>

// tell glibc to keep freed memory (no trimming, no mmap for big blocks), so that each run measures
// planning, not the kernel handing the same pages back zeroed; nothing elsewhere
void bench_keep_freed_memory(void);
