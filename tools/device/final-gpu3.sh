#!/bin/bash
# GPU pass after the review fixes of issue 14 (one call): the default run (the verdict names explain's
# collective; the time column is the -a basis's), Ctrl-C while the NCCL training step runs at N=2 (status
# "interrupted", not an NCCL error; the N=1 point kept), kill -9 of rank 1 at the same moment, a batch that cannot
# fit refused before the first collective (once, naming the GPU), and the GPU tests of the collectives and the step.
# Usage: tools/device/final-gpu3.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
T0=$(date +%s)
trap 'tar czf "$O/final-gpu3.tar.gz" "$R"' EXIT
left() { echo $((330 - ($(date +%s) - T0))); }
go() { # go SECONDS NAME CMD...: run unless the budget is short
    local lim=$1; shift
    if [ "$(left)" -lt "$lim" ]; then echo "$1: SKIPPED (budget)"; echo "| $1 | skipped: the call's budget ran low | | | |" >>"$R/COMMANDS.md"; return 0; fi
    local name=$1; shift
    rec "$name" timeout "$lim" "$@"
}
JH=$(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson)
make -j32 NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $JH >"$R/build.log" 2>&1 &&
    make -j32 test-bins NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $JH >>"$R/build.log" 2>&1 ||
    { tail -30 "$R/build.log"; exit 1; }
describe "$R"
commands_header
MR="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE"

step "the default run"
go 90 default-run $MR ./nvscale --out "$R/default-run"

# train_fault NAME HOW: a 2-GPU BERT-large step; once the N=1 point is in the checkpoint, HOW = int (SIGINT to
# mpirun) or kill9 (rank 1)
train_fault() {
    local name=$1 how=$2 p
    local cmd="./nvscale train --model bert-large --steps 40 --warmup-steps 2 --out $R/$name"
    $MR $cmd >"$R/$name.txt" 2>&1 &
    p=$!
    wait_train_point "$R/$name.partial/run.json" 600
    sleep 3 # into N=2
    hit_job "$how" $p "nvscale train --model bert-large --steps 40 --warmup-steps 2 --out $R/$name" "$R/$name.txt"
    wait $p
    echo "exit $?" >>"$R/$name.txt"
    local f=$R/$name/run.json
    [ -s "$f" ] || f=$R/$name.partial/run.json
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=(d.get('trains') or [{}])[0]; print(sys.argv[1], d['result']['status'], 'training points:', [(r['n'], round(r['step_us']/1e3,2)) for r in t.get('results', [])], d['result'].get('reason'))" "$f" >>"$R/faults-summary.txt" 2>&1
    printf '| %s | `%s` (%s at N=2) | %s | see %s.txt | `%s.txt` |\n' "$name" "$MR $cmd" "$how" "$(date -u +%FT%TZ)" "$name" "$name" >>"$R/COMMANDS.md"
}
step "Ctrl-C and kill -9 during the NCCL training step"
[ "$(left)" -gt 150 ] && train_fault train-sigint int
[ "$(left)" -gt 120 ] && train_fault train-kill9 kill9
cat "$R/faults-summary.txt"
step "a batch that cannot fit: refused before the sweep"
go 60 preflight-batch $MR ./nvscale run --model bert-large --batch 100000 -e 1G --out "$R/preflight"
ls -d "$R"/preflight* >>"$R/preflight-batch.txt" 2>&1 || echo "no run directory left" >>"$R/preflight-batch.txt"
step "GPU tests"
go 90 gpu-coll-test tests/run.sh gpu_coll
go 80 gpu-train-test tests/run.sh gpu_train
step done
