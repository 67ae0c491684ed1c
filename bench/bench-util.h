// bench-util.h: what the native benchmarks built on the project's library share (how malloc keeps
// memory, page faults, sorting times); files are read whole by the tests' reader
// (tests/c/support/files.h, read_whole_file), time by galloc_now_ms (galloc-clock.h).
// bench-ggml-api.c keeps its own copies: it compiles against upstream ggml with nothing of ours.

#pragma once

#include <stddef.h>

// CALLGRIND_TOGGLE_COLLECT around the measured calls: valgrind's macro when its header is there,
// nothing otherwise (bench/instructions.mjs refuses a binary built without it)
#if defined(__has_include)
#    if __has_include(<valgrind/callgrind.h>)
#        include <valgrind/callgrind.h>
#    endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#    define CALLGRIND_TOGGLE_COLLECT
#endif

// tell glibc to keep freed memory (no trimming, no mmap for big blocks), so that each run measures
// planning, not the kernel handing the same pages back zeroed; nothing elsewhere
void bench_keep_freed_memory(void);

// minor page faults of this process so far (getrusage)
long bench_minor_faults(void);

// qsort comparator for doubles, ascending
int bench_cmp_double(const void * a, const void * b);
