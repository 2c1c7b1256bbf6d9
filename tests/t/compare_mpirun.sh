#!/bin/sh
# `mpirun -np 2 nvscale compare` cannot start one MPI job per transport: it refuses (exit 2) and prints the
# equivalent mpirun sequence, once (rank 0). Emulated with Open MPI's environment variables, then for real when
# mpirun is installed.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
tmp=tests/tmp/compare_mpirun.$$
mkdir -p tests/tmp
fail=0
no() { echo "FAIL: $*"; fail=1; }

OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$nvs" compare --transports nvlink,shm,net -b 1M --out res/cmp \
    >"$tmp.out" 2>"$tmp.err"
rc=$?
[ "$rc" -eq 2 ] || no "under mpirun: exit $rc, expected 2"
for line in "one MPI job cannot start" \
    "  mpirun -np 2 nvscale run -b 1M --out res/cmp/nvlink" \
    "  mpirun -np 2 -x NCCL_P2P_DISABLE=1 nvscale run -b 1M --out res/cmp/shm" \
    "  mpirun -np 2 -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 nvscale run -b 1M --out res/cmp/net" \
    "  nvscale compare --report-only --transports nvlink,shm,net --out res/cmp" \
    "  (or: nvscale report res/cmp/*/run.json)"; do
    grep -qxF -- "$line" "$tmp.err" || grep -qF -- "$line" "$tmp.err" || no "the refusal lacks: $line"
done
[ -e res/cmp ] && no "something was created under mpirun"
OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$nvs" compare >"$tmp.out" 2>"$tmp.err"
rc=$?
[ "$rc" -eq 2 ] || no "rank 1 under mpirun: exit $rc, expected 2"
[ -s "$tmp.err" ] && no "rank 1 printed the sequence too: $(head -1 "$tmp.err")"

if command -v mpirun >/dev/null 2>&1; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -np 2 --oversubscribe "$nvs" compare --transports shm --out res/cmp2 >"$tmp.out" 2>"$tmp.err"
    rc=$?
    [ "$rc" -ne 0 ] || no "real mpirun: compare exited 0"
    [ "$(grep -c 'x NCCL_P2P_DISABLE=1 nvscale run --out res/cmp2/shm' "$tmp.err")" -eq 1 ] || \
        no "real mpirun: the sequence is not printed exactly once: $(cat "$tmp.err")"
    [ -e res/cmp2 ] && no "something was created under real mpirun"
else
    echo "note: mpirun not installed, only the emulated launcher was tested"
fi
rm -f "$tmp.out" "$tmp.err"
[ "$fail" -eq 0 ] && echo "compare refuses to run under mpirun and prints the sequence"
exit $fail
