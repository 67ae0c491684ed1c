// galloc-whatif-exact.c: the exact what-if planner's driver: restarts over the orders, decisions.
//
// Ideas from MiniMalloc (Moffitt, ASPLOS 2023), written anew: canonical plans, a monotonic
// floor, section inference, dominance, temporal decomposition, restarts over static orders
// and perturbed ones of Luby's run lengths (the steps: galloc-whatif-exact.h). A search that
// runs to the end (or meets the lower bound) proves its plan optimal; out of time it keeps the
// best plan found, never worse than the heuristics'.

#include "galloc-whatif-exact.h"
#include "galloc-whatif-repair.h"

#include <stdlib.h>
#include <string.h>

// The search is called through a pointer the optimizer cannot see through, so that it stays a
// function of its own in WebAssembly: wasm-opt inlines a function called from one place, and
// then the whole search would run inside this driver's one call. V8 (Chrome, Node) compiles a
// WebAssembly function first with its baseline compiler and uses the optimized code from the
// function's next call on (there is no on-stack replacement), so the search must be a function
// entered many times (once per order and round) to run optimized: 2-3x faster in the browser.
static enum search_end (*volatile const search_fn)(struct exact *, int32_t, int32_t, int32_t) = galloc_exact_search;

// 1, 1, 2, 1, 1, 2, 4, 1, ... (i from 1): Luby's restart lengths, within a factor of the
// best fixed length for any distribution of run lengths (Luby, Sinclair, Zuckerman 1993)
static uint64_t luby(uint64_t i) {
    for (;;) {
        int k = 1;
        while (k < 63 && ((uint64_t) 1 << k) - 1 < i) {
            k++;
        }
        if (i == ((uint64_t) 1 << k) - 1 || k == 63) {
            return (uint64_t) 1 << (k - 1);
        }
        i -= ((uint64_t) 1 << (k - 1)) - 1;
    }
}

// the perturbed orders (step 7): runs of Luby's lengths in units of the piece's items, each over
// a static order's ranks moved at random, until they have spent budget nodes (0: none; UINT64_MAX:
// until one ends). *restart counts the runs of the piece's decision so far (each its own draw).
// A run that ends within its limit decides: any ranks make a complete search.
static enum search_end perturbed_runs(struct exact * e, int32_t base, int32_t lo, int32_t hi, uint64_t budget, uint64_t * restart) {
    uint64_t unit = (uint64_t) (e->first_pos[hi + 1] - e->first_pos[lo]) + 1, spent = 0;
    while (spent < budget) {
        uint64_t r = ++*restart;
        galloc_exact_perturb_ranks(e, (int) (r % (N_ORDERS / 2)), r);
        uint64_t len  = luby(r);
        e->node_limit = len < UINT64_MAX / unit ? unit * len : UINT64_MAX;
        e->kind       = (int) (r % (N_ORDERS / 2));
        e->perturbed  = true;
        enum search_end end = search_fn(e, base, lo, hi);
        e->perturbed = false;
        spent += e->run_nodes;
        if (end != SEARCH_LIMIT) {
            return end;
        }
        if (galloc_whatif_now_ms() > e->deadline) {
            return SEARCH_TIMEOUT;
        }
    }
    return SEARCH_LIMIT;
}

