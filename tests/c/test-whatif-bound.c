// test-whatif-bound.c: the window lower bound (galloc-whatif-bound.c) against brute-force optima.
//
// Small random problems, and "zero-slack" ones (every time step filled to the same height by
// one filler item, so that the crossing items fragment the space and the optimum is often above
// the max load), some followed in time by an easy tail so that a window is narrower than the
// whole. The optimum comes from a brute force of the test's own (every item at every offset),
// sharing nothing with the planners. Checked: the bound never exceeds the optimum (asked just
// above it, so that a window that wrongly refuses the optimum shows), it reaches the optimum
// when a window holds the part that forces it, and a plan is declared proved only at the optimum.

#include "check.h"
#include "rng.h"
#include "whatif-random.h"
#include "galloc-whatif-impl.h"
#include "galloc-whatif.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 24
#define BUDGET_MS 20000 // a limit only: each window of these problems is decided in far less

// ---- the brute force -------------------------------------------------------

struct brute {
    const struct galloc_whatif_item * items;
    int32_t                           n;
    int32_t                           order[MAX_ITEMS];
    uint64_t                          off[MAX_ITEMS];
    uint64_t                          T;
};

static bool overlaps_in_time(const struct galloc_whatif_item * a, const struct galloc_whatif_item * b) {
    return a->first <= b->last && b->first <= a->last;
}

// can items order[k..] be placed within [0, T), given order[0..k) placed at off[]? The first
// item tries the lower half only: the mirror image of a plan (each item at T - off - size) is a
// plan too, and puts the first item in the lower half when it was in the upper
static bool brute_fits(struct brute * br, int32_t k) {
    if (k == br->n) {
        return true;
    }
    int32_t                           i  = br->order[k];
    const struct galloc_whatif_item * it = &br->items[i];
    // every offset in turn; past one that meets a placed item, the next that might not is that
    // item's end (every offset between meets it too)
    for (uint64_t o = 0, next; o + it->size <= br->T && (k > 0 || 2 * o + it->size <= br->T); o = next) {
        bool ok = true;
        next    = o + 1;
        for (int32_t q = 0; q < k && ok; q++) {
            int32_t j = br->order[q];
            if (overlaps_in_time(it, &br->items[j]) && br->off[j] < o + it->size && o < br->off[j] + br->items[j].size) {
                ok   = false;
                next = br->off[j] + br->items[j].size;
            }
        }
        if (ok) {
            br->off[i] = o;
            if (brute_fits(br, k + 1)) {
                return true;
            }
        }
    }
    return false;
}

// the total of the plan in off[]
static uint64_t brute_total(const struct brute * br) {
    uint64_t top = 0;
    for (int32_t i = 0; i < br->n; i++) {
        top = br->off[i] + br->items[i].size > top ? br->off[i] + br->items[i].size : top;
    }
    return top;
}

static bool has_conflict(const struct galloc_whatif_item * items, int32_t n, int32_t i) {
    for (int32_t k = 0; k < n; k++) {
        if (k != i && overlaps_in_time(&items[k], &items[i])) {
            return true;
        }
    }
    return false;
}

// placed earlier by the brute force: items with conflicts before those without (which fit at
// offset 0 whenever T holds them), then the largest
static bool brute_before(const struct galloc_whatif_item * items, int32_t n, int32_t a, int32_t b) {
    bool ca = has_conflict(items, n, a), cb = has_conflict(items, n, b);
    return ca != cb ? ca : items[a].size > items[b].size;
}

