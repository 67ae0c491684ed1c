#!/usr/bin/env bash
# check-fit.sh: galloc model --fit against llama.cpp's --fit (tests/fit, recorded by scripts/record-fit.sh).
#
# usage: scripts/check-fit.sh GALLOC [SETTING...]
# For each row of tests/fit/manifest.tsv, `galloc model MODEL.meta.gguf --device rpc:MiB ... FLAGS --fit`
# must give llama-fit-params' messages (every common_params_fit_impl and common_fit_params line, in
# order), its exit status and the flags it printed, exactly as tests/fit/SETTING.txt has them.
# Ends with "fit: N/M settings equal".
set -uo pipefail
galloc=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/tests/fit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 equal=0
while IFS=$'\t' read -r set model devs flags; do
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$set"; then continue; fi
    [ -f "$dir/$set.txt" ] || { echo "fit: $set: no $set.txt (scripts/record-fit.sh)"; n=$((n + 1)); continue; }
    dargs=()
    for mib in ${devs//,/ }; do dargs+=(--device "rpc:${mib}MiB"); done
    # shellcheck disable=SC2086 # the flags are words
    "$galloc" model "$root/tests/models-real/gguf/$model.meta.gguf" "${dargs[@]}" $flags --fit > "$tmp/out" 2> "$tmp/err"
    st=$?
    {
        printf '# llama-fit-params 3f545bec, RPC devices of %s MiB, flags: %s\n' "$devs" "$flags"
        grep -E '^(common_params_fit_impl|common_fit_params): ' "$tmp/out"
        printf 'exit: %s\n' "$st"
        printf 'stdout: %s\n' "$(if [ $st -eq 0 ]; then grep -A1 '^common_fit_params: ' "$tmp/out" | tail -n 1; fi)"
    } > "$tmp/got"
    n=$((n + 1))
    if diff "$dir/$set.txt" "$tmp/got" > "$tmp/diff"; then
        equal=$((equal + 1))
    else
        echo "fit: $set differs from llama.cpp's (< llama.cpp, > galloc):"
        head -n 20 "$tmp/diff"
        cat "$tmp/err" | head -n 5
    fi
done < <(tail -n +2 "$dir/manifest.tsv")
echo "fit: $equal/$n settings equal"
[ "$equal" -eq "$n" ] && [ "$n" -gt 0 ]
