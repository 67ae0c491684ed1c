// replay.c: runs a libFuzzer target over the files of corpus directories, without libFuzzer.
//
// Linked with a fuzz target's source into an ASan+UBSan binary, so `make test-c` checks that every
// input the fuzzer kept still passes (a crash or a sanitizer report fails the run).

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

int main(int argc, char ** argv) {
    int n = 0;
    for (int a = 1; a < argc; a++) {
        DIR * dir = opendir(argv[a]);
        if (!dir) {
            fprintf(stderr, "replay: cannot open %s\n", argv[a]);
            return 1;
        }
        for (struct dirent * e; (e = readdir(dir)) != NULL;) {
            if (e->d_name[0] == '.') {
                continue;
            }
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[a], e->d_name);
            n += replay_file(path);
        }
        closedir(dir);
    }
    printf("%s: %d corpus inputs replayed\n", argv[0], n);
    return n > 0 ? 0 : 1;
}
