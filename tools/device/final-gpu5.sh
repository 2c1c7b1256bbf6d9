#!/bin/bash
# GPU pass after the host-speed probe of the training step (issue 9): the default `mpirun -np 2 nvscale` (its
# one screen, Why included), `nvscale train` at bf16 over NVLink with the framework's host work (run.json's
# host_rate_p10/p90 per N, and Why's sentence when the host changed speed), then the whole `make check` on the
# GPUs in the time left. Usage: tools/device/final-gpu5.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
T0=$(date +%s)
trap 'tar czf "$O/final-gpu5.tar.gz" "$R"' EXIT
left() { echo $((540 - ($(date +%s) - T0))); }
step build
gpu_build "$R"
describe "$R"
commands_header
NG=$(nvidia-smi -L | wc -l)
[ "$NG" -gt 2 ] && NG=2
MR="mpirun --allow-run-as-root -np $NG --bind-to none -x NCCL_NVLS_ENABLE"
step "default run"
rec default timeout 150 $MR ./nvscale --out "$R/default"
step "train bf16"
rec train-bf16 timeout 150 $MR ./nvscale train --model tools/profiles/lm290m.prof,bert-large-mlm128 --precision bf16 \
    --steps 20 --warmup-steps 3 --out "$R/train-bf16"
step "make check ($(left) s left)"
rec make-check timeout "$(left)" make check NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
    $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson)
tail -5 "$R/make-check.txt"
step done
