// galloc-whatif-exact-state.c: the exact search's decisions and their undo, and failed states.
//
// A decision places an item (or closes a chunk) and records on a trail every lowest offset and
// section floor it raises, so that undo restores them exactly; two Zobrist-style hashes of the
// unplaced items and their lowest offsets follow each change, to key the states (step 8) that
// the search found to fail.

#include "galloc-whatif-exact.h"

#include <assert.h>
#include <stdlib.h>

static void trail_push(struct exact * e, int32_t idx, uint64_t val) {
    assert(e->trail_len < e->trail_cap); // each item is placed once on a path: deg + span entries
    e->trail_idx[e->trail_len] = idx;
    e->trail_val[e->trail_len] = val;
    e->trail_len++;
}

uint64_t galloc_exact_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t zob(int32_t i, uint64_t v, uint64_t seed) {
    return galloc_exact_mix64(galloc_exact_mix64((uint64_t) i * 0x9e3779b97f4a7c15ULL + seed) ^ v);
}

void galloc_exact_hash_item(struct exact * e, int32_t i, uint64_t v) {
    e->h1 ^= zob(i, v, 0x1234567ULL);
    e->h2 ^= zob(i, v, 0x7654321ULL);
}

static void save_state(const struct exact * e, struct level * lv) {
    lv->h1         = e->h1;
    lv->h2         = e->h2;
    lv->trail_mark = e->trail_len;
    lv->rank_trail_mark = e->rank_trail_len;
    lv->L          = e->L;
    lv->closed     = e->closed;
    lv->cur        = e->cur;
    lv->last_rank  = e->last_rank;
    lv->slab       = e->slab;
    lv->comp       = e->comp;
    lv->pending    = e->pending;
    lv->arena_len  = e->arena_len;
}

void galloc_exact_place(struct exact * e, struct level * lv, int32_t j, uint64_t pos) {
    const struct galloc_whatif_index * x    = e->x;
    uint64_t                    size = e->p->items[j].size;
    uint64_t                    end  = pos + size;
    save_state(e, lv);
    lv->item = j;
    int32_t k = slab_of(e, pos);
    if (k != e->slab) {
        e->closed += e->cur;
        e->cur     = 0;
        e->slab    = k;
    }
    if (end - slab_start(e, k) > e->cur) {
        e->cur = end - slab_start(e, k);
    }
    e->L         = pos;
    e->last_rank = e->rank[j];
    e->off[j]    = pos;
    e->placed[j] = true;
    e->n_placed++;
    galloc_exact_hash_item(e, j, e->minoff[j]);
    for (int32_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
        int32_t q = x->adj[a];
        e->free_nb[q]--;
        if (!e->placed[q] && e->minoff[q] < end) {
            trail_push(e, q, e->minoff[q]);
            galloc_exact_hash_item(e, q, e->minoff[q]);
            galloc_exact_hash_item(e, q, end);
            e->minoff[q] = end;
        }
    }
    for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
        e->rem[s] -= size;
        if (e->floor[s] < end) {
            trail_push(e, -1 - s, e->floor[s]);
            e->floor[s] = end;
        }
        if (s < x->sec_last[j]) {
            e->cut[s]--;
        }
    }
}

void galloc_exact_close_chunk(struct exact * e, struct level * lv) {
    save_state(e, lv);
    lv->item     = -1;
    e->closed   += e->cur;
    e->cur       = 0;
    e->slab     += 1;
    e->L         = slab_start(e, e->slab);
    e->last_rank = -1;
}

void galloc_exact_undo(struct exact * e, struct level * lv) {
    const struct galloc_whatif_index * x = e->x;
    while (e->trail_len > lv->trail_mark) {
        e->trail_len--;
        int32_t idx = e->trail_idx[e->trail_len];
        if (idx >= 0) {
            e->minoff[idx] = e->trail_val[e->trail_len];
        } else {
            e->floor[-1 - idx] = e->trail_val[e->trail_len];
        }
    }
    while (e->rank_trail_len > lv->rank_trail_mark) {
        e->rank_trail_len--;
        e->rank[e->rank_trail_item[e->rank_trail_len]] = e->rank_trail_old[e->rank_trail_len];
    }
    int32_t j = lv->item;
    if (j >= 0) {
        uint64_t size = e->p->items[j].size;
        for (int32_t a = x->adj_start[j]; a < x->adj_start[j + 1]; a++) {
            e->free_nb[x->adj[a]]++;
        }
        for (int32_t s = x->sec_first[j]; s <= x->sec_last[j]; s++) {
            e->rem[s] += size;
            if (s < x->sec_last[j]) {
                e->cut[s]++;
            }
        }
        e->placed[j] = false;
        e->n_placed--;
    }
    e->L         = lv->L;
    e->closed    = lv->closed;
    e->cur       = lv->cur;
    e->last_rank = lv->last_rank;
    e->slab      = lv->slab;
    e->comp      = lv->comp;
    e->pending   = lv->pending;
    e->arena_len = lv->arena_len;
    e->h1        = lv->h1;
    e->h2        = lv->h2;
    lv->item     = -2;
}


