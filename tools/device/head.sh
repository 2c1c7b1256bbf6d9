#!/bin/bash
# The product at this commit on whatever the GPU machine has: the suite's GPU tests (tests/run.sh gpu,
# faults_train), then what a user runs first: plain `nvscale` (as `make run` does), `nvscale accept` and
# `nvscale topo`, each output kept. With CUDNN=1, plain `nvscale` runs a second time with the cuDNN of PyTorch's
# environment on LD_LIBRARY_PATH (the first run is as a fresh shell has it). Usage: tools/device/head.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/head-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R"
describe "$R"
commands_header
gpu_suite
step "what a user runs first"
rec nvscale-default timeout 150 ./nvscale --out "$R/raw/default"
if [ "${CUDNN:-0}" = 1 ]; then
    CUDNN_LIB=$(pytorch_cudnn_lib)
    rec nvscale-default-cudnn env LD_LIBRARY_PATH="$CUDNN_LIB" timeout 150 ./nvscale --out "$R/raw/default-cudnn"
fi
rec accept timeout 150 ./nvscale accept --out "$R/raw/accept"
rec topo timeout 60 ./nvscale topo
step done
