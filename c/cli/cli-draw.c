// cli-draw.c: text drawing of a plan (see cli-draw.h), in the manner of TFLite Micro's PrintMemoryPlan.
//
// A column covers chunk_size / width bytes; a cell shows the tensor (non-view)
// holding the byte at the column's middle at that step, '.' when none does. Tensors cycle
// through 62 symbols; the legend after each chunk names the ones drawn.

#include "cli-draw.h"
#include "cli-io.h"

#include <stdlib.h>
#include <string.h>

static const char symbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static char symbol_of(int32_t t) {
    return symbols[t % (int32_t) (sizeof(symbols) - 1)];
}

static bool live_at(const struct galloc_place * p, int32_t step) {
    return p->first_step <= step && step <= p->last_step;
}

static void draw_chunk(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t buffer,
                       int32_t chunk, uint64_t size, int width, int max_rows, char * row) {
    if ((uint64_t) width > size) {
        width = (int) size; // no column narrower than a byte
    }
    int32_t first = -1, last = plan->n_steps - 1;
    int32_t steps = last - first + 1;
    int     rows  = steps < max_rows ? steps : max_rows;
    char name[4 * 64 + 1];
    fprintf(out, "buffer %d (%s) chunk %d: %llu bytes, %d columns of %.1f bytes; step down\n", buffer,
            cli_safe_text(name, sizeof(name), doc->buffer_type_names[buffer], 64, 0),
            chunk, (unsigned long long) size, width, (double) size / width);
    for (int r = 0; r < rows; r++) {
        int32_t step = first + (int32_t) ((int64_t) r * (steps - 1) / (rows > 1 ? rows - 1 : 1));
        memset(row, '.', (size_t) width);
        for (int32_t t = 0; t < plan->n_tensors; t++) {
            const struct galloc_place * p = &plan->places[t];
            if (p->buffer != buffer || p->chunk != chunk || p->how == GALLOC_HOW_VIEW || !live_at(p, step)) {
                continue;
            }
            for (int c = 0; c < width; c++) {
                double middle = (double) size * (c + 0.5) / width;
                if ((double) p->offset <= middle && middle < (double) (p->offset + p->size)) {
                    row[c] = symbol_of(t);
                }
            }
        }
        fprintf(out, "%6d |%.*s|\n", step, width, row);
    }
    if (rows < steps) {
        fprintf(out, "       (%d of %d steps shown, evenly spread)\n", rows, steps);
    }
}

void cli_draw_plan(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, int width, int max_rows) {
    char * row = malloc((size_t) width + 1);
    if (!row) {
        fprintf(out, "(out of memory drawing the plan)\n");
        return;
    }
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        const struct galloc_buffer_plan * bp = &plan->buffers[b];
        for (int32_t c = 0; bp->shared_with < 0 && c < bp->n_chunks; c++) {
            if (bp->chunk_sizes[c] > 0) {
                draw_chunk(out, doc, plan, b, c, bp->chunk_sizes[c], width, max_rows, row);
            }
        }
    }
    fprintf(out, "symbols: tensor i is drawn as the (i mod 62)-th of %s\n", symbols);
    free(row);
}
