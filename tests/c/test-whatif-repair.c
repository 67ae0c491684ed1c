// test-whatif-repair.c: the repair search (galloc-whatif-repair*.c) against truths of the test's own.
//
// One neighbourhood (galloc_fill_solve): on small random problems with some items fixed where a
// plan put them, the answer (a placement of the free items within T, or none) must agree with an
// enumerator of the test's own that tries every offset of every free item, and a placement must
// pass a checker of the test's own (no two items live at one step share a byte, the free items
// within T, the fixed ones where they were); no placement leaves the offsets as they were. The
// whole repair: from a plan that stacks every item on the one before, on small problems it must
// reach the optimum the test finds by enumeration, keeping no more moves than strict improvements
// allow; on larger ones every plan it returns passes the
// checker and is never above the plan it started from, and a longer run (the same seed, more
// moves) is never above a shorter one. The planner's entry lowers a one-chunk plan to the
// optimum and leaves a plan over more chunks alone; after an unproved exact search
// (galloc-whatif-after.c), the plan is lowered and proved only at the enumerated optimum.

#include "check.h"
#include "galloc-whatif-exact.h"
#include "galloc-whatif-repair.h"
#include "rng.h"
#include "tight-problems.h"
#include "whatif-random.h"

#include <stdlib.h>
#include <string.h>

#define FAR_AWAY 1e300 // a deadline never reached: the runs here end by their move limits

//
// the test's own checker and enumerator
//

static bool live_together(const struct galloc_whatif_item * a, const struct galloc_whatif_item * b) {
    return a->first <= b->last && b->first <= a->last;
}

static bool bytes_meet(uint64_t oa, uint64_t sa, uint64_t ob, uint64_t sb) {
    return oa < ob + sb && ob < oa + sa;
}

// no two items live at a common step share a byte
static bool own_no_overlap(const struct galloc_whatif_problem * p, const uint64_t * off) {
    for (int32_t i = 0; i < p->n_items; i++) {
        for (int32_t k = 0; k < i; k++) {
            const struct galloc_whatif_item * a = &p->items[i], * b = &p->items[k];
            if (a->size > 0 && b->size > 0 && live_together(a, b) && bytes_meet(off[i], a->size, off[k], b->size)) {
                return false;
            }
        }
    }
    return true;
}

static uint64_t own_peak(const struct galloc_whatif_problem * p, const uint64_t * off) {
    uint64_t most = 0;
    for (int32_t i = 0; i < p->n_items; i++) {
        most = off[i] + p->items[i].size > most ? off[i] + p->items[i].size : most;
    }
    return most;
}

// can the items with is_free set go within [0, T), each at every offset tried, missing the
// others (which stay at off[]) and each other? Free items q and after; off[] of those is scratch
static bool own_fill(const struct galloc_whatif_problem * p, uint64_t * off, const bool * is_free, int32_t q, uint64_t T) {
    while (q < p->n_items && !is_free[q]) {
        q++;
    }
    if (q == p->n_items) {
        return true;
    }
    const struct galloc_whatif_item * a = &p->items[q];
    for (uint64_t o = 0; o + a->size <= T; o++) {
        bool clash = false;
        for (int32_t k = 0; k < p->n_items && !clash; k++) {
            bool placed = !is_free[k] || k < q;
            clash = k != q && placed && p->items[k].size > 0 && live_together(a, &p->items[k]) && bytes_meet(o, a->size, off[k], p->items[k].size);
        }
        if (!clash) {
            off[q] = o;
            if (own_fill(p, off, is_free, q + 1, T)) {
                return true;
            }
        }
    }
    return false;
}

// the least peak of any plan, by enumeration from the max load up
static uint64_t own_optimum(const struct galloc_whatif_problem * p) {
    bool     all[16];
    uint64_t off[16];
    for (int32_t i = 0; i < p->n_items; i++) {
        all[i] = true;
    }
    for (uint64_t T = whatif_own_max_load(p->items, p->n_items);; T++) {
        if (own_fill(p, off, all, 0, T)) {
            return T;
        }
    }
}

