// cli-draw.h: the plan drawn as text, time down and offset across (galloc plan --draw).

#pragma once

#include "galloc-document.h"
#include "galloc-planner.h"

#include <stdio.h>

// per buffer type and chunk: one row per step (at most max_rows, spread evenly), `width` columns
// spanning the chunk's bytes; each live tensor is drawn with the symbol of its index
void cli_draw_plan(FILE * out, const struct galloc_document * doc, const struct galloc_plan * plan, int width, int max_rows);
