#!/usr/bin/env bash
# check-golden.sh: every golden graph planned by the CLI equals upstream ggml's plan.
#
# usage: scripts/check-golden.sh GALLOC_BINARY GOLDEN_DIR
# For each NAME.graph.json: `galloc plan` must equal NAME.plan.json (`galloc diff`),
# and its total bytes and peak of live bytes must match expected-totals.tsv.
# Every preset with a golden twin must plan to that same golden plan.
set -euo pipefail
galloc=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
for graph in "$dir"/*.graph.json; do
    name=$(basename "$graph" .graph.json)
    if ! "$galloc" plan "$graph" -o "$tmp/$name.plan.json"; then
        echo "golden: $name: planning failed"; fail=$((fail + 1)); continue
    fi
    if ! "$galloc" diff "$tmp/$name.plan.json" "$dir/$name.plan.json" > "$tmp/diff.txt"; then
        echo "golden: $name: plan differs from upstream:"; head -5 "$tmp/diff.txt"; fail=$((fail + 1)); continue
    fi
    expected=$(awk -F'\t' -v n="$name" '$1 == n { print $2 " " $3 }' "$dir/expected-totals.tsv")
    actual=$(node -e '
        const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const total = p.buffers.reduce((s, b) => s + Number(b.size), 0);
        console.log(total + " " + p.buffers.map(b => b.peak_live).join(","));' "$tmp/$name.plan.json")
    if [ "$expected" != "$actual" ]; then
        echo "golden: $name: total/peak '$actual', expected '$expected'"; fail=$((fail + 1)); continue
    fi
    pass=$((pass + 1))
done

presets=0
while read -r name _; do
    [ -f "$dir/$name.plan.json" ] || continue
    "$galloc" preset "$name" > "$tmp/preset.graph.json"
    "$galloc" plan "$tmp/preset.graph.json" -o "$tmp/preset.plan.json"
    if ! "$galloc" diff "$tmp/preset.plan.json" "$dir/$name.plan.json" > "$tmp/diff.txt"; then
        echo "golden: preset $name: plan differs from upstream:"; head -5 "$tmp/diff.txt"; fail=$((fail + 1)); continue
    fi
    presets=$((presets + 1))
done < <("$galloc" presets)

echo "golden: $pass graphs equal to upstream's plans, $presets presets equal, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
