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

// the section named name of the ELF file fd (read through its section headers), false when none
static bool elf_section(int fd, const char * name, ElfW(Off) * offset, ElfW(Xword) * size) {
    ElfW(Ehdr) eh;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t) sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) || eh.e_shentsize != sizeof(ElfW(Shdr)) ||
        eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum) {
        return false;
    }
    ElfW(Shdr) * sh = malloc((size_t) eh.e_shnum * sizeof(*sh));
    bool found = false;
    if (sh != NULL && pread(fd, sh, (size_t) eh.e_shnum * sizeof(*sh), (off_t) eh.e_shoff) == (ssize_t) ((size_t) eh.e_shnum * sizeof(*sh))) {
        const ElfW(Shdr) * names = &sh[eh.e_shstrndx];
        const size_t want = strlen(name) + 1;
        char buf[32];
        for (int i = 0; i < eh.e_shnum && !found && want <= sizeof(buf); i++) {
            if (sh[i].sh_name < names->sh_size &&
                pread(fd, buf, want, (off_t) (names->sh_offset + sh[i].sh_name)) == (ssize_t) want && memcmp(buf, name, want) == 0) {
                *offset = sh[i].sh_offset;
                *size   = sh[i].sh_size;
                found   = sh[i].sh_type == SHT_PROGBITS;
            }
        }
    }
    free(sh);
    return found;
}

// does the executable carry ggml's allocator inside (the file name its asserts print)? Only its
// read-only data is searched (.rodata, where the name is): the whole file of a large program took
// about 80 ms at every start
static bool executable_has_ggml(void) {
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    ElfW(Off)   offset = 0;
    ElfW(Xword) size   = 0;
    bool        found  = false;
    if (elf_section(fd, ".rodata", &offset, &size) && size > 0 && size < ((ElfW(Xword)) 1 << 32)) {
        const long  page  = sysconf(_SC_PAGESIZE);
        const off_t start = (off_t) (offset - offset % (ElfW(Off)) (page > 0 ? page : 4096));
        const size_t len  = (size_t) (offset - (ElfW(Off)) start + size);
        void * map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, start);
        if (map != MAP_FAILED) {
            found = memmem((const char *) map + (offset - (ElfW(Off)) start), (size_t) size, "ggml-alloc.c", 12) != NULL;
            munmap(map, len);
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
                            "never reach the capture library (see docs/capture.md, builds that hide the calls)\n", lib.dli_fname);
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
                        "(-DBUILD_SHARED_LIBS=ON), or call galloc_export_graph from your build (see docs/capture.md)\n");
    }
#endif
}

__attribute__((destructor)) static void capture_end(void) {
    struct capture_stats s = capture_stats;
    if (s.reserves == 0 && s.unknown_allocs == 0) {
        if (ggml_found_at_start && !s.allocators) {
            fprintf(stderr, "galloc: no graph allocator was created through the capture library: a program that builds no "
                            "graphs, or calls bound inside ggml (-Bsymbolic, LTO; see docs/capture.md)\n");
        }
        return;
    }
    fprintf(stderr, "galloc: %d reserves: %d graphs written (%d reserved again), %d placements, in %s/; "
                    "alloc_graph re-reserved %d graphs itself (%d through the PLT, %d by a direct call), "
                    "%d of them not predicted by the replay\n",
            s.reserves, s.graphs_written, s.graphs_repeated, s.placements, capture_dir(), s.auto_reserves, s.auto_seen_plt,
            s.auto_reserves - s.auto_seen_plt, s.auto_missed);
}
