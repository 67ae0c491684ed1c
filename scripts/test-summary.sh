#!/usr/bin/env bash
# test-summary.sh: the recap that ends `make test`, one line per result of every suite.
#
# usage: scripts/test-summary.sh SUMMARY_DIR SUITE...
# Prints each suite's result lines (written by scripts/suite.sh) in the given order, then
# one line: all passed, or which suites were skipped, or which failed. A suite with no
# result file did not run to its end and counts as failed. Exit status 1 when any failed.
set -uo pipefail
dir=$1
shift
failed=() skipped=()
echo
echo "make test: recap"
for suite in "$@"; do
    if [ ! -s "$dir/$suite" ]; then
        echo "  $suite: FAILED (no result)"; failed+=("$suite"); continue
    fi
    sed 's/^/  /' "$dir/$suite"
    if grep -q "^$suite: FAILED" "$dir/$suite"; then failed+=("$suite")
    elif grep -q ": SKIPPED" "$dir/$suite"; then skipped+=("$suite")
    fi
done
n=$#
line="make test: $((n - ${#failed[@]} - ${#skipped[@]}))/$n suites passed"
[ ${#skipped[@]} -eq 0 ] || line="$line, SKIPPED: ${skipped[*]}"
[ ${#failed[@]} -eq 0 ] || line="$line, FAILED: ${failed[*]}"
echo "$line"
[ ${#failed[@]} -eq 0 ]
