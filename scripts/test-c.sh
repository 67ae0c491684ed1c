#!/usr/bin/env bash
# test-c.sh: runs the C test programs (built with ASan+UBSan) and sums their cases.
#
# usage: scripts/test-c.sh PROGRAM...
# Each program prints "NAME: N cases passed" last and exits 0; each gets 300 s.
# Ends with "c: P programs, N cases passed", or names the programs that failed.
set -uo pipefail
total=0 failed=()
for t in "$@"; do
    out=$(ASAN_OPTIONS=detect_leaks=1 timeout 300 "./$t" 2>&1)
    status=$?
    printf '%s\n' "$out"
    n=$(printf '%s\n' "$out" | tail -n 1 | sed -n 's/.*: \([0-9][0-9]*\) cases passed$/\1/p')
    if [ "$status" -ne 0 ] || [ -z "$n" ]; then
        echo "c: $(basename "$t") FAILED (exit $status)"; failed+=("$(basename "$t")")
    else
        total=$((total + n))
    fi
done
if [ ${#failed[@]} -ne 0 ]; then
    echo "c: ${#failed[@]} of $# programs FAILED: ${failed[*]}"; exit 1
fi
echo "c: $# programs, $total cases passed (ASan+UBSan)"
