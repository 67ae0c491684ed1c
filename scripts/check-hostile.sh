#!/usr/bin/env bash
# check-hostile.sh: the CLI on hostile and large inputs (issue 15): bounded time, exit statuses
# that say what happened, nothing raw reaching the terminal.
#
# usage: scripts/check-hostile.sh GALLOC_BINARY [RELEASE_BINARY]
# Every command runs under a timeout: a hang or a budget not kept fails its case. Memory
# bounds are checked under `ulimit -v` with the release binary (sanitizers reserve terabytes).
set -uo pipefail
galloc=$1
release=${2:-$1}
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

# stdout must have N lines (after an expect)
expect_lines() {
    local got
    got=$(wc -l < "$tmp/out")
    if [ "$got" -eq "$1" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "hostile: FAILED: stdout has $got lines, expected $1"
    fi
}

# the exact-search budget is for the whole analysis: 100 buffer types at 3 s each took > 40 s
awk -v NBT=100 -v PER=200 -v W=30 -f scripts/gen-many-buffer-types.awk > "$tmp/many-bt.json"
expect 0 20 ""                                -- "$galloc" plan "$tmp/many-bt.json" --compare --budget-ms 3000
expect_out "buffer 99 (b99)"

# explain keeps its series where they change: 1,000 buffer types of a 199,000-step graph fit in
# 400 MB of address space (115 MiB peak RSS; step x type series took 3.0 GiB, and 36 s)
awk -v NBT=1000 -v PER=200 -v W=30 -f scripts/gen-many-buffer-types.awk > "$tmp/many-bt-1000.json"
expect 0 60 ""                                -- sh -c "ulimit -v 400000 && exec '$release' explain '$tmp/many-bt-1000.json'"
expect_out "buffer 999 (b999)"
rm -f "$tmp/many-bt-1000.json"

# a valid input the what-if analysis declines (20,000 items live at once: 2e8 pairs) has its own
# status and says so (was exit 3, "invalid input")
awk 'BEGIN { for (i = 0; i < 20000; i++) print i ",0,100,1" }' > "$tmp/wide.csv"
expect 6 20 "declined: more than 20000000 pairs of items live at once; the document is valid" -- "$galloc" compare "$tmp/wide.csv"

# names reach the terminal without control characters (ESC, CR, LF, BEL as '?'), cut at 32
# characters on a character boundary in --table; buffer names likewise in --draw and --compare
e='\u00e9'
printf '{"buffer_types": [{"name": "b\\u001b[31mX\\r\\n", "alignment": 32}], "tensors": [
  {"name": "\\u001b]0;pwn\\u0007%s", "op": "NONE", "type": "f32", "ne": [4], "flags": ["input"]},
  {"name": "a\\nb", "op": "ADD", "type": "f32", "ne": [4], "src": [0, 0]}], "outputs": [1]}' \
  "$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e$e" > "$tmp/names.json"
no_controls() { # stdout holds no byte below 0x20 but LF, no DEL
    if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$tmp/out"; then
        fail=$((fail + 1)); echo "hostile: FAILED: control characters in the output of $1: $(head -c 200 "$tmp/out" | od -c | head -3)"
    else
        pass=$((pass + 1))
    fi
}
for mode in --table --draw "--compare --budget-ms 10"; do
    expect 0 20 ""                                 -- "$galloc" plan "$tmp/names.json" $mode
    no_controls "$mode"
    expect_out "buffer 0 (b?\[31mX??)"
done
expect 0 20 ""                                     -- "$galloc" plan "$tmp/names.json" --table
expect_out "     0  ?]0;pwn?$(printf 'é%.0s' $(seq 24)) NONE"  # 8 + 24 of 27 é: 32 characters, cut between two é
expect_out "     1  a?b                              ADD"
expect_lines 6

# explain likewise: the graph's name, tensor and buffer names (one document, and two compared)
sed 's/"buffer_types"/"name": "g\\u001b]0;t\\u0007", "buffer_types"/' "$tmp/names.json" > "$tmp/names-named.json"
expect 0 20 ""                                     -- "$galloc" explain "$tmp/names-named.json" --no-fold
no_controls "explain"
expect_out "names-named.json g?]0;t?: 2 tensors"
expect 0 20 ""                                     -- "$galloc" explain "$tmp/names-named.json" "$tmp/names.json"
no_controls "explain A B"
expect_out "buffer b?\[31mX??: A"

# every command whose stdout cannot be written exits 4 (file error), not 0
g=tests/golden
for args in "plan $g/llama-tiny.graph.json" "plan $g/llama-tiny.graph.json --table" "plan $g/llama-tiny.graph.json --draw" \
            "plan $g/llama-tiny.graph.json --compare --budget-ms 10" "compare tests/fixtures/minimalloc/A.1048576.csv --budget-ms 10" \
            "presets" "preset llama-tiny" "diff $g/llama-tiny.plan.json $g/llama-tiny-2buft.plan.json" "--help"; do
    expect 4 20 "stdout: write error"              -- sh -c "exec \"\$0\" $args > /dev/full" "$galloc"
done

