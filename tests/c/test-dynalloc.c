// test-dynalloc.c: unit tests of the dynamic allocator alone.
//
// Each case drives one allocator through a sequence of allocations and
// releases worked out by hand from ggml's rules, and checks the chunk, offset
// and rule of every allocation, and the free blocks left behind.

#include "check.h"
#include "dynalloc-reference.h"
#include "galloc-dynalloc.h"

#include <stdlib.h>

static struct galloc_address alloc_expect(struct galloc_dynalloc * a, uint64_t size, int chunk, uint64_t offset, enum galloc_fit how) {
    struct galloc_address addr = { -1, 0 };
    enum galloc_fit       fit  = GALLOC_FIT_BEST;
    CHECK(galloc_dynalloc_alloc(a, size, &addr, &fit));
    if (addr.chunk != chunk || addr.offset != offset || fit != how) {
        check_failures++;
        fprintf(stderr, "  alloc(%llu): chunk %d offset %llu rule %d, expected chunk %d offset %llu rule %d\n",
                (unsigned long long) size, addr.chunk, (unsigned long long) addr.offset, fit, chunk,
                (unsigned long long) offset, how);
    }
    return addr;
}

static void release(struct galloc_dynalloc * a, int chunk, uint64_t offset, uint64_t size) {
    struct galloc_address addr = { chunk, offset };
    CHECK(galloc_dynalloc_release(a, addr, size));
}

// the free blocks of chunk c are exactly the n [offset, end) pairs given
static void expect_blocks(const struct galloc_dynalloc * a, int c, int n, const uint64_t * ranges) {
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, c), n);
    for (int i = 0; i < n && i < galloc_dynalloc_n_free_blocks(a, c); i++) {
        uint64_t offset, size;
        galloc_dynalloc_free_block(a, c, i, &offset, &size);
        CHECK_EQ_U64(offset, ranges[2 * i]);
        CHECK_EQ_U64(offset + size, ranges[2 * i + 1]);
    }
}

static void test_rounding_and_first_chunk(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(32, GALLOC_NO_MAX_SIZE);
    CHECK_EQ_U64(galloc_dynalloc_max_chunk_size(a), GALLOC_HUGE_SIZE);
    alloc_expect(a, 100, 0, 0, GALLOC_FIT_NEW_CHUNK);
    alloc_expect(a, 1, 0, 128, GALLOC_FIT_GROW);
    CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, 0), 160);
    release(a, 0, 0, 100);
    const uint64_t blocks[] = { 0, 128, 160, GALLOC_HUGE_SIZE };
    expect_blocks(a, 0, 2, blocks);
    galloc_dynalloc_reset(a);
    CHECK_EQ_U64(galloc_dynalloc_n_chunks(a), 0);
    alloc_expect(a, 8, 0, 0, GALLOC_FIT_NEW_CHUNK);
    galloc_dynalloc_free(a);
}

// the best-fit search restarts in every chunk: the last chunk with a fitting inner block wins
static void test_best_fit_resets_per_chunk(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(8, 64);
    alloc_expect(a, 16, 0, 0, GALLOC_FIT_NEW_CHUNK);
    alloc_expect(a, 8, 0, 16, GALLOC_FIT_GROW);
    alloc_expect(a, 16, 0, 24, GALLOC_FIT_GROW);
    alloc_expect(a, 8, 0, 40, GALLOC_FIT_GROW);
    release(a, 0, 0, 16);
    release(a, 0, 24, 16);
    const uint64_t c0[] = { 0, 16, 24, 40, 48, 64 };
    expect_blocks(a, 0, 3, c0);

    alloc_expect(a, 64, 1, 0, GALLOC_FIT_NEW_CHUNK); // nothing in chunk 0 holds 64
    release(a, 1, 0, 24);
    release(a, 1, 40, 8);
    const uint64_t c1[] = { 0, 24, 40, 48 };
    expect_blocks(a, 1, 2, c1);

    // chunk 0 has two exact fits, but chunk 1's larger inner block replaces them
    alloc_expect(a, 16, 1, 0, GALLOC_FIT_BEST);
    // now only chunk 0 fits: of its two equal blocks, the later one
    alloc_expect(a, 16, 0, 24, GALLOC_FIT_BEST);
    alloc_expect(a, 16, 0, 0, GALLOC_FIT_BEST);
    galloc_dynalloc_free(a);
}

