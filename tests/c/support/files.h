// files.h: the test data on disk (whole files, the golden graphs), for the C tests.
//
// Tests run from the repository root, so paths like tests/golden are relative to it.

#pragma once

#include <stddef.h>

#define GOLDEN_DIR "tests/golden"

// the file's bytes plus a terminating NUL (malloc'd; *len excludes the NUL); NULL when unreadable
char * read_whole_file(const char * path, size_t * len);

// the golden graph names ("llama-tiny", ...), sorted, NULL-terminated; NULL when the directory is missing
char ** golden_names(int * n_out);
void    golden_names_free(char ** names);
// the same for the graphs of another directory (tests/golden-real)
char ** golden_names_in(const char * dir, int * n_out);
// GOLDEN_DIR/NAME.KIND.json (KIND: "graph" or "plan"), as read_whole_file
char *  golden_read(const char * name, const char * kind, size_t * len);
// DIR/NAME.KIND.json, as read_whole_file
char *  golden_read_in(const char * dir, const char * name, const char * kind, size_t * len);
// each DIR/*.graph.json in turn: fn(path, text, len, ctx) with its bytes (text NULL when unreadable);
// the number of documents, 0 when the directory is missing
int     graph_files_each(const char * dir, void (*fn)(const char * path, const char * text, size_t len, void * ctx), void * ctx);
