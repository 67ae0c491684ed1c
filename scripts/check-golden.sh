#!/usr/bin/env bash
# check-golden.sh: every golden graph planned by the CLI equals upstream ggml's plan.
#
# usage: scripts/check-golden.sh GALLOC_BINARY GOLDEN_DIR
# For each NAME.graph.json: `galloc plan` must equal NAME.plan.json (`galloc diff`),
# and its total bytes and peak of live bytes must match expected-totals.tsv.
# Every preset with a golden twin must plan to that same golden plan.
# The counts are asserted: as many graphs as expected-totals.tsv has rows (each graph with
# its row), and EXPECTED_PRESET_TWINS presets with a golden twin. Every CLI call has a timeout.
set -euo pipefail
galloc=$1
dir=$2
EXPECTED_PRESET_TWINS=${EXPECTED_PRESET_TWINS:-19}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g() { timeout 60 "$galloc" "$@"; }
. "$(dirname "$0")/plan-matches.sh"

pass=0
fail=0
graphs=0
for graph in "$dir"/*.graph.json; do
    name=$(basename "$graph" .graph.json)
    graphs=$((graphs + 1))
    if ! plan_matches "golden: $name" "$graph" "$dir/$name.plan.json" "$tmp/$name.plan.json"; then
        fail=$((fail + 1)); continue
    fi
    expected=$(awk -F'\t' -v n="$name" '$1 == n { print $2 " " $3 }' "$dir/expected-totals.tsv")
    if [ -z "$expected" ]; then
        echo "golden: $name: no row in expected-totals.tsv"; fail=$((fail + 1)); continue
    fi
    actual=$(timeout 60 node -e '
        const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const total = p.buffers.reduce((s, b) => s + Number(b.size), 0);
        console.log(total + " " + p.buffers.map(b => b.peak_live).join(","));' "$tmp/$name.plan.json")
    if [ "$expected" != "$actual" ]; then
        echo "golden: $name: total/peak '$actual', expected '$expected'"; fail=$((fail + 1)); continue
    fi
    pass=$((pass + 1))
done
rows=$(grep -vc '^#' "$dir/expected-totals.tsv")
if [ "$graphs" -ne "$rows" ]; then
    echo "golden: $graphs graphs in $dir, expected-totals.tsv has $rows rows"; fail=$((fail + 1))
fi

# the preset list first (a failing `presets` fails here, under set -e), then each preset
if ! g presets > "$tmp/presets.txt"; then
    echo "golden: galloc presets failed"; exit 1
fi
presets=0
while read -r name _; do
    [ -f "$dir/$name.plan.json" ] || continue
    if ! g preset "$name" > "$tmp/preset.graph.json"; then
        echo "golden: preset $name: failed"; fail=$((fail + 1)); continue
    fi
    if ! plan_matches "golden: preset $name" "$tmp/preset.graph.json" "$dir/$name.plan.json" "$tmp/preset.plan.json"; then
        fail=$((fail + 1)); continue
    fi
    presets=$((presets + 1))
done < "$tmp/presets.txt"
if [ "$presets" -ne "$EXPECTED_PRESET_TWINS" ]; then
    echo "golden: $presets presets equal their golden twin, expected $EXPECTED_PRESET_TWINS"; fail=$((fail + 1))
fi

echo "golden: $pass graphs equal to upstream's plans, $presets presets equal, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq "$rows" ]
