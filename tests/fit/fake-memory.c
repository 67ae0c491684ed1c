// fake-memory.c: an LD_PRELOAD shim that makes a process report FAKE_MEM_MIB MiB of physical memory.
//
// ggml's CPU device reports sysconf(_SC_PHYS_PAGES) * page size as its memory, and an RPC server
// (ggml's rpc-server, which has no memory flag at llama.cpp 3f545bec) passes its CPU device's
// memory to the client as the device's. Preloaded into rpc-server, this gives llama.cpp an RPC
// device of a chosen size, so that --fit has something to fit into (scripts/record-fit.sh).
//   cc -shared -fPIC -o fake-memory.so tests/fit/fake-memory.c -ldl
//   FAKE_MEM_MIB=8192 LD_PRELOAD=./fake-memory.so rpc-server -p 50052

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long sysconf(int name) {
    static long (*real)(int);
    if (!real) {
        real = (long (*)(int)) dlsym(RTLD_NEXT, "sysconf");
    }
    const char * mib = getenv("FAKE_MEM_MIB");
    if (name == _SC_PHYS_PAGES && mib) {
        return (long) (strtoull(mib, NULL, 10) * 1048576ull / (unsigned long long) real(_SC_PAGE_SIZE));
    }
    return real(name);
}