static void test_last_block_scoring(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(8, 100);
    alloc_expect(a, 40, 0, 0, GALLOC_FIT_NEW_CHUNK);
    alloc_expect(a, 80, 1, 0, GALLOC_FIT_NEW_CHUNK);
    release(a, 0, 0, 40); // chunk 0: one free block [0, 100), size so far 40

    // reuse >= 0 (inside chunk 0's 40 bytes) beats growing chunk 1
    alloc_expect(a, 8, 0, 0, GALLOC_FIT_LAST_BLOCK);   // reuse 32 vs -8
    alloc_expect(a, 24, 0, 8, GALLOC_FIT_LAST_BLOCK);  // reuse 8 vs -24
    // both would grow: the least growth wins
    alloc_expect(a, 16, 0, 32, GALLOC_FIT_GROW);       // -8 vs -16
    // equal growth: the earlier chunk
    alloc_expect(a, 4, 0, 48, GALLOC_FIT_GROW);        // -8 vs -8
    CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, 0), 56);

    release(a, 1, 0, 80); // chunk 1: free [0, 100), size so far 80
    alloc_expect(a, 8, 1, 0, GALLOC_FIT_LAST_BLOCK);   // 72 >= 0 beats chunk 0's -8, though later
    // two non-negative scores: the smallest
    release(a, 0, 0, 8);  // chunk 0 now has an inner block [0, 8) and last [56, 100)
    alloc_expect(a, 16, 1, 8, GALLOC_FIT_LAST_BLOCK);  // inner [0,8) too small; chunk 0: -16, chunk 1: 56
    release(a, 0, 8, 48); // chunk 0: [0, 100) again, size 56
    alloc_expect(a, 40, 0, 0, GALLOC_FIT_LAST_BLOCK);  // chunk 0: 16, chunk 1: 80-24-40 = 16: tie keeps chunk 0
    alloc_expect(a, 8, 0, 40, GALLOC_FIT_LAST_BLOCK);  // chunk 0: 8, chunk 1: 48
    galloc_dynalloc_free(a);
}

static void test_sixteenth_chunk_takes_everything(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(8, 8);
    for (int c = 0; c < GALLOC_MAX_CHUNKS; c++) {
        alloc_expect(a, 8, c, 0, GALLOC_FIT_NEW_CHUNK);
    }
    alloc_expect(a, 1000, 15, 8, GALLOC_FIT_GROW);
    alloc_expect(a, 8, 15, 1008, GALLOC_FIT_GROW);
    CHECK_EQ_U64(galloc_dynalloc_n_chunks(a), 16);
    CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, 15), 1016);
    const uint64_t last[] = { 1016, GALLOC_HUGE_SIZE };
    expect_blocks(a, 15, 1, last);
    galloc_dynalloc_free(a);

    // a tensor larger than the max size gets a chunk of its own size
    a = galloc_dynalloc_new(8, 16);
    alloc_expect(a, 40, 0, 0, GALLOC_FIT_NEW_CHUNK);
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 0);
    alloc_expect(a, 8, 1, 0, GALLOC_FIT_NEW_CHUNK);
    CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, 0), 40);
    galloc_dynalloc_free(a);
}

static void test_release_merges(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(1, 1000);
    for (int i = 0; i < 5; i++) {
        alloc_expect(a, 100, 0, (uint64_t) i * 100, i ? GALLOC_FIT_GROW : GALLOC_FIT_NEW_CHUNK);
    }
    release(a, 0, 100, 100); // no neighbour: inserted
    const uint64_t s1[] = { 100, 200, 500, 1000 };
    expect_blocks(a, 0, 2, s1);
    release(a, 0, 300, 100); // no neighbour: inserted between
    const uint64_t s2[] = { 100, 200, 300, 400, 500, 1000 };
    expect_blocks(a, 0, 3, s2);
    release(a, 0, 200, 100); // after [100,200), then merged with [300,400)
    const uint64_t s3[] = { 100, 400, 500, 1000 };
    expect_blocks(a, 0, 2, s3);
    release(a, 0, 0, 100);   // right before [100,400): its start moves down
    const uint64_t s4[] = { 0, 400, 500, 1000 };
    expect_blocks(a, 0, 2, s4);
    release(a, 0, 400, 100); // after [0,400), then merged with the last block
    const uint64_t s5[] = { 0, 1000 };
    expect_blocks(a, 0, 1, s5);
    galloc_dynalloc_free(a);
}

