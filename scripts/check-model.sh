#!/usr/bin/env bash
# check-model.sh: `galloc model`: sizes on stderr, the graph document on stdout or -o, errors naming the flag.
#
# usage: scripts/check-model.sh GALLOC_BINARY
# Sizes are llama.cpp's logged ones (tests/models-real/manifest.tsv); the document written with
# -o is byte for byte the one written to stdout, and planning it gives llama.cpp's size.
set -uo pipefail
galloc=$1
dir=tests/models-real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "model-cli: FAILED: $*"; }

# expect STATUS STDERR_PATTERN -- command...: exit status, stderr matches, stdout empty on errors
expect() {
    local status=$1 pattern=$2
    shift 3
    timeout 120 "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    if [ "$got" -eq "$status" ] && grep -q -- "$pattern" "$tmp/err" && { [ "$status" -eq 0 ] || [ ! -s "$tmp/out" ]; }; then
        ok
    else
        bad "$* (exit $got, expected $status; stderr: $(head -c 200 "$tmp/err"))"
    fi
}

tiny=$dir/gguf/llama3-tiny.meta.gguf
# an architecture galloc does not build: refused, naming it and the capture library
expect 3 "'pockettts' is not supported by galloc.*capture library" -- "$galloc" model tests/model-archs/gguf/pockettts-dense.meta.gguf
if "$galloc" model --help | grep -q '^architectures built: llama, '; then ok; else bad "model --help: no list of the architectures built"; fi
# the sizes line, as llama.cpp logs it, for manifest rows of each architecture
expect 0 '^CPU compute buffer size = 43.01 MiB$' -- "$galloc" model "$tiny" -c 4096 -b 512 -ub 512 -fa off
expect 0 '^CPU compute buffer size = 8.54 MiB$'  -- "$galloc" model "$tiny" -c 4096 -b 512 -ub 512 -fa on -ctk q8_0 -ctv q8_0
expect 0 '^CPU compute buffer size = 5.01 MiB$'  -- "$galloc" model "$tiny" -c 4096 -b 512 -ub 512 -np 4
expect 0 '^CPU compute buffer size = 0.08 MiB$'  -- "$galloc" model "$tiny" -c 4096 -fa off --graph decode
expect 0 '^CPU compute buffer size = 790.05 MiB$' -- "$galloc" model $dir/gguf/gemma3-tiny.meta.gguf -c 32768 -b 2048 -ub 2048 -fa off
expect 0 '^CPU compute buffer size = 558.39 MiB$' -- "$galloc" model $dir/gguf/gpt-oss-20b.meta.gguf -c 4096 -b 512 -ub 512 -fa off
expect 0 'SWA cache = 768 cells' -- "$galloc" model $dir/gguf/gpt-oss-20b.meta.gguf -c 4096 -b 512 -ub 512
expect 0 '^CPU compute buffer size = ' -- "$galloc" model --card llama-3.1-8b -c 4096

# the document: stdout and -o agree, it is llama.cpp's graph, and it plans to llama.cpp's size
"$galloc" model "$tiny" -c 4096 -b 512 -ub 512 -fa off > "$tmp/a.json" 2> /dev/null
"$galloc" model "$tiny" -c 4096 -b 512 -ub 512 -fa off -o "$tmp/b.json" > "$tmp/b.out" 2> /dev/null
if cmp -s "$tmp/a.json" "$tmp/b.json" && [ ! -s "$tmp/b.out" ]; then ok; else bad "-o writes what stdout gets, and nothing to stdout"; fi
"$galloc" plan "$tmp/b.json" -o "$tmp/b.plan.json" && "$galloc" diff "$tmp/b.plan.json" \
    $dir/graphs/llama3-tiny.ctx4096.ub512.fa0.kvf16.seq1.prompt.real.plan.json > /dev/null
[ $? -eq 0 ] && ok || bad "the -o document plans like upstream's plan of llama.cpp's graph"

# --cards lists every card with a description
n=$("$galloc" model --cards | grep -c .)
[ "$n" -ge 10 ] && ok || bad "--cards lists $n cards"

