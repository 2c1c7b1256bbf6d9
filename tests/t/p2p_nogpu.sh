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
# the same under mpirun: the job fails (mpirun's code), and the run directory made before it is gone, not left
# as DIR.partial (a rank's error ends the job in the runtime, before the subcommand's own clean-up)
if command -v mpirun >/dev/null 2>&1; then
    for sub in p2p topo; do
        $MPIRUN -np 2 "$NVS" $sub --out "$dir/mpi-$sub" >"$OUT" 2>"$ERR" && fail "mpirun $sub without a GPU: exit 0"
        grep -q "no NVIDIA GPU found\|cannot run without GPUs" "$ERR" || { fail "mpirun $sub: no reason:"; cat "$ERR"; }
        for d in "$dir/mpi-$sub" "$dir/mpi-$sub.partial"; do [ -e "$d" ] && fail "mpirun $sub left $d"; done
    done
fi
finish
