#!/bin/sh
# The NCCL backend's set-up (collectives/backend_nccl.c nvs_backend_nccl_init) failing on one rank, on a machine
# without a GPU: tests/fixtures/fake_gpu.c, preloaded, stands in for the CUDA and NCCL calls of the set-up and fails
# one of them on one rank (FAKE_GPU_FAIL=CALL:RANK). The rank's own set-up (cudaSetDevice, cudaGetDeviceProperties,
# cudaDeviceGetPCIBusId, its stream and counters, rank 0's unique id) enters the agreement before the set-up's
# collectives (backend.h nvs_comm_create_agree), and the failing rank tells why (run_flow.c, phase_fail.h): the job
# ends well within --timeout 60, exit 1, rank 0 ending with that rank's own error line, run.json "failed" with it.
# A cudaSetDevice failure used to return on that rank alone: rank 0 sat in the GPU assignment check's gather until
# rank 1's MPI_Abort killed it, "interrupted", the cause lost.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
fake_gpu "$d"
h=$(hostname)
RUN="run --no-train --backend nccl -b 1K -e 4K -n 5 --timeout 60"

# case CALL:RANK: the job's exit, time, rank 0's last words, run.json's status and reason
case_fail() {
    spec=$1 call=${1%%:*} r=${1##*:}
    said="rank $r (host $h) failed in setting up ncclCommInitRank: $call("
    t0=$(date +%s)
    env FAKE_GPU_FAIL=$spec $MPIRUN -np 2 -x FAKE_GPU_FAIL -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN \
        --out "$d/$spec" >"$d/$spec.out" 2>&1
    rc=$?
    t=$(($(date +%s) - t0))
    [ $rc -eq 1 ] || fail "$spec: exit $rc, expected 1"
    [ $t -le 30 ] || fail "$spec: the job took $t s to end with --timeout 60"
    grep -qF "nvscale: stopped: $said" "$d/$spec.out" ||
        { fail "$spec: rank 0 does not end saying '$said...'"; grep -v '^\[' "$d/$spec.out" | tail -n 6 | sed 's/^/    /'; }
    f=$d/$spec/run.json
    if [ -s "$f" ]; then
        s=$(json_get "$f" "d['result']['status']")
        [ "$s" = failed ] || fail "$spec: run.json status '$s', expected 'failed'"
        json_get "$f" "d['result']['reason']" | grep -qF "$said" ||
            fail "$spec: run.json's reason does not name the rank and the call: $(json_get "$f" "d['result']['reason']")"
    else
        fail "$spec: no final run.json (rank 0 did not get to write it)"
    fi
    echo "$spec: out in $t s (exit $rc), run.json '${s:-none}'"
}
case_fail cudaSetDevice:1
case_fail cudaGetDeviceProperties:1
case_fail cudaDeviceGetPCIBusId:0
case_fail cudaMalloc:1

# A host whose driver fails (cudaGetDeviceCount on rank 1). Without --backend, rank 1 chose the MPI host backend
# and rank 0 NCCL: their set-ups met in each other's collectives and rank 0 ended "ncclCommInitRank failed:
# unhandled system error", blaming itself. Now rank 0 names rank 1, its host and CUDA's words (run/same_backend.h).
# With --backend nccl, rank 1 refuses before MPI starts: it used to exit 1 without a word (rank 0 "interrupted").
$MPIRUN -np 2 -x FAKE_GPU_FAIL=cudaGetDeviceCount:1 -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" \
    $(echo "$RUN" | sed 's/--backend nccl//') --out "$d/mixed" >"$d/mixed.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "auto backend, rank 1 without a GPU: exit $rc, expected 1"
grep -qF "rank 1 (host $h) found no usable GPU (cudaGetDeviceCount: " "$d/mixed.out" ||
    fail "auto backend, rank 1 without a GPU: rank 1 not named: $(grep -v '^\[' "$d/mixed.out" | head -n 3)"
grep -q "unhandled system error" "$d/mixed.out" && fail "auto backend, rank 1 without a GPU: the backends met"
echo "auto backend, rank 1 without a GPU: exit $rc, named"
$MPIRUN -np 2 -x FAKE_GPU_FAIL=cudaGetDeviceCount:1 -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN --out "$d/nogpu" \
    >"$d/nogpu.out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "--backend nccl, rank 1 without a GPU: exit 0"
grep -qF "[rank 1] nvscale: --backend nccl needs a GPU, and none is usable on host $h (cudaGetDeviceCount: " \
    "$d/nogpu.out" || fail "--backend nccl, rank 1 without a GPU: unsaid: $(grep -v '^\[' "$d/nogpu.out" | head -n 3)"
echo "--backend nccl, rank 1 without a GPU: exit $rc, said by rank 1"

# Three ranks on a host with two GPUs: rank 2 has none. A launch to change, so exit 2 on every rank (mpirun's
# status; no rank ends in MPI_Abort); rank 2 says why and rank 0 says rank 2's own line, which names its host and
# the counts (runtime.h nvs_rt_agree_ok_told_usage). It used to return in silence, then rank 0 said only "rank 2
# failed in assigning GPUs: usage error".
$MPIRUN -np 3 -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN --out "$d/three" >"$d/three.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "3 ranks for 2 GPUs: exit $rc, expected 2"
grep -qF "[rank 2]: error: 3 ranks run on host $h but only 2 GPUs are visible there" "$d/three.out" ||
    fail "3 ranks for 2 GPUs: rank 2's refusal is not said"
said="[rank 0]: error: rank 2 (host $h) failed in assigning GPUs: 3 ranks run on host $h but only 2 GPUs are visible"
grep -qF "$said" "$d/three.out" || fail "3 ranks for 2 GPUs: rank 0 does not say rank 2's own line '$said...': \
$(grep -v '^\[' "$d/three.out" | grep 'rank 0' | tail -n 3)"
# whole: rank 2's line, as rank 2 said it, is in rank 0's (it was cut at 159 bytes, "...or make more G")
own=$(grep -F "[rank 2]: error: 3 ranks run on host" "$d/three.out" | head -n 1 | sed 's/^.*\]: error: //')
grep -F "[rank 0]: error: rank 2 (host $h)" "$d/three.out" | grep -qF "$own" ||
    fail "3 ranks for 2 GPUs: rank 0's line does not carry rank 2's whole line '$own'"
grep -q "MPI_ABORT\|stopping the job" "$d/three.out" && fail "3 ranks for 2 GPUs: a rank ended in MPI_Abort"
[ ! -e "$d/three" ] || fail "3 ranks for 2 GPUs: a run directory was left with nothing measured"
echo "3 ranks for 2 GPUs: exit $rc"

# ncclCommInitRank failing inside NCCL on rank 1 only, while rank 0's never ends (the stand-in's, as a real bootstrap
# waiting for its peer). The world communicator is created non-blocking and polled (collectives/backend_nccl.c
# world_init): rank 1 tells why, rank 0 aborts its own and says rank 1's line, run.json "failed" with it. It used to
# sit in a blocking ncclCommInitRank until rank 1's MPI_Abort killed it (or for good), the cause unsaid by rank 0.
# `timeout -k`: a hang fails here instead of holding the suite (a rank stuck in NCCL outlives a SIGTERM).
need_cmd timeout
said="rank 1 (host $h) failed in the backend's set-up: ncclCommInitRank failed: "
t0=$(date +%s)
timeout -k 10 120 $MPIRUN -np 2 -x FAKE_GPU_FAIL=ncclCommInitRank:1 -x LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN \
    --out "$d/init1" >"$d/init1.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 1 ] || fail "ncclCommInitRank:1: exit $rc, expected 1 (124 or 137: the job hung)"
[ $t -le 30 ] || fail "ncclCommInitRank:1: the job took $t s to end with --timeout 60"
grep -qF "nvscale: stopped: $said" "$d/init1.out" ||
    { fail "ncclCommInitRank:1: rank 0 does not end saying '$said...'"; grep -v '^\[' "$d/init1.out" | tail -n 6 | sed 's/^/    /'; }
f=$d/init1/run.json s=
if [ -s "$f" ]; then
    s=$(json_get "$f" "d['result']['status']")
    [ "$s" = failed ] || fail "ncclCommInitRank:1: run.json status '$s', expected 'failed'"
    json_get "$f" "d['result']['reason']" | grep -qF "$said" ||
        fail "ncclCommInitRank:1: run.json's reason does not name rank 1: $(json_get "$f" "d['result']['reason']")"
else
    fail "ncclCommInitRank:1: no final run.json (rank 0 did not get to write it)"
fi
echo "ncclCommInitRank:1: out in $t s (exit $rc), run.json '${s:-none}'"

# ncclCommInitRank never ending on any rank (no rank fails: the threads runtime's two ranks, one process): --timeout
# ends the polled creation on each, which names the call and its GPU, and the communicators are aborted (the
# stand-in counts what is left at exit). A blocking ncclCommInitRank used to hold the job for good.
t0=$(date +%s)
timeout -k 10 120 env LD_PRELOAD="$d/fake_gpu.so" "$NVS" $(echo "$RUN" | sed 's/--timeout 60/--timeout 2/') \
    --out "$d/stall" >"$d/stall.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 1 ] || fail "ncclCommInitRank never ending: exit $rc, expected 1 (124 or 137: the job hung)"
[ $t -le 20 ] || fail "ncclCommInitRank never ending: the job took $t s to end with --timeout 2"
for r in 0 1; do
    grep -q "rank $r\]: error: ncclCommInitRank did not complete within 2 s on rank $r (host " "$d/stall.out" ||
        fail "ncclCommInitRank never ending: rank $r does not say that its ncclCommInitRank timed out"
done
grep -q '^fake_gpu: .* not freed' "$d/stall.out" && fail "ncclCommInitRank never ending: $(grep '^fake_gpu:' "$d/stall.out")"
echo "ncclCommInitRank never ending: out in $t s (exit $rc)"

# ncclCommInitRank failing (on every rank: the stand-in has no GPU to talk over) after world_setup made its stream
# and counters: nfinalize frees them (the caller finalizes only a backend that started). One process, the threads
# runtime's two ranks, so that it exits normally and the stand-in counts what is left (an MPI rank that fails
# ends in MPI_Abort, before any exit handler). They used to be left: "2 stream(s), 2 allocation(s) not freed".
env FAKE_GPU_FAIL=ncclCommInitRank:all LD_PRELOAD="$d/fake_gpu.so" "$NVS" $RUN --out "$d/init" >"$d/init.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "ncclCommInitRank:all: exit $rc, expected 1"
grep -q "failed in the backend's set-up: ncclCommInitRank failed" "$d/init.out" ||
    fail "ncclCommInitRank:all: the failure is not said: $(grep -v '^\[' "$d/init.out" | tail -n 1)"
grep -q '^fake_gpu: .* not freed' "$d/init.out" && fail "ncclCommInitRank:all: $(grep '^fake_gpu:' "$d/init.out")"
echo "ncclCommInitRank:all: exit $rc, $(grep -c '^fake_gpu:' "$d/init.out") line(s) of what was left"
finish
