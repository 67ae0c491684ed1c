// galloc-whatif-after.c: the time kept back from the exact search, when it proved nothing.
//
// Out of time, the exact search's plan may be far from its bound (on a tight problem it can
// spend all its time deciding the capacity and keep the heuristics' plan) or near it. The time
// left goes first, half of it, to the repair search (galloc-whatif-repair.c: items about the
// peak freed and placed again exactly), which lowers a plan the exact search could not, unless
// the repair made the plan already (a problem too large for the exact search: plan->repaired);
// then to the window bound (galloc-whatif-bound.c), which may prove the plan, lowered or not, optimal.
// Neither makes the plan worse or the bound unsound: the repair keeps a plan only when it is
// lower, the bound the exact search proved stays, and a plan that meets it is optimal.

#include "galloc-whatif-impl.h"
#include "galloc-whatif-repair.h"

bool galloc_whatif_after_search(const struct galloc_whatif_problem * p, const struct galloc_whatif_index * x, uint32_t budget_ms,
                                struct galloc_whatif_plan * plan) {
    if (plan->proved_optimal || !plan->valid || budget_ms == 0) {
        return true;
    }
    double   t0     = galloc_whatif_now_ms();
    double   since  = plan->time_ms; // the search's time: found_ms and fit_ms count from its start
    uint64_t before = plan->total;
    double   fit    = plan->fit_ms;
    if (!plan->repaired && !galloc_whatif_repair_plan(p, x, plan->bound, t0 + (double) budget_ms / 2, plan)) {
        return false;
    }
    if (plan->total < before) {
        plan->found_ms += since;
        if (fit < 0 && plan->fit_ms >= 0) {
            plan->fit_ms += since;
        }
    }
    double now = galloc_whatif_now_ms();
    plan->time_ms += now - t0;
    if (plan->total <= plan->bound) {
        plan->proved_optimal = true;
        plan->bound          = plan->total;
        plan->note           = "proved optimal: the repair search's plan meets the bound the exact search proved";
        return true;
    }
    double left = (double) budget_ms - (now - t0);
    return galloc_whatif_bound_plan(p, x, left >= 1 ? (uint32_t) left : 0, plan);
}
