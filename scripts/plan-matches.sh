# plan-matches.sh: sourced by check-golden.sh and check-golden-real.sh: one graph planned by the
# CLI against upstream ggml's plan of it, the step both scripts repeat for every graph.
#
# plan_matches WHAT GRAPH UPSTREAM_PLAN OUT_PLAN: `galloc plan GRAPH -o OUT_PLAN`, then
# `galloc diff OUT_PLAN UPSTREAM_PLAN` (the format page's plan equality), each with a timeout.
# Returns 0 when they are equal; otherwise prints "WHAT: refused: ..." (the CLI's first line)
# or "WHAT: plan differs from upstream:" with the first lines of the difference, and returns 1.
# Needs $galloc (the CLI) and $tmp (a scratch directory).
plan_matches() {
    local what=$1 graph=$2 upstream=$3 out=$4
    if ! timeout 60 "$galloc" plan "$graph" -o "$out" 2> "$tmp/plan-err.txt"; then
        echo "$what: refused: $(head -1 "$tmp/plan-err.txt")"; return 1
    fi
    if ! timeout 60 "$galloc" diff "$out" "$upstream" > "$tmp/plan-diff.txt"; then
        echo "$what: plan differs from upstream:"; head -5 "$tmp/plan-diff.txt"; return 1
    fi
}
