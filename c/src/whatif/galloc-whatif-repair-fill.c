// galloc-whatif-repair-fill.c: one neighbourhood of the repair search placed exactly.
//
// The free items go within [0, T) among fixed obstacles (galloc-whatif-repair.h). Why the
// search below is complete: take a placement of the free items within T with the least sum of
// offsets. Each free item j then lies at the lowest offset p >= low(j) (the highest end of the
// free conflicting items below it) at which [p, p + size) misses j's obstacles: any lower such p
// would be a valid move (the free items above j end above p + size, the obstacles are missed)
// with a smaller sum. Building the placement in order of increasing offset (ties in rank order),
// each item comes at that lowest offset, computed from the items placed so far; so the search
// tries, as the next item, every unplaced one whose lowest offset is at or above the last
// offset placed (L), lowest first. Pruned, each for the least-sum placement's sake:
//  - dominance: j is not tried when another unplaced k ends at or below j's offset (k fits
//    there now, and every item placed after j lies at or above j's offset: k moved down would
//    lower the sum);
//  - an unplaced item whose lowest offset is below L (or at L, ranked before the last one) can
//    only still come if a free conflicting item is placed later and lifts it: without one, a
//    dead end; an item whose lowest offset plus its size passes T, a dead end;
//  - per section, the unplaced free items live in it all lie at or above base = max(L, the
//    floor of the placed free items there, their lowest offsets), side by side: their bytes
//    must fit in what [base, T) keeps free of fixed items there.
// Without recursion (the WebAssembly stack is small).

#include "galloc-whatif-repair.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define SECTION_INTERVALS_MOST (1 << 20) // fixed intervals the sections of one neighbourhood may keep

struct galloc_fill_level {
    int32_t  item;       // placed at this level, -1: none
    int32_t  trail_mark;
    uint64_t L;
    int32_t  last_rank;
    bool     checked, ok; // the state's consistency, once computed
    bool     started;
    uint64_t key_pos;    // the last candidate tried here: (pos, rank)
    int32_t  key_rank;
};