// the optimum: the least T at which everything fits. The max load first (the optimum of most
// problems); past it, from the top down: every item stacked on the others fits, and from any
// plan the search is asked for one of a smaller total, until it finds none. A plan within T is
// one within every larger T, so the first T without one is the optimum less one, and only that
// search (the longest) has to run to its end.
static uint64_t brute_optimum(const struct galloc_whatif_item * items, int32_t n) {
    uint64_t load = whatif_own_max_load(items, n), total = 0;
    struct brute br = { items, n, { 0 }, { 0 }, load };
    for (int32_t i = 0; i < n; i++) {
        br.order[i] = i;
        total += items[i].size;
    }
    for (int32_t a = 0; a < n; a++) {
        for (int32_t b = a + 1; b < n; b++) {
            if (brute_before(items, n, br.order[b], br.order[a])) {
                int32_t t = br.order[a];
                br.order[a] = br.order[b];
                br.order[b] = t;
            }
        }
    }
    if (brute_fits(&br, 0)) {
        return load;
    }
    uint64_t best = total; // all stacked
    for (br.T = best - 1; br.T > load && brute_fits(&br, 0); br.T = best - 1) {
        best = brute_total(&br);
    }
    return best;
}

// ---- problems --------------------------------------------------------------

// n random items over steps [t0, t0 + steps), sizes 1..max_size
static int32_t random_items(struct galloc_whatif_item * items, int32_t n, int64_t t0, int steps, int max_size) {
    for (int32_t i = 0; i < n; i++) {
        int64_t a = t0 + rng_below(steps), b = t0 + rng_below(steps);
        items[i] = (struct galloc_whatif_item) { i, 1, (uint64_t) (1 + rng_below(max_size)), a < b ? a : b, a < b ? b : a };
    }
    return n;
}

// one filler per step of [t0, t0 + steps), so that every step holds as much as the fullest
static int32_t add_fillers(struct galloc_whatif_item * items, int32_t n, int64_t t0, int steps) {
    uint64_t top = whatif_own_max_load(items, n);
    int32_t  m   = n;
    for (int64_t t = t0; t < t0 + steps; t++) {
        uint64_t live = 0;
        for (int32_t k = 0; k < n; k++) {
            live += items[k].first <= t && t <= items[k].last ? items[k].size : 0;
        }
        if (live < top) {
            items[m] = (struct galloc_whatif_item) { m, 1, top - live, t, t };
            m++;
        }
    }
    return m;
}

// after the items (steps [0, steps)), a tail of single-step items, each no larger than the
// max load, none crossing into the items' steps: it adds sections but not to the optimum
static int32_t add_tail(struct galloc_whatif_item * items, int32_t n, int steps, int tail) {
    uint64_t top = whatif_own_max_load(items, n);
    for (int k = 0; k < tail; k++) {
        items[n] = (struct galloc_whatif_item) { n, 1, 1 + (uint64_t) rng_below((int) top), steps + k, steps + k };
        n++;
    }
    return n;
}

static struct galloc_whatif_problem problem_of(struct galloc_whatif_item * items, int32_t n) {
    return (struct galloc_whatif_problem) { n, items, 1, GALLOC_NO_MAX_SIZE, 0 };
}

// ---- the checks ------------------------------------------------------------

static int n_problems, n_above_load, n_tight, n_proved_by_windows;

// the window bound of one problem with a known optimum: at most the optimum, at least the max
// load; asked at optimum + 1 it must not reach past the optimum, asked at the optimum it must
// reach it when tight (forced) is true
static void check_bound(const struct galloc_whatif_problem * p, uint64_t optimum, bool tight, int seed) {
    struct galloc_whatif_index x;
    struct galloc_error        err;
    CHECK(galloc_whatif_index_build(p, &x, &err));
    struct galloc_whatif_bound b;
    CHECK(galloc_whatif_window_bound(p, &x, optimum + 1, BUDGET_MS, &b));
    if (b.bound > optimum || b.bound < x.lower_bound) {
        fprintf(stderr, "seed %d: window bound %llu (sections %d..%d), optimum %llu, max load %llu\n", seed, (unsigned long long) b.bound,
                b.lo, b.hi, (unsigned long long) optimum, (unsigned long long) x.lower_bound);
    }
    CHECK(b.bound <= optimum);
    CHECK(b.bound >= x.lower_bound);
    if (optimum > x.lower_bound) {
        n_above_load++;
    }
    CHECK(galloc_whatif_window_bound(p, &x, optimum, BUDGET_MS, &b));
    CHECK(b.bound <= optimum);
    if (tight) {
        if (b.bound != optimum) {
            fprintf(stderr, "seed %d: window bound %llu, optimum %llu (max load %llu), a window holds the gadget\n", seed,
                    (unsigned long long) b.bound, (unsigned long long) optimum, (unsigned long long) x.lower_bound);
        }
        CHECK_EQ_U64(b.bound, optimum);
        n_tight++;
    }
    galloc_whatif_index_free(&x);
    n_problems++;
}

