// fuzz-csv.c: libFuzzer target over the what-if path for CSV problems.
//
// Any byte string is read as a MiniMalloc-style CSV problem (id,lower,upper,size);
// when it reads, the lower bound and every offline planner run (the exact
// search with a 5 ms budget) and the result is written as JSON. Nothing may
// crash, leak, trip a sanitizer or allocate in proportion to a number in the input.

#include "galloc-whatif.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    struct galloc_whatif_result r;
    struct galloc_error err;
    uint64_t capacity = size > 0 ? data[0] * 64u : 0;
    if (!galloc_whatif_from_csv((const char *) data, size, capacity, 5, &r, &err)) {
        return 0;
    }
    size_t len = 0;
    free(galloc_whatif_write_json(&r, &len));
    galloc_whatif_free(&r);
    return 0;
}