// one piece: restarts over the orders with a doubling node limit, and after each round a quarter
// as many nodes in perturbed orders (step 7)
static enum search_end decide_piece(struct exact * e, int32_t base, int32_t lo, int32_t hi) {
    int32_t b0 = e->first_pos[lo], b1 = e->first_pos[hi + 1];
    uint64_t limit = (uint64_t) (b1 - b0) + 64, restart = 0;
    // the failed states of each order stay known from round to round (a state's key holds the
    // order): a longer run of the same order skips what the shorter one already refuted
    galloc_exact_memo_clear(e);
    if (e->only_order == N_ORDERS) {
        return perturbed_runs(e, base, lo, hi, UINT64_MAX, &restart);
    }
    for (;;) {
        limit = limit < UINT64_MAX / 2 ? limit * 2 : limit;
        // a static order's run that never came to where its dynamic twin would rank again is
        // the twin's run too (the same ranks, the same tree): the twin skips this round
        bool     twin_same[N_ORDERS / 2] = { false };
        uint64_t round_nodes             = 0;
        for (int kind = 0; kind < N_ORDERS; kind++) {
            if (e->only_order >= 0 && kind != e->only_order) {
                continue;
            }
            if (e->only_order < 0 && galloc_exact_dynamic_kind(kind) && twin_same[kind - N_ORDERS / 2]) {
                continue;
            }
            galloc_exact_set_ranks(e, kind);
            e->node_limit = limit;
            e->kind       = kind;
            enum search_end r = search_fn(e, base, lo, hi);
            if (r != SEARCH_LIMIT) {
                return r;
            }
            round_nodes += e->run_nodes;
            if (!galloc_exact_dynamic_kind(kind)) {
                twin_same[kind] = e->rerank_chances == 0;
            }
            if (galloc_whatif_now_ms() > e->deadline) {
                return SEARCH_TIMEOUT;
            }
        }
        enum search_end r = perturbed_runs(e, base, lo, hi, e->only_order < 0 ? round_nodes / 4 : 0, &restart);
        if (r != SEARCH_LIMIT) {
            return r;
        }
    }
}

// is there a plan of total <= T? The pieces of the time range that no item crosses are
// independent (step 6): each is decided on its own, its plan kept while the next is searched.
static enum search_end decide(struct exact * e, uint64_t T, double deadline) {
    e->T         = T;
    e->deadline  = deadline;
    e->depth     = 0;
    e->L         = 0;
    e->last_rank = -1;
    enum search_end r  = SEARCH_FOUND;
    int32_t         lo = 0;
    for (int32_t s = 0; s < e->n_sec && r == SEARCH_FOUND; s++) {
        if (e->decompose ? (s + 1 < e->n_sec && e->cut[s] != 0) : s + 1 < e->n_sec) {
            continue; // the piece goes on
        }
        if (comp_has_unplaced(e, lo, s)) {
            r = decide_piece(e, e->depth, lo, s);
        }
        lo = s + 1;
    }
    if (r == SEARCH_FOUND) {
        galloc_exact_record(e);
    }
    galloc_exact_unwind(e, 0);
    return r;
}

// ---- setup and driver ---------------------------------------------------------

void galloc_exact_free(struct exact * e) {
    free(e->rank);
    free(e->rank_trail_item);
    free(e->rank_trail_old);
    free(e->rank_keys);
    free(e->by_first);
    free(e->first_pos);
    free(e->placed);
    free(e->off);
    free(e->minoff);
    free(e->free_nb);
    free(e->floor);
    free(e->rem);
    free(e->cut);
    free(e->acc);
    free(e->keys);
    free(e->sorted);
    free(e->ord);
    free(e->ord_next);
    free(e->in_keys);
    free(e->rem_before);
    free(e->layer_head);
    free(e->layer_next);
    free(e->rem_after);
    free(e->arena);
    free(e->trail_idx);
    free(e->trail_val);
    free(e->levels);
    free(e->best_off);
    free(e->memo);
    free(e->memo_slots);
}

struct first_key {
    int32_t sec, i;
};

static int cmp_first(const void * a, const void * b) {
    const struct first_key * x = a, * y = b;
    if (x->sec != y->sec) {
        return x->sec < y->sec ? -1 : 1;
    }
    return (x->i > y->i) - (x->i < y->i);
}

uint64_t galloc_exact_trail_need(const struct galloc_whatif_index * x) {
    uint64_t span_sum = 0;
    for (int32_t i = 0; i < x->n_items; i++) {
        span_sum += (uint64_t) (x->sec_last[i] - x->sec_first[i] + 1);
    }
    return 2 * x->n_pairs + span_sum;
}

