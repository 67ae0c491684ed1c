// capture.h: the capture library's internal interface.
//
// libgalloc-capture.so is preloaded into a ggml program (LD_PRELOAD, or
// DYLD_INSERT_LIBRARIES on macOS). It stands in front of ggml's graph
// allocator (capture-hooks.c), keeps what it learns about each allocator
// (capture-registry.c), replays upstream's "does this graph still fit" test
// (capture-replay.c), writes each reserved graph once as a graph document
// (capture-output.c) and the placement ggml made as a plan document
// (capture-placement.c), and says at start-up and exit what it saw
// (capture-startup.c). docs/capture.md.

#pragma once

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAPTURE_MAX_CHUNKS 64

// the backend buffers of one buffer type's chunks, in chunk order, as the last reserve that
// (re)allocated them asked for them
struct capture_chunks {
    ggml_backend_buffer_t buffers[CAPTURE_MAX_CHUNKS];
    int                   n;
    unsigned              epoch; // the reserve that allocated them
    bool                  known; // false: never seen allocated (the fallback numbers chunks in order of use)
};

// one recorded assignment, as ggml's struct tensor_alloc keeps it for needs_realloc
struct capture_slot {
    int    buffer_id; // -1: the tensor had memory or was a view when the graph was reserved
    size_t size_max;  // bytes reserved for it (0 with buffer_id -1)
};

// what upstream's ggml_gallocr_needs_realloc compares, recorded at every reserve
struct capture_replay {
    bool                  valid;   // a reserve was recorded
    int                   n_nodes; // the graph's counts at that reserve
    int                   n_leafs;
    struct capture_slot * slots;   // [n_nodes * (1 + GGML_MAX_SRC)]: node i's dst, then its source slots
    size_t                cap;
};

// where each tensor of the last reserved graph's document sits in the graph, and what the
// reserve saw of it: ggml_gallocr_alloc_graph places a later graph that still fits by these
// positions (node i, source slot j of node i, leaf i), with the reserve's plan
enum capture_position_kind { CAPTURE_AT_LEAF, CAPTURE_AT_NODE, CAPTURE_AT_SOURCE };

struct capture_position {
    int32_t kind; // enum capture_position_kind
    int32_t index; // leaf or node index
    int32_t slot;  // source slot (CAPTURE_AT_SOURCE)
};

struct capture_layout {
    int32_t                   n;        // tensors in the document
    int32_t                   n_extra;  // buffer types the document lists after the allocator's
    struct capture_position * pos;      // [n] the first position of tensors[k]
    bool                    * view;     // [n]
    int32_t                 * root;     // [n] a view's source of memory (document index), -1 otherwise
    uint64_t                * offs;     // [n] a view's byte offset into it
    int32_t                 * src;      // [n * GGML_MAX_SRC] document indices of its sources, -1 none
    int32_t                 * first_id; // [n] the buffer id the reserve first placed it with, -1 none
    uint64_t                * bytes;    // [n * n_bufts] its alloc size for each buffer type (views: ggml_nbytes)
};

struct capture_alloc {
    ggml_gallocr_t               galloc;
    int                          n_bufts;
    ggml_backend_buffer_type_t * bufts;  // as given to ggml_gallocr_new_n
    int                        * leader; // [n_bufts] first index with the same type: ggml shares its allocator
    struct capture_chunks      * chunks; // [n_bufts], meaningful at leaders
    unsigned                     epoch;  // reserves so far
    struct capture_replay        replay;
    struct capture_layout        layout;
    int                          graph;              // written-graph index of the last reserve, -1 none
    bool                         placement_pending;  // that graph's placement is still to be written
    struct capture_alloc       * next;
};

// ---- registry (capture-registry.c); callers hold the capture lock --------------------

