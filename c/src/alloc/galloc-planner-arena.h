// galloc-planner-arena.h: planning with the per-tensor arrays taken from the caller's arena.
//
// ggml_gallocr keeps one arena for everything a reserve needs (its tensor index and
// descriptions and the planner's arrays), so that reserving again reuses one block instead
// of freeing and allocating many (which, above glibc's thresholds, hands the memory back to
// the kernel and faults it in again). galloc_plan_graph_reuse does the same with the plan's
// own arena.

#pragma once

#include "galloc-arena.h"
#include "galloc-planner.h"

#include <stdbool.h>
#include <stddef.h>

// the bytes a plan of n_tensors tensors takes from its arena (sums of galloc_arena_size)
size_t galloc_plan_arena_bytes(int32_t n_tensors);

// galloc_plan_graph_reuse with the places and the pass's state taken from arena, in the round the
// caller began (with room for galloc_plan_arena_bytes more). plan->places then lives in the arena:
// valid until its next galloc_arena_begin; galloc_plan_free still releases the rest of the plan.
bool galloc_plan_graph_in_arena(const struct galloc_graph * graph, struct galloc_plan * plan, struct galloc_arena * arena,
                                struct galloc_error * err);
