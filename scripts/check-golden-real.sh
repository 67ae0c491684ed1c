#!/usr/bin/env bash
# check-golden-real.sh: every real llama.cpp graph planned by the CLI equals upstream ggml's plan.
#
# usage: scripts/check-golden-real.sh GALLOC_BINARY DIR EXPECTED_COUNT
# For each NAME.graph.json in DIR (graphs real llama.cpp code handed to ggml_gallocr, see
# DIR/README.md): `galloc plan` must read and plan it, and the plan must equal NAME.plan.json
# (format-page equality, `galloc diff`). Exactly EXPECTED_COUNT graphs, each with its plan, must
# pass. Every CLI call has a timeout.
set -euo pipefail
galloc=$1
dir=$2
expected=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/plan-matches.sh"

pass=0
fail=0
graphs=0
for graph in "$dir"/*.graph.json; do
    name=$(basename "$graph" .graph.json)
    graphs=$((graphs + 1))
    if [ ! -f "$dir/$name.plan.json" ]; then
        echo "golden-real: $name: no upstream plan $name.plan.json"; fail=$((fail + 1)); continue
    fi
    if ! plan_matches "golden-real: $name" "$graph" "$dir/$name.plan.json" "$tmp/plan.json"; then
        fail=$((fail + 1)); continue
    fi
    pass=$((pass + 1))
done
if [ "$graphs" -ne "$expected" ]; then
    echo "golden-real: $graphs graphs in $dir, expected $expected"; fail=$((fail + 1))
fi
echo "golden-real: $pass real graphs equal to upstream's plans, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq "$expected" ]