struct capture_alloc * capture_alloc_add(ggml_gallocr_t galloc, ggml_backend_buffer_type_t * bufts, int n_bufts);
struct capture_alloc * capture_alloc_find(ggml_gallocr_t galloc);
void                   capture_alloc_remove(ggml_gallocr_t galloc);
// a reserve starts: chunk lists of types it allocates are replaced
void capture_alloc_begin_reserve(struct capture_alloc * ca);
// ggml_backend_buft_alloc_buffer returned buffer for buft during a reserve of ca
void capture_alloc_record_buffer(struct capture_alloc * ca, ggml_backend_buffer_type_t buft, ggml_backend_buffer_t buffer);
// after a no_alloc reserve: forget chunk lists of buffers ggml freed
void capture_alloc_forget_freed(struct capture_alloc * ca);
// find the leader type and chunk of a backend buffer; false when it is none of ca's chunks
bool capture_alloc_locate(const struct capture_alloc * ca, ggml_backend_buffer_t buffer, int * type, int * chunk);

// ---- replay of ggml_gallocr_needs_realloc (capture-replay.c) -------------------------

// record what the reserve of graph keeps (call with the graph as the reserve saw it)
bool capture_replay_record(struct capture_alloc * ca, const struct ggml_cgraph * graph);
// would upstream's ggml_gallocr_alloc_graph re-reserve graph by itself?
bool capture_replay_needs_realloc(const struct capture_alloc * ca, const struct ggml_cgraph * graph);

// ---- output (capture-output.c) --------------------------------------------------------

struct capture_sizes {
    size_t bytes[64]; // per buffer type as ggml reports them (0 for a type listed before)
    bool   kept[64];  // the reserve kept the type's buffers of an earlier, larger one
    int    n;
};

bool         capture_enabled(void); // false once the output directory cannot be made
const char * capture_dir(void);
// write graph as a graph document unless the same document was written before; sets ca->graph
// and ca->placement_pending; false when nothing could be written
bool capture_write_graph(struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids,
                         bool * is_new);
// the one-line summary of the graph ca reserved last (sizes as ggml reports them)
void capture_print_summary(const struct capture_alloc * ca, const struct capture_sizes * sizes, bool is_new, const char * via);
// the stem of written graph g ("prog-003-4182n-CPU"), NULL if g is not one
const char * capture_graph_stem(int g);
// dir/stem+suffix in buf; NULL when it does not fit in size bytes
const char * capture_graph_path(int g, const char * suffix, char * buf, size_t size);
int          capture_graph_number(int g); // NNN in its name
bool         capture_graph_placed(int g);
void         capture_graph_set_placed(int g);

// ---- layout of the reserved graph (capture-layout.c) ---------------------------------

// record ca->layout from graph as the reserve saw it (with the ids it was given)
bool capture_layout_record(struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids);
void capture_layout_free(struct capture_layout * l);
// the tensor of graph at a position (NULL when graph has none there)
struct ggml_tensor * capture_tensor_at(const struct ggml_cgraph * graph, const struct capture_position * p);

// ---- placement (capture-placement.c) -------------------------------------------------

// the tensors of the graph alloc_graph is about to place, by the reserved document's index,
// and whether each had memory before (the document's "buffer_type"; views of such)
struct capture_before {
    int32_t               n;
    struct ggml_tensor ** tensors;  // [n] (NULL: no tensor at that position)
    bool                * external; // [n]
};

bool capture_before_take(struct capture_before * b, const struct capture_alloc * ca, const struct ggml_cgraph * graph);
void capture_before_free(struct capture_before * b);
// write the placement ggml made for ca's last reserved graph, read from the graph it just placed
bool capture_write_placement(struct capture_alloc * ca, const struct capture_before * before);

// ---- counters and messages (capture-startup.c) ---------------------------------------

struct capture_stats {
    int allocators;        // allocators created through the hooks
    int reserves;          // reserves seen (reserve, reserve_n, reserve_n_size, and alloc_graph's own)
    int graphs_written;    // distinct graph documents written
    int graphs_repeated;   // reserves of a graph written before
    int placements;        // plan documents of ggml's placement
    int auto_reserves;     // alloc_graph re-reserved the graph itself (replay said so)
    int auto_seen_plt;     // ... and its call to ggml_gallocr_reserve_n came through the PLT
    int auto_missed;       // ggml re-reserved inside alloc_graph although the replay said it fits
    int unknown_allocs;    // calls on an allocator whose creation was not seen
};

extern struct capture_stats capture_stats;
bool capture_verbose(void);
void capture_warn_once(int which, const char * fmt, ...) __attribute__((format(printf, 2, 3)));
