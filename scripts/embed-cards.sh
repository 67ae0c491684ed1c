#!/bin/sh
# embed-cards.sh: the model cards of c/cards as C data, for c/src/models/galloc-model-cards.c.
#
# Usage: scripts/embed-cards.sh c/cards > build/gen/galloc-card-data.h
# DIR/families.tsv lists FILE<TAB>Family in menu order; each FILE holds that family's cards
# (format: DIR/README.md). scripts/embed-cards.awk reads them all and writes the C tables.
set -eu
dir=$1
files=$(grep -v '^#' "$dir/families.tsv" | cut -f 1 | sed "s|^|$dir/|")
for f in $files; do
    if [ ! -f "$f" ]; then
        echo "embed-cards: $f (listed in $dir/families.tsv) is missing" >&2
        exit 1
    fi
done
exec awk -f "$(dirname "$0")/embed-cards.awk" "$dir/families.tsv" $files
