// cli-io.h: reading whole inputs and writing outputs for the galloc CLI.

#pragma once

#include "galloc-document.h"
#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>

// read path ("-" = stdin) fully, refusing more than max_bytes; malloc'd, NUL-terminated.
// On failure NULL and a one-line message in err.
char * cli_read_file(const char * path, size_t max_bytes, size_t * len, struct galloc_error * err);
// the graph document at path ("-" = stdin) read and planned (galloc_planned_read, the path the
// WASM module takes too): 0 (EXIT_OK), or the exit status after printing "galloc: ..." to stderr
int    cli_read_planned(const char * path, struct galloc_planned * out);
// write text to path ("-" or NULL = stdout); false with a message in err
bool   cli_write_file(const char * path, const char * text, size_t len, struct galloc_error * err);

// text from a document made safe for a terminal: control characters (C0, DEL, C1) become '?',
// at most max_chars characters (0: no limit), cut on a UTF-8 character boundary, then padded
// with spaces to pad_chars characters. Writes into buf (size bytes) and returns it.
const char * cli_safe_text(char * buf, size_t size, const char * s, int max_chars, int pad_chars);
