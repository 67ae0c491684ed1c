// capture-hooks.c: the entry points the capture library puts in front of ggml's graph allocator.
//
// Linux: these functions carry ggml's own names; preloaded, the dynamic linker
// binds every call that goes through the PLT to them, and they call the real
// ones found with dlsym(RTLD_NEXT). macOS: they are named galloc_capture_*,
// and the __DATA,__interpose section tells dyld to bind calls to ggml's names
// to them (DYLD_INSERT_LIBRARIES); calls made from this image are not rebound,
// so the real function is called by its own name.
//
// Calls ggml makes inside one file may be direct calls that no interposer sees:
// clang makes ggml_gallocr_alloc_graph's own re-reserve one. That re-reserve
// is predicted (capture-replay.c) and written before the real call.

#define _GNU_SOURCE
#include "capture.h"
#include "ggml-impl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_API __attribute__((visibility("default")))

#if defined(__APPLE__)
#    define HOOK(name) galloc_capture_##name
#    define INTERPOSE(name)                                                                          \
        __attribute__((used)) static const struct {                                                  \
            const void * replacement;                                                                \
            const void * original;                                                                   \
        } capture_interpose_##name __attribute__((section("__DATA,__interpose"))) = {                \
            (const void *) &HOOK(name), (const void *) &name                                         \
        };
#    define REAL(name) name
#else
#    define HOOK(name)      name
#    define INTERPOSE(name)
#    define REAL(name)      ((__typeof__(&name)) real_symbol(#name, &real_##name))
static void * real_ggml_gallocr_new;
static void * real_ggml_gallocr_new_n;
static void * real_ggml_gallocr_free;
static void * real_ggml_gallocr_reserve_n;
static void * real_ggml_gallocr_reserve_n_size;
static void * real_ggml_gallocr_alloc_graph;
static void * real_ggml_backend_buft_alloc_buffer;

// the definition the program would have called without the capture library
static void * real_symbol(const char * name, void ** cache) {
    void * p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (p == NULL) {
        p = dlsym(RTLD_NEXT, name);
        if (p == NULL) {
            fprintf(stderr, "galloc: %s is called but no library after the capture library defines it\n", name);
            abort();
        }
        __atomic_store_n(cache, p, __ATOMIC_RELEASE);
    }
    return p;
}
#endif

// one lock over the capture state; recursive because ggml's alloc_graph may call back into a hook
static pthread_mutex_t lock;
static pthread_once_t  lock_once = PTHREAD_ONCE_INIT;

