// capture-output.c: where and under which names the capture library writes, once per graph.
//
// Directory: $GALLOC_CAPTURE_DIR, else ./galloc-capture (made when missing).
// Names: PROGRAM-NNN-NODESn-TYPES.graph.json (NNN counts the distinct graphs
// of this process, skipping numbers whose file exists already; TYPES the
// allocator's buffer type names joined by '+'), and beside it
// .ggml-plan.json, the placement ggml made. A graph whose document equals one
// written before (same tensors, buffer types, ids) is not written again.

#define _GNU_SOURCE
#include "capture.h"
#include "galloc-export.h"
#include "ggml-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STEM_MAX 200

struct written_graph {
    uint64_t hash;   // of the document written with an empty name
    size_t   len;
    int      number; // NNN in its name
    int      n_nodes;
    int      n_leafs;
    bool     placed; // its .ggml-plan.json is written
    char     stem[STEM_MAX];
};

static struct written_graph * written;
static int                    n_written;
static int                    cap_written;
static int                    next_number = 1;
static int                    dir_state; // 0 not tried, 1 ready, -1 unusable

const char * capture_dir(void) {
    const char * dir = getenv("GALLOC_CAPTURE_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : "galloc-capture";
}

// mkdir -p
static bool make_dir(const char * path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                return false;
            }
            buf[i] = c;
        }
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool capture_enabled(void) {
    if (dir_state == 0) {
        dir_state = make_dir(capture_dir()) ? 1 : -1;
        if (dir_state < 0) {
            fprintf(stderr, "galloc: cannot make the capture directory %s (%s): nothing is written (set GALLOC_CAPTURE_DIR)\n",
                    capture_dir(), strerror(errno));
        }
    }
    return dir_state > 0;
}

static const char * program_name(void) {
#if defined(__APPLE__)
    return getprogname();
#else
    return program_invocation_short_name;
#endif
}

// letters, digits, '.', '_' and '-' kept, anything else '_'
static void append_clean(char * out, size_t size, const char * s) {
    size_t n = strlen(out);
    for (; *s && n + 1 < size; s++) {
        char c = *s;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out[n++] = keep ? c : '_';
    }
    out[n] = '\0';
}

static void make_stem(char * stem, const struct capture_alloc * ca, const struct ggml_cgraph * graph, int number) {
    stem[0] = '\0';
    append_clean(stem, 48, program_name());
    char middle[48];
    snprintf(middle, sizeof(middle), "-%03d-%dn-", number, graph->n_nodes);
    strncat(stem, middle, STEM_MAX - strlen(stem) - 1);
    size_t types_start = strlen(stem);
    for (int i = 0; i < ca->n_bufts; i++) {
        if (ca->leader[i] != i) {
            continue;
        }
        if (strlen(stem) > types_start) {
            strncat(stem, "+", STEM_MAX - strlen(stem) - 1);
        }
        append_clean(stem, STEM_MAX - 16, ggml_backend_buft_name(ca->bufts[i]));
    }
}

static uint64_t fnv1a(const char * s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char) s[i]) * 1099511628211ULL;
    }
    return h;
}

static bool hash_with_ids(const struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids,
                          uint64_t * hash, size_t * len) {
    char * text = galloc_export_graph(graph, "", ca->bufts, ca->n_bufts, node_ids, leaf_ids, len);
    if (text == NULL) {
        capture_warn_once(3, "out of memory writing a graph document");
        return false;
    }
    *hash = fnv1a(text, *len);
    free(text);
    return true;
}

// create dir/stem.graph.json, never replacing a file (another run's): the next number instead
static FILE * create_graph_file(const struct capture_alloc * ca, const struct ggml_cgraph * graph, char * stem, int * number) {
    for (int tries = 0; tries < 100000; tries++) {
        *number = next_number++;
        make_stem(stem, ca, graph, *number);
        char path[4096];
        // the longest name of the pair, .ggml-plan.json, must fit too (a cut name would be another file's)
        if (snprintf(path, sizeof(path), "%s/%s.ggml-plan.json", capture_dir(), stem) >= (int) sizeof(path)) {
            capture_warn_once(4, "the capture directory's path is too long (%zu bytes): nothing is written", strlen(capture_dir()));
            return NULL;
        }
        snprintf(path, sizeof(path), "%s/%s.graph.json", capture_dir(), stem);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            return fdopen(fd, "w");
        }
        if (errno != EEXIST) {
            capture_warn_once(4, "cannot write %s: %s", path, strerror(errno));
            return NULL;
        }
    }
    return NULL;
}

