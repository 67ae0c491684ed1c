// check.h: assertions and shared invariant checkers for the C tests.
//
// CHECK records a failure (file:line and the expression) and lets the case go
// on; each test's main runs its cases with RUN and exits non-zero when any
// check failed. The graph checkers are the invariants every plan must keep.

#pragma once

#include "ggml.h"
#include "ggml-impl.h"
#include "galloc-planner.h"

#include <stdio.h>

extern int check_failures;
extern int check_cases;

#define CHECK(x) do { if (!(x)) { check_failures++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #x); } } while (0)
#define CHECK_EQ_U64(a, b) do { unsigned long long a_ = (unsigned long long) (a), b_ = (unsigned long long) (b); \
    if (a_ != b_) { check_failures++; fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, #a, a_, #b, b_); } } while (0)

#define RUN(fn) do { int before_ = check_failures; fn(); check_cases++; \
    if (check_failures != before_) fprintf(stderr, "FAILED: %s\n", #fn); } while (0)

// summary line and exit status
int check_report(const char * suite);

// every node has a buffer and data
void check_all_placed(struct ggml_cgraph * graph);
// no two tensors share bytes while both hold bytes still to be read, by rules of its own
// (check.c: lifetimes from the graph, its own table of ops that may run in place; leafs
// included); a failure per pair, the first few described on stderr
void check_no_overlap(struct ggml_cgraph * graph);
// the same rules on a planner-level plan of g (places by buffer type, chunk and offset); the failures
int  check_plan_no_overlap(const struct galloc_graph * g, const struct galloc_plan * plan);
// every tensor of ctx ends within max_size of its buffer's base
void check_within_max_size(struct ggml_context * ctx, size_t max_size);
