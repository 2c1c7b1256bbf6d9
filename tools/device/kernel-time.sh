#!/bin/bash
# Where nvscale's own GPU time goes, kernel by kernel: Nsight Systems' kernel summary of `nvscale train` for one
# model and precision (default resnet50 bf16 batch 128, pytorch-ddp), to set its kernels' times beside PyTorch's
# (tools/device/census.sh). Every variant of the step runs under the profiler, so per-step times are per-launch
# averages times launches per step. Usage: tools/device/kernel-time.sh DIR [MODEL [PRECISION]]
. "$(dirname "$0")/lib.sh"
R=$1
M=${2:-resnet50}
P=${3:-bf16}
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/kernel-time-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
command -v nsys >/dev/null || { echo "nsys not installed: nothing measured" | tee "$R/nsys-missing.txt"; exit 0; }
step "nsys: nvscale train $M $P"
rec nsys-train timeout 300 nsys profile -t cuda -o "$R/raw/train" --force-overwrite true ./nvscale train --model "$M" \
    --precision "$P" --steps 5 --warmup-steps 1 --out "$R/raw/run"
rec kern-sum timeout 200 nsys stats -r cuda_gpu_kern_sum -f csv -o "$R/kern" "$R/raw/train.nsys-rep"
rm -f "$R/raw/train.nsys-rep" "$R/raw/train.sqlite" # large; the summary is kept
step done