static void lock_init(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

static void capture_lock(void) {
    pthread_once(&lock_once, lock_init);
    pthread_mutex_lock(&lock);
}

static void capture_unlock(void) {
    pthread_mutex_unlock(&lock);
}

// the allocator whose reserve is running on this thread (its buffer allocations are its chunks)
static _Thread_local struct capture_alloc * reserving;
// inside ggml_gallocr_alloc_graph of this allocator; its own re-reserve was written already
static _Thread_local struct capture_alloc * in_alloc_graph;
static _Thread_local bool                   auto_reserve_written;
static _Thread_local bool                   auto_reserve_seen;
// where that alloc_graph keeps the tensors as they were before it placed them
static _Thread_local struct capture_before * alloc_graph_before;

static void sizes_from_buffers(const struct capture_alloc * ca, struct capture_sizes * sizes) {
    sizes->n = ca->n_bufts < 64 ? ca->n_bufts : 64;
    for (int i = 0; i < sizes->n; i++) {
        sizes->bytes[i] = ggml_gallocr_get_buffer_size(ca->galloc, i);
        sizes->kept[i]  = ca->chunks[ca->leader[i]].known && ca->chunks[ca->leader[i]].epoch != ca->epoch;
    }
}

static struct capture_alloc * known_allocator(ggml_gallocr_t galloc) {
    struct capture_alloc * ca = capture_alloc_find(galloc);
    if (ca == NULL) {
        capture_stats.unknown_allocs++;
        capture_warn_once(1, "an allocator was used whose creation the capture library did not see "
                             "(ggml_gallocr_new_n bound directly: a static, LTO or -Bsymbolic build?); its graphs are not written");
    }
    return ca;
}

// after a reserve of graph by ca: record it for the replay and write it; true when a document
// was written or found written before (*is_new tells which); the summary when sizes are known
static bool after_reserve(struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids,
                          const struct capture_sizes * sizes, const char * via, bool * is_new) {
    capture_stats.reserves++;
    capture_replay_record(ca, graph);
    capture_layout_record(ca, graph, node_ids, leaf_ids);
    ca->graph             = -1;
    ca->placement_pending = false;
    if (!capture_enabled() || !capture_write_graph(ca, graph, node_ids, leaf_ids, is_new)) {
        return false;
    }
    if (sizes != NULL) {
        capture_print_summary(ca, sizes, *is_new, via);
    }
    return true;
}

// ggml_gallocr_reserve and _reserve_n: the real reserve, then the graph it planned
static bool reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids, const char * via) {
    capture_lock();
    struct capture_alloc * ca = known_allocator(galloc);
    // alloc_graph's own re-reserve, reached through the PLT: written before the call already
    bool nested = ca != NULL && in_alloc_graph == ca;
    if (nested) {
        auto_reserve_seen = true;
    }
    struct capture_alloc * outer = reserving;
    if (ca) {
        capture_alloc_begin_reserve(ca);
    }
    reserving = ca;
    bool ok   = REAL(ggml_gallocr_reserve_n)(galloc, graph, node_ids, leaf_ids);
    reserving = outer;
    if (ca && !(nested && auto_reserve_written)) {
        if (nested) {
            // the replay said the graph fits, ggml re-reserved it: written now, tensors are still unplaced
            capture_stats.auto_missed++;
            capture_warn_once(2, "ggml_gallocr_alloc_graph re-reserved a graph the replay of ggml_gallocr_needs_realloc "
                                 "said still fits (another ggml version?); written anyway");
            auto_reserve_written = true;
        }
        if (nested) {
            capture_before_free(alloc_graph_before); // taken for the plan now replaced
            capture_before_take(alloc_graph_before, ca, graph);
        }
        struct capture_sizes sizes;
        sizes_from_buffers(ca, &sizes);
        bool is_new = false;
        after_reserve(ca, graph, node_ids, leaf_ids, &sizes, nested ? "alloc_graph" : via, &is_new);
    }
    capture_unlock();
    return ok;
}

CAPTURE_API ggml_gallocr_t HOOK(ggml_gallocr_new_n)(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    ggml_gallocr_t galloc = REAL(ggml_gallocr_new_n)(bufts, n_bufs);
    if (galloc != NULL) {
        capture_lock();
        capture_alloc_add(galloc, bufts, n_bufs);
        capture_unlock();
    }
    return galloc;
}
INTERPOSE(ggml_gallocr_new_n)

// ggml_gallocr_new calls ggml_gallocr_new_n in the same file (a direct call with clang): seen here too
CAPTURE_API ggml_gallocr_t HOOK(ggml_gallocr_new)(ggml_backend_buffer_type_t buft) {
    ggml_gallocr_t galloc = REAL(ggml_gallocr_new)(buft);
    if (galloc != NULL) {
        capture_lock();
        if (capture_alloc_find(galloc) == NULL) {
            capture_alloc_add(galloc, &buft, 1);
        }
        capture_unlock();
    }
    return galloc;
}
INTERPOSE(ggml_gallocr_new)

CAPTURE_API void HOOK(ggml_gallocr_free)(ggml_gallocr_t galloc) {
    capture_lock();
    capture_alloc_remove(galloc);
    capture_unlock();
    REAL(ggml_gallocr_free)(galloc);
}
INTERPOSE(ggml_gallocr_free)

CAPTURE_API bool HOOK(ggml_gallocr_reserve_n)(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                              const int * leaf_buffer_ids) {
    return reserve(galloc, graph, node_buffer_ids, leaf_buffer_ids, "reserve_n");
}
INTERPOSE(ggml_gallocr_reserve_n)

// upstream: ggml_gallocr_reserve_n(galloc, graph, NULL, NULL), a direct call with clang
CAPTURE_API bool HOOK(ggml_gallocr_reserve)(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    return reserve(galloc, graph, NULL, NULL, "reserve");
}
INTERPOSE(ggml_gallocr_reserve)

