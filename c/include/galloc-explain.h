// galloc-explain.h: why a compute buffer is this big: the peak, what is live there, over time.
//
// From a graph document and its plan (ggml's, or any plan of the same tensors), per buffer
// type: the allocator's size, the peak of live bytes and the step of the peak, the tensors
// live there largest first, for every chunk the tensor whose placement last raised its size,
// and two series over the steps: the live bytes and the allocator's high-water mark. Tensors
// carry the layer their name gives (galloc-layer.h) so results fold per layer. Two analyses
// compare (galloc_explain_compare): both sizes, the difference, and the tensors behind it.
// Data in, data out: printing lives in the CLI, drawing in the web UI.
//
// Example usage:
//
//   struct galloc_explain ex;
//   struct galloc_error err;
//   if (galloc_explain_plan(&doc, &plan, &ex, &err)) {
//       const struct galloc_explain_buffer * b = &ex.buffers[0];
//       printf("peak %llu at step %d: %s\n", b->peak_live, b->peak_step, doc.tensor_names[b->live[0].tensor]);
//       galloc_explain_free(&ex);
//   }
//
// What "live" means, exactly as the planner counts it (so the series' maximum is the plan's
// peak_live): a tensor holds its alloc size, rounded up to the alignment, in its allocator from
// the step it is placed (first_step) to the step it is freed or taken over in place (last_step),
// both inclusive. A tensor placed in place over its parent holds the memory from the step after
// its placement: during that step its parent still counts, whole. Views and external tensors
// hold nothing. Within a step the allocator places first and frees after the node is computed,
// so the live bytes of a step are the most held during it.
//
// Series have n_steps + 1 entries: index 0 is before the first node (step -1, leafs and inputs),
// index s + 1 is step s. They are kept as the indices where they change (struct
// galloc_explain_series), so that an explanation takes memory linear in the tensors and steps,
// not steps times buffer types; galloc_explain_series_at and _expand read them. The high-water mark of a step is the sum over chunks of the highest end
// (offset + rounded size) placed in them up to and including that step; its last entry is the
// allocator's size for ggml's plans.

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"
#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// one tensor holding memory at the peak
struct galloc_explain_live {
    int32_t  tensor; // index in the document
    uint64_t bytes;  // rounded alloc size it holds
};

// the tensors live at the peak that share a layer-folded name ("kq_soft_max-*"; a name without
// a layer is its own group)
struct galloc_explain_group {
    char     name[GGML_MAX_NAME + 8]; // folded name; "#12" for an unnamed tensor 12
    int32_t  count;       // tensors
    uint64_t bytes;       // their bytes, summed
    int32_t  tensor;      // the largest of them (ties: lowest index)
    int32_t  first_layer; // lowest and highest layer among them, -1 when the name carries none
    int32_t  last_layer;
};

// a series over indices 0 .. n_steps, kept where it changes: bytes[k] holds from index at[k] up to
// at[k + 1] - 1 (the last to the end); at[0] = 0, at[] increasing; n = 0 for a shared buffer type
struct galloc_explain_series {
    int32_t    n;
    int32_t  * at;
    uint64_t * bytes;
};

struct galloc_explain_buffer {
    int32_t  buffer_type;  // index in the document
    int32_t  shared_with;  // earlier buffer type whose allocator this one uses (its numbers are there), or -1
    uint64_t alignment;    // bytes
    uint64_t size;         // bytes: the allocator's size (sum of the chunk sizes); 0 when shared
    uint64_t peak_live;    // bytes: the most held live at one step (the lower bound of any plan)
    int32_t  peak_step;    // first step where the live bytes reach peak_live (-1: before the first node)
    uint64_t overhead;     // bytes above the peak (galloc_overhead_bytes(size, peak_live)): packing
    int32_t  n_live;       // tensors holding memory at peak_step
    struct galloc_explain_live * live; // n_live entries, most bytes first (ties: lower index first)
    int32_t  n_chunks;
    uint64_t chunk_sizes[GALLOC_MAX_CHUNKS];  // bytes, as the plan says
    int32_t  chunk_raiser[GALLOC_MAX_CHUNKS]; // tensor whose placement last raised the chunk's highest end, -1: none
    int32_t  chunk_raiser_step[GALLOC_MAX_CHUNKS]; // the step it was placed at
    uint64_t chunk_raiser_offset[GALLOC_MAX_CHUNKS]; // its offset in the chunk, bytes
    uint64_t chunk_raiser_bytes[GALLOC_MAX_CHUNKS];  // its rounded size: offset + bytes = the chunk's size for ggml's plans
    int32_t  n_groups;     // the live set folded by layer (galloc_layer_fold), most bytes first (ties: by name)
    struct galloc_explain_group * groups;
    struct galloc_explain_series live_bytes; // see above; n = 0 when shared
    struct galloc_explain_series high_water;
};

struct galloc_explain {
    int32_t n_steps;                        // the graph's nodes
    int32_t n_buffers;                      // = the document's buffer types
    struct galloc_explain_buffer * buffers;
    int32_t   n_tensors;
    int32_t * layer;      // per tensor, the layer its name carries, -1 none
    int32_t   n_layers;   // 1 + the largest layer, 0 when no name carries one
    int32_t * hold_buffer; // per tensor, the buffer type whose allocator holds its memory, -1: holds none
    int32_t * hold_first; // per tensor, first step it holds memory of its own (see above); > hold_last: never
    int32_t * hold_last;  // per tensor, last step
    uint64_t * hold_bytes; // per tensor, rounded bytes held (0: holds none)
    int32_t  * hold_chunk;  // per tensor, the chunk of its memory (-1: holds none)
    uint64_t * hold_offset; // per tensor, its offset in that chunk, bytes
    int32_t  * held;        // the tensors holding memory, by allocator (in index order within one)
    int32_t  * held_start;  // n_buffers + 1 entries: allocator b's are held[held_start[b] .. held_start[b + 1] - 1]
};