// each item at the lowest offset missing the items before it (first fit, in index order)
static void first_fit(const struct galloc_whatif_problem * p, uint64_t * off) {
    for (int32_t i = 0; i < p->n_items; i++) {
        for (uint64_t o = 0;; o++) {
            bool clash = false;
            for (int32_t k = 0; k < i && !clash; k++) {
                clash = live_together(&p->items[i], &p->items[k]) && bytes_meet(o, p->items[i].size, off[k], p->items[k].size);
            }
            if (!clash) {
                off[i] = o;
                break;
            }
        }
    }
}

static struct galloc_whatif_problem problem_of(struct galloc_whatif_item * items, int32_t n) {
    return (struct galloc_whatif_problem) { n, items, 1, GALLOC_NO_MAX_SIZE, 0 };
}

//
// cases
//

// one neighbourhood against the enumerator, on problems a first-fit plan places
static void test_fill_against_enumeration(void) {
    rng_seed(1);
    int found = 0, none = 0;
    for (int round = 0; round < 3000; round++) {
        struct galloc_whatif_item items[9];
        int32_t                   n = 4 + rng_below(6);
        whatif_random_items(items, n, 6, 4);
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        uint64_t off[9], before[9], scratch[9];
        first_fit(&p, off);
        memcpy(before, off, sizeof(off));
        bool    is_free[9] = { false };
        int32_t free_items[9], rank[9], k = 0;
        for (int32_t want = 1 + rng_below(4); k < want;) {
            int32_t i = rng_below(n);
            if (!is_free[i]) {
                is_free[i]      = true;
                free_items[k++] = i;
            }
        }
        for (int32_t q = 0; q < k; q++) { // a random order of ties
            rank[q] = q;
        }
        for (int32_t q = k - 1; q > 0; q--) {
            int32_t t = rng_below(q + 1), v = rank[q];
            rank[q] = rank[t];
            rank[t] = v;
        }
        uint64_t T = (uint64_t) (1 + rng_below(12));
        memcpy(scratch, off, sizeof(off));
        bool exists = own_fill(&p, scratch, is_free, 0, T);

        struct galloc_fill   f;
        enum galloc_fill_end end = GALLOC_FILL_LIMIT;
        CHECK(galloc_fill_init(&f, &p, &x, k)); // room for these k free items only
        CHECK(galloc_fill_solve(&f, off, free_items, rank, k, T, UINT64_MAX, FAR_AWAY, &end));
        CHECK(end != GALLOC_FILL_LIMIT);
        CHECK((end == GALLOC_FILL_FOUND) == exists);
        if (end == GALLOC_FILL_FOUND) {
            found++;
            CHECK(own_no_overlap(&p, off));
            for (int32_t i = 0; i < n; i++) {
                CHECK(is_free[i] ? off[i] + items[i].size <= T : off[i] == before[i]);
            }
        } else {
            none++;
            CHECK(memcmp(off, before, sizeof(off)) == 0);
        }
        galloc_fill_free(&f);
        galloc_whatif_index_free(&x);
    }
    CHECK(found > 300 && none > 300); // both answers were exercised
}

// a problem whose optimum (10) lies above its max load (9), found by enumeration: each step full
static const struct galloc_whatif_item above_load[] = {
    { 0, 1, 2, 2, 2 }, { 1, 1, 2, 2, 4 }, { 2, 1, 1, 0, 2 }, { 3, 1, 4, 1, 3 }, { 4, 1, 8, 0, 0 }, { 5, 1, 4, 1, 1 }, { 6, 1, 3, 3, 3 }, { 7, 1, 7, 4, 4 },
};

// the whole repair from a stacked plan reaches the optimum of small problems (random ones, and
// one whose optimum is above the max load, so that the repair runs to its move limit there)
static void test_repair_reaches_optimum(void) {
    rng_seed(2);
    int lowered = 0;
    for (int round = 0; round < 320; round++) {
        struct galloc_whatif_item items[8];
        int32_t                   n = 2 + rng_below(6);
        whatif_random_items(items, n, 6, 4);
        if (round >= 300) { // the problem above the max load, with 20 seeds
            n = (int32_t) (sizeof(above_load) / sizeof(above_load[0]));
            memcpy(items, above_load, sizeof(above_load));
        }
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        uint64_t off[8];
        tight_stacked(&p, NULL, off);
        uint64_t start = own_peak(&p, off), best = own_optimum(&p);
        CHECK(round < 300 || best > whatif_own_max_load(p.items, p.n_items));
        struct galloc_repair_stats stats;
        CHECK(galloc_whatif_repair(&p, &x, off, whatif_own_max_load(p.items, p.n_items), FAR_AWAY, 4000, (uint64_t) round + 1, &stats));
        CHECK(own_no_overlap(&p, off));
        CHECK_EQ_U64(own_peak(&p, off), best);
        // each kept move lowers (total, items above total - 1): at most n per byte lowered
        CHECK(stats.improved <= (start - best + 1) * (uint64_t) n);
        lowered += best < start;
        galloc_whatif_index_free(&x);
    }
    CHECK(lowered > 100);
}

