#!/bin/sh
# A rank stalled while the training step of its N is timed, on the MPI host backend: rank 1 stopped (SIGSTOP)
# at N=2; rank 0, waiting for the gradient all-reduces, stops the job after --timeout and names the wait, its
# rank and its host (as the NCCL backend's message does).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
# only N=2, many steps: its full step is timed for tens of seconds on a 2-core machine
TRAIN="train --backend mpi --model tests/fixtures/train/tiny-mlp.prof --gpus 2 --steps 3000 --warmup-steps 1 --timeout 5"

rank_pid() { # rank_pid PATTERN RANK: the pid of that rank's nvscale process (as faults_train.sh)
    for p in $(pgrep -f "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
    done | head -n 1
}

$MPIRUN -np 2 "$NVS" $TRAIN --out "$d/run" >"$d/out" 2>&1 &
pid=$!
# until rank 0 reports the N=2 step being timed (its progress line), or 60 s, or the job ended
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null && ! grep -q "N=2: step " "$d/out"; do sleep 0.1; i=$((i + 1)); done
victim=$(rank_pid "nvscale $TRAIN --out $d/run" 1)
waiter=$(rank_pid "nvscale $TRAIN --out $d/run" 0)
if [ -z "$victim" ] || ! grep -q "N=2: step " "$d/out"; then
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    stop "rank 0 never timed N=2, or rank 1's process was not found: $(tail -n 3 "$d/out")"
fi
t0=$(date +%s)
kill -STOP "$victim"
i=0
while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
t=$(($(date +%s) - t0))
if kill -0 $pid 2>/dev/null; then
    fail "rank 1 stopped during N=2: the job still ran after $t s with --timeout 5"
    kill -9 "$victim" "$waiter" $pid 2>/dev/null
fi
wait $pid
rc=$?
kill -9 "$victim" 2>/dev/null
[ $rc -ne 0 ] || fail "rank 1 stopped during N=2: exit 0"
grep -q "of the training step did not complete within 5 s on rank 0 (host $(hostname))" "$d/out" ||
    { fail "rank 1 stopped during N=2: the wait, rank 0 or its host is not named"; tail -n 5 "$d/out" | sed 's/^/    /'; }
echo "rank 1 stopped during N=2: out in $t s (exit $rc)"
finish
