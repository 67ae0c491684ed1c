// galloc-clock.c: the monotonic clock in milliseconds (galloc-clock.h).

#include "galloc-clock.h"

#include <time.h>

double galloc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}