static int cmp_interval(const void * a, const void * b) {
    const struct galloc_fill_interval * x = a, * y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

// a grown array of count elements of size bytes; false: out of memory (the old one stays)
static bool grow(void ** arr, int32_t * cap, int64_t need, size_t size) {
    if (need <= *cap) {
        return true;
    }
    int64_t c = *cap > 0 ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    if (c > INT32_MAX) {
        return false;
    }
    void * a = realloc(*arr, (size_t) c * size);
    if (!a) {
        return false;
    }
    *arr = a;
    *cap = (int32_t) c;
    return true;
}

bool galloc_fill_init(struct galloc_fill * f, const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, int32_t most) {
    memset(f, 0, sizeof(*f));
    most        = most < p->n_items ? most : p->n_items;
    size_t m    = (size_t) (most > 0 ? most : 0) + 1;
    f->p        = p;
    f->x        = x;
    f->n        = p->n_items;
    f->most     = most;
    f->local    = malloc(((size_t) p->n_items + 1) * sizeof(int32_t));
    f->id       = malloc(m * sizeof(int32_t));
    f->size     = malloc(m * sizeof(uint64_t));
    f->rank     = malloc(m * sizeof(int32_t));
    f->low      = malloc(m * sizeof(uint64_t));
    f->off      = malloc(m * sizeof(uint64_t));
    f->placed   = malloc(m * sizeof(bool));
    f->pos      = malloc(m * sizeof(uint64_t));
    f->ob_start = malloc((m + 1) * sizeof(int32_t));
    f->nb_start = malloc((m + 1) * sizeof(int32_t));
    f->levels   = malloc((m + 1) * sizeof(struct galloc_fill_level));
    if (!f->local || !f->id || !f->size || !f->rank || !f->low || !f->off || !f->placed || !f->pos || !f->ob_start || !f->nb_start || !f->levels) {
        galloc_fill_free(f);
        return false;
    }
    for (int32_t i = 0; i < f->n; i++) {
        f->local[i] = -1;
    }
    return true;
}

void galloc_fill_free(struct galloc_fill * f) {
    free(f->local);
    free(f->id);
    free(f->size);
    free(f->rank);
    free(f->low);
    free(f->off);
    free(f->placed);
    free(f->pos);
    free(f->ob_start);
    free(f->nb_start);
    free(f->nb);
    free(f->ob);
    free(f->sec);
    free(f->iv);
    free(f->trail);
    free(f->levels);
    memset(f, 0, sizeof(*f));
}

// merges the sorted intervals a[0 .. m) in place (touching ones too); returns how many remain
static int32_t merge(struct galloc_fill_interval * a, int32_t m) {
    int32_t w = 0;
    for (int32_t r = 0; r < m; r++) {
        if (w > 0 && a[r].lo <= a[w - 1].hi) {
            a[w - 1].hi = a[r].hi > a[w - 1].hi ? a[r].hi : a[w - 1].hi;
        } else {
            a[w++] = a[r];
        }
    }
    return w;
}

// the obstacles of each free item, its free conflicting items, and per section of the window
// the fixed intervals; false: out of memory
static bool setup(struct galloc_fill * f, const uint64_t * off, uint64_t T) {
    const struct galloc_whatif_index   * x = f->x;
    const struct galloc_whatif_problem * p = f->p;
    int64_t n_adj = 0;
    f->s0 = x->n_sections;
    f->s1 = -1;
    for (int32_t j = 0; j < f->k; j++) {
        int32_t i = f->id[j];
        n_adj += x->adj_start[i + 1] - x->adj_start[i];
        f->s0 = x->sec_first[i] < f->s0 ? x->sec_first[i] : f->s0;
        f->s1 = x->sec_last[i] > f->s1 ? x->sec_last[i] : f->s1;
    }
    int32_t n_sec = f->s1 - f->s0 + 1;
    if (!grow((void **) &f->nb, &f->nb_cap, n_adj + 1, sizeof(int32_t)) || !grow((void **) &f->ob, &f->ob_cap, n_adj + 1, sizeof(struct galloc_fill_interval)) ||
        !grow((void **) &f->sec, &f->sec_cap, (int64_t) n_sec + 1, sizeof(struct galloc_fill_section))) {
        return false;
    }
    // per free item: obstacles (fixed conflicting items below T), free conflicting items; and per
    // section the fixed items live in it that conflict with a free item (a fixed item live in a
    // section with a free item conflicts with it; sections without free items need none)
    int32_t n_ob = 0, n_nb = 0;
    int64_t n_iv = 0;
    for (int32_t s = 0; s <= n_sec; s++) {
        f->sec[s] = (struct galloc_fill_section) { 0, 0, 0, 0 };
    }
    for (int32_t j = 0; j < f->k; j++) {
        int32_t i = f->id[j], b = n_ob;
        f->ob_start[j] = n_ob;
        f->nb_start[j] = n_nb;
        for (int32_t a = x->adj_start[i]; a < x->adj_start[i + 1]; a++) {
            int32_t q = x->adj[a];
            if (f->local[q] >= 0) {
                f->nb[n_nb++] = f->local[q];
            } else if (p->items[q].size > 0 && off[q] < T) {
                f->ob[n_ob++] = (struct galloc_fill_interval) { off[q], off[q] + p->items[q].size, 0 };
                if (f->local[q] == -1) { // first seen: its intervals in the window's sections
                    f->local[q] = -2;
                    int32_t a0 = x->sec_first[q] > f->s0 ? x->sec_first[q] : f->s0;
                    int32_t a1 = x->sec_last[q] < f->s1 ? x->sec_last[q] : f->s1;
                    n_iv += a1 - a0 + 1;
                }
            }
        }
        qsort(f->ob + b, (size_t) (n_ob - b), sizeof(struct galloc_fill_interval), cmp_interval);
        n_ob = b + merge(f->ob + b, n_ob - b);
    }
    f->ob_start[f->k] = n_ob;
    f->nb_start[f->k] = n_nb;
    // past SECTION_INTERVALS_MOST (long-lived fixed items over many sections) the sections keep
    // none: the per-section test then counts the free bytes against [base, T) alone, weaker but
    // still a consequence of any completion
    bool keep = n_iv <= SECTION_INTERVALS_MOST;
    bool ok   = !keep || grow((void **) &f->iv, &f->iv_cap, n_iv + 1, sizeof(struct galloc_fill_interval));
    keep      = keep && ok;
    // the fixed neighbours (marked -2) counted per section (then marked -3), the counts summed
    // into starts, the intervals put in place (and the marks cleared)
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t j = 0; j < f->k; j++) {
            int32_t i = f->id[j];
            for (int32_t a = x->adj_start[i]; a < x->adj_start[i + 1]; a++) {
                int32_t q = x->adj[a];
                if (f->local[q] != (pass == 0 ? -2 : -3)) {
                    continue;
                }
                f->local[q] = pass == 0 ? -3 : -1;
                int32_t a0 = x->sec_first[q] > f->s0 ? x->sec_first[q] : f->s0;
                int32_t a1 = x->sec_last[q] < f->s1 ? x->sec_last[q] : f->s1;
                for (int32_t s = a0; keep && s <= a1; s++) {
                    if (pass == 0) {
                        f->sec[s - f->s0 + 1].iv_start++;
                    } else {
                        f->iv[f->sec[s - f->s0].base++] = (struct galloc_fill_interval) { off[q], off[q] + p->items[q].size, 0 };
                    }
                }
            }
        }
        for (int32_t s = 0; pass == 0 && s < n_sec; s++) {
            f->sec[s + 1].iv_start += f->sec[s].iv_start;
            f->sec[s].base = (uint64_t) f->sec[s].iv_start; // scratch: where the next one goes
        }
    }
    if (!ok) {
        return false;
    }
    // merged per section, capped at T, compacted, with the bytes before each
    int32_t w = 0;
    for (int32_t s = 0; keep && s < n_sec; s++) {
        int32_t b = f->sec[s].iv_start, m = f->sec[s + 1].iv_start - b;
        qsort(f->iv + b, (size_t) m, sizeof(struct galloc_fill_interval), cmp_interval);
        m = merge(f->iv + b, m);
        f->sec[s].iv_start = w;
        uint64_t sum = 0;
        for (int32_t r = 0; r < m; r++) {
            struct galloc_fill_interval v = f->iv[b + r];
            v.hi  = v.hi < T ? v.hi : T;
            v.sum = sum;
            sum  += v.hi - v.lo;
            f->iv[w++] = v;
        }
        f->sec[s].base = 0;
    }
    f->sec[n_sec].iv_start = w;
    int64_t trail_need = 0;
    for (int32_t j = 0; j < f->k; j++) {
        int32_t i = f->id[j];
        for (int32_t s = x->sec_first[i]; s <= x->sec_last[i]; s++) {
            f->sec[s - f->s0].rem += f->size[j];
        }
        trail_need += (x->sec_last[i] - x->sec_first[i] + 1) + (f->nb_start[j + 1] - f->nb_start[j]);
    }
    return grow((void **) &f->trail, &f->trail_cap, trail_need + 1, sizeof(struct galloc_fill_undo));
}

