// cli-table.c: prints a plan as a table (see cli-table.h).
//
// Tensors come in graph order (leafs, then nodes); the "how" column says in
// words why a tensor is where it is, as the web UI's tooltip does.

#include "cli-table.h"
#include "cli-io.h"
#include "galloc-explain.h" // galloc_explain_percent: the overhead's percentage, as the explanation and the UI show it

static void describe_how(char * buf, size_t size, const struct galloc_document * doc, const struct galloc_place * p) {
    char name[4 * 64 + 1];
    switch ((enum galloc_how) p->how) {
        case GALLOC_HOW_INPLACE:
            snprintf(buf, size, "in place of #%d %s", p->parent, cli_safe_text(name, sizeof(name), doc->tensor_names[p->parent], 0, 0));
            break;
        case GALLOC_HOW_VIEW:
            snprintf(buf, size, "view of #%d %s", p->parent, cli_safe_text(name, sizeof(name), doc->tensor_names[p->parent], 0, 0));
            break;
        default:
            snprintf(buf, size, "%s", galloc_how_name((enum galloc_how) p->how));
            break;
    }
}

static void print_row(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t t) {
    const struct galloc_place * p = &plan->places[t];
    if (p->buffer < 0) {
        return;
    }
    char how[320], steps[32], name[4 * 32 + 1];
    describe_how(how, sizeof(how), doc, p);
    snprintf(steps, sizeof(steps), "%d..%d", p->first_step, p->last_step);
    // names: control characters shown as '?', cut at 32 characters (not bytes), padded to 32
    fprintf(out, "%6d  %s %-10.10s %-11s %3d %5d %14llu %14llu  %s\n", t, cli_safe_text(name, sizeof(name), doc->tensor_names[t], 32, 32),
            galloc_document_op_desc(doc, t), steps, p->buffer, p->chunk,
            (unsigned long long) p->offset, (unsigned long long) p->size, how);
}

void cli_print_table(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan) {
    fprintf(out, "%6s  %-32s %-10s %-11s %3s %5s %14s %14s  %s\n", "#", "name", "op", "steps", "buf", "chunk", "offset", "size", "how");
    for (int32_t i = 0; i < doc->n_leafs; i++) {
        print_row(out, doc, plan, doc->leafs[i]);
    }
    for (int32_t i = 0; i < doc->n_nodes; i++) {
        print_row(out, doc, plan, doc->nodes[i]);
    }

    unsigned long long total = 0;
    fprintf(out, "\n");
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        const struct galloc_buffer_plan * bp = &plan->buffers[b];
        char bname[4 * 64 + 1];
        fprintf(out, "buffer %d (%s): %d chunk%s [", b, cli_safe_text(bname, sizeof(bname), doc->buffer_type_names[b], 64, 0), bp->n_chunks, bp->n_chunks == 1 ? "" : "s");
        for (int32_t c = 0; c < bp->n_chunks; c++) {
            fprintf(out, "%s%llu", c ? ", " : "", (unsigned long long) bp->chunk_sizes[c]);
        }
        fprintf(out, "]");
        if (bp->shared_with >= 0) {
            fprintf(out, ", shared with buffer %d\n", bp->shared_with);
            continue;
        }
        double overhead = galloc_explain_percent(bp->size - bp->peak_live, bp->peak_live);
        fprintf(out, ", total %llu bytes, peak live %llu bytes, overhead %llu bytes (%.2f %%)\n", (unsigned long long) bp->size,
                (unsigned long long) bp->peak_live, (unsigned long long) (bp->size - bp->peak_live), overhead);
        total += bp->size;
    }
    fprintf(out, "total %llu bytes over %d steps, %d tensors in place\n", total, plan->n_steps, plan->n_inplace);
}