// galloc_whatif_bound_plan: an unproved plan at the optimum is proved when a window forces it
// (tight), one above the optimum never is, and the solver's own proofs hold against the optimum
static void check_proof(const struct galloc_whatif_problem * p, uint64_t optimum, bool tight, int seed) {
    struct galloc_whatif_result r;
    struct galloc_error         err;
    CHECK(galloc_whatif_from_problem(p, BUDGET_MS, &r, &err));
    struct galloc_whatif_plan * e = &r.plans[GALLOC_WHATIF_EXACT];
    if (e->proved_optimal && e->total != optimum) {
        fprintf(stderr, "seed %d: proved %llu, brute force %llu\n", seed, (unsigned long long) e->total, (unsigned long long) optimum);
    }
    CHECK(!e->proved_optimal || e->total == optimum);
    CHECK(e->bound <= optimum);
    struct galloc_whatif_index x;
    CHECK(galloc_whatif_index_build(&r.problem, &x, &err));
    if (e->total == optimum) {
        e->proved_optimal = false; // as if the search had stopped short of its proof
        e->bound          = x.lower_bound;
        CHECK(galloc_whatif_bound_plan(&r.problem, &x, BUDGET_MS, e));
        CHECK(e->bound <= optimum);
        CHECK(!tight || (e->proved_optimal && e->bound == optimum));
        n_proved_by_windows += e->proved_optimal && optimum > x.lower_bound;
        // a plan one byte worse (its total only: the windows aim at the total) is not proved
        e->proved_optimal = false;
        e->bound          = x.lower_bound;
        e->total          = optimum + 1;
        CHECK(galloc_whatif_bound_plan(&r.problem, &x, BUDGET_MS, e));
        CHECK(!e->proved_optimal && e->bound <= optimum);
    }
    galloc_whatif_index_free(&x);
    galloc_whatif_free(&r);
}

// plain random problems: the optimum is mostly the max load; the bound must stay in between
static void test_random(void) {
    struct galloc_whatif_item items[MAX_ITEMS];
    for (int seed = 0; seed < 300; seed++) {
        rng_seed((uint64_t) seed + 1);
        int32_t  n       = random_items(items, 5 + rng_below(4), 0, 8, 6);
        struct galloc_whatif_problem p = problem_of(items, n);
        uint64_t optimum = brute_optimum(items, n);
        check_bound(&p, optimum, false, seed);
        check_proof(&p, optimum, false, seed);
    }
}

// zero-slack problems over 5 steps, alone and with a tail of 8 steps: with the tail, the window
// of 8 sections from the start holds every step of the gadget, so the bound reaches the optimum
static void test_zero_slack(void) {
    struct galloc_whatif_item items[MAX_ITEMS];
    int                       n_gadgets = 0;
    for (int seed = 0; seed < 4000 && n_gadgets < 25; seed++) {
        rng_seed((uint64_t) seed + 1000);
        int32_t n = random_items(items, 5 + rng_below(2), 0, 5, 4);
        n         = add_fillers(items, n, 0, 5);
        struct galloc_whatif_problem p = problem_of(items, n);
        uint64_t optimum = brute_optimum(items, n);
        check_bound(&p, optimum, false, seed);
        bool gadget = optimum > whatif_own_max_load(items, n);
        int32_t with_tail = add_tail(items, n, 5, 8);
        p                 = problem_of(items, with_tail);
        CHECK_EQ_U64(brute_optimum(items, with_tail), optimum); // the tail changes nothing
        check_bound(&p, optimum, gadget, seed);
        check_proof(&p, optimum, gadget, seed);
        n_gadgets += gadget;
    }
    CHECK(n_gadgets >= 25);
}