// bytes of section s's fixed intervals below y (index s - s0)
static uint64_t fixed_below(const struct galloc_fill * f, int32_t s, uint64_t y) {
    int32_t lo = f->sec[s].iv_start, hi = f->sec[s + 1].iv_start;
    // the first interval starting at or above y
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (f->iv[mid].lo < y) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == f->sec[s].iv_start) {
        return 0;
    }
    const struct galloc_fill_interval * v = &f->iv[lo - 1];
    return v->sum + ((v->hi < y ? v->hi : y) - v->lo);
}

// the lowest offset >= low(j) where j misses its obstacles
static uint64_t lowest(const struct galloc_fill * f, int32_t j) {
    uint64_t p = f->low[j], size = f->size[j];
    int32_t  lo = f->ob_start[j], hi = f->ob_start[j + 1];
    // the first obstacle ending above p
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (f->ob[mid].hi <= p) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (int32_t r = lo; r < f->ob_start[j + 1] && f->ob[r].lo < p + size; r++) {
        p = f->ob[r].hi > p ? f->ob[r].hi : p;
    }
    return p;
}

static bool has_unplaced_neighbour(const struct galloc_fill * f, int32_t j) {
    for (int32_t a = f->nb_start[j]; a < f->nb_start[j + 1]; a++) {
        if (!f->placed[f->nb[a]]) {
            return true;
        }
    }
    return false;
}

