#!/usr/bin/env bash
# check-devices.sh: the scheduler's real graphs (../shared/devices: RPC and Vulkan) planned by the CLI
# against upstream: each captured placement equal to ggml's (`galloc diff`), each setting's compute
# buffers equal to llama.cpp's breakdown (bytes per buffer type, breakdown.tsv).
#
# usage: scripts/check-devices.sh GALLOC_BINARY DEVICES_DIR [EXPECTED_COUNT]
# DEVICES_DIR as ../shared/devices lays it out: placements/NAME.graph.json with NAME.ggml-plan.json
# (or NAME.plan.json, as tests/devices copies them), vulkan/placements/ alike, settings/S/graph.json
# with settings/S/breakdown.tsv, vulkan/settings/ alike; or, as tests/devices, graphs/S.graph.json
# with S.breakdown.tsv. Counts graphs refused, equal and different (the first few named), then one
# line "devices: DIR: N graphs: E equal, D different, R refused". Passes when none is refused or
# different (and, given EXPECTED_COUNT, exactly that many graphs were found). An absent DIR is
# SKIPPED, a failure under CI=true. Every CLI call has a timeout.
set -euo pipefail
galloc=$1
dir=$2
expected=${3:-}
if [ ! -d "$dir" ]; then
    if [ "${CI:-}" = true ]; then echo "devices: FAILED ($dir is absent; CI=true needs it)"; exit 1; fi
    echo "devices: SKIPPED ($dir is absent)"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/plan-matches.sh"

equal=0 different=0 refused=0 named=0
tally() { # STATUS (0 equal, 1 different, 2 refused) [LINES]: counts, names the first 10 failures
    case $1 in 0) equal=$((equal + 1)); return ;; 1) different=$((different + 1)) ;; *) refused=$((refused + 1)) ;; esac
    named=$((named + 1))
    if [ "$named" -le 10 ]; then printf '%s\n' "$2"; fi
}

# placements: NAME.graph.json with ggml's real placement NAME.ggml-plan.json
for graph in "$dir"/placements/*.graph.json "$dir"/vulkan/placements/*.graph.json; do
    [ -f "$graph" ] || continue
    base=${graph%.graph.json}
    upstream=$base.ggml-plan.json
    [ -f "$upstream" ] || upstream=$base.plan.json
    if out=$(plan_matches "devices: ${base#"$dir"/}" "$graph" "$upstream" "$tmp/plan.json"); then
        tally 0
    elif printf '%s' "$out" | head -1 | grep -q ': refused: '; then
        tally 2 "$out"
    else
        tally 1 "$out"
    fi
done

# settings: SETTING/graph.json (graphs/SETTING.graph.json), whose buffers must be the compute bytes of
# SETTING/breakdown.tsv (SETTING.breakdown.tsv)
for graph in "$dir"/settings/*/graph.json "$dir"/vulkan/settings/*/graph.json "$dir"/graphs/*.graph.json; do
    [ -f "$graph" ] || continue
    case $graph in
        */graphs/*.graph.json) name=$(basename "$graph" .graph.json); breakdown=$dir/$name.breakdown.tsv; what="devices: graphs/$name" ;;
        *) set=$(dirname "$graph"); breakdown=$set/breakdown.tsv; what="devices: ${set#"$dir"/}" ;;
    esac
    if ! timeout 60 "$galloc" plan "$graph" -o "$tmp/plan.json" 2> "$tmp/err.txt"; then
        tally 2 "$what: refused: $(head -1 "$tmp/err.txt")"; continue
    fi
    # "name size" per buffer of the plan; "name compute" per row of the breakdown
    sed -n 's/^ *{ "buffer_type": [0-9]*, "name": "\([^"]*\)".* "size": \([0-9]*\),.*/\1	\2/p' "$tmp/plan.json" > "$tmp/planned.tsv"
    awk -F'\t' 'NR > 1 { print $1 "\t" $6 }' "$breakdown" > "$tmp/llama.tsv"
    # every buffer type of either side: the same bytes (one missing on a side counts as 0 there)
    diffs=$(awk -F'\t' 'NR == FNR { p[$1] = $2; next } { l[$1] = $2 }
        END { for (n in p) if (p[n] + 0 != l[n] + 0) printf "%s: planned %s, llama.cpp %s; ", n, p[n] + 0, l[n] + 0
              for (n in l) if (!(n in p) && l[n] + 0 != 0) printf "%s: planned 0, llama.cpp %s; ", n, l[n] }' "$tmp/planned.tsv" "$tmp/llama.tsv")
    if [ ! -s "$tmp/planned.tsv" ]; then
        tally 1 "$what: no buffers in the plan"
    elif [ -n "$diffs" ]; then
        tally 1 "$what: compute buffers differ from llama.cpp's breakdown: $diffs"
    else
        tally 0
    fi
done

n=$((equal + different + refused))
echo "devices: $dir: $n graphs: $equal equal, $different different, $refused refused"
if [ -n "$expected" ] && [ "$n" -ne "$expected" ]; then
    echo "devices: $n graphs in $dir, expected $expected"; exit 1
fi
[ "$different" -eq 0 ] && [ "$refused" -eq 0 ] && [ "$n" -gt 0 ]
