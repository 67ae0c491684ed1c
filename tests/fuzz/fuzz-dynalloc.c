// fuzz-dynalloc.c: libFuzzer target, the dynamic allocator against upstream's loops.
//
// The input drives galloc_dynalloc (its chunks in upstream's list or in key
// sets) and the test-only reference that transcribes upstream's loops
// (tests/c/support/dynalloc-reference.c): the first byte picks the
// alignment and max size, then each 3-byte step allocates a size or releases
// a live range (whole, or only its tail as in-place reuse does). Every
// allocation must land at the same chunk and offset by the same rule, and at
// the end both must hold the same chunks and free blocks; any difference aborts.

#include "dynalloc-reference.h"
#include "galloc-dynalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#define MAX_LIVE 1024

struct range {
    struct galloc_address addr;
    uint64_t              size; // rounded to the alignment
};

static void differ(const char * what) {
    fprintf(stderr, "fuzz-dynalloc: the allocators differ: %s\n", what);
    abort();
}

static void compare_state(const struct galloc_dynalloc * a, const struct dynalloc_reference * r) {
    if (galloc_dynalloc_n_chunks(a) != dynalloc_reference_n_chunks(r)) {
        differ("chunk count");
    }
    for (int32_t c = 0; c < galloc_dynalloc_n_chunks(a); c++) {
        if (galloc_dynalloc_chunk_size(a, c) != dynalloc_reference_chunk_size(r, c) ||
            galloc_dynalloc_n_free_blocks(a, c) != dynalloc_reference_n_free_blocks(r, c)) {
            differ("chunk size or free block count");
        }
        for (int32_t i = 0; i < galloc_dynalloc_n_free_blocks(a, c); i++) {
            uint64_t ao, as, ro, rs;
            galloc_dynalloc_free_block(a, c, i, &ao, &as);
            dynalloc_reference_free_block(r, c, i, &ro, &rs);
            if (ao != ro || as != rs) {
                differ("free block");
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (size < 1) {
        return 0;
    }
    uint64_t alignment = (uint64_t) 1 << (data[0] & 7);
    uint64_t max_size  = (data[0] >> 3) == 0 ? GALLOC_NO_MAX_SIZE : (uint64_t) (data[0] >> 3) * 256;
    struct galloc_dynalloc * a = galloc_dynalloc_new(alignment, max_size);
    struct dynalloc_reference * r = dynalloc_reference_new(alignment, max_size);
    static struct range live[MAX_LIVE];
    int n_live = 0;
    for (size_t p = 1; p + 3 <= size; p += 3) {
        uint32_t x = (uint32_t) data[p] | (uint32_t) data[p + 1] << 8 | (uint32_t) data[p + 2] << 16;
        bool do_alloc = n_live == 0 || (n_live < MAX_LIVE && (x & 1));
        if (do_alloc) {
            // small sizes (many ties, zero bytes) mostly, sometimes large ones
            uint64_t bytes = (x >> 1) & 1 ? (x >> 2) % 64 : (x >> 2) % 16384;
            struct galloc_address aa = { -1, 0 }, ra = { -1, 0 };
            enum galloc_fit       af = GALLOC_FIT_BEST, rf = GALLOC_FIT_BEST;
            if (!galloc_dynalloc_alloc(a, bytes, &aa, &af)) {
                differ("allocation failed");
            }
            dynalloc_reference_alloc(r, bytes, &ra, &rf);
            if (aa.chunk != ra.chunk || aa.offset != ra.offset || af != rf) {
                differ("allocation");
            }
            live[n_live++] = (struct range) { aa, (bytes + alignment - 1) & ~(alignment - 1) };
        } else {
            int      i     = (int) ((x >> 1) % (uint32_t) n_live);
            uint64_t units = live[i].size / alignment;
            if ((x >> 12) % 4 == 0 && units > 1) {
                // give back a tail only, as in-place reuse does; the head stays live
                uint64_t keep = alignment * (1 + (x >> 14) % (units - 1));
                struct galloc_address tail = { live[i].addr.chunk, live[i].addr.offset + keep };
                if (!galloc_dynalloc_release(a, tail, live[i].size - keep)) {
                    differ("tail release failed");
                }
                dynalloc_reference_release(r, tail, live[i].size - keep);
                live[i].size = keep;
            } else {
                if (!galloc_dynalloc_release(a, live[i].addr, live[i].size)) {
                    differ("release failed");
                }
                dynalloc_reference_release(r, live[i].addr, live[i].size);
                live[i] = live[--n_live];
            }
        }
    }
    compare_state(a, r);
    galloc_dynalloc_free(a);
    dynalloc_reference_free(r);
    return 0;
}