// ggml aborts past 256 free blocks in a chunk; here any number works
static void test_many_free_blocks(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(8, GALLOC_NO_MAX_SIZE);
    for (int i = 0; i < 1000; i++) {
        alloc_expect(a, 8, 0, (uint64_t) i * 8, i ? GALLOC_FIT_GROW : GALLOC_FIT_NEW_CHUNK);
    }
    for (int i = 0; i < 1000; i += 2) {
        release(a, 0, (uint64_t) i * 8, 8);
    }
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 501);
    alloc_expect(a, 8, 0, 998 * 8, GALLOC_FIT_BEST); // all equal: the later block
    alloc_expect(a, 8, 0, 996 * 8, GALLOC_FIT_BEST);
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 499);
    galloc_dynalloc_free(a);
}

// zero-byte allocations and releases in the states upstream then reaches, worked out by hand from
// ggml_dyn_tallocr's loops: an empty block inside a free one, blocks out of offset order, two
// free blocks that touch but never merge, and the growth that follows
static void test_zero_bytes_upstream_states(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(1, GALLOC_NO_MAX_SIZE);
    const uint64_t H = GALLOC_HUGE_SIZE;
    alloc_expect(a, 100, 0, 0, GALLOC_FIT_NEW_CHUNK);  // A
    alloc_expect(a, 100, 0, 100, GALLOC_FIT_GROW);     // B
    alloc_expect(a, 100, 0, 200, GALLOC_FIT_GROW);     // C
    release(a, 0, 100, 100);                           // B: [100,200) [300,H)
    alloc_expect(a, 0, 0, 100, GALLOC_FIT_BEST);       // Z: the inner block's start, nothing cut
    const uint64_t s1[] = { 100, 200, 300, H };
    expect_blocks(a, 0, 2, s1);
    release(a, 0, 0, 100);                             // A: [100,200) grows down to [0,200)
    release(a, 0, 100, 0);                             // Z: no block ends or starts at 100: an empty block
    const uint64_t s2[] = { 0, 200, 100, 100, 300, H };
    expect_blocks(a, 0, 3, s2);
    alloc_expect(a, 150, 0, 0, GALLOC_FIT_BEST);       // D from [0,200), which moves past the empty block
    const uint64_t s3[] = { 150, 200, 100, 100, 300, H };
    expect_blocks(a, 0, 3, s3);
    release(a, 0, 0, 150);                             // D: [150,200) grows down to [0,200)
    release(a, 0, 200, 100);                           // C: [0,200) grows to [0,300); its next is the empty block, no merge
    const uint64_t s4[] = { 0, 300, 100, 100, 300, H };
    expect_blocks(a, 0, 3, s4);
    alloc_expect(a, 50, 0, 0, GALLOC_FIT_BEST);        // E
    alloc_expect(a, 0, 0, 100, GALLOC_FIT_BEST);       // the empty inner block is the best fit, and leaves
    const uint64_t s5[] = { 50, 300, 300, H };
    expect_blocks(a, 0, 2, s5);
    release(a, 0, 0, 50);                              // E: [0,300) and [300,H) touch and stay apart
    const uint64_t s6[] = { 0, 300, 300, H };
    expect_blocks(a, 0, 2, s6);
    alloc_expect(a, 400, 0, 300, GALLOC_FIT_GROW);     // the last block, not [0,H): the chunk grows to 700
    CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, 0), 700);
    galloc_dynalloc_free(a);
}