void galloc_exact_state_key(const struct exact * e, uint64_t * k1, uint64_t * k2) {
    uint64_t extra = galloc_exact_mix64(e->L ^ galloc_exact_mix64((uint64_t) (uint32_t) e->last_rank ^ ((uint64_t) (uint32_t) e->comp.lo << 32)) ^
                           galloc_exact_mix64((uint64_t) (uint32_t) e->comp.hi + 77) ^ galloc_exact_mix64((uint64_t) e->kind * 0x9e3779b97f4a7c15ULL + 5));
    if (!e->unlimited) {
        extra = galloc_exact_mix64(extra ^ galloc_exact_mix64(e->closed + 13) ^ galloc_exact_mix64(e->cur * 31 + (uint64_t) e->slab));
    }
    for (int32_t c = e->pending; c >= 0; c = e->arena[c].next) {
        const struct comp * pc = &e->arena[c].c;
        extra = galloc_exact_mix64(extra ^ pc->L0 ^ galloc_exact_mix64(((uint64_t) (uint32_t) pc->lo << 32) ^ (uint64_t) (uint32_t) pc->hi ^
                                            ((uint64_t) (uint32_t) pc->rank0 << 16)) ^ pc->epoch);
    }
    extra = galloc_exact_mix64(extra ^ e->comp.epoch);
    *k1 = e->h1 ^ extra;
    *k2 = e->h2 ^ galloc_exact_mix64(extra + 0x51ed27ULL);
    if ((*k1 | *k2) == 0) {
        *k1 = 1;
    }
}

bool galloc_exact_memo_find(const struct exact * e, uint64_t k1, uint64_t k2) {
    if (!e->memo || e->perturbed) {
        return false;
    }
    for (uint32_t i = (uint32_t) k1 & e->memo_mask, probes = 0; probes < 16; i = (i + 1) & e->memo_mask, probes++) {
        uint64_t a = e->memo[2 * i], b = e->memo[2 * i + 1];
        if ((a | b) == 0) {
            return false;
        }
        if (a == k1 && b == k2) {
            return true;
        }
    }
    return false;
}

bool galloc_exact_memo_init(struct exact * e, uint32_t slots) {
    free(e->memo);
    free(e->memo_slots);
    e->memo_mask  = slots - 1;
    e->memo_used  = 0;
    e->memo       = calloc(2 * (size_t) slots, sizeof(uint64_t));
    e->memo_slots = malloc((size_t) slots / 2 * sizeof(uint32_t) + sizeof(uint32_t));
    if (!e->memo || !e->memo_slots) {
        free(e->memo);
        free(e->memo_slots);
        e->memo       = NULL;
        e->memo_slots = NULL;
        return false;
    }
    return true;
}

static void memo_insert(struct exact * e, uint64_t k1, uint64_t k2) {
    for (uint32_t i = (uint32_t) k1 & e->memo_mask, probes = 0; probes < 16; i = (i + 1) & e->memo_mask, probes++) {
        if ((e->memo[2 * i] | e->memo[2 * i + 1]) == 0) {
            e->memo[2 * i]     = k1;
            e->memo[2 * i + 1] = k2;
            e->memo_slots[e->memo_used++] = i;
            return;
        }
    }
}

// twice the slots, the keys moved over; false when there is no room to grow (the table stays)
static bool memo_grow(struct exact * e) {
    uint32_t slots = 2 * (e->memo_mask + 1);
    if (slots > e->memo_most) {
        return false;
    }
    struct exact old = *e; // its memo arrays only
    e->memo       = NULL;
    e->memo_slots = NULL;
    if (!galloc_exact_memo_init(e, slots)) {
        e->memo       = old.memo;
        e->memo_slots = old.memo_slots;
        e->memo_mask  = old.memo_mask;
        e->memo_used  = old.memo_used;
        e->memo_most  = old.memo_mask + 1;
        return false;
    }
    for (uint32_t k = 0; k < old.memo_used; k++) {
        uint32_t i = old.memo_slots[k];
        memo_insert(e, old.memo[2 * i], old.memo[2 * i + 1]);
    }
    free(old.memo);
    free(old.memo_slots);
    return true;
}

void galloc_exact_memo_add(struct exact * e, uint64_t k1, uint64_t k2) {
    if (!e->memo || e->perturbed || (e->memo_used > e->memo_mask / 2 && !memo_grow(e))) {
        return; // full enough: stop learning; a perturbed order's states are never met again
    }
    memo_insert(e, k1, k2);
}

void galloc_exact_memo_clear(struct exact * e) {
    for (uint32_t k = 0; k < e->memo_used; k++) {
        e->memo[2 * e->memo_slots[k]]     = 0;
        e->memo[2 * e->memo_slots[k] + 1] = 0;
    }
    e->memo_used = 0;
}

