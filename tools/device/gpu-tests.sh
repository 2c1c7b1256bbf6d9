#!/bin/bash
# The suite's GPU tests at this commit (tests/run.sh gpu, faults_train), and `nvscale train` at fp16 for the three
# reference models (the GradScaler's wait kept out of issue_us). Usage: tools/device/gpu-tests.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/gpu-tests-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R"
describe "$R"
commands_header
gpu_suite
step "nvscale fp16"
rec nvs-fp16 timeout 120 ./nvscale train --model resnet50,tools/profiles/lm290m.prof,bert-large-mlm128 --precision fp16 \
    --steps 15 --warmup-steps 3 --out "$R/raw/nvs-fp16"
step done
