// cli-table.h: the plan as a human-readable table (galloc plan --table).

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdio.h>

// one line per placed tensor (steps, buffer/chunk/offset/size, how it was placed),
// then per buffer type: chunk sizes, total, peak of live bytes and the overhead above it
void cli_print_table(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan);
