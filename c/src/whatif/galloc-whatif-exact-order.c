// galloc-whatif-exact-order.c: the orders of the exact search (step 7 of galloc-whatif-exact.h).
//
// Four sets of keys (after MiniMalloc's preorderings: the most bytes live in any section of the
// item, its lifetime, its area, its size), each static (ranks set once per run) or dynamic (the
// unplaced items of a component ranked again, by the bytes still unplaced, whenever the search
// cuts it). Ties go to the item's index, so ranks depend only on the state they are set in.
// A perturbed order (the restarts between rounds, step 7) moves each rank of a static order by
// a random amount: any ranks make a complete search, the draw only changes which plans come first.

#include "galloc-whatif-exact.h"

#include <stdlib.h>

static int cmp3(double a, double b) {
    return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_rank(const void * pa, const void * pb) {
    const struct rank_key * a = pa, * b = pb;
    int c = 0;
    switch (a->kind % (N_ORDERS / 2)) {
        case 0: // total, length, area
            c = c ? c : cmp3((double) a->total, (double) b->total);
            c = c ? c : cmp3(a->length, b->length);
            c = c ? c : cmp3(a->area, b->area);
            break;
        case 1: // length, area, total
            c = c ? c : cmp3(a->length, b->length);
            c = c ? c : cmp3(a->area, b->area);
            c = c ? c : cmp3((double) a->total, (double) b->total);
            break;
        case 2: // total, area, length
            c = c ? c : cmp3((double) a->total, (double) b->total);
            c = c ? c : cmp3(a->area, b->area);
            c = c ? c : cmp3(a->length, b->length);
            break;
        default: // size, length
            c = c ? c : cmp3((double) a->size, (double) b->size);
            c = c ? c : cmp3(a->length, b->length);
            break;
    }
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

// item i's keys, its total the most of live[s] over its sections
static struct rank_key keys_of(const struct exact * e, int32_t i, const uint64_t * live, int kind) {
    const struct galloc_whatif_item * it    = &e->p->items[i];
    uint64_t                          total = 0;
    for (int32_t s = e->x->sec_first[i]; s <= e->x->sec_last[i]; s++) {
        total = live[s] > total ? live[s] : total;
    }
    double length = (double) (it->last - it->first) + 1.0;
    return (struct rank_key) { total, length, length * (double) it->size, it->size, i, kind };
}

// (re-ranking's undo records stay valid: a run starts and ends with every decision of its own undone)
void galloc_exact_set_ranks(struct exact * e, int kind) {
    for (int32_t i = 0; i < e->n; i++) {
        e->rank_keys[i] = keys_of(e, i, e->x->sec_live, kind);
    }
    qsort(e->rank_keys, (size_t) e->n, sizeof(struct rank_key), cmp_rank);
    for (int32_t k = 0; k < e->n; k++) {
        e->rank[e->rank_keys[k].i] = k;
    }
}

static int cmp_i32(const void * a, const void * b) {
    int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
    return (x > y) - (x < y);
}

// The unplaced items of the component get the ranks they held, sorted, in the order of their
// keys now: ranks stay distinct over all items, and those of other components do not move.
void galloc_exact_rerank(struct exact * e) {
    int32_t b0, b1, k = 0;
    comp_items(e, &b0, &b1);
    for (int32_t q = b0; q < b1; q++) {
        int32_t i = e->by_first[q];
        if (!e->placed[i]) {
            e->rank_keys[k++] = keys_of(e, i, e->rem, e->kind);
        }
    }
    if (k < 2 || e->rank_trail_len + 2 * (size_t) k > e->rank_trail_cap) {
        return; // nothing to order, or no room to undo it: the ranks stay
    }
    // the old ranks, sorted, in the second half of the trail's free room (scratch)
    int32_t * held = e->rank_trail_old + e->rank_trail_len + k;
    for (int32_t a = 0; a < k; a++) {
        held[a] = e->rank[e->rank_keys[a].i];
    }
    qsort(held, (size_t) k, sizeof(int32_t), cmp_i32);
    qsort(e->rank_keys, (size_t) k, sizeof(struct rank_key), cmp_rank);
    for (int32_t a = 0; a < k; a++) {
        int32_t i = e->rank_keys[a].i;
        e->rank_trail_item[e->rank_trail_len] = i;
        e->rank_trail_old[e->rank_trail_len]  = e->rank[i];
        e->rank_trail_len++;
        e->rank[i] = held[a];
    }
    e->last_rank  = -1;
    e->comp.epoch = galloc_exact_mix64(e->comp.epoch ^ e->h1 ^ galloc_exact_mix64(e->h2 + 0x2545f491ULL));
}

static int cmp_noisy(const void * pa, const void * pb) {
    const struct rank_key * a = pa, * b = pb;
    if (a->total != b->total) {
        return a->total < b->total ? -1 : 1;
    }
    return (a->size > b->size) - (a->size < b->size);
}

void galloc_exact_perturb_ranks(struct exact * e, int kind, uint64_t seed) {
    galloc_exact_set_ranks(e, kind);
    uint64_t width = (uint64_t) e->n / 8 + 1, draw = seed;
    for (int32_t i = 0; i < e->n; i++) {
        draw = galloc_exact_mix64(draw + 0x9e3779b97f4a7c15ULL);
        // sorted by the rank moved down by up to width places, ties by the rank
        e->rank_keys[i] = (struct rank_key) { (uint64_t) e->rank[i] + draw % width, 0, 0, (uint64_t) e->rank[i], i, kind };
    }
    qsort(e->rank_keys, (size_t) e->n, sizeof(struct rank_key), cmp_noisy);
    for (int32_t k = 0; k < e->n; k++) {
        e->rank[e->rank_keys[k].i] = k;
    }
}
