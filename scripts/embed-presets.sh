#!/bin/sh
# embed-presets.sh: the preset documents of c/presets as C data, for c/src/models/galloc-presets.c.
#
# Usage: scripts/embed-presets.sh c/presets > build/gen/galloc-preset-data.h
# DIR/presets.tsv lists NAME<TAB>one sentence, in menu order; DIR/NAME.graph.json is its graph
# document, embedded byte for byte as a string literal (one per line).
set -eu
dir=$1
tab=$(printf '\t')
c_string() { sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/        "/' -e 's/$/\\n"/'; }
echo "// generated from $dir by scripts/embed-presets.sh: edit the documents there, not this file"
echo "static const struct preset_document preset_documents[] = {"
while IFS="$tab" read -r name sentence; do
    [ -n "$name" ] || continue
    file="$dir/$name.graph.json"
    if [ ! -f "$file" ]; then
        echo "embed-presets: $file (listed in $dir/presets.tsv) is missing" >&2
        exit 1
    fi
    if [ -n "$(tail -c 1 "$file")" ]; then
        echo "embed-presets: $file does not end with a newline" >&2
        exit 1
    fi
    printf '    { "%s",\n      "%s",\n' "$name" "$(printf '%s' "$sentence" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"
    c_string < "$file"
    echo "    },"
done < "$dir/presets.tsv"
echo "};"
