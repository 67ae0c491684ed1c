#!/usr/bin/env bash
# check-cli.sh: the galloc CLI's documented exit codes, streams and help texts.
#
# usage: scripts/check-cli.sh GALLOC_BINARY
# Each case runs one command and checks its exit status, that errors go to
# stderr (stdout empty) and name the place, and that every command has --help.
set -uo pipefail
galloc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# expect STATUS STDERR_PATTERN -- command...   (STDERR_PATTERN "" = stderr must be empty)
expect() {
    local status=$1 pattern=$2
    shift 3
    "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    local ok=1
    [ "$got" -eq "$status" ] || ok=0
    if [ -n "$pattern" ]; then
        grep -q -- "$pattern" "$tmp/err" || ok=0
        [ "$status" -eq 0 ] || [ ! -s "$tmp/out" ] || [ "$status" -eq 1 ] || ok=0
    else
        [ ! -s "$tmp/err" ] || ok=0
    fi
    if [ $ok -eq 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "cli: FAILED: $* (exit $got, expected $status; stderr: $(head -c 200 "$tmp/err"))"
    fi
}

g=tests/golden
printf '{"tensors": [{"op": "NONE", "type": "f32", "ne": [4]}, {"op": "ADD", "type": "f32", "ne": [4], "src": [0, 40]}], "nodes": [1], "leafs": [0]}' > "$tmp/bad.json"
printf 'id,lower,upper,size\n0,0,5,10\n1,7,3,4\n' > "$tmp/bad.csv"
printf 'id,lower,upper,size\n0,0,5,16\n1,3,8,16\n2,6,9,8\n' > "$tmp/good.csv"
head -c 4096 /dev/urandom > "$tmp/noise.bin"

expect 0 ""                                   -- "$galloc" --help
for cmd in plan diff compare presets preset; do
    expect 0 ""                               -- "$galloc" "$cmd" --help
done
expect 2 "usage: galloc"                      -- "$galloc"
expect 2 "unknown command"                    -- "$galloc" frobnicate
expect 0 ""                                   -- "$galloc" plan "$g/test_view_inplace.graph.json"
expect 0 ""                                   -- "$galloc" plan "$g/test_view_inplace.graph.json" --table
expect 0 ""                                   -- "$galloc" plan "$g/test_view_inplace.graph.json" --draw
expect 0 ""                                   -- "$galloc" plan "$g/test_view_inplace.graph.json" --compare --budget-ms 100
expect 0 ""                                   -- "$galloc" plan "$g/test_view_inplace.graph.json" -o "$tmp/plan.json"
expect 0 ""                                   -- "$galloc" diff "$tmp/plan.json" "$g/test_view_inplace.plan.json"
expect 1 ""                                   -- "$galloc" diff "$g/llama-tiny.plan.json" "$g/llama-tiny-2buft.plan.json"
expect 3 "tensors\[1\].src\[1\]: index 40 out of range" -- "$galloc" plan "$tmp/bad.json"
expect 3 "line 1, column"                     -- "$galloc" plan "$tmp/noise.bin"
expect 4 "No such file"                       -- "$galloc" plan "$tmp/missing.json"
expect 2 "no graph document"                  -- "$galloc" plan
expect 2 "unknown option"                     -- "$galloc" plan "$g/llama-tiny.graph.json" --bogus
expect 3 "not a galloc-plan document"         -- "$galloc" diff "$g/llama-tiny.graph.json" "$g/llama-tiny.plan.json"
expect 0 ""                                   -- "$galloc" compare "$tmp/good.csv" --budget-ms 100
expect 3 "line 3"                             -- "$galloc" compare "$tmp/bad.csv"
expect 0 ""                                   -- "$galloc" presets
expect 0 ""                                   -- "$galloc" preset llama-tiny
expect 2 "no preset named"                    -- "$galloc" preset nope

echo "cli: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
