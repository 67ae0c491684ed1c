#!/usr/bin/env bash
# bench-hostile.sh: time and peak memory of the CLI and the WASM module on the large and hostile
# inputs of issue 15 (`make bench-hostile`, part of `make bench`). Prints one line per case:
# seconds, max RSS (or WASM heap) and the exit status, and writes them as JSON lines to OUT.jsonl
# when given. Inputs are generated into a temporary directory.
#   bench-hostile.sh [GALLOC [OUT.jsonl]]
#   the 580k in-place ADD chain (30 MB)        plan --compare
#   1,000 buffer types (200 tensors each)       plan --compare --budget-ms 50, and explain
#   two plans just under the 256 MiB limit      diff (4,194,304 tensors each, every offset differs)
#   8 MB of 4,194,304 zero-filled tensor entries in the WASM module (heap length after)
set -uo pipefail
galloc=${1:-build/rel/galloc}
out=${2:-/dev/null}
: > "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() { # NAME -- command...
    local name=$1
    shift 2
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err"
    local status=$?
    read -r secs kb < <(tail -1 "$tmp/time")
    local mib
    mib=$(echo "$kb / 1024" | bc -l)
    printf '%-44s %8.2f s %10.1f MiB  exit %d\n' "$name" "$secs" "$mib" "$status"
    printf '{"case": "%s", "seconds": %s, "max_rss_mib": %.1f, "exit": %d}\n' "$name" "$secs" "$mib" "$status" >> "$out"
}

awk 'BEGIN { n = 580000; printf "{\"format\":\"galloc-graph\",\"version\":1,\"tensors\":[{\"name\":\"x\",\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[4],\"flags\":[\"input\"]}";
    for (i = 1; i < n; i++) printf ",\n{\"op\":\"ADD\",\"type\":\"f32\",\"ne\":[4],\"src\":[%d,0]}", i - 1;
    printf "],\"outputs\":[%d]}\n", n - 1 }' > "$tmp/chain.json"
measure "580k in-place ADD chain, plan --compare" -- "$galloc" plan "$tmp/chain.json" --compare --budget-ms 2000

awk -v NBT=1000 -v PER=200 -v W=30 -f scripts/gen-many-buffer-types.awk > "$tmp/many-bt.json"
measure "1,000 buffer types, --compare --budget-ms 50" -- "$galloc" plan "$tmp/many-bt.json" --compare --budget-ms 50
# explain's series are kept where they change (3.0 GiB and 36 s when they were steps x types)
measure "1,000 buffer types, explain" -- "$galloc" explain "$tmp/many-bt.json"

for k in 0 1; do
    awk -v OFF=$((k * 64)) 'BEGIN { n = 4194304;
        printf "{\"format\":\"galloc-plan\",\"version\":1,\"buffers\":[{\"buffer_type\":0,\"chunk_sizes\":[1099511627776],\"size\":1099511627776}],\"tensors\":[\n";
        for (i = 0; i < n; i++) printf "{\"buffer\":0,\"chunk\":0,\"offset\":%d,\"size\":64}%s        \n", (i * 64 + OFF) % 1099511627776, (i < n - 1 ? "," : "");
        printf "]}\n" }' > "$tmp/plan$k.json"
done
measure "two $(($(stat -c %s "$tmp/plan0.json") >> 20)) MiB plans, diff" -- "$galloc" diff "$tmp/plan0.json" "$tmp/plan1.json"
rm -f "$tmp/plan0.json" "$tmp/plan1.json"

BENCH_HOSTILE_OUT=$out node --input-type=module -e "
import { appendFileSync } from 'node:fs';
import { loadGalloc } from './web/src/core/galloc.js';
const g = await loadGalloc();
const text = '{\"tensors\":[' + Array(4194304).fill('0').join(',') + ']}';
const t0 = performance.now();
let msg = '';
try { g.planText(text); } catch (e) { msg = e.message; }
const name = 'WASM, 8 MB of 4,194,304 zero entries', secs = (performance.now() - t0) / 1000, heap = g.m.HEAPU8.length / 2 ** 20;
console.log(name.padEnd(44), secs.toFixed(2).padStart(8), 's', heap.toFixed(1).padStart(10), 'MiB heap ', msg);
appendFileSync(process.env.BENCH_HOSTILE_OUT, JSON.stringify({ case: name, seconds: +secs.toFixed(2), heap_mib: +heap.toFixed(1), message: msg }) + '\\n');
"