// sizes in steps of a grain g (2 or 3): the search decides in steps of g and the bounds round
// up to multiples of it (galloc-whatif-grain.c); the brute force still tries every byte offset,
// so a rounding past the optimum (a wrong grain, a wrong rounding) shows as a bound above it
static void scale_sizes(struct galloc_whatif_item * items, int32_t n, uint64_t g) {
    for (int32_t i = 0; i < n; i++) {
        items[i].size *= g;
    }
}

static void test_grain(void) {
    struct galloc_whatif_item items[MAX_ITEMS];
    int                       n_gadgets = 0, n_plain = 0;
    for (int seed = 0; seed < 4000 && n_gadgets < 8; seed++) {
        rng_seed((uint64_t) seed + 1000); // the zero-slack problems of test_zero_slack
        int32_t n = random_items(items, 5 + rng_below(2), 0, 5, 4);
        n         = add_fillers(items, n, 0, 5);
        if (brute_optimum(items, n) == whatif_own_max_load(items, n) && (seed % 64 != 0)) {
            continue; // mostly the gadgets, whose optimum is above the max load
        }
        uint64_t g = 2 + (uint64_t) (seed % 2);
        scale_sizes(items, n, g);
        struct galloc_whatif_problem p = problem_of(items, n);
        CHECK(galloc_whatif_grain(&p) % g == 0);
        uint64_t optimum = brute_optimum(items, n);
        CHECK(optimum % g == 0); // the claim of galloc-whatif-grain.c, by the brute force's own count
        bool gadget = optimum > whatif_own_max_load(items, n);
        check_bound(&p, optimum, false, seed);
        check_proof(&p, optimum, false, seed);
        // the search's bound is a multiple of g (a decision that fails at T proves T + g)
        struct galloc_whatif_result r;
        struct galloc_error         err;
        CHECK(galloc_whatif_from_problem(&p, BUDGET_MS, &r, &err));
        CHECK(r.plans[GALLOC_WHATIF_EXACT].bound % g == 0 && r.plans[GALLOC_WHATIF_EXACT].bound <= optimum);
        galloc_whatif_free(&r);
        n_gadgets += gadget;
        n_plain += !gadget;
    }
    fprintf(stderr, "grain: %d gadgets, %d plain\n", n_gadgets, n_plain);
    CHECK(n_gadgets >= 8 && n_plain >= 4);
}

// a bound is only for one chunk: with a binding max size it stays the max load
static void test_chunks_untouched(void) {
    struct galloc_whatif_item items[MAX_ITEMS];
    rng_seed(7);
    int32_t n = random_items(items, 5, 0, 5, 6);
    n         = add_fillers(items, n, 0, 5);
    n         = add_tail(items, n, 5, 8);
    struct galloc_whatif_problem p = problem_of(items, n);
    p.max_size = 4;
    struct galloc_whatif_index x;
    struct galloc_error        err;
    CHECK(galloc_whatif_index_build(&p, &x, &err));
    struct galloc_whatif_bound b;
    CHECK(galloc_whatif_window_bound(&p, &x, x.lower_bound * 4, BUDGET_MS, &b));
    CHECK_EQ_U64(b.bound, x.lower_bound);
    CHECK(b.n_windows == 0);
    galloc_whatif_index_free(&x);
}

int main(void) {
    RUN(test_grain);
    RUN(test_random);
    RUN(test_zero_slack);
    RUN(test_chunks_untouched);
    printf("test-whatif-bound: %d problems against brute-force optima, %d with the optimum above the max load, "
           "%d where a window must reach it, %d plans proved by windows\n", n_problems, n_above_load, n_tight, n_proved_by_windows);
    CHECK(n_above_load >= 50 && n_tight >= 25 && n_proved_by_windows >= 25);
    return check_report("test-whatif-bound");
}
