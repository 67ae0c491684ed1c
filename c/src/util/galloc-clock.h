// galloc-clock.h: the one clock of the project (what-if budgets and timings, benchmarks).
//
// Milliseconds of CLOCK_MONOTONIC (performance.now() under Emscripten): for differences only.

#pragma once

double galloc_now_ms(void);
