#!/usr/bin/env bash
# test-c.sh: runs the C test programs (built with ASan+UBSan) and sums their cases.
#
# usage: scripts/test-c.sh PROGRAM...
# Each program prints "NAME: N cases passed" last and exits 0; each gets 300 s. They are
# independent: TEST_JOBS of them (default: the number of cores) run at once, and their outputs
# are printed whole, in the order given.
# Ends with "c: P programs, N cases passed", or names the programs that failed.
set -uo pipefail
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for t in "$@"; do
    ( ASAN_OPTIONS=detect_leaks=1 timeout 300 "./$t" > "$tmp/$i.out" 2>&1; echo $? > "$tmp/$i.status" ) &
    i=$((i + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
wait
total=0 failed=() i=0
for t in "$@"; do
    out=$(cat "$tmp/$i.out")
    status=$(cat "$tmp/$i.status" 2>/dev/null || echo 255)
    i=$((i + 1))
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