# errors: usage (2) naming the flag, file (4), invalid model (3)
expect 2 "^galloc model: -c: 'abc' is not a context length"  -- "$galloc" model "$tiny" -c abc
expect 2 "^galloc model: -c: '-5' is not a context length"   -- "$galloc" model "$tiny" -c -5
expect 2 "^galloc model: -ub: '' is not a micro-batch size"  -- "$galloc" model "$tiny" -ub
expect 2 "^galloc model: -np: '0' is not a number of sequences" -- "$galloc" model "$tiny" -np 0
expect 2 "^galloc model: -np: '300' is not a number of sequences" -- "$galloc" model "$tiny" -np 300
expect 2 "^galloc model: -fa: 'maybe' is not on, off or auto" -- "$galloc" model "$tiny" -fa maybe
expect 2 "^galloc model: -ctk: unsupported cache type 'q4_k'" -- "$galloc" model "$tiny" -ctk q4_k
expect 2 "^galloc model: --graph: 'both' is not prompt or decode" -- "$galloc" model "$tiny" --graph both
expect 2 "^galloc model: -ctv: quantized V cache (q8_0) requires flash attention" -- "$galloc" model "$tiny" -fa off -ctv q8_0
expect 2 "^galloc model: unknown option '--frobnicate'" -- "$galloc" model "$tiny" --frobnicate
expect 2 "^galloc model: no model file" -- "$galloc" model -c 4096
expect 2 "^galloc model: --card: unknown card 'gpt-5'" -- "$galloc" model --card gpt-5
expect 4 "no-such-file.gguf" -- "$galloc" model "$tmp/no-such-file.gguf"
printf 'not a gguf file at all' > "$tmp/bad.gguf"
expect 3 "bad.gguf" -- "$galloc" model "$tmp/bad.gguf"
head -c 100 "$tiny" > "$tmp/short.gguf"
expect 3 "short.gguf" -- "$galloc" model "$tmp/short.gguf"
expect 0 "usage: galloc model" -- sh -c "\"$galloc\" model --help >&2"

# devices (galloc model --device): llama.cpp's breakdown table and galloc-memory JSON, bytes from
# tests/devices (llama.cpp over one RPC device: llama3-8b-rpc1-ngl8-c32768-faoff)
big=$dir/gguf/llama3-8b.meta.gguf
expect 0 '^common_memory_breakdown_print: |   - RPC0 (127.0.0.1:50052) | 16384 = 9425 + ( 6958 =  3914 +     896 +    2148) +           0 |$' -- \
    sh -c "\"$galloc\" model $big --device rpc -ngl 8 -c 32768 -ub 512 -fa off >&2"
"$galloc" model $big --device rpc -ngl 8 -c 32768 -ub 512 -fa off --json > "$tmp/mem.json" 2> /dev/null
grep -q '{"name": "RPC0\[127.0.0.1:50052\]", "device": 0, "model": 4104372224, "context": 939524096, "compute": 2252349440}' "$tmp/mem.json" &&
    grep -q '{"name": "CPU", "device": -1, "model": 11956682752, "context": 3355443200, "compute": 2260740096}' "$tmp/mem.json" &&
    grep -q '^{"format": "galloc-memory", "version": 1, "buffer_types": \[' "$tmp/mem.json" && ok || bad "--json: llama.cpp's bytes ($(head -c 300 "$tmp/mem.json"))"
# the CPU alone: the table on stderr after the sizes, compute included
expect 0 '^common_memory_breakdown_print: |   - Host               |                   15 =     3 +       4 +       8                |$' -- \
    "$galloc" model "$tiny" -c 4096
