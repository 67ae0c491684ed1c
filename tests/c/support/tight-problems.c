// tight-problems.c: random tight what-if problems cut from a square (tight-problems.h).
//
// Its own seeded generator (xorshift64*), so that a problem depends only on its seed and size,
// not on what else a test binary draws.

#include "tight-problems.h"

#include <stdbool.h>

struct piece {
    int32_t t0, t1, b0, b1; // steps [t0, t1), units [b0, b1)
};

static uint64_t next(uint64_t * s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dULL;
}

static int32_t below(uint64_t * s, int32_t n) {
    return (int32_t) (next(s) % (uint64_t) n);
}

static int64_t area(const struct piece * p) {
    return (int64_t) (p->t1 - p->t0) * (p->b1 - p->b0);
}

static struct piece piece_of(const struct galloc_whatif_item * items, const uint64_t * offsets, int32_t i) {
    return (struct piece) { (int32_t) items[i].first, (int32_t) items[i].last, (int32_t) offsets[i], (int32_t) (offsets[i] + items[i].size) };
}

int32_t tight_problem(uint64_t seed, int32_t n, int32_t side, uint64_t unit, enum tight_style style, int32_t holes_percent,
                      struct galloc_whatif_item * items, uint64_t * offsets) {
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    int32_t  kept = n;
    n = holes_percent > 0 && holes_percent < 100 ? (int32_t) ((int64_t) n * 100 / (100 - holes_percent)) : n;
    // while cutting, piece i is items[i] (first = t0, last = t1, size = b1 - b0) with offsets[i] = b0
    int32_t m = 1;
    items[0] = (struct galloc_whatif_item) { 0, 1, (uint64_t) side, 0, side };
    offsets[0] = 0;
    while (m < n) {
        // the piece to cut
        int32_t pick = -1;
        if (style == TIGHT_EVEN) {
            int64_t best = 1;
            for (int32_t i = 0; i < m; i++) {
                struct piece p = piece_of(items, offsets, i);
                if (area(&p) > best) {
                    best = area(&p);
                    pick = i;
                }
            }
        } else {
            for (int tries = 0; tries < 64 && pick < 0; tries++) {
                int32_t i = below(&s, m);
                pick = items[i].size >= 2 || items[i].last - items[i].first >= 2 ? i : -1;
            }
        }
        if (pick < 0) {
            break; // nothing left to cut
        }
        struct piece p = piece_of(items, offsets, pick);
        bool can_time = p.t1 - p.t0 >= 2, can_bytes = p.b1 - p.b0 >= 2;
        bool in_time  = can_time && (!can_bytes || below(&s, 2) == 0);
        struct piece a = p, b = p;
        if (in_time) {
            int32_t c = p.t0 + 1 + below(&s, p.t1 - p.t0 - 1);
            a.t1 = c;
            b.t0 = c;
        } else {
            int32_t c = p.b0 + 1 + below(&s, p.b1 - p.b0 - 1);
            a.b1 = c;
            b.b0 = c;
        }
        items[pick] = (struct galloc_whatif_item) { pick, 1, (uint64_t) (a.b1 - a.b0), a.t0, a.t1 };
        offsets[pick] = (uint64_t) a.b0;
        items[m] = (struct galloc_whatif_item) { m, 1, (uint64_t) (b.b1 - b.b0), b.t0, b.t1 };
        offsets[m] = (uint64_t) b.b0;
        m++;
    }
    // to items: live over steps [t0, t1 - 1], bytes scaled; then shuffled
    for (int32_t i = 0; i < m; i++) {
        items[i].last -= 1;
        items[i].size *= unit;
        offsets[i] *= unit;
    }
    for (int32_t i = m - 1; i > 0; i--) {
        int32_t                   k  = below(&s, i + 1);
        struct galloc_whatif_item it = items[i];
        uint64_t                  o  = offsets[i];
        items[i] = items[k], offsets[i] = offsets[k];
        items[k] = it, offsets[k] = o;
    }
    m = m < kept ? m : kept; // the pieces past kept are the holes
    for (int32_t i = 0; i < m; i++) {
        items[i].id = i;
    }
    return m;
}

void tight_stacked(const struct galloc_whatif_problem * p, int32_t * chunks, uint64_t * offsets) {
    uint64_t at = 0;
    for (int32_t i = 0; i < p->n_items; i++) {
        if (chunks != NULL) {
            chunks[i] = 0;
        }
        offsets[i] = at;
        at += p->items[i].size;
    }
}
