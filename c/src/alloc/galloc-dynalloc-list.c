// galloc-dynalloc-list.c: a chunk's free blocks as upstream's array, changed by upstream's scans.
//
// Every rule here is upstream's ggml_dyn_tallocr literally (ggml-alloc.c of ggml 0.21.0), so it
// holds in any state, including those zero-byte releases leave; only the 256-block limit is gone.

#include "galloc-dynalloc-chunk.h"

#include <stdlib.h>
#include <string.h>

void galloc_block_list_free(struct galloc_block_list * l) {
    free(l->blocks);
    memset(l, 0, sizeof(*l));
}

static bool list_reserve(struct galloc_block_list * l, int32_t n) {
    if (n <= l->capacity) {
        return true;
    }
    if (l->capacity > INT32_MAX / 2) {
        return false;
    }
    int32_t capacity = l->capacity ? l->capacity * 2 : 16;
    while (capacity < n) {
        capacity *= 2;
    }
    struct galloc_free_block * blocks = realloc(l->blocks, (size_t) capacity * sizeof(*blocks));
    if (!blocks) {
        return false;
    }
    l->blocks   = blocks;
    l->capacity = capacity;
    return true;
}

static bool list_insert(struct galloc_block_list * l, int32_t pos, uint64_t offset, uint64_t size) {
    if (!list_reserve(l, l->n + 1)) {
        return false;
    }
    memmove(&l->blocks[pos + 1], &l->blocks[pos], (size_t) (l->n - pos) * sizeof(*l->blocks));
    l->blocks[pos] = (struct galloc_free_block) { offset, size };
    l->n++;
    return true;
}

static void list_remove(struct galloc_block_list * l, int32_t pos) {
    memmove(&l->blocks[pos], &l->blocks[pos + 1], (size_t) (l->n - pos - 1) * sizeof(*l->blocks));
    l->n--;
}

bool galloc_block_list_push(struct galloc_block_list * l, uint64_t offset, uint64_t size) {
    return list_insert(l, l->n, offset, size);
}

int32_t galloc_block_list_best_inner(const struct galloc_block_list * l, uint64_t size) {
    int32_t  best      = -1;
    uint64_t best_size = UINT64_MAX;
    for (int32_t i = 0; i < l->n - 1; i++) {
        uint64_t s = l->blocks[i].size;
        if (s >= size && s <= best_size) {
            best      = i;
            best_size = s;
        }
    }
    return best;
}

void galloc_block_list_take(struct galloc_block_list * l, int32_t i, uint64_t size) {
    l->blocks[i].offset += size;
    l->blocks[i].size -= size;
    if (l->blocks[i].size == 0) {
        list_remove(l, i);
    }
}

bool galloc_block_list_release(struct galloc_block_list * l, uint64_t offset, uint64_t size) {
    for (int32_t i = 0; i < l->n; i++) {
        struct galloc_free_block * b = &l->blocks[i];
        if (b->offset + b->size == offset) {
            b->size += size;
            if (i < l->n - 1 && b->offset + b->size == l->blocks[i + 1].offset) {
                b->size += l->blocks[i + 1].size;
                list_remove(l, i + 1);
            }
            return true;
        }
        if (offset + size == b->offset) {
            b->offset = offset;
            b->size += size;
            if (i > 0 && l->blocks[i - 1].offset + l->blocks[i - 1].size == b->offset) {
                l->blocks[i - 1].size += b->size;
                list_remove(l, i);
            }
            return true;
        }
    }
    int32_t pos = 0;
    while (pos < l->n && l->blocks[pos].offset < offset) {
        pos++;
    }
    return list_insert(l, pos, offset, size);
}

bool galloc_block_list_is_regular(const struct galloc_block_list * l) {
    for (int32_t i = 0; i < l->n; i++) {
        if (l->blocks[i].size == 0 || (i > 0 && l->blocks[i - 1].offset + l->blocks[i - 1].size >= l->blocks[i].offset)) {
            return false;
        }
    }
    return true;
}