// may the partial placement (floor L, last rank) still be completed within T? Leaves pos[]
static bool consistent(struct galloc_fill * f, uint64_t L, int32_t last_rank, uint64_t T) {
    const struct galloc_whatif_index * x = f->x;
    int32_t n_sec = f->s1 - f->s0 + 1;
    for (int32_t s = 0; s < n_sec; s++) {
        f->sec[s].base = UINT64_MAX;
    }
    for (int32_t j = 0; j < f->k; j++) {
        if (f->placed[j]) {
            continue;
        }
        uint64_t pos = lowest(f, j);
        f->pos[j]    = pos;
        if (pos + f->size[j] > T) {
            return false;
        }
        if ((pos < L || (pos == L && f->rank[j] < last_rank)) && !has_unplaced_neighbour(f, j)) {
            return false; // stuck for good
        }
        int32_t i = f->id[j];
        for (int32_t s = x->sec_first[i]; s <= x->sec_last[i]; s++) {
            struct galloc_fill_section * c = &f->sec[s - f->s0];
            c->base = pos < c->base ? pos : c->base;
        }
    }
    for (int32_t s = 0; s < n_sec; s++) {
        const struct galloc_fill_section * c = &f->sec[s];
        if (c->rem == 0) {
            continue;
        }
        uint64_t b = c->base;
        b = L > b ? L : b;
        b = c->floor > b ? c->floor : b;
        if (b >= T || c->rem > (T - b) - (fixed_below(f, s, T) - fixed_below(f, s, b))) {
            return false;
        }
    }
    return true;
}

// the next item to try at this level (after its last key), lowest (pos, rank) first; -1: none.
// fresh: pos[] holds this state's lowest offsets already (consistent() has just set them)
static int32_t next_candidate(struct galloc_fill * f, const struct galloc_fill_level * lv, uint64_t L, int32_t last_rank, uint64_t T, bool fresh) {
    uint64_t min_end = UINT64_MAX;
    for (int32_t j = 0; j < f->k; j++) {
        if (!f->placed[j]) {
            f->pos[j] = fresh ? f->pos[j] : lowest(f, j);
            uint64_t end = f->pos[j] + f->size[j];
            min_end = end < min_end ? end : min_end;
        }
    }
    int32_t best = -1;
    for (int32_t j = 0; j < f->k; j++) {
        if (f->placed[j]) {
            continue;
        }
        uint64_t pos = f->pos[j];
        int32_t  r   = f->rank[j];
        if (pos < L || (pos == L && r < last_rank) || pos >= min_end || pos + f->size[j] > T) {
            continue; // not canonical, dominated, or too high
        }
        if (lv->started && (pos < lv->key_pos || (pos == lv->key_pos && r <= lv->key_rank))) {
            continue; // tried already
        }
        if (best >= 0 && (pos > f->pos[best] || (pos == f->pos[best] && r > f->rank[best]))) {
            continue;
        }
        best = j;
    }
    return best;
}

static void place(struct galloc_fill * f, int32_t * trail_len, int32_t j, uint64_t pos) {
    const struct galloc_whatif_index * x = f->x;
    uint64_t end = pos + f->size[j];
    f->off[j]    = pos;
    f->placed[j] = true;
    for (int32_t a = f->nb_start[j]; a < f->nb_start[j + 1]; a++) {
        int32_t q = f->nb[a];
        if (!f->placed[q] && f->low[q] < end) {
            f->trail[(*trail_len)++] = (struct galloc_fill_undo) { q, f->low[q] };
            f->low[q] = end;
        }
    }
    int32_t i = f->id[j];
    for (int32_t s = x->sec_first[i] - f->s0; s <= x->sec_last[i] - f->s0; s++) {
        struct galloc_fill_section * c = &f->sec[s];
        c->rem -= f->size[j];
        if (c->floor < end) {
            f->trail[(*trail_len)++] = (struct galloc_fill_undo) { -1 - s, c->floor };
            c->floor = end;
        }
    }
}

