#!/usr/bin/env bash
# suite.sh: runs one test suite and records its result lines for the recap of `make test`.
#
# usage: scripts/suite.sh SUMMARY_DIR SUITE PREFIXES -- COMMAND...
# COMMAND's output passes through. Its result lines are the lines it printed that start
# with one of PREFIXES (comma-separated, e.g. "golden,cli") followed by ": ". When COMMAND
# succeeds and printed at least one, they go to SUMMARY_DIR/SUITE; otherwise that file says
# "SUITE: FAILED (...)" with whatever result lines there were. A suite that cannot run prints
# "PREFIX: SKIPPED (why)" and succeeds; scripts/test-summary.sh names it.
set -uo pipefail
dir=$1 suite=$2 prefixes=$3
shift 4
mkdir -p "$dir"
log="$dir/$suite.log"
pattern="^($(printf '%s' "$prefixes" | sed 's/,/|/g')): "
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
lines=$(grep -E "$pattern" "$log" || true)
if [ "$status" -eq 0 ] && [ -n "$lines" ]; then
    printf '%s\n' "$lines" > "$dir/$suite"
else
    why="exit $status"; [ -n "$lines" ] || why="$why, no result line"
    { echo "$suite: FAILED ($why)"; [ -z "$lines" ] || printf '%s\n' "$lines"; } > "$dir/$suite"
fi
exit "$status"