// larger problems (tight ones, whose optimum is known): every plan returned is a plan, never
// above its start, and more moves never give a higher plan than fewer
static void test_repair_plans_checked(void) {
    for (int round = 0; round < 8; round++) {
        struct galloc_whatif_item items[160];
        uint64_t                  cut[160];
        int32_t n = tight_problem((uint64_t) round + 50, 40 + 6 * round, 32, 64, round % 2 ? TIGHT_SKEWED : TIGHT_EVEN, round % 3 ? 0 : 20, items, cut);
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        uint64_t start[160], shorter[160], longer[160];
        if (round % 2) {
            tight_stacked(&p, NULL, start);
        } else {
            first_fit(&p, start);
        }
        memcpy(shorter, start, sizeof(start));
        memcpy(longer, start, sizeof(start));
        struct galloc_repair_stats s1, s2;
        CHECK(galloc_whatif_repair(&p, &x, shorter, x.lower_bound, FAR_AWAY, 40, 9, &s1));
        CHECK(galloc_whatif_repair(&p, &x, longer, x.lower_bound, FAR_AWAY, 200, 9, &s2));
        CHECK(own_no_overlap(&p, shorter));
        CHECK(own_no_overlap(&p, longer));
        CHECK(own_peak(&p, shorter) <= own_peak(&p, start));
        CHECK(own_peak(&p, longer) <= own_peak(&p, shorter));
        CHECK(own_peak(&p, longer) >= whatif_own_max_load(p.items, p.n_items));
        CHECK(s2.improved > 0 && own_peak(&p, longer) < own_peak(&p, start));
        galloc_whatif_index_free(&x);
    }
}

// the planner's entry (galloc_whatif_repair_plan): a one-chunk plan lowered to the optimum, its
// chunk sizes and total following, also under a max size of the sum of the sizes (it cannot
// split them); a plan over two chunks, or under a max size below that sum, left alone
static void test_repair_plan(void) {
    rng_seed(4);
    for (int round = 0; round < 60; round++) {
        struct galloc_whatif_item items[8];
        int32_t                   n = 3 + rng_below(5);
        whatif_random_items(items, n, 6, 4);
        if (round == 59) {
            n = (int32_t) (sizeof(above_load) / sizeof(above_load[0]));
            memcpy(items, above_load, sizeof(above_load));
        }
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_whatif_plan    plan;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        CHECK(galloc_whatif_plan_init(&plan, n, "exact"));
        tight_stacked(&p, NULL, plan.offsets);
        galloc_whatif_plan_finish(&p, &plan);
        uint64_t best = own_optimum(&p);
        // the lower bound given is the optimum: the search ends there (no move limit here)
        CHECK(galloc_whatif_repair_plan(&p, &x, best, FAR_AWAY, &plan));
        CHECK(own_no_overlap(&p, plan.offsets));
        CHECK_EQ_U64(plan.total, best);
        CHECK_EQ_U64(own_peak(&p, plan.offsets), best);
        CHECK(plan.n_chunks == 1 && plan.chunk_sizes[0] == best);
        for (int32_t i = 0; i < n; i++) {
            CHECK(plan.chunks[i] == 0);
        }
        // two chunks: not touched
        plan.chunks[0] = 1;
        tight_stacked(&p, NULL, plan.offsets);
        galloc_whatif_plan_finish(&p, &plan);
        uint64_t before = plan.total;
        CHECK(galloc_whatif_repair_plan(&p, &x, best, FAR_AWAY, &plan));
        CHECK_EQ_U64(plan.total, before);
        // a max size at the sum of the sizes can never split the items (all of them stacked fit
        // in one chunk): lowered as with none; one byte less may split them: not touched
        uint64_t sum = 0, st[8];
        for (int32_t i = 0; i < n; i++) {
            sum += items[i].size;
        }
        for (int less = 0; less < 2; less++) {
            plan.chunks[0] = 0;
            tight_stacked(&p, NULL, plan.offsets);
            tight_stacked(&p, NULL, st);
            galloc_whatif_plan_finish(&p, &plan);
            galloc_whatif_index_free(&x);
            p.max_size = sum - (uint64_t) less;
            CHECK(galloc_whatif_index_build(&p, &x, &err));
            CHECK(galloc_whatif_repair_plan(&p, &x, best, FAR_AWAY, &plan));
            CHECK(own_no_overlap(&p, plan.offsets));
            if (less) {
                CHECK(memcmp(plan.offsets, st, (size_t) n * sizeof(uint64_t)) == 0);
            } else {
                CHECK_EQ_U64(plan.total, best);
            }
        }
        galloc_whatif_plan_release(&plan);
        galloc_whatif_index_free(&x);
    }
}