// a chunk with many blocks keeps them in key sets; zero-byte allocations and releases that touch
// a block leave them there, a release touching none moves the chunk to the list with an empty block
static void test_zero_bytes_keyed(void) {
    struct galloc_dynalloc * a = galloc_dynalloc_new(8, GALLOC_NO_MAX_SIZE);
    for (int i = 0; i < 400; i++) {
        alloc_expect(a, 8, 0, (uint64_t) i * 8, i ? GALLOC_FIT_GROW : GALLOC_FIT_NEW_CHUNK);
    }
    for (int i = 0; i < 400; i += 2) {
        release(a, 0, (uint64_t) i * 8, 8); // 200 blocks of 8 at 0, 16, ..., 3184, then [3200, H)
    }
    release(a, 0, 8, 8);                    // [0, 24): the only block of 24
    CHECK(galloc_dynalloc_chunk_is_keyed(a, 0));
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 200);
    alloc_expect(a, 0, 0, 3184, GALLOC_FIT_BEST);   // smallest inner block, the later one: nothing cut
    alloc_expect(a, 17, 0, 0, GALLOC_FIT_BEST);     // 24 bytes: the only block that holds them, used up
    alloc_expect(a, 0, 0, 3184, GALLOC_FIT_BEST);
    CHECK(galloc_dynalloc_chunk_is_keyed(a, 0));
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 199);
    release(a, 0, 3184, 0);                 // the start of a block: nothing changes
    release(a, 0, 3192, 0);                 // the end of a block: nothing changes
    CHECK(galloc_dynalloc_chunk_is_keyed(a, 0));
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 199);
    release(a, 0, 3196, 0);                 // inside allocated bytes, touching no block: an empty block
    CHECK(!galloc_dynalloc_chunk_is_keyed(a, 0));
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 200);
    uint64_t offset = 0, size = 1;
    galloc_dynalloc_free_block(a, 0, 198, &offset, &size);
    CHECK_EQ_U64(offset, 3196);
    CHECK_EQ_U64(size, 0);
    alloc_expect(a, 0, 0, 3196, GALLOC_FIT_BEST);   // the empty block fits zero bytes best, and leaves
    CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, 0), 199);
    galloc_dynalloc_free(a);
}

struct live_range {
    struct galloc_address addr;
    uint64_t              size;
};

