#!/usr/bin/env bash
# record-fit.sh: records what llama.cpp's --fit chooses for each row of tests/fit/manifest.tsv.
#
# usage: scripts/record-fit.sh LLAMA_BIN MODELS_DIR SHIM_SO [SETTING...]
#   LLAMA_BIN   a llama.cpp build's bin/ (llama-fit-params, ggml-rpc-server; -DGGML_RPC=ON, shared libraries)
#   MODELS_DIR  NAME.gguf for each model: ../shared/models-real/gguf's NAME.meta.gguf extended with
#               truncate to the length its tensor infos claim (that README says how)
#   SHIM_SO     tests/fit/fake-memory.c built as a shared library: preloaded into each rpc-server, it
#               makes the server report the row's memory (rpc-server has no memory flag)
# For each row, one rpc-server per device (ports 50052, 50053, ...) is started with its memory,
# `llama-fit-params -m MODEL --rpc ... -lv 4 FLAGS` runs, and tests/fit/SETTING.txt gets its
# messages at trace level (common_params_fit_impl's and common_fit_params', without the timing),
# its exit status and the flags it printed. The servers are stopped by their process ids.
set -uo pipefail
bin=$1 models=$2 shim=$3
shift 3
dir=$(cd "$(dirname "$0")/.." && pwd)/tests/fit
server=$bin/ggml-rpc-server
[ -x "$server" ] || server=$bin/rpc-server
tmp=$(mktemp -d)
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done; pids=(); }
trap 'stop; rm -rf "$tmp"' EXIT
while IFS=$'\t' read -r set model devs flags; do
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$set"; then continue; fi
    port=50052 rpc=""
    for mib in ${devs//,/ }; do
        FAKE_MEM_MIB=$mib LD_PRELOAD=$shim "$server" -p $port > "$tmp/rpc-$port.log" 2>&1 &
        pids+=($!)
        rpc="$rpc${rpc:+,}127.0.0.1:$port"
        port=$((port + 1))
    done
    sleep 2
    # llama-fit-params exits (1) without flushing its log thread: a failure whose last message is
    # missing is run again (up to 3 times)
    for _ in 1 2 3; do
        # shellcheck disable=SC2086 # the flags are words
        "$bin/llama-fit-params" -m "$models/$model.gguf" --rpc "$rpc" -lv 4 $flags > "$tmp/out" 2> "$tmp/err"
        st=$?
        [ $st -eq 0 ] || grep -q 'common_fit_params: ' "$tmp/err" && break
    done
    stop
    {
        printf '# llama-fit-params 3f545bec, RPC devices of %s MiB, flags: %s\n' "$devs" "$flags"
        # without colours and the log's "M.s.ms.us L " prefix
        sed -E 's/\x1b\[[0-9;]*m//g; s/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+ [IWED] //' "$tmp/err" |
            grep -E '^(common_params_fit_impl|common_fit_params): ' | grep -v 'fitting params to free memory took'
        printf 'exit: %s\n' "$st"
        printf 'stdout: %s\n' "$(cat "$tmp/out")"
    } > "$dir/$set.txt"
    cp "$tmp/err" "${FIT_LOGS:-/tmp}/fit-$set.err" # the whole log, breakdown tables included
    echo "$set: exit $st: $(cut -c1-100 "$tmp/out")"
done < <(tail -n +2 "$dir/manifest.tsv")
