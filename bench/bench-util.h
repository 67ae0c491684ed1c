// bench-util.h: what the native benchmarks share (reading a file whole, how malloc keeps memory).

#pragma once

#include <stddef.h>

// the file's bytes plus a terminating NUL (malloc'd; *len excludes the NUL); NULL when unreadable
char * bench_read_file(const char * path, size_t * len);

// tell glibc to keep freed memory (no trimming, no mmap for big blocks), so that each run measures
// planning, not the kernel handing the same pages back zeroed; nothing elsewhere
void bench_keep_freed_memory(void);
