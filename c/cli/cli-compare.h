// cli-compare.h: ggml's plan against offline planners and the lower bound, as tables.
//
// `galloc plan GRAPH.json --compare` prints one table per allocator of a planned graph;
// `galloc compare PROBLEM.csv` one for a MiniMalloc CSV problem (galloc-whatif.h).

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"
#include "galloc-whatif.h"

#include <stdint.h>
#include <stdio.h>

#define CLI_COMPARE_BUDGET_MS 2000 // default time for the exact search, for the whole analysis

// one table per allocator of the plan: ggml's total, each planner's total, chunks and time,
// the lower bound, bytes and % above it, whether the exact search proved optimality.
// The exact searches share budget_ms (galloc_whatif_budget).
// false with a message in err (out of memory, inconsistent plan).
bool cli_compare_plan(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, uint32_t budget_ms,
                      struct galloc_error * err);

// the same table for one what-if result; title names the problem
void cli_print_whatif(FILE * out, const char * title, const struct galloc_whatif_result * r);

// `galloc compare PROBLEM.csv [--capacity N] [--budget-ms N]`: argv after the command name.
// Returns the exit status: 0 ok, 2 usage, 3 invalid CSV, 4 file error, 5 out of memory.
int cli_compare_command(int argc, char ** argv, const char * usage);