// the allocator against the reference (upstream's loops, tests/c/support/dynalloc-reference.c) on
// random alloc/release sequences: whole releases, tail releases as in-place reuse does, zero sizes
// in both forms of a chunk, small and unlimited max sizes. Counts what it went through, so a
// sequence that stops reaching the key sets or the zero-byte paths fails.
static void test_matches_reference(void) {
    uint64_t rng = 12345;
    long zero_alloc_keyed = 0, zero_release_keyed = 0, zero_release_to_list = 0, keyed_ops = 0, list_ops = 0;
    for (int round = 0; round < 300; round++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t alignment = (uint64_t) 1 << ((rng >> 40) % 7);
        uint64_t max_size  = (rng >> 20) % 3 == 0 ? GALLOC_NO_MAX_SIZE : 64 + (rng >> 30) % 2048;
        int      zero_rate = round % 3 == 0 ? 0 : round % 3 == 1 ? 2 : 10; // zero-byte allocations per 100
        struct galloc_dynalloc *    a = galloc_dynalloc_new(alignment, max_size);
        struct dynalloc_reference * r = dynalloc_reference_new(alignment, max_size);
        static struct live_range live[1024];
        int n_live = 0;
        for (int op = 0; op < 4000; op++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            uint32_t x = (uint32_t) (rng >> 32);
            if (n_live < 1024 && (n_live == 0 || x % 100 < 55)) {
                uint64_t size = (int) (x >> 24) % 100 < zero_rate ? 0 : 1 + (x >> 8) % (x % 7 == 0 ? 4096 : 256);
                struct galloc_address ga = { -1, 0 }, ra = { -1, 0 };
                enum galloc_fit gf = GALLOC_FIT_BEST, rf = GALLOC_FIT_BEST;
                bool keyed_before = false;
                for (int32_t c = 0; c < galloc_dynalloc_n_chunks(a); c++) {
                    keyed_before |= galloc_dynalloc_chunk_is_keyed(a, c);
                }
                CHECK(galloc_dynalloc_alloc(a, size, &ga, &gf));
                dynalloc_reference_alloc(r, size, &ra, &rf);
                if (ga.chunk != ra.chunk || ga.offset != ra.offset || gf != rf) {
                    check_failures++;
                    fprintf(stderr, "round %d op %d: alloc(%llu) gives chunk %d offset %llu rule %d, reference chunk %d offset %llu rule %d\n",
                            round, op, (unsigned long long) size, ga.chunk, (unsigned long long) ga.offset, gf, ra.chunk,
                            (unsigned long long) ra.offset, rf);
                    break;
                }
                zero_alloc_keyed += size == 0 && galloc_dynalloc_chunk_is_keyed(a, ga.chunk);
                keyed_ops += keyed_before;
                list_ops += !keyed_before;
                live[n_live].addr = ga;
                live[n_live].size = (size + alignment - 1) & ~(alignment - 1);
                n_live++;
            } else {
                int i = (int) ((x >> 4) % (uint32_t) n_live);
                struct galloc_address addr = live[i].addr;
                uint64_t size = live[i].size;
                bool keyed = galloc_dynalloc_chunk_is_keyed(a, addr.chunk);
                if (x % 5 == 0 && size > alignment) {
                    // give back a tail only, as in-place reuse does; the head stays live
                    uint64_t keep = alignment * (1 + (x >> 12) % (size / alignment - 1 ? size / alignment - 1 : 1));
                    if (keep < size) {
                        struct galloc_address tail = { addr.chunk, addr.offset + keep };
                        CHECK(galloc_dynalloc_release(a, tail, size - keep));
                        dynalloc_reference_release(r, tail, size - keep);
                        live[i].size = keep;
                        continue;
                    }
                }
                CHECK(galloc_dynalloc_release(a, addr, size));
                dynalloc_reference_release(r, addr, size);
                if (size == 0 && keyed) {
                    zero_release_keyed++;
                    zero_release_to_list += !galloc_dynalloc_chunk_is_keyed(a, addr.chunk);
                }
                live[i] = live[--n_live];
            }
        }
        CHECK_EQ_U64(galloc_dynalloc_n_chunks(a), dynalloc_reference_n_chunks(r));
        for (int32_t c = 0; c < galloc_dynalloc_n_chunks(a); c++) {
            CHECK_EQ_U64(galloc_dynalloc_chunk_size(a, c), dynalloc_reference_chunk_size(r, c));
            CHECK_EQ_U64(galloc_dynalloc_n_free_blocks(a, c), dynalloc_reference_n_free_blocks(r, c));
            for (int32_t i = 0; i < galloc_dynalloc_n_free_blocks(a, c) && i < dynalloc_reference_n_free_blocks(r, c); i++) {
                uint64_t go, gs, ro, rs;
                galloc_dynalloc_free_block(a, c, i, &go, &gs);
                dynalloc_reference_free_block(r, c, i, &ro, &rs);
                CHECK_EQ_U64(go, ro);
                CHECK_EQ_U64(gs, rs);
            }
        }
        galloc_dynalloc_free(a);
        dynalloc_reference_free(r);
    }
    fprintf(stderr, "  reference: %ld allocations on keyed chunks, %ld on lists; zero bytes on keyed chunks: %ld allocations, "
            "%ld releases (%ld moved the chunk to the list)\n", keyed_ops, list_ops, zero_alloc_keyed, zero_release_keyed, zero_release_to_list);
    CHECK(keyed_ops > 10000 && list_ops > 10000);
    CHECK(zero_alloc_keyed > 100 && zero_release_keyed > 100);
    CHECK(zero_release_to_list > 10 && zero_release_to_list < zero_release_keyed);
}

int main(void) {
    RUN(test_rounding_and_first_chunk);
    RUN(test_best_fit_resets_per_chunk);
    RUN(test_last_block_scoring);
    RUN(test_sixteenth_chunk_takes_everything);
    RUN(test_release_merges);
    RUN(test_many_free_blocks);
    RUN(test_zero_bytes_upstream_states);
    RUN(test_zero_bytes_keyed);
    RUN(test_matches_reference);
    return check_report("test-dynalloc");
}
