// cli-diff.h: comparing two plan documents (galloc diff).

#pragma once

#include "galloc-plan-document.h"

#include <stdio.h>

// Plans are equal when every buffers[*].chunk_sizes and every tensors[i] buffer/chunk/offset
// (or null) are equal (graph-format.md). Prints up to max_report differences to out, then
// how many there were in all. Returns 0 equal, 1 different.
int cli_diff_plans(const struct galloc_plan_document * a, const struct galloc_plan_document * b, FILE * out, int max_report);
