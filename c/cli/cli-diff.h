// cli-diff.h: comparing two plan documents (galloc diff).

#pragma once

#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

// Plans are equal when every buffers[*].chunk_sizes and every tensors[i] buffer/chunk/offset
// (or null) are equal (graph-format.md). Prints up to max_report differences to out.
// Returns 0 equal, 1 different, -1 when a document cannot be read (message in err).
int cli_diff_plans(const char * a, size_t a_len, const char * b, size_t b_len, FILE * out, int max_report, struct galloc_error * err);
