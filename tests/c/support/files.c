// files.c: the test data on disk (see files.h).

#include "files.h"

#include <dirent.h>
#include <string.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

char * read_whole_file(const char * path, size_t * len) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16;
    size_t n   = 0;
    char * buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) {
            break;
        }
        char * bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (buf == NULL || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len   = n;
    return buf;
}

static int name_compare(const void * a, const void * b) {
    return strcmp(*(char * const *) a, *(char * const *) b);
}

char ** golden_names(int * n_out) {
    return golden_names_in(GOLDEN_DIR, n_out);
}

char ** golden_names_in(const char * path, int * n_out) {
    *n_out    = 0;
    DIR * dir = opendir(path);
    if (dir == NULL) {
        return NULL;
    }
    int     cap   = 0;
    char ** names = NULL;
    const char * suffix = ".graph.json";
    size_t       slen   = strlen(suffix);
    struct dirent * e;
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= slen || strcmp(e->d_name + len - slen, suffix) != 0) {
            continue;
        }
        if (*n_out + 1 >= cap) {
            cap = cap ? cap * 2 : 64;
            char ** bigger = realloc(names, (size_t) cap * sizeof(char *));
            if (bigger == NULL) {
                break;
            }
            names = bigger;
        }
        char * name = calloc(len - slen + 1, 1);
        if (name == NULL) {
            break;
        }
        memcpy(name, e->d_name, len - slen);
        names[(*n_out)++] = name;
        names[*n_out]     = NULL;
    }
    closedir(dir);
    if (names != NULL) {
        qsort(names, (size_t) *n_out, sizeof(char *), name_compare);
    }
    return names;
}

void golden_names_free(char ** names) {
    for (int i = 0; names != NULL && names[i] != NULL; i++) {
        free(names[i]);
    }
    free(names);
}

char * golden_read(const char * name, const char * kind, size_t * len) {
    return golden_read_in(GOLDEN_DIR, name, kind, len);
}

char * golden_read_in(const char * dir, const char * name, const char * kind, size_t * len) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s.%s.json", dir, name, kind);
    return read_whole_file(path, len);
}

int graph_files_each(const char * dir, void (*fn)(const char * path, const char * text, size_t len, void * ctx), void * ctx) {
    DIR * d = opendir(dir);
    if (d == NULL) {
        return 0;
    }
    int n = 0;
    for (struct dirent * e; (e = readdir(d)) != NULL;) {
        size_t nl = strlen(e->d_name);
        if (nl < 11 || strcmp(e->d_name + nl - 11, ".graph.json") != 0) {
            continue;
        }
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t len  = 0;
        char * text = read_whole_file(path, &len);
        fn(path, text, len, ctx);
        free(text);
        n++;
    }
    closedir(d);
    return n;
}