// after the exact search (galloc_whatif_after_search): an unproved plan is lowered by the repair
// search to the bound the search proved and is then proved optimal; a plan is never made worse,
// never fails the test's checker, is never proved above the optimum of the test's own enumeration,
// and the bound never passes that optimum (also when the bound given is below the optimum and the
// time runs out); a proved plan, no time, or a max size that binds leave the plan alone
#define AFTER_BUDGET_MS 20000 // a limit only: the repair meets the bound given in far less
#define SHORT_BUDGET_MS 40    // the bound given below the optimum: the time runs out
static void test_after_search(void) {
    rng_seed(5);
    int proved = 0, lowered = 0;
    for (int round = 0; round < 130; round++) {
        struct galloc_whatif_item items[8];
        int32_t                   n = 3 + rng_below(5);
        whatif_random_items(items, n, 6, 4);
        bool above = round >= 100; // the problem above the max load
        if (above) {
            n = (int32_t) (sizeof(above_load) / sizeof(above_load[0]));
            memcpy(items, above_load, sizeof(above_load));
        }
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_whatif_plan    plan;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        CHECK(galloc_whatif_plan_init(&plan, n, "exact"));
        tight_stacked(&p, NULL, plan.offsets);
        galloc_whatif_plan_finish(&p, &plan);
        uint64_t best = own_optimum(&p), start = plan.total, load = whatif_own_max_load(p.items, p.n_items);
        // what an exact search could have proved: the optimum, or (rounds 120 on) the max load only
        bool short_time = round >= 120;
        plan.bound      = short_time ? load : best;
        CHECK(galloc_whatif_after_search(&p, &x, short_time ? SHORT_BUDGET_MS : AFTER_BUDGET_MS, &plan));
        CHECK(own_no_overlap(&p, plan.offsets));
        CHECK_EQ_U64(own_peak(&p, plan.offsets), plan.total);
        CHECK(plan.total <= start && plan.total >= best && plan.bound <= best);
        CHECK(!plan.proved_optimal || (plan.total == best && plan.bound == best));
        CHECK(short_time || (plan.proved_optimal && plan.total == best)); // the repair stops at the bound, which it reaches
        proved += plan.proved_optimal;
        lowered += plan.total < start;
        // no time, or proved already: left alone
        tight_stacked(&p, NULL, plan.offsets);
        galloc_whatif_plan_finish(&p, &plan);
        plan.proved_optimal = false;
        plan.bound          = load;
        CHECK(galloc_whatif_after_search(&p, &x, 0, &plan));
        CHECK(!plan.proved_optimal && plan.total == start);
        plan.proved_optimal = true;
        CHECK(galloc_whatif_after_search(&p, &x, AFTER_BUDGET_MS, &plan));
        CHECK_EQ_U64(plan.total, start);
        // a max size that binds: neither the repair nor the window bound is for it
        galloc_whatif_index_free(&x);
        p.max_size = 4;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        if (!galloc_whatif_unlimited(&p, &x) && start > load) {
            plan.proved_optimal = false;
            CHECK(galloc_whatif_after_search(&p, &x, AFTER_BUDGET_MS, &plan));
            CHECK(!plan.proved_optimal && plan.total == start);
        }
        galloc_whatif_plan_release(&plan);
        galloc_whatif_index_free(&x);
    }
    CHECK(proved >= 120 && lowered > 60);
}

