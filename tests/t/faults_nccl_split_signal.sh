#!/bin/sh
# A signal (SIGTERM, as mpirun passes Ctrl-C on) while the NCCL backend polls a communicator creation that does not
# end: ncclCommSplit of the world (a peer that never joins), and the world's own ncclCommInitRank. Both run
# non-blocking and polled (collectives/backend_nccl_wait.c nvs_nb_await_world). tests/fixtures/fake_gpu.c, preloaded,
# stands in for CUDA and NCCL: FAKE_GPU_SPLIT=stall makes the world and leaves every split ncclInProgress;
# FAKE_GPU_ABORT_S=2 makes each ncclCommAbort take 2 s (NCCL 2.28.3's took 1.5-2 s after a signal, while mpirun SIGKILLs
# a rank about 1 s after its SIGTERM) and say "fake_gpu: rank R: ncclCommAbort" as it starts. The job must end within
# seconds, exit 130, rank 0's run.json "interrupted" under its final name, and rank 0's abort must come after its write
# (its line "nvscale: interrupted by signal 15 ... (run.json: status "interrupted")", said after the outputs). The
# interrupted creation used to abort its communicators at once, 2 s before the write (lost under mpirun).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
need_cmd pgrep
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
fake_gpu "$d"
RUN="run --no-train --backend nccl -b 1K -e 4K -n 5 --timeout 60"

# case NAME SPLIT READY: the job, SIGTERM to both ranks once READY (a shell test) holds, then its checks
case_signal() {
    name=$1
    env FAKE_GPU_SPLIT=$2 FAKE_GPU_ABORT_S=2 $MPIRUN -np 2 -x FAKE_GPU_SPLIT -x FAKE_GPU_ABORT_S \
        -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN --out "$d/$name" >"$d/$name.out" 2>&1 &
    pid=$!
    t0=$(date +%s)
    while [ $(($(date +%s) - t0)) -lt 60 ] && kill -0 $pid 2>/dev/null && ! eval "$3"; do sleep 0.1; done
    sleep 1 # into the creation that never ends (the fake's: nothing else is polled there)
    ranks=$(pgrep -P $pid)
    [ -n "$ranks" ] || { fail "$name: the ranks are not running"; kill -9 $pid 2>/dev/null; return; }
    t0=$(date +%s)
    kill -TERM $ranks
    while [ $(($(date +%s) - t0)) -lt 30 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done
    t=$(($(date +%s) - t0))
    kill -0 $pid 2>/dev/null && { fail "$name: the job still runs 30 s after the signal"; kill -9 $pid $ranks; }
    wait $pid
    rc=$?
    [ $rc -eq 130 ] || fail "$name: exit $rc, expected 130"
    [ $t -le 10 ] || fail "$name: the job took $t s to end after the signal"
    f=$d/$name/run.json s=
    if [ -s "$f" ]; then
        s=$(json_get "$f" "d['result']['status']")
        [ "$s" = interrupted ] || fail "$name: run.json status '$s', expected 'interrupted'"
        json_get "$f" "d['result']['reason']" | grep -q SIGTERM || fail "$name: run.json's reason does not say SIGTERM"
    else
        fail "$name: no final run.json (rank 0 did not get to write it)"
    fi
    # rank 0's lines, in the order it said them: the write's last words, then its abort(s)
    said=$(grep -n '^nvscale: interrupted by signal 15 .*(run.json: status "interrupted")' "$d/$name.out" | cut -d: -f1)
    abort=$(grep -n '^fake_gpu: rank 0: ncclCommAbort' "$d/$name.out" | head -n 1 | cut -d: -f1)
    [ -n "$said" ] || fail "$name: rank 0 does not say it was interrupted: $(grep -v '^\[' "$d/$name.out" | tail -n 3)"
    [ -n "$abort" ] || fail "$name: rank 0 never aborted its communicators"
    [ -n "$said" ] && [ -n "$abort" ] && [ "$abort" -lt "$said" ] &&
        fail "$name: rank 0 aborted its NCCL communicators (2 s) before writing run.json"
    echo "$name: out in $t s after SIGTERM (exit $rc), run.json '${s:-none}'," \
        "write said at line ${said:-?}, abort at ${abort:-?}"
}
# the split: after the checkpoint before the sweep (its first split follows at once)
case_signal split stall '[ -s "$d/split.partial/run.json" ]'
# the world's own creation: once the run directory is made (just before the backend's set-up)
case_signal init none '[ -d "$d/init.partial" ]'
finish
