#!/usr/bin/env bash
# check-cards.sh: the card reader (scripts/embed-cards.sh) stops at a mistake, naming the file and line.
#
# usage: scripts/check-cards.sh
# Each case is a family file with one mistake; the reader must exit non-zero, write no C, and say
# FILE:LINE: what. The real cards (c/cards) must read without a word on stderr.
set -uo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "cards: FAILED: $*"; }

good=$'card\tok-card\narch\tllama\nsource\towner/model\nabout\tA model\n.block_count\t2\n'
# case NAME EXPECTED_STDERR_PATTERN FILE_TEXT: the text is the family file f.tsv
case_() {
    local name=$1 pattern=$2 text=$3
    mkdir -p "$tmp/$name"
    printf 'f.tsv\tFamily\n' > "$tmp/$name/families.tsv"
    printf '%s' "$text" > "$tmp/$name/f.tsv"
    ./scripts/embed-cards.sh "$tmp/$name" > "$tmp/$name/out.h" 2> "$tmp/$name/err"
    local st=$?
    if [ "$st" -ne 0 ] && grep -q -- "$pattern" "$tmp/$name/err"; then ok; else
        bad "$name: exit $st, stderr: $(head -c 300 "$tmp/$name/err")"; fi
}
case_ unknown-line   "f.tsv:6: unknown line 'colour'"                     "$good"$'colour\tred\n'
case_ no-tab         "f.tsv:6: expected KEY<TAB>VALUE"                    "$good"$'.vocab_size 5\n'
case_ before-card    "f.tsv:1: 'arch' before the first card line"         $'arch\tllama\n'
case_ bad-number     "f.tsv:6: key .vocab_size: '12x'"                    "$good"$'.vocab_size\t12x\n'
case_ bad-list       "f.tsv:6: key .attention.head_count_kv: element 2"   "$good"$'.attention.head_count_kv\t[8, x, 8]\n'
case_ twice-key      "f.tsv:6: key .block_count given twice"              "$good"$'.block_count\t3\n'
case_ twice-card     "f.tsv:6: card ok-card is also defined at .*f.tsv:1" "$good"$'card\tok-card\n'
case_ bad-source     "f.tsv:3: source 'model'"                            $'card\tc\narch\tllama\nsource\tmodel\n'
case_ no-source      "f.tsv:1: card c: needs arch, source and about"      $'card\tc\narch\tllama\nabout\tx\n'
case_ bad-name       "f.tsv:1: card name 'Big Model'"                     $'card\tBig Model\n'
case_ bad-tensor     "f.tsv:6: tensor 'Output'"                           "$good"$'tensors\toutput.weight Output\n'
# a family file that families.tsv does not list, or lists and is missing
mkdir -p "$tmp/unlisted" && printf 'g.tsv\tFamily\n' > "$tmp/unlisted/families.tsv"
if ./scripts/embed-cards.sh "$tmp/unlisted" > /dev/null 2> "$tmp/unlisted/err"; then bad "unlisted: read a missing file"; \
elif grep -q "g.tsv (listed in .*families.tsv) is missing" "$tmp/unlisted/err"; then ok; else bad "unlisted: $(cat "$tmp/unlisted/err")"; fi
# the real cards: read silently, one table row per card line
if ./scripts/embed-cards.sh c/cards > "$tmp/cards.h" 2> "$tmp/cards.err" && [ ! -s "$tmp/cards.err" ]; then ok; else bad "c/cards: $(head -c 300 "$tmp/cards.err")"; fi
rows=$(grep -cE 'card_[0-9]+_kv, [0-9]+, card_[0-9]+_tensors' "$tmp/cards.h")
lines=$(cat c/cards/*.tsv | grep -c $'^card\t')
[ "$rows" -eq "$lines" ] && ok || bad "c/cards: $rows cards embedded for $lines card lines"
echo "cards: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