// a problem too large for the exact search: its time goes to the repair search, which the plan
// reports (repaired), and after the search the repair does not run again: a plan marked repaired
// keeps its total there however high, the bound only may follow. The problem is made "too large"
// by its index's pair count (the exact search's size test; the repair does not read it).
static void test_repaired_once(void) {
    rng_seed(6);
    int lowered = 0;
    for (int round = 0; round < 20; round++) {
        struct galloc_whatif_item items[8];
        int32_t                   n = 4 + rng_below(4);
        whatif_random_items(items, n, 6, 4);
        struct galloc_whatif_problem p = problem_of(items, n);
        struct galloc_whatif_index   x;
        struct galloc_whatif_plan    start, plan;
        struct galloc_error          err;
        CHECK(galloc_whatif_index_build(&p, &x, &err));
        CHECK(galloc_whatif_plan_init(&start, n, "stacked") && galloc_whatif_plan_init(&plan, n, "exact"));
        tight_stacked(&p, NULL, start.offsets);
        galloc_whatif_plan_finish(&p, &start);
        uint64_t best = own_optimum(&p), pairs = x.n_pairs;
        x.n_pairs = MAX_TRAIL;
        CHECK(galloc_whatif_exact(&p, &x, &start, 30, &plan));
        x.n_pairs = pairs;
        // (a start at the max load is optimal at once: no search, no repair)
        CHECK(plan.repaired == (start.total > whatif_own_max_load(items, n)) && own_no_overlap(&p, plan.offsets));
        CHECK(plan.total <= start.total && plan.total >= best);
        lowered += plan.total < start.total;
        // after the search: a plan marked repaired is not repaired again (the stacked plan, which
        // the repair would lower whenever the optimum is below it)
        tight_stacked(&p, NULL, plan.offsets);
        galloc_whatif_plan_finish(&p, &plan);
        plan.proved_optimal = false;
        plan.bound          = best;
        plan.repaired       = true;
        CHECK(galloc_whatif_after_search(&p, &x, AFTER_BUDGET_MS, &plan));
        CHECK_EQ_U64(plan.total, start.total);
        CHECK(plan.bound <= best);
        galloc_whatif_plan_release(&start);
        galloc_whatif_plan_release(&plan);
        galloc_whatif_index_free(&x);
    }
    CHECK(lowered > 5);
}

// neighbourhoods grow after failed moves up to the most items a move frees (256), never past
// it, however large the problem: 300 items all live at once, stacked (optimal, so every move
// down fails), lower bound 0 so the repair runs to its move limit; enough moves for the size
// to grow fifteen times (8 -> 10 -> ... -> 215 -> 256, not 269). The plan stays as it was.
static void test_neighbourhood_growth_capped(void) {
    enum { N_ITEMS = 300 };
    static struct galloc_whatif_item items[N_ITEMS];
    static uint64_t                  off[N_ITEMS];
    for (int32_t i = 0; i < N_ITEMS; i++) {
        items[i] = (struct galloc_whatif_item) { i, 1, 64, 0, 0 };
        off[i]   = (uint64_t) i * 64;
    }
    struct galloc_whatif_problem p = problem_of(items, N_ITEMS);
    struct galloc_whatif_index   x;
    struct galloc_error          err;
    CHECK(galloc_whatif_index_build(&p, &x, &err));
    struct galloc_repair_stats stats;
    CHECK(galloc_whatif_repair(&p, &x, off, 0, FAR_AWAY, 1000, 3, &stats));
    CHECK(stats.moves == 1000 && stats.improved == 0);
    CHECK(own_no_overlap(&p, off));
    CHECK_EQ_U64(own_peak(&p, off), (uint64_t) N_ITEMS * 64);
    galloc_whatif_index_free(&x);
}

int main(void) {
    RUN(test_fill_against_enumeration);
    RUN(test_repair_reaches_optimum);
    RUN(test_repair_plans_checked);
    RUN(test_repair_plan);
    RUN(test_after_search);
    RUN(test_repaired_once);
    RUN(test_neighbourhood_growth_capped);
    return check_report("test-whatif-repair");
}
