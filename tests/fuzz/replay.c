// replay.c: runs a libFuzzer target over the files of corpus directories, without libFuzzer.
//
// Linked with a fuzz target's source into an ASan+UBSan binary, so `make test-c` checks that every
// input the fuzzer kept still passes (a crash or a sanitizer report fails the run). Without
// arguments it replays REPLAY_DIRS (space-separated, set by the Makefile).

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

static int replay_file(const char * path) {
    FILE * f = fopen(path, "rb");
    if (!f) {
        return 0;
    }
    size_t cap = 1 << 16, len = 0, n;
    uint8_t * data = malloc(cap);
    while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t * bigger = realloc(data, cap *= 2);
            if (!bigger) {
                free(data);
            }
            data = bigger;
        }
    }
    fclose(f);
    if (!data) {
        return 0;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 1;
}

static int replay_dir(const char * path) {
    DIR * dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    int n = 0;
    for (struct dirent * e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char file[4096];
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        n += replay_file(file);
    }
    closedir(dir);
    return n;
}

// a target may say what its comparison does and does not prove
const char * fuzz_replay_note(void) __attribute__((weak));

int main(int argc, char ** argv) {
    int n = 0;
#ifdef REPLAY_DIRS
    char dirs[] = REPLAY_DIRS;
    char * save = NULL;
    for (char * d = argc > 1 ? NULL : strtok_r(dirs, " ", &save); d; d = strtok_r(NULL, " ", &save)) {
        const int k = replay_dir(d);
        if (k < 0) {
            return 1;
        }
        n += k;
    }
#endif
    for (int a = 1; a < argc; a++) {
        const int k = replay_dir(argv[a]);
        if (k < 0) {
            return 1;
        }
        n += k;
    }
    const char * name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (fuzz_replay_note) {
        printf("%s: %s\n", name, fuzz_replay_note());
    }
    printf("%s: %d cases passed\n", name, n);
    return n > 0 ? 0 : 1;
}
