#!/bin/sh
# One rank's own failure while a training point is timed (NVS_TEST_TRAIN_FAIL=1:2: rank 1 fails with "out of
# memory" as it starts timing N=2, as a failed allocation would, while rank 0 goes into the step's all-reduces), on
# the MPI host backend with --timeout 60: rank 1 tells the others (runtime.h nvs_rt_tell_failed), so the job ends
# well within --timeout (it waited for it, or ended on Open MPI's SIGTERM with run.json saying "interrupted"),
# exit 1, with rank 1 and its reason named on rank 0's terminal and in run.json (rank 1's own error line, core/log.h
# nvs_log_last_error, not the error code's text alone), and the N=1 point kept.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
h=$(hostname)
TRAIN="train --backend mpi --model tests/fixtures/train/tiny-mlp.prof --steps 50 --warmup-steps 1 --timeout 60"

# the hook's value is checked like any input: one message naming it, exit 2
NVS_TEST_TRAIN_FAIL=one:2 "$NVS" $TRAIN --out "$d/bad" >"$d/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "NVS_TEST_TRAIN_FAIL=one:2: exit $rc, expected 2"
grep -q "invalid value 'one:2' for environment variable NVS_TEST_TRAIN_FAIL" "$d/bad.out" ||
    fail "NVS_TEST_TRAIN_FAIL=one:2: the bad value is not named: $(head -n 1 "$d/bad.out")"

t0=$(date +%s)
env NVS_TEST_TRAIN_FAIL=1:2 $MPIRUN -np 2 -x NVS_TEST_TRAIN_FAIL "$NVS" $TRAIN --out "$d/fail" >"$d/fail.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 1 ] || fail "rank 1 failing at N=2: exit $rc, expected 1"
# MPI's start-up and the N=1 point take a few seconds on a loaded 2-core machine; --timeout is 60
[ $t -le 30 ] || fail "rank 1 failing at N=2: the job took $t s to end with --timeout 60"
said="rank 1 (host $h) failed timing train tiny-mlp N=2: out of memory starting train tiny-mlp N=2 (injected by NVS_TEST_TRAIN_FAIL=1:2)"
grep -qF "rank 0]: error: $said; every rank stops" "$d/fail.out" ||
    { fail "rank 1 failing at N=2: rank 0 does not name rank 1 and why"; grep -v '\[ *[0-9]* s\]' "$d/fail.out" | tail -n 8 | sed 's/^/    /'; }
f=$d/fail/run.json
if [ -s "$f" ]; then
    s=$(json_get "$f" "d['result']['status']")
    [ "$s" = failed ] || fail "rank 1 failing at N=2: run.json status '$s', expected 'failed'"
    json_get "$f" "d['result']['reason']" | grep -qF "$said" ||
        fail "rank 1 failing at N=2: run.json's reason does not name rank 1 and why: $(json_get "$f" "d['result']['reason']")"
    n=$(json_get "$f" "len(d['trains'][0]['results'])" 2>/dev/null || echo 0)
    [ "$n" -eq 1 ] || fail "rank 1 failing at N=2: $n training point(s) in run.json, expected the N=1 one"
else
    fail "rank 1 failing at N=2: no final run.json (rank 0 did not get to write it)"
fi
echo "rank 1 failing at N=2: out in $t s (exit $rc), run.json '${s:-none}' with ${n:-0} training point(s)"
finish
