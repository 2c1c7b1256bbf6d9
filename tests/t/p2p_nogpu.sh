#!/bin/sh
# nvscale p2p without a GPU: one clear message, exit 1, nothing written. (Where GPUs exist it is skipped:
# tests/t/p2p_gpu.sh measures there.) Bad flags exit 2 either way.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
dir=tests/tmp/p2p_nogpu.$$
rm -rf "$dir"
mkdir -p "$dir"
fail=0
"$nvs" p2p --copy-iters 0 >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: p2p --copy-iters 0: exit $rc, expected 2"; fail=1; }
grep -q "invalid value '0' for --copy-iters" "$dir/err" || { echo "FAIL: no message for --copy-iters 0"; cat "$dir/err"; fail=1; }
"$nvs" p2p --hwloc-xml tests/fixtures/topo/h200x2.xml >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] || { echo "FAIL: p2p --hwloc-xml should be a usage error"; fail=1; }
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    rm -rf "$dir"
    [ "$fail" -eq 0 ] || exit 1
    echo "GPUs present: the no-GPU behaviour cannot be checked here"
    exit 77
fi
"$nvs" p2p --out "$dir/run" >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: p2p without GPU: exit $rc, expected 1"; cat "$dir/err"; fail=1; }
[ "$(grep -c . "$dir/err")" -eq 1 ] || { echo "FAIL: expected exactly one message:"; cat "$dir/err"; fail=1; }
grep -q "p2p cannot run without GPUs" "$dir/err" || { echo "FAIL: message:"; cat "$dir/err"; fail=1; }
[ -s "$dir/out" ] && { echo "FAIL: stdout not empty"; fail=1; }
[ -e "$dir/run" ] && { echo "FAIL: wrote $dir/run"; fail=1; }
# topo live without a GPU: exit 1 with what was looked at
"$nvs" topo --no-save >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: topo without GPU: exit $rc, expected 1"; cat "$dir/err"; fail=1; }
grep -q "no NVIDIA GPU found on this machine: CUDA: .*NVML: .*hwloc: " "$dir/err" || { echo "FAIL: topo message:"; cat "$dir/err"; fail=1; }
rm -rf "$dir"
exit $fail