static void undo(struct galloc_fill * f, int32_t * trail_len, const struct galloc_fill_level * lv) {
    const struct galloc_whatif_index * x = f->x;
    while (*trail_len > lv->trail_mark) {
        (*trail_len)--;
        struct galloc_fill_undo u = f->trail[*trail_len];
        if (u.idx >= 0) {
            f->low[u.idx] = u.val;
        } else {
            f->sec[-1 - u.idx].floor = u.val;
        }
    }
    int32_t j = lv->item, i = f->id[j];
    for (int32_t s = x->sec_first[i] - f->s0; s <= x->sec_last[i] - f->s0; s++) {
        f->sec[s].rem += f->size[j];
    }
    f->placed[j] = false;
}

bool galloc_fill_solve(struct galloc_fill * f, uint64_t * off, const int32_t * items, const int32_t * rank, int32_t k, uint64_t T,
                       uint64_t node_limit, double deadline, enum galloc_fill_end * end) {
    assert(k <= f->most);
    f->k = k;
    for (int32_t q = 0; q < k; q++) {
        int32_t i   = items[q];
        f->local[i] = q;
        f->id[q]    = i;
        f->size[q]  = f->p->items[i].size;
        f->rank[q]  = rank[q];
        f->low[q]   = 0;
        f->placed[q] = false;
    }
    bool ok = k == 0 || setup(f, off, T);
    if (ok && k > 0) {
        int32_t  depth = 0, trail_len = 0;
        uint64_t L = 0;
        int32_t  last_rank = -1;
        uint64_t nodes = 0;
        f->levels[0] = (struct galloc_fill_level) { .item = -1 };
        *end = GALLOC_FILL_NONE;
        for (;;) {
            if (depth == k) {
                *end = GALLOC_FILL_FOUND;
                break;
            }
            struct galloc_fill_level * lv = &f->levels[depth];
            bool fresh = false; // pos[] is this state's until a deeper level overwrites it
            if (!lv->checked) {
                lv->checked = true;
                lv->ok      = consistent(f, L, last_rank, T);
                fresh       = lv->ok;
            }
            int32_t j = lv->ok ? next_candidate(f, lv, L, last_rank, T, fresh) : -1;
            if (j >= 0) {
                if (++nodes > node_limit || ((nodes & 63) == 0 && galloc_whatif_now_ms() > deadline)) {
                    *end = GALLOC_FILL_LIMIT;
                    break;
                }
                lv->started    = true;
                lv->key_pos    = f->pos[j];
                lv->key_rank   = f->rank[j];
                lv->item       = j;
                lv->trail_mark = trail_len;
                lv->L          = L;
                lv->last_rank  = last_rank;
                place(f, &trail_len, j, f->pos[j]);
                L         = f->off[j];
                last_rank = f->rank[j];
                depth++;
                f->levels[depth] = (struct galloc_fill_level) { .item = -1 };
                continue;
            }
            if (depth == 0) {
                break; // every alternative failed: none
            }
            depth--;
            lv = &f->levels[depth];
            undo(f, &trail_len, lv);
            L         = lv->L;
            last_rank = lv->last_rank;
        }
        f->nodes += nodes;
        if (*end == GALLOC_FILL_FOUND) {
            for (int32_t q = 0; q < k; q++) {
                off[f->id[q]] = f->off[q];
            }
        }
    } else if (ok) {
        *end = GALLOC_FILL_FOUND;
    }
    for (int32_t q = 0; q < k; q++) {
        f->local[items[q]] = -1;
    }
    return ok;
}
