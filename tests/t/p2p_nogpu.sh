#!/bin/sh
# nvscale p2p without a GPU: one clear message, exit 1, nothing written. (Where GPUs exist it is skipped:
# tests/t/p2p_gpu.sh measures there.) Bad flags exit 2 either way.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir
expect_err 2 "invalid value '0' for --copy-iters" "$NVS" p2p --copy-iters 0
expect_err 2 "" "$NVS" p2p --hwloc-xml tests/fixtures/topo/h200x2.xml
if has_gpu; then
    [ "$fails" -eq 0 ] || finish
    skip "GPUs present: the no-GPU behaviour cannot be checked here"
fi
expect_err 1 "p2p cannot run without GPUs" "$NVS" p2p --out "$dir/run"
[ "$(grep -c . "$ERR")" -eq 1 ] || { fail "expected exactly one message:"; cat "$ERR"; }
[ -s "$OUT" ] && fail "stdout not empty"
[ -e "$dir/run" ] && fail "wrote $dir/run"
# topo live without a GPU: exit 1 with what was looked at
expect_err 1 "" "$NVS" topo --no-save
grep -q "no NVIDIA GPU found on this machine: CUDA: .*NVML: .*hwloc: " "$ERR" || { fail "topo message:"; cat "$ERR"; }
finish
