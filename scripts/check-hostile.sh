#!/usr/bin/env bash
# check-hostile.sh: the CLI on hostile and large inputs (issue 15): bounded time, exit statuses
# that say what happened, nothing raw reaching the terminal.
#
# usage: scripts/check-hostile.sh GALLOC_BINARY
# Every command runs under a timeout: a hang or a budget not kept fails its case.
set -uo pipefail
galloc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# expect STATUS SECONDS STDERR_PATTERN -- command...   (STDERR_PATTERN "" = stderr must be empty)
expect() {
    local status=$1 seconds=$2 pattern=$3
    shift 4
    timeout "$seconds" "$@" > "$tmp/out" 2> "$tmp/err"
    local got=$?
    local ok=1
    [ "$got" -eq "$status" ] || ok=0
    if [ -n "$pattern" ]; then
        grep -q -- "$pattern" "$tmp/err" || ok=0
    else
        [ ! -s "$tmp/err" ] || ok=0
    fi
    if [ $ok -eq 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "hostile: FAILED: $* (exit $got, expected $status within ${seconds}s; stderr: $(head -c 200 "$tmp/err"))"
    fi
}

# stdout must hold PATTERN (after an expect)
expect_out() {
    if grep -q -- "$1" "$tmp/out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "hostile: FAILED: stdout lacks '$1': $(head -c 200 "$tmp/out")"
    fi
}

# the exact-search budget is for the whole analysis: 100 buffer types at 3 s each took > 40 s
awk -v NBT=100 -v PER=200 -v W=30 -f scripts/gen-many-buffer-types.awk > "$tmp/many-bt.json"
expect 0 20 ""                                -- "$galloc" plan "$tmp/many-bt.json" --compare --budget-ms 3000
expect_out "buffer 99 (b99)"

echo "hostile: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
