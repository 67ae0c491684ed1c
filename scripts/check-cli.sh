#!/usr/bin/env bash
# check-cli.sh: the galloc CLI's documented exit codes, streams and help texts.
#
# usage: scripts/check-cli.sh GALLOC_BINARY
# Each case runs one command and checks its exit status, that errors go to
# stderr (stdout empty) and name the place, and that every command has --help.
# --table, --draw and --compare are checked for content on scenarios whose answer is known:
# upstream's golden plan of test_reuse_and_free (every tensor's chunk, offset and size, the
# chunk sizes), its timeline drawn by hand, and a CSV problem solved by hand where ggml's
# allocator needs 48 bytes and the optimum is the lower bound, 32.
# Every command runs under a timeout (a hang fails the case).
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
    timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"
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

# same_out DESCRIPTION EXPECTED_FILE -- command...: exit 0, stdout equal to the file
same_out() {
    local what=$1 expected=$2
    shift 3
    if timeout 60 "$@" > "$tmp/out" 2> "$tmp/err" && diff -u "$expected" "$tmp/out" > "$tmp/diff"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "cli: FAILED: $what: $* (stderr: $(head -c 200 "$tmp/err"))"; head -20 "$tmp/diff" 2>/dev/null
    fi
}

g=tests/golden
printf '{"tensors": [{"op": "NONE", "type": "f32", "ne": [4]}, {"op": "ADD", "type": "f32", "ne": [4], "src": [0, 40]}], "nodes": [1], "leafs": [0]}' > "$tmp/bad.json"
printf 'id,lower,upper,size\n0,0,5,10\n1,7,3,4\n' > "$tmp/bad.csv"
printf 'id,lower,upper,size\n0,0,5,16\n1,3,8,16\n2,6,9,8\n' > "$tmp/good.csv"
# binary noise without a newline (deterministic: random bytes could hold one and move the error past line 1)
head -c 4096 /dev/zero | tr '\000' '\377' > "$tmp/noise.bin"

expect 0 ""                                   -- "$galloc" --help
for cmd in plan diff compare presets preset explain; do
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

# --table: one row per tensor, its chunk, offset and size as in upstream's plan, then the totals
r=test_reuse_and_free
timeout 60 node -e '
    const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    p.tensors.forEach((t, i) => console.log([i, t.buffer, t.chunk, t.offset, t.size].join(" ")));
    const b = p.buffers[0];
    console.log("buffer 0 (dummy): " + b.chunk_sizes.length + " chunks [" + b.chunk_sizes.join(", ") + "], total " + b.size + " bytes");
' "$g/$r.plan.json" > "$tmp/table.expected"
timeout 60 "$galloc" plan "$g/$r.graph.json" --table > "$tmp/table.txt" 2>&1
{ awk '$1 ~ /^[0-9]+$/ { print $1, $5, $6, $7, $8 }' "$tmp/table.txt"; grep '^buffer 0' "$tmp/table.txt" | sed 's/, peak live.*//'; } > "$tmp/table.got"
same_out "--table rows equal upstream's plan" "$tmp/table.expected" -- cat "$tmp/table.got"

# --draw: derived by hand from the golden plan and the tensors' steps (x1..x8 drawn A..I)
cat > "$tmp/draw.expected" <<'DRAW'
buffer 0 (dummy) chunk 0: 40 bytes, 40 columns of 1.0 bytes; step down
    -1 |AAAAAAAABBBBBBBBCCCCCCCCCCCCCCCCCCCCCCCC|
     0 |DDDDDDDDBBBBBBBBCCCCCCCCCCCCCCCCCCCCCCCC|
     1 |DDDDDDDD........CCCCCCCCCCCCCCCCCCCCCCCC|
     2 |DDDDDDDDFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF|
     3 |DDDDDDDDFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF|
     4 |DDDDDDDD................................|
     5 |IIIIIIII................................|
buffer 0 (dummy) chunk 1: 32 bytes, 32 columns of 1.0 bytes; step down
    -1 |................................|
     0 |................................|
     1 |EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE|
     2 |EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE|
     3 |GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG|
     4 |GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG|
     5 |GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG|
DRAW
timeout 60 "$galloc" plan "$g/$r.graph.json" --draw > "$tmp/draw.txt" 2>&1
same_out "--draw grid drawn by hand" "$tmp/draw.expected" -- grep -v '^symbols:' "$tmp/draw.txt"

