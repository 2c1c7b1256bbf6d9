#!/bin/bash
# GPU pass for the rescue thread and the host-wait margin (issue 14), on 1 or 2 GPUs: Ctrl-C to mpirun during the
# NCCL training step (the second workload, or N=2), the same with rank 0 slow to stop (NVS_TEST_SLOW_STOP: mpirun's
# SIGKILL comes before its final write; run.json must say "interrupted" by the thread's mark), kill -9 of rank 1
# (2 GPUs), and the GPU tests (the stall test needs 2 GPUs).
# Usage: tools/device/final-gpu4.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
T0=$(date +%s)
trap 'tar czf "$O/final-gpu4.tar.gz" "$R"' EXIT
left() { echo $((420 - ($(date +%s) - T0))); }
gpu_build "$R"
describe "$R"
commands_header
NG=$(nvidia-smi -L | wc -l)
[ "$NG" -gt 2 ] && NG=2
MR="mpirun --allow-run-as-root -np $NG --bind-to none -x NCCL_NVLS_ENABLE -x NVS_TEST_SLOW_STOP"
# two workloads: with one GPU the second one's N=1 step is running when the signal comes
TRAIN="train --model bert-large,resnet50 --steps 40 --warmup-steps 2"

# fault NAME HOW [SLOW]: once the first training point is in the checkpoint, 3 s on, HOW = int (SIGINT to
# mpirun) or kill9 (rank 1); SLOW = NVS_TEST_SLOW_STOP for the job
fault() {
    local name=$1 how=$2 slow=${3:-} p t0 rc
    local cmd="./nvscale $TRAIN --out $R/$name"
    if [ -n "$slow" ]; then export NVS_TEST_SLOW_STOP=$slow; else unset NVS_TEST_SLOW_STOP; fi
    $MR $cmd >"$R/$name.txt" 2>&1 &
    p=$!
    wait_train_point "$R/$name.partial/run.json" 900
    sleep 3
    t0=$(date +%s.%N)
    hit_job "$how" $p "nvscale $TRAIN --out $R/$name" "$R/$name.txt"
    wait $p
    rc=$?
    echo "exit $rc after $(python3 -c "import time,sys; print(round(time.time()-float(sys.argv[1]),1))" $t0) s" >>"$R/$name.txt"
    unset NVS_TEST_SLOW_STOP
    local f=$R/$name/run.json
    [ -s "$f" ] || f=$R/$name.partial/run.json
    python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
pts=[(t.get('model','?'), r['n'], round(r['step_us']/1e3,2)) for t in d.get('trains') or [] for r in t.get('results',[])]
print(sys.argv[2], sys.argv[1], d['result']['status'], 'training points:', pts, '|', d['result'].get('reason'))" "$f" "$name" >>"$R/faults-summary.txt" 2>&1
    printf '| %s | `%s%s` (%s 3 s after the first training point) | %s | %s | `%s.txt` |\n' "$name" "${slow:+NVS_TEST_SLOW_STOP=$slow }" "$MR $cmd" "$how" "$(date -u +%FT%TZ)" "$rc" "$name" >>"$R/COMMANDS.md"
}
step "Ctrl-C during the NCCL training step ($NG GPU(s))"
[ "$(left)" -gt 200 ] && fault train-int int
[ "$(left)" -gt 170 ] && fault train-int-slow int 20
[ "$NG" -ge 2 ] && [ "$(left)" -gt 140 ] && fault train-kill9 kill9
cat "$R/faults-summary.txt"
step "GPU tests"
[ "$(left)" -gt 100 ] && rec gpu-coll-test timeout 90 tests/run.sh gpu_coll
[ "$(left)" -gt 80 ] && rec gpu-train-test timeout 80 tests/run.sh gpu_train
step done
