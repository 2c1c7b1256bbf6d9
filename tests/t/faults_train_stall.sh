#!/bin/sh
# A rank stalled (SIGSTOP) while a training point is timed, on the MPI host backend; --timeout 5 bounds every wait:
# - a member: rank 1 stopped at N=2; rank 0, waiting for the gradient all-reduces, stops the job after --timeout
#   and names the wait, its rank and its host (as the NCCL backend's message does);
# - the measurer of a point the other sits out: rank 0 stopped at N=1; rank 1 gives up --timeout (+ the host grace)
#   after the measuring rank's last heartbeat (runtime.h nvs_rt_beat), not after the whole point's worst case (it
#   waited --timeout x (4 x (warmup + steps) + 1): 5 x 2401 s), and says which point it sat out, who measured it
#   and where, and that no heartbeat came.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
h=$(hostname)

# stall NAME N GPUS VICTIM WAITER MESSAGE: run 3000 steps per variant (tens of seconds on a 2-core machine; --timeout 5
# also bounds MPI's start-up), stop rank VICTIM once the N step is being timed, expect the job to end on its own
# within 30 s (5 s + 2 s grace + a heartbeat's interval, and MPI_Abort), not 0, with MESSAGE (grep) in its output
stall() {
    name=$1 n=$2 victim_rank=$4 waiter_rank=$5 msg=$6
    train="train --backend mpi --model tests/fixtures/train/tiny-mlp.prof ${3:+$3 }--steps 3000 --warmup-steps 1 --timeout 5"
    $MPIRUN -np 2 "$NVS" $train --out "$d/$name" >"$d/$name.out" 2>&1 &
    pid=$!
    i=0 # until rank 0 reports the N step being timed (its progress line), or 60 s, or the job ended
    while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null && ! grep -q "N=$n: step " "$d/$name.out"; do sleep 0.1; i=$((i + 1)); done
    victim=$(rank_pid "nvscale $train --out $d/$name" "$victim_rank")
    waiter=$(rank_pid "nvscale $train --out $d/$name" "$waiter_rank")
    if [ -z "$victim" ] || ! grep -q "N=$n: step " "$d/$name.out"; then
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
        fail "$name: rank 0 never timed N=$n, or rank $victim_rank's process was not found: $(tail -n 3 "$d/$name.out")"
        return
    fi
    t0=$(date +%s)
    kill -STOP "$victim"
    i=0
    while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    t=$(($(date +%s) - t0))
    if kill -0 $pid 2>/dev/null; then
        fail "$name: rank $victim_rank stopped during N=$n: the job still ran after $t s with --timeout 5"
        kill -9 "$victim" "$waiter" $pid 2>/dev/null
    fi
    wait $pid
    rc=$?
    kill -9 "$victim" 2>/dev/null
    [ $rc -ne 0 ] || fail "$name: rank $victim_rank stopped during N=$n: exit 0"
    grep -q "$msg" "$d/$name.out" ||
        { fail "$name: rank $victim_rank stopped during N=$n: the wait is not named"; tail -n 5 "$d/$name.out" | sed 's/^/    /'; }
    echo "$name: rank $victim_rank stopped during N=$n: out in $t s (exit $rc)"
}

stall member 2 "--gpus 2" 1 0 "of the training step did not complete within 5 s on rank 0 (host $h)"
stall sitout 1 "" 0 1 "rank 1 (host $h).* sat out train tiny-mlp N=1, measured by rank 0 (host $h): no heartbeat"
finish