// the no_alloc reserve (llama.cpp's memory fitting): plans and reports sizes, allocates nothing
CAPTURE_API void HOOK(ggml_gallocr_reserve_n_size)(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                                   const int * leaf_buffer_ids, size_t * sizes) {
    capture_lock();
    struct capture_alloc * ca = known_allocator(galloc);
    REAL(ggml_gallocr_reserve_n_size)(galloc, graph, node_buffer_ids, leaf_buffer_ids, sizes);
    if (ca) {
        struct capture_sizes reported = { .n = ca->n_bufts < 64 ? ca->n_bufts : 64 }; // what ggml planned
        for (int i = 0; i < reported.n; i++) {
            reported.bytes[i] = sizes[i];
        }
        bool is_new = false;
        after_reserve(ca, graph, node_buffer_ids, leaf_buffer_ids, &reported, "reserve_n_size", &is_new);
        ca->placement_pending = false; // nothing is allocated by this plan
        capture_alloc_forget_freed(ca);
    }
    capture_unlock();
}
INTERPOSE(ggml_gallocr_reserve_n_size)

CAPTURE_API bool HOOK(ggml_gallocr_alloc_graph)(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    capture_lock();
    struct capture_alloc * ca = known_allocator(galloc);
    if (ca == NULL || !capture_enabled()) {
        capture_unlock();
        return REAL(ggml_gallocr_alloc_graph)(galloc, graph);
    }
    // upstream re-reserves by itself with one buffer type when the graph no longer fits
    bool auto_reserve = ca->n_bufts == 1 && capture_replay_needs_realloc(ca, graph);
    bool written = false, is_new = false;
    if (auto_reserve) {
        capture_stats.auto_reserves++;
        // the reserve inside sees these tensors as they are now: write them before they are placed
        capture_alloc_begin_reserve(ca);
        written = after_reserve(ca, graph, NULL, NULL, NULL, "alloc_graph", &is_new);
    }
    // the first graph placed by this plan tells where the reserved graph's tensors went
    struct capture_before before = { 0 };
    if (ca->placement_pending) {
        capture_before_take(&before, ca, graph);
    }

    struct capture_alloc * outer = reserving;
    reserving            = auto_reserve ? ca : outer;
    in_alloc_graph       = ca;
    auto_reserve_written = auto_reserve;
    auto_reserve_seen    = false;
    alloc_graph_before   = &before;
    bool ok              = REAL(ggml_gallocr_alloc_graph)(galloc, graph);
    in_alloc_graph       = NULL;
    alloc_graph_before   = NULL;
    reserving            = outer;

    if (auto_reserve) {
        if (auto_reserve_seen) {
            capture_stats.auto_seen_plt++;
        }
        if (capture_verbose()) {
            fprintf(stderr, "galloc: alloc_graph re-reserved graph %d itself (%s)\n", capture_graph_number(ca->graph),
                    auto_reserve_seen ? "its ggml_gallocr_reserve_n came through the PLT" : "by a direct call no interposer sees");
        }
        if (written) {
            struct capture_sizes sizes;
            sizes_from_buffers(ca, &sizes);
            capture_print_summary(ca, &sizes, is_new, "alloc_graph");
        }
    }
    if (ok && before.tensors != NULL && ca->placement_pending) {
        capture_write_placement(ca, &before);
    }
    capture_before_free(&before);
    capture_unlock();
    return ok;
}
INTERPOSE(ggml_gallocr_alloc_graph)

// every buffer allocation passes here; those made during a reserve are that allocator's chunks
CAPTURE_API ggml_backend_buffer_t HOOK(ggml_backend_buft_alloc_buffer)(ggml_backend_buffer_type_t buft, size_t size) {
    ggml_backend_buffer_t buffer = REAL(ggml_backend_buft_alloc_buffer)(buft, size);
    if (reserving != NULL && buffer != NULL) {
        capture_alloc_record_buffer(reserving, buft, buffer);
    }
    return buffer;
}
INTERPOSE(ggml_backend_buft_alloc_buffer)
