#!/usr/bin/env bash
# check-harness.sh: the test harness itself can fail (make test's recap, skipped suites, CI).
#
# usage: scripts/check-harness.sh
# Checks, in a scratch summary directory: a missing reference (../shared) makes the
# conformance suite SKIPPED and the recap names it; under CI=true the same is a failure;
# a suite that left no result, or failed, fails the recap and is named; a suite that exits
# 0 without a result line is recorded as failed.
set -uo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # check DESCRIPTION CONDITION-STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "harness: FAILED: $1"; fi
}
m() { timeout 120 make --no-print-directory -s SUMMARY="$tmp/s" SHARED="$tmp/no-shared" "$@"; }

# no reference data: skipped, and named as skipped in the recap (CI= on the command line:
# this case must not see a CI=true of the environment make test itself runs under)
rm -rf "$tmp/s"
m CI= test-conformance > "$tmp/out" 2>&1
check "conformance without ../shared succeeds (skipped)" $?
grep -q '^conformance: SKIPPED' "$tmp/s/conformance"; check "conformance records SKIPPED" $?
printf 'c: 1 programs, 3 cases passed\n' > "$tmp/s/c"
./scripts/test-summary.sh "$tmp/s" c conformance > "$tmp/recap" 2>&1
check "a recap with a skipped suite passes" $?
grep -q '^make test: 1/2 suites passed, SKIPPED: conformance$' "$tmp/recap"; check "the recap names the skipped suite" $?

# the same under CI: a failure
rm -rf "$tmp/s"
m CI=true test-conformance > "$tmp/out" 2>&1
[ $? -ne 0 ]; check "CI=true: conformance without ../shared fails" $?
grep -q '^conformance: FAILED' "$tmp/s/conformance"; check "CI=true: conformance records FAILED" $?
./scripts/test-summary.sh "$tmp/s" conformance > "$tmp/recap" 2>&1
[ $? -ne 0 ]; check "CI=true: the recap fails" $?
grep -q 'FAILED: conformance$' "$tmp/recap"; check "CI=true: the recap names the failed suite" $?

# a suite that did not finish (no result file) fails the recap
rm -rf "$tmp/s" && mkdir -p "$tmp/s" && printf 'c: 1 programs, 3 cases passed\n' > "$tmp/s/c"
./scripts/test-summary.sh "$tmp/s" c js > "$tmp/recap" 2>&1
[ $? -ne 0 ]; check "a suite without a result fails the recap" $?
grep -q 'js: FAILED (no result)' "$tmp/recap"; check "the recap names the suite without a result" $?

# a command that succeeds without printing its result line is a failure, one that fails too
./scripts/suite.sh "$tmp/s" quiet quiet -- true > /dev/null 2>&1
[ $? -eq 0 ] && grep -q '^quiet: FAILED (exit 0, no result line)' "$tmp/s/quiet"; check "no result line is recorded as FAILED" $?
./scripts/suite.sh "$tmp/s" loud loud -- sh -c 'echo "loud: 3 passed"; exit 1' > /dev/null 2>&1
[ $? -eq 1 ] && grep -q '^loud: FAILED (exit 1)' "$tmp/s/loud"; check "a failing command is recorded as FAILED" $?

# the js suite's result line from Vitest's report at an absolute path (make test-js SUMMARY=/abs/dir)
# and at a relative one (the default build/summary)
mkdir -p "$tmp/s" && printf '{"numPassedTests":7,"numTotalTestSuites":2}\n' > "$tmp/s/vitest.json"
[ "$(node scripts/vitest-summary.mjs "$tmp/s/vitest.json")" = 'js: 7 tests passed in 2 files (Vitest)' ]
check "the js result line from an absolute report path" $?
(cd "$tmp" && [ "$(node "$OLDPWD/scripts/vitest-summary.mjs" s/vitest.json)" = 'js: 7 tests passed in 2 files (Vitest)' ])
check "the js result line from a relative report path" $?

echo "harness: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