# diff reads plans with the checked plan reader: what is not a plan is refused with its place
plan() { printf '{"format": %s, "version": %s, "buffers": [{"chunk_sizes": %s}], "tensors": [%s]}' "$@"; }
plan '"galloc-plan"' 1 '[64]' '{"buffer": 0, "chunk": 0, "offset": "abc"}' > "$tmp/p-abc.json"
plan '"galloc-plan"' 1 '[64]' '{"buffer": 0, "chunk": 0, "offset": -5}' > "$tmp/p-neg.json"
plan '"galloc-plan"' 1 '["x"]' 'null' > "$tmp/p-x.json"
plan '"galloc-plan"' 1 '[0]' 'null' > "$tmp/p-0.json"
plan '"galloc-plan"' 1 '[64]' '5' > "$tmp/p-5.json"
plan '"galloc-plan"' 1 '[64]' '"x"' > "$tmp/p-sx.json"
plan '"galloc-plan\u0000zzz"' 1 '[0]' 'null' > "$tmp/p-nul.json"
plan '"galloc-plan"' 99 '[0]' 'null' > "$tmp/p-v99.json"
plan '"galloc-plan"' 1 '[64]' '{"buffer": 0, "chunk": 0}' > "$tmp/p-nooff.json"
plan '"galloc-plan"' 1 '[64]' '{"buffer": 0, "chunk": 0, "offset": 18446744073709551615}' > "$tmp/p-max.json"
expect 3 5 "tensors\[0\].offset: \"abc\" is not an integer" -- "$galloc" diff "$tmp/p-abc.json" "$tmp/p-neg.json"
expect 3 5 "second plan: tensors\[0\].offset: -5"      -- "$galloc" diff "$tmp/p-max.json" "$tmp/p-neg.json"
expect 3 5 "buffers\[0\].chunk_sizes\[0\]: \"x\""    -- "$galloc" diff "$tmp/p-x.json" "$tmp/p-0.json"
expect 3 5 "tensors\[0\]: expected an object or null, got a number" -- "$galloc" diff "$tmp/p-5.json" "$tmp/p-sx.json"
expect 3 5 "not a galloc-plan document"            -- "$galloc" diff "$tmp/p-nul.json" "$tmp/p-0.json"
expect 3 5 "version: 99 is not supported"          -- "$galloc" diff "$tmp/p-v99.json" "$tmp/p-0.json"
expect 3 5 "tensors\[0\]: no \"offset\""            -- "$galloc" diff "$tmp/p-nooff.json" "$tmp/p-max.json"
# the report limit holds for buffers too: 1,000 differing buffers print 20 lines and the count
awk -v DIR="$tmp" 'BEGIN { for (k = 0; k < 2; k++) { f = k ? "b" : "a"; printf "{\"format\": \"galloc-plan\", \"version\": 1, \"buffers\": [" > (DIR "/p-1000" f ".json");
    for (i = 0; i < 1000; i++) printf "%s{\"chunk_sizes\": [%d]}", (i ? ", " : ""), i + k > (DIR "/p-1000" f ".json");
    printf "], \"tensors\": []}" > (DIR "/p-1000" f ".json") } }'
expect 1 5 ""                                      -- "$galloc" diff "$tmp/p-1000a.json" "$tmp/p-1000b.json"
expect_out "... 1000 differences in all"
expect_lines 21

# diff reads plans compactly: a 1 GB address-space limit holds two 80 MB plans (the lists are
# streamed; a DOM of the 40M numbers took > 1 GB per plan and failed "out of memory")
{ printf '{"format":"galloc-plan","version":1,"buffers":[{"chunk_sizes":[64]}],"tensors":[{"buffer":0,"chunk":0,"offset":0}],"steps":['
  yes '0,' | head -c 120000000 | tr -d '\n'; printf '0]}'; } > "$tmp/padded.plan.json"
expect 0 60 ""                                -- sh -c "ulimit -v 1000000 && exec '$release' diff '$tmp/padded.plan.json' '$tmp/padded.plan.json'"
rm -f "$tmp/padded.plan.json"

# the hostile-model table (tests/models-hostile/cases.tsv, shared with the WebAssembly module's test
# tests/js/wasm-hostile-models.test.js): each header and settings, the status and message it names
status_exit() { case $1 in ok) echo 0;; invalid-input|limit) echo 3;; bad-argument|not-found) echo 2;; out-of-memory) echo 5;; *) echo 99;; esac; }
while IFS=$'\037' read -r name base edits flags status message; do # (tabs as \037: empty fields kept)
    case $name in '#'*|name|'') continue;; esac
    # shellcheck disable=SC2086 # flags are words
    expect "$(status_exit "$status")" 60 "$message" -- "$galloc" model "tests/models-hostile/$name.gguf" $flags -o /dev/null
done < <(tr '\t' '\037' < tests/models-hostile/cases.tsv)
# general.name reaches the terminal as text (the name-escapes row: ESC ]0; ... BEL, colours, CR LF)
expect 0 60 "pwned" -- "$galloc" model tests/models-hostile/name-escapes.gguf -c 4096 -o /dev/null
cp "$tmp/err" "$tmp/out" && no_controls "galloc model (general.name)"

echo "hostile: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