bool capture_write_graph(struct capture_alloc * ca, struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids,
                         bool * is_new) {
    uint64_t hash = 0;
    size_t   len  = 0;
    if (!hash_with_ids(ca, graph, node_ids, leaf_ids, &hash, &len)) {
        return false;
    }
    for (int g = 0; g < n_written; g++) {
        if (written[g].hash == hash && written[g].len == len) {
            ca->graph             = g;
            ca->placement_pending = !written[g].placed;
            *is_new               = false;
            capture_stats.graphs_repeated++;
            return true;
        }
    }
    if (n_written == cap_written) {
        int cap = cap_written ? cap_written * 2 : 16;
        struct written_graph * grown = realloc(written, (size_t) cap * sizeof(*grown));
        if (grown == NULL) {
            capture_warn_once(3, "out of memory writing a graph document");
            return false;
        }
        written     = grown;
        cap_written = cap;
    }
    struct written_graph * w = &written[n_written];
    FILE * f = create_graph_file(ca, graph, w->stem, &w->number);
    if (f == NULL) {
        return false;
    }
    size_t text_len = 0;
    char * text     = galloc_export_graph(graph, w->stem, ca->bufts, ca->n_bufts, node_ids, leaf_ids, &text_len);
    bool   ok       = text != NULL && fwrite(text, 1, text_len, f) == text_len;
    ok              = fclose(f) == 0 && ok;
    free(text);
    if (!ok) {
        capture_warn_once(4, "cannot write %s/%s.graph.json", capture_dir(), w->stem);
        return false;
    }
    w->hash    = hash;
    w->len     = len;
    w->n_nodes = graph->n_nodes;
    w->n_leafs = graph->n_leafs;
    w->placed = false;
    ca->graph             = n_written++;
    ca->placement_pending = true;
    *is_new               = true;
    capture_stats.graphs_written++;
    return true;
}

const char * capture_graph_stem(int g) {
    return g >= 0 && g < n_written ? written[g].stem : NULL;
}

const char * capture_graph_path(int g, const char * suffix, char * buf, size_t size) {
    int n = snprintf(buf, size, "%s/%s%s", capture_dir(), capture_graph_stem(g) ? capture_graph_stem(g) : "?", suffix);
    return n >= 0 && (size_t) n < size ? buf : NULL; // NULL (buf cut) when it does not fit
}

int capture_graph_number(int g) {
    return g >= 0 && g < n_written ? written[g].number : 0;
}

bool capture_graph_placed(int g) {
    return g >= 0 && g < n_written && written[g].placed;
}

void capture_graph_set_placed(int g) {
    if (g >= 0 && g < n_written) {
        written[g].placed = true;
    }
}

void capture_print_summary(const struct capture_alloc * ca, const struct capture_sizes * sizes, bool is_new, const char * via) {
    if (ca->graph < 0) {
        return;
    }
    char line[1024];
    int  n = snprintf(line, sizeof(line), "galloc: graph %d%s: %d nodes", written[ca->graph].number, is_new ? "" : " again",
                      written[ca->graph].n_nodes);
    for (int i = 0; i < sizes->n && n > 0 && (size_t) n < sizeof(line); i++) {
        if (ca->leader[i] == i) {
            n += snprintf(line + n, sizeof(line) - (size_t) n, ", %s %.2f MiB", ggml_backend_buft_name(ca->bufts[i]),
                          sizes->bytes[i] / 1024.0 / 1024.0);
            if (n > 0 && (size_t) n < sizeof(line) && capture_verbose()) {
                n += snprintf(line + n, sizeof(line) - (size_t) n, " (%zu bytes)", sizes->bytes[i]);
            }
            if (n > 0 && (size_t) n < sizeof(line) && sizes->kept[i]) {
                // ggml never shrinks: the buffer is that of an earlier, larger reserve
                n += snprintf(line + n, sizeof(line) - (size_t) n, " (the buffer of an earlier reserve)");
            }
        }
    }
    char path[4096];
    const char * written_to = is_new ? capture_graph_path(ca->graph, ".graph.json", path, sizeof(path)) : NULL;
    fprintf(stderr, "%s%s%s%s%s\n", line, is_new ? " -> " : "", written_to ? written_to : "",
            capture_verbose() ? " via " : "", capture_verbose() ? via : "");
}