bool galloc_exact_init(struct exact * e, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x) {
    uint64_t trail_cap = galloc_exact_trail_need(x);
    memset(e, 0, sizeof(*e));
    size_t n = (size_t) p->n_items + 1, ns = (size_t) x->n_sections + 2;
    e->p         = p;
    e->x         = x;
    e->n         = p->n_items;
    e->n_sec     = x->n_sections;
    e->align     = galloc_whatif_grain(p); // the step of the decisions: optimal totals are its multiples
    e->unlimited = galloc_whatif_unlimited(p, x);
    e->decompose = e->unlimited;
    e->max_size  = p->max_size;
    e->arena_cap = x->n_sections + 2;
    e->rank      = malloc(n * sizeof(int32_t));
    // re-ranking (dynamic orders) records at most the component's items per decision; past this
    // many entries a run keeps its ranks (slower, not wrong)
    e->rank_trail_cap  = n * 64 < ((size_t) 1 << 22) ? n * 64 : ((size_t) 1 << 22);
    e->rank_trail_item = malloc(e->rank_trail_cap * sizeof(int32_t));
    e->rank_trail_old  = malloc(e->rank_trail_cap * sizeof(int32_t));
    e->rank_keys       = malloc(n * sizeof(struct rank_key));
    e->by_first  = malloc(n * sizeof(int32_t));
    e->first_pos = malloc(ns * sizeof(int32_t));
    e->placed    = calloc(n, sizeof(bool));
    e->off       = calloc(n, sizeof(uint64_t));
    e->minoff    = calloc(n, sizeof(uint64_t));
    e->free_nb   = calloc(n, sizeof(int32_t));
    e->floor     = calloc(ns, sizeof(uint64_t));
    e->rem       = calloc(ns, sizeof(uint64_t));
    e->cut       = calloc(ns, sizeof(int32_t));
    e->acc       = calloc(ns, sizeof(uint64_t));
    e->rem_before = calloc(ns, sizeof(uint64_t));
    e->layer_head = malloc(ns * sizeof(int32_t));
    e->layer_next = malloc(n * sizeof(int32_t));
    e->rem_after  = calloc(ns, sizeof(uint64_t));
    e->keys      = malloc(n * sizeof(struct pos_key));
    e->sorted    = malloc(n * sizeof(struct pos_key));
    e->ord       = malloc(n * sizeof(int32_t));
    e->ord_next  = malloc(n * sizeof(int32_t));
    e->in_keys   = calloc(n, sizeof(int32_t));
    e->arena     = malloc((size_t) e->arena_cap * sizeof(struct comp_node));
    e->trail_cap = (size_t) trail_cap;
    e->trail_idx = malloc((size_t) trail_cap * sizeof(int32_t) + sizeof(int32_t));
    e->trail_val = malloc((size_t) trail_cap * sizeof(uint64_t) + sizeof(uint64_t));
    e->levels    = calloc(n + GALLOC_MAX_CHUNKS + 1, sizeof(struct level));
    e->best_off  = calloc(n, sizeof(uint64_t));
    struct first_key * keys = malloc(n * sizeof(struct first_key));
    if (!e->rank || !e->rank_trail_item || !e->rank_trail_old || !e->rank_keys || !e->by_first || !e->first_pos || !e->placed || !e->off || !e->minoff || !e->free_nb || !e->floor || !e->rem ||
        !e->cut || !e->acc || !e->rem_before || !e->layer_head || !e->layer_next || !e->rem_after || !e->keys || !e->sorted || !e->ord || !e->ord_next || !e->in_keys || !e->arena || !e->trail_idx || !e->trail_val || !e->levels || !e->best_off || !keys) {
        free(keys);
        galloc_exact_free(e);
        return false;
    }
    uint64_t largest = 0;
    for (int32_t i = 0; i < e->n; i++) {
        largest = p->items[i].size > largest ? p->items[i].size : largest;
    }
    e->stride = p->max_size > largest ? p->max_size : largest;
    e->strict = !e->unlimited && largest > p->max_size;
    // items without bytes are placed from the start (chunk 0, offset 0); they constrain nothing
    for (int32_t i = 0; i < e->n; i++) {
        e->free_nb[i] = x->adj_start[i + 1] - x->adj_start[i];
    }
    int32_t nk = 0;
    for (int32_t i = 0; i < e->n; i++) {
        if (p->items[i].size == 0) {
            e->placed[i] = true;
            for (int32_t a = x->adj_start[i]; a < x->adj_start[i + 1]; a++) {
                e->free_nb[x->adj[a]]--;
            }
            continue;
        }
        e->n_search++;
        keys[nk++] = (struct first_key) { x->sec_first[i], i };
        for (int32_t s = x->sec_first[i]; s <= x->sec_last[i]; s++) {
            e->rem[s] += p->items[i].size;
            if (s < x->sec_last[i]) {
                e->cut[s]++;
            }
        }
    }
    for (int32_t q = 0; q < nk; q++) {
        galloc_exact_hash_item(e, keys[q].i, 0);
    }
    // the failed-state table: from 4096 slots, doubled as it fills (galloc_exact_memo_add), up to
    // about 4096 per item, at most 2^20 (16 MiB); without it the search is slower, not wrong. A
    // table sized at once would be zeroed whole for every search, however short (in WebAssembly
    // calloc writes every byte)
    uint32_t most = 4096;
    while (most < (1u << 20) && most < (uint32_t) nk * 4096u) {
        most *= 2;
    }
    e->memo_most = most;
    if (!galloc_exact_memo_init(e, 4096)) {
        e->memo_most = 0;
    }
    e->clock_mask = nk > 2048 ? 0 : 255;
    qsort(keys, (size_t) nk, sizeof(struct first_key), cmp_first);
    int32_t k = 0;
    for (int32_t s = 0; s <= e->n_sec; s++) {
        while (k < nk && keys[k].sec < s) {
            k++;
        }
        e->first_pos[s] = k;
    }
    for (int32_t q = 0; q < nk; q++) {
        e->by_first[q] = keys[q].i;
        e->ord[q]      = keys[q].i;
    }
    free(keys);
    return true;
}

