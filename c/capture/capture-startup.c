// capture-startup.c: what the capture library says when the program starts and ends.
//
// At start-up it looks for ggml after itself in the library search order. If
// ggml is there, it says where the documents go, and warns when the library
// holding ggml was linked with -Bsymbolic (its internal calls never reach an
// interposer). If not, and the program has ggml built in (a static build:
// ggml's file name in the executable, or ggml's symbols defined by the
// program itself), it says that nothing can be captured and what to do.
// A program without ggml hears nothing. At exit: one line of counts.
//
// Environment: GALLOC_CAPTURE_DIR (output directory, default ./galloc-capture),
// GALLOC_CAPTURE_VERBOSE=1 (also how each graph arrived).

#define _GNU_SOURCE
#include "capture.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(__APPLE__)
#    include <elf.h>
#    include <link.h>
#endif

struct capture_stats capture_stats;
static bool          ggml_found_at_start;

bool capture_verbose(void) {
    const char * v = getenv("GALLOC_CAPTURE_VERBOSE");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

void capture_warn_once(int which, const char * fmt, ...) {
    static unsigned said;
    if (which >= 0 && which < 32 && (said & (1u << which))) {
        return;
    }
    said |= which >= 0 && which < 32 ? 1u << which : 0;
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "galloc: warning: ");
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
}

static void anchor(void) {
}

#if !defined(__APPLE__)
struct symbolic_query {
    const char * name;
    bool         found;
    bool         symbolic;
};

static int check_symbolic(struct dl_phdr_info * info, size_t size, void * data) {
    (void) size;
    struct symbolic_query * q = data;
    if (info->dlpi_name == NULL || strcmp(info->dlpi_name, q->name) != 0) {
        return 0;
    }
    q->found = true;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) {
            continue;
        }
        const ElfW(Dyn) * dyn = (const ElfW(Dyn) *) (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_SYMBOLIC || (dyn->d_tag == DT_FLAGS && (dyn->d_un.d_val & DF_SYMBOLIC))) {
                q->symbolic = true;
            }
        }
    }
    return 1;
}

// does the executable carry ggml's allocator inside (the file name its asserts print)?
static bool executable_has_ggml(void) {
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0) {
        return false;
    }
    struct stat st;
    bool        found = false;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1LL << 32)) {
        void * map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            found = memmem(map, (size_t) st.st_size, "ggml-alloc.c", 12) != NULL;
            munmap(map, (size_t) st.st_size);
        }
    }
    close(fd);
    return found;
}
#endif

__attribute__((constructor)) static void capture_start(void) {
    Dl_info self = { 0 };
    dladdr((void *) (uintptr_t) &anchor, &self);
#if defined(__APPLE__)
    void * next = dlsym(RTLD_DEFAULT, "ggml_gallocr_new_n");
#else
    void * next = dlsym(RTLD_NEXT, "ggml_gallocr_new_n");
#endif
    if (next != NULL) {
        Dl_info lib = { 0 };
        dladdr(next, &lib);
        ggml_found_at_start = true;
        fprintf(stderr, "galloc: capturing the graphs ggml's allocator reserves into %s/ (ggml in %s)\n", capture_dir(),
                lib.dli_fname ? lib.dli_fname : "?");
#if !defined(__APPLE__)
        struct symbolic_query q = { lib.dli_fname, false, false };
        if (lib.dli_fname != NULL) {
            dl_iterate_phdr(check_symbolic, &q);
        }
        if (q.symbolic) {
            fprintf(stderr, "galloc: warning: %s was linked with -Bsymbolic: the calls it makes to its own allocator "
                            "never reach the capture library (see README, builds that hide the calls)\n", lib.dli_fname);
        }
#endif
        return;
    }
#if !defined(__APPLE__)
    void * first = dlsym(RTLD_DEFAULT, "ggml_gallocr_new_n");
    Dl_info def  = { 0 };
    bool program_defines = first != NULL && dladdr(first, &def) && def.dli_fbase != self.dli_fbase;
    if (program_defines || executable_has_ggml()) {
        fprintf(stderr, "galloc: warning: this program has ggml built in (a static build): its allocator calls never reach "
                        "the capture library and nothing is written; build ggml as a shared library "
                        "(-DBUILD_SHARED_LIBS=ON), or call galloc_export_graph from your build (see README)\n");
    }
#endif
}

__attribute__((destructor)) static void capture_end(void) {
    struct capture_stats s = capture_stats;
    if (s.reserves == 0 && s.unknown_allocs == 0) {
        if (ggml_found_at_start && !s.allocators) {
            fprintf(stderr, "galloc: no graph allocator was created through the capture library: a program that builds no "
                            "graphs, or calls bound inside ggml (-Bsymbolic, LTO; see README)\n");
        }
        return;
    }
    fprintf(stderr, "galloc: %d reserves: %d graphs written (%d reserved again), %d placements, in %s/; "
                    "alloc_graph re-reserved %d graphs itself (%d through the PLT, %d by a direct call), "
                    "%d of them not predicted by the replay\n",
            s.reserves, s.graphs_written, s.graphs_repeated, s.placements, capture_dir(), s.auto_reserves, s.auto_seen_plt,
            s.auto_reserves - s.auto_seen_plt, s.auto_missed);
}