# --compare on the graph: live bytes peak at steps 2-3 (x3 8 + x5 32 + x4/x6 32 = 72), ggml's 72 is optimal
timeout 60 "$galloc" plan "$g/$r.graph.json" --compare --budget-ms 1000 > "$tmp/cmp.txt" 2>&1
awk 'NR == 1 { sub(/^.*: /, ""); print } $1 ~ /^(ggml|exact)$/ { print $1, $2, $5, $6 } /best:/ { print }' "$tmp/cmp.txt" > "$tmp/cmp.got"
printf '%s
' "5 items, lower bound 72 bytes (0.0 MiB), alignment 8, max size 40" "ggml 72 0.00% 2" "exact 72 0.00% 2" \
    "  best: ggml, 72 bytes" > "$tmp/cmp.expected"
same_out "--compare on the graph, solved by hand" "$tmp/cmp.expected" -- cat "$tmp/cmp.got"

# compare on a CSV problem solved by hand: items 0 [0,2) 16 B, 1 [0,4) 8 B, 2 [2,4) 24 B.
# ggml in time order puts 0 at 0 and 1 at 16; 2 does not fit the 16 bytes 0 frees: 24 + 24 = 48.
# The bound is 8 + 24 = 32 (steps 2-3), reached by 1 at 0, 0 and 2 at 8.
printf 'id,lower,upper,size
0,0,2,16
1,0,4,8
2,2,4,24
' > "$tmp/hand.csv"
timeout 60 "$galloc" compare "$tmp/hand.csv" --budget-ms 1000 > "$tmp/cmp.txt" 2>&1
awk 'NR == 1 { sub(/^.*: /, ""); print } $1 ~ /^(ggml|exact)$/ { print $1, $2, $4, $5 } /best:/ { print }' "$tmp/cmp.txt" > "$tmp/cmp.got"
printf '%s
' "3 items, lower bound 32 bytes (0.0 MiB), alignment 1" "ggml 48 16 50.00%" "exact 32 0 0.00%" \
    "  best: greedy-by-size, 32 bytes, 16 bytes (33.33 %) less than ggml" > "$tmp/cmp.expected"
same_out "compare on a CSV problem solved by hand" "$tmp/cmp.expected" -- cat "$tmp/cmp.got"
grep -q 'exact .*proved optimal' "$tmp/cmp.txt"; [ $? -eq 0 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "cli: FAILED: the exact search does not prove 32 optimal"; }

# explain: graphs whose peak, live set and chunk-raising tensor are derived by hand (tests/explain/README.md)
e=tests/explain
same_out "explain, derived by hand" "$e/chain.expected"                        -- "$galloc" explain "$e/chain.graph.json"
same_out "explain --no-fold, derived by hand" "$e/chain-no-fold.expected"       -- "$galloc" explain "$e/chain.graph.json" --no-fold
same_out "explain of two graphs, derived by hand" "$e/compare.expected"        -- "$galloc" explain "$e/chain.graph.json" "$e/chain-small.graph.json" --no-fold
same_out "explain --offline, derived by hand" "$e/offline.expected"          -- "$galloc" explain "$e/chain.graph.json" --offline greedy-by-size --no-fold
expect 2 "no planner named nope"              -- "$galloc" explain "$e/chain.graph.json" --offline nope
expect 2 "compares one graph document"        -- "$galloc" explain "$e/chain.graph.json" "$e/chain.graph.json" --offline best
sed 's|^tests/explain/chain.graph.json |- |' "$e/chain.expected" > "$tmp/chain-stdin.expected"
same_out "explain reads stdin" "$tmp/chain-stdin.expected"                   -- sh -c "\"$galloc\" explain - < $e/chain.graph.json"
expect 0 ""                                   -- "$galloc" explain "$g/llama-7b-like.graph.json" --top 3
expect 3 "tensors\[1\].src\[1\]: index 40 out of range" -- "$galloc" explain "$tmp/bad.json"
expect 3 "tensors\[1\].src\[1\]: index 40 out of range" -- "$galloc" explain "$e/chain.graph.json" "$tmp/bad.json"
expect 4 "No such file"                       -- "$galloc" explain "$tmp/missing.json"
expect 2 "no graph document"                  -- "$galloc" explain
expect 2 "one graph document, or two"         -- "$galloc" explain "$e/chain.graph.json" "$e/chain.graph.json" "$e/chain.graph.json"
expect 2 "only one of the two"                -- "$galloc" explain - -
expect 2 "--top needs a number"               -- "$galloc" explain "$e/chain.graph.json" --top 0
expect 2 "unknown option"                     -- "$galloc" explain "$e/chain.graph.json" --bogus

echo "cli: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
