#!/bin/bash
# Issue 9, the framework model's per-kernel host cost: how many kernels PyTorch launches per step, by pass, for
# resnet50 (batch 128), lm290m (8) and bert-large (32) at fp32 and bf16 on ONE GPU (ddp_bench at world size 1,
# its profiler kept as chrome traces, read by tools/device/kernel_census.py, the traces then dropped: they are
# large); then the GPU tests of the suite at this commit. Usage: tools/device/census.sh DIR
# CONFIGS=model:precision:batch,... profiles those instead; GPU_TESTS=0 skips the tests.
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw" "$R/traces"
trap 'rm -rf "$R/traces"; tar czf "$O/census-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R"
describe "$R"
commands_header
C=${CONFIGS:-resnet50:fp32:128,resnet50:bf16:128,lm290m:fp32:8,lm290m:bf16:8,bert-large:fp32:32,bert-large:bf16:32}
step "PyTorch with the profiler"
rec pt-prof timeout 330 python3 tools/ddp_bench.py --configs "$C" --steps 8 --warmup 3 --profile --profile-steps 3 \
    --trace-dir "$R/traces" --json "$R/raw/pt-prof.jsonl" --max-seconds 300
step census
rec census python3 tools/device/kernel_census.py "$R"/traces/*.json
cp "$R/census.txt" "$R/census.jsonl"
if [ "${GPU_TESTS:-1}" = 1 ]; then
    step "GPU tests"
    rec gpu-tests timeout 200 tests/run.sh gpu
    rec faults-train timeout 100 tests/run.sh faults_train
fi
step done