expect 2 "^galloc model: --device: unknown device kind 'gpu'" -- "$galloc" model "$big" --device gpu
expect 2 "^galloc model: --device: '12XB' is not a memory size" -- "$galloc" model "$big" --device cuda:12XB
expect 2 "^galloc model: -ot: unknown buffer type 'CUDA1'" -- "$galloc" model "$big" --device cuda -ot blk=CUDA1
expect 2 "^galloc model: -sm row: device RPC0 does not support split buffers" -- "$galloc" model "$big" --device rpc -sm row
# the scheduler's graph (-o) plans as the graph llama.cpp's scheduler handed to ggml_gallocr (captured)
for set in llama3-8b-rpc2-ngl20-ts31-c4096-faon qwen3moe-30b-a3b-rpc1-ncmoe10-faon; do
    row=$(grep "^$set	" tests/devices/manifest.tsv)
    model=$(printf '%s' "$row" | cut -f2); flags=$(printf '%s' "$row" | cut -f3)
    # shellcheck disable=SC2086
    "$galloc" model $dir/gguf/$model.meta.gguf $flags -o "$tmp/$set.json" > /dev/null 2>&1 &&
        "$galloc" plan "$tmp/$set.json" -o "$tmp/$set.plan.json" 2> /dev/null &&
        "$galloc" plan tests/devices/graphs/$set.graph.json -o "$tmp/$set.ref.plan.json" 2> /dev/null &&
        "$galloc" diff "$tmp/$set.plan.json" "$tmp/$set.ref.plan.json" > /dev/null && ok || bad "$set: the scheduler's graph plans as llama.cpp's"
done
# -o with --device: the scheduler's graph, which plans to the compute buffers of the table
"$galloc" model "$tiny" --device rpc -ngl 2 -c 4096 -ub 512 -fa off -o "$tmp/s.json" > "$tmp/s.table" 2> /dev/null &&
    "$galloc" plan "$tmp/s.json" -o "$tmp/s.plan.json" 2> /dev/null && [ -s "$tmp/s.plan.json" ] && ok || bad "-o with --device: a graph that plans"
expect 2 "^galloc model: --device: llama.cpp puts RPC devices before" -- "$galloc" model "$big" --device cuda --device rpc

# does it fit: --max-ctx's answer leaves the margin (1 GiB) on the device and 256 more cells do not,
# by the JSON breakdown at both; --sweep ngl is monotone and its first "no" is where -ngl stops fitting
moe=$dir/gguf/qwen3moe-30b-a3b.meta.gguf
dev_bytes() { # MODEL FLAGS...: CUDA0's model + context + compute
    "$galloc" model "$@" --json 2> /dev/null | sed -n 's/.*"name": "CUDA0".*"model": \([0-9]*\), "context": \([0-9]*\), "compute": \([0-9]*\)}.*/\1 \2 \3/p' |
        awk '{ printf "%.0f\n", $1 + $2 + $3 }'
}
"$galloc" model "$moe" -cmoe -fa on --device cuda:6GiB --max-ctx > "$tmp/out" 2> /dev/null
c=$(sed -n 's/^largest context that fits: -c \([0-9]*\).*/\1/p' "$tmp/out")
a=$(dev_bytes "$moe" -cmoe -fa on --device cuda:6GiB -c "$c"); b=$(dev_bytes "$moe" -cmoe -fa on --device cuda:6GiB -c $((c + 256)))
limit=$((6 * 1073741824 - 1073741824))
if [ -n "$c" ] && [ -n "$a" ] && [ -n "$b" ] && [ "$a" -le "$limit" ] && [ "$b" -gt "$limit" ]; then ok; else bad "--max-ctx: -c $c uses $a, -c $((c + 256)) uses $b, limit $limit"; fi
"$galloc" model "$big" -c 32768 -fa off --device cuda:12GiB --sweep ngl > "$tmp/sweep" 2> /dev/null
first_no=$(awk '$NF == "no" { print $1; exit }' "$tmp/sweep")
a=$(dev_bytes "$big" -c 32768 -fa off --device cuda:12GiB -ngl $((first_no - 1))); b=$(dev_bytes "$big" -c 32768 -fa off --device cuda:12GiB -ngl "$first_no")
limit=$((12 * 1073741824 - 1073741824))
if [ "$(awk '$NF == "yes" && seen { bad = 1 } $NF == "no" { seen = 1 } END { print bad + 0 }' "$tmp/sweep")" -eq 0 ] && [ "$(grep -c 'MiB' "$tmp/sweep")" -eq 35 ] &&
    [ "$a" -le "$limit" ] && [ "$b" -gt "$limit" ]; then ok; else bad "--sweep ngl: first no at $first_no ($a, $b bytes, limit $limit)"; fi
expect 2 "^galloc model: --sweep: 'x' is not ngl or c" -- "$galloc" model "$big" --device rpc --sweep x

echo "model-cli: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
