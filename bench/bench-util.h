// bench-util.h: what the native benchmarks share (reading a file whole).

#pragma once

#include <stddef.h>

// the file's bytes plus a terminating NUL (malloc'd; *len excludes the NUL); NULL when unreadable
char * bench_read_file(const char * path, size_t * len);