// analyse plan (made for doc->graph, or any plan of its tensors with places and lifetimes).
// false with err set: GALLOC_STATUS_ARGUMENT when the plan does not fit the document, NO_MEMORY.
bool galloc_explain_plan(const struct galloc_document * doc, const struct galloc_plan * plan,
                         struct galloc_explain * out, struct galloc_error * err);
// release everything; safe on a zeroed or failed result, and twice
void galloc_explain_free(struct galloc_explain * ex);

// the tensors holding memory of buffer type b at step (-1 .. n_steps - 1), most bytes first:
// writes at most max entries to out, returns how many there are (may exceed max)
// (a buffer type sharing an earlier one's allocator has nothing of its own: 0)
int32_t galloc_explain_live_at(const struct galloc_explain * ex, int32_t b, int32_t step,
                               struct galloc_explain_live * out, int32_t max);

// entry i (0 .. n_steps) of a series; 0 for an empty one
uint64_t galloc_explain_series_at(const struct galloc_explain_series * s, int32_t i);
// the whole series, n entries (n_steps + 1), into out
void galloc_explain_series_expand(const struct galloc_explain_series * s, int32_t n, uint64_t * out);

// part as a percentage of whole (0 when whole is 0): the one rounding-free way the CLI and UI show shares
double galloc_explain_percent(uint64_t part, uint64_t whole);

// the analysis as JSON for the web UI ("galloc-explain": per buffer type size, peak, live set with
// name, op, type, ne, bytes, percent, layer; groups, chunks with their raisers, live_bytes,
// high_water; per tensor layer and hold_*). malloc'd, NUL-terminated; NULL when out of memory.
char * galloc_explain_write_json(const struct galloc_document * doc, const struct galloc_explain * ex, size_t * len);

//
// comparing two analyses
//

// one name (or layer-folded name) and the bytes it holds at each analysis' peak
struct galloc_explain_diff_row {
    char     name[GGML_MAX_NAME + 8]; // tensor name, or folded name ("kq_soft_max-*") when folding
    uint64_t bytes_a;    // at A's peak, summed over the tensors of that name
    uint64_t bytes_b;
    int32_t  count_a;    // tensors of that name live at A's peak
    int32_t  count_b;
    int32_t  tensor_a;   // one of them in A (the largest), -1 none
    int32_t  tensor_b;
};

// one tensor of one side placed (partly) above the other side's size of the same chunk: the bytes
// that side needs where the other plan needs none (for two plans of one graph, e.g. ggml's and an
// offline planner's, these are the tensors behind a packing difference; when a side's chunk is
// the larger, the highest end among its rows of that chunk is that chunk's size)
struct galloc_explain_above {
    char     name[GGML_MAX_NAME + 8]; // tensor name, "#12" for an unnamed tensor 12
    int32_t  tensor;  // index in that side's document
    int32_t  chunk;
    int32_t  step;    // first step it holds memory
    uint64_t offset;  // bytes in the chunk
    uint64_t bytes;   // rounded size it holds
    uint64_t above;   // bytes of it past the other side's chunk size: offset + bytes - max(offset, that size)
};

// one buffer type of the comparison, matched by name (or alone on one side)
struct galloc_explain_diff_buffer {
    char     name[GGML_MAX_NAME + 8];
    int32_t  buffer_a, buffer_b;   // buffer type indices, -1: absent on that side
    uint64_t size_a, size_b;       // bytes
    uint64_t peak_a, peak_b;       // bytes: peak of live bytes
    int32_t  peak_step_a, peak_step_b;
    int64_t  size_diff;            // size_b - size_a
    int64_t  peak_diff;            // peak_b - peak_a = the sum of the rows' bytes_b - bytes_a
    int64_t  overhead_diff;        // B's overhead above its peak minus A's (galloc_overhead_bytes): packing, no tensor's own bytes
    int32_t  n_rows;               // names whose bytes at the peak differ, largest |difference| first
    struct galloc_explain_diff_row * rows;
    int32_t  n_above_a;            // A's tensors above B's chunk sizes, most bytes above first (ties: lower step, index)
    struct galloc_explain_above * above_a;
    int32_t  n_above_b;            // B's tensors above A's chunk sizes
    struct galloc_explain_above * above_b;
};

struct galloc_explain_diff {
    bool     folded;  // rows are per layer-folded name
    uint64_t total_a, total_b; // bytes over all buffer types
    int32_t  n_buffers;
    struct galloc_explain_diff_buffer * buffers;
};

// compare analysis a (of doc_a) with b (of doc_b); fold: group names by galloc_layer_fold.
// false with err set (GALLOC_STATUS_NO_MEMORY) when out of memory.
bool galloc_explain_compare(const struct galloc_document * doc_a, const struct galloc_explain * a,
                            const struct galloc_document * doc_b, const struct galloc_explain * b, bool fold,
                            struct galloc_explain_diff * out, struct galloc_error * err);
void galloc_explain_diff_free(struct galloc_explain_diff * diff);

// the comparison as JSON ("galloc-explain-diff"); malloc'd, NULL when out of memory
char * galloc_explain_diff_write_json(const struct galloc_explain_diff * diff, size_t * len);

#ifdef __cplusplus
}
#endif
