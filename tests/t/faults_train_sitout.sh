#!/bin/sh
# A rank stalled during a training point it alone measures (N=1: rank 0), on the MPI host backend: rank 1 sits
# that point out, waiting for the step times. It gives up --timeout (+ the host grace) after the last heartbeat
# of the measuring rank (runtime.h nvs_rt_beat), not after the whole point's worst case (it waited
# --timeout x (4 x (warmup + steps) + 1): 5 x 2401 s here), and says which point it sat out, who measured it and
# where, and that no heartbeat came.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
# N=1 lasts tens of seconds on a 2-core machine (3000 steps per variant): rank 0 is stopped well inside it.
# --timeout 5 also bounds MPI's start-up (faults.sh case 4 runs with it)
TRAIN="train --backend mpi --model tests/fixtures/train/tiny-mlp.prof --steps 3000 --warmup-steps 1 --timeout 5"

rank_pid() { # rank_pid PATTERN RANK: the pid of that rank's nvscale process (as faults_train.sh)
    for p in $(pgrep -f "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
    done | head -n 1
}

$MPIRUN -np 2 "$NVS" $TRAIN --out "$d/run" >"$d/out" 2>&1 &
pid=$!
# until rank 0 reports the N=1 step being timed (its progress line), or 60 s, or the job ended
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null && ! grep -q "N=1: step " "$d/out"; do sleep 0.1; i=$((i + 1)); done
victim=$(rank_pid "nvscale $TRAIN --out $d/run" 0)
waiter=$(rank_pid "nvscale $TRAIN --out $d/run" 1)
if [ -z "$victim" ] || ! grep -q "N=1: step " "$d/out"; then
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    stop "rank 0 never timed N=1, or its process was not found: $(tail -n 3 "$d/out")"
fi
t0=$(date +%s)
kill -STOP "$victim"
# the job must end on its own: 5 s + 2 s grace + a heartbeat's interval, and MPI_Abort; 30 s is the give-up
i=0
while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
t=$(($(date +%s) - t0))
if kill -0 $pid 2>/dev/null; then
    fail "rank 0 stopped during N=1: rank 1 still waited after $t s with --timeout 5"
    kill -9 "$victim" "$waiter" $pid 2>/dev/null
fi
wait $pid
rc=$?
kill -9 "$victim" 2>/dev/null
[ $rc -ne 0 ] || fail "rank 0 stopped during N=1: exit 0"
grep -q "rank 1 (host $(hostname)).* sat out train tiny-mlp N=1, measured by rank 0 (host $(hostname)): no heartbeat" \
    "$d/out" || { fail "rank 0 stopped during N=1: the wait is not named"; tail -n 5 "$d/out" | sed 's/^/    /'; }
echo "rank 0 stopped during N=1: out in $t s (exit $rc)"
finish