// the best plan found, from virtual offsets to chunks and offsets
static void to_plan(const struct exact * e, struct galloc_whatif_plan * plan) {
    for (int32_t i = 0; i < e->n; i++) {
        bool    empty = e->p->items[i].size == 0;
        int32_t c     = empty ? 0 : slab_of(e, e->best_off[i]);
        plan->chunks[i]  = c;
        plan->offsets[i] = empty ? 0 : e->best_off[i] - slab_start(e, c);
    }
    galloc_whatif_plan_finish(e->p, plan);
}

// one decision and what it teaches: a plan (best lowers) or a proof (lower rises)
// (under the stricter rule a search to the end proves nothing: it reports a timeout)
static enum search_end decide_and_learn(struct exact * e, uint64_t T, double deadline, uint64_t * lower, uint64_t * best) {
    enum search_end r = decide(e, T, deadline);
    if (r == SEARCH_FOUND) {
        *best = e->best_cost;
    } else if (r == SEARCH_EXHAUSTED && e->strict) {
        r = SEARCH_TIMEOUT;
    } else if (r == SEARCH_EXHAUSTED) {
        *lower = galloc_whatif_grain_up(T + 1, e->align); // optimal totals are multiples of the grain
    }
    return r;
}

static bool exact_run(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, const struct galloc_whatif_plan * incumbent,
                      uint32_t budget_ms, int only_order, struct galloc_whatif_plan * plan) {
    double t0 = galloc_whatif_now_ms();
    galloc_whatif_plan_copy_placement(plan, incumbent, p->n_items);
    uint64_t lower = x->lower_bound;
    uint64_t best  = incumbent->total;
    plan->bound    = lower;
    plan->fit_ms   = p->capacity && best <= p->capacity ? 0 : -1;
    if (best <= lower) {
        plan->proved_optimal = true;
        plan->bound          = best;
        plan->note           = "the best heuristic plan meets the lower bound";
        plan->time_ms        = galloc_whatif_now_ms() - t0;
        return true;
    }
    if (budget_ms == 0) {
        plan->note    = "no search (budget 0 ms)";
        plan->time_ms = galloc_whatif_now_ms() - t0;
        return true;
    }
    if (galloc_exact_trail_need(x) > MAX_TRAIL) {
        // too large to search: the time goes to the repair search over the heuristics' plan
        if (!galloc_whatif_repair_plan(p, x, lower, t0 + (double) budget_ms, plan)) {
            return false;
        }
        plan->repaired       = true;
        plan->proved_optimal = plan->total <= lower;
        plan->bound          = plan->proved_optimal ? plan->total : lower;
        plan->note           = plan->proved_optimal ? "" : "problem too large for the exact search: the repair search's plan, not proved optimal";
        plan->time_ms        = galloc_whatif_now_ms() - t0;
        return true;
    }
    struct exact e;
    if (!galloc_exact_init(&e, p, x)) {
        return false;
    }
    e.only_order = only_order;
    e.t0        = t0;
    e.best_cost = best;
    e.fit_ms    = -1;
    double end  = t0 + (double) budget_ms;
    bool   out_of_time = false;

    // the capacity asked for (a CSV problem's)
    if (p->capacity >= lower && p->capacity < best) {
        out_of_time = decide_and_learn(&e, p->capacity, end, &lower, &best) == SEARCH_TIMEOUT;
    }
    // the lower bound, with a quarter of the time left (a plan there is optimal at once)
    if (!out_of_time && lower < best) {
        double now = galloc_whatif_now_ms();
        decide_and_learn(&e, lower, now + (end - now) / 4, &lower, &best);
    }
    // then halve the gap between the bound and the best plan, each decision with half the time
    // left: a plan below the middle lowers the best, a search to the end raises the bound past
    // it; a middle not decided in time is given up, and the halving goes on above it
    uint64_t from = lower; // the lowest total still tried
    while (!out_of_time && from < best) {
        uint64_t mid = from + (best - from) / (2 * e.align) * e.align;
        double   now = galloc_whatif_now_ms();
        if (now >= end) {
            break;
        }
        enum search_end r = decide_and_learn(&e, mid, now + (end - now) / 2, &lower, &best);
        from = r == SEARCH_TIMEOUT ? mid + e.align : lower;
    }
    bool proved = lower >= best;
    if (e.found && e.best_cost < incumbent->total) {
        to_plan(&e, plan);
        plan->found_ms = e.found_ms;
    }
    if (plan->fit_ms < 0) {
        plan->fit_ms = e.fit_ms; // unless the heuristics' plan fit already
    }
    plan->proved_optimal = proved;
    plan->bound          = proved ? plan->total : lower;
    plan->nodes          = e.nodes;
    plan->note           = proved ? "" : e.strict ? "items past the max size: no proof beyond the lower bound"
                                                  : "out of time: the best plan found, not proved optimal";
    galloc_exact_free(&e);
    plan->time_ms = galloc_whatif_now_ms() - t0;
    return true;
}


bool galloc_whatif_exact(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, const struct galloc_whatif_plan * incumbent,
                  uint32_t budget_ms, struct galloc_whatif_plan * plan) {
    return exact_run(p, x, incumbent, budget_ms, -1, plan);
}

int galloc_whatif_exact_orders(void) {
    return N_ORDERS + 1; // the last: perturbed orders only
}

bool galloc_whatif_exact_in_order(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, const struct galloc_whatif_plan * incumbent,
                                  uint32_t budget_ms, int order, struct galloc_whatif_plan * plan) {
    return exact_run(p, x, incumbent, budget_ms, order >= 0 && order <= N_ORDERS ? order : -1, plan);
}
