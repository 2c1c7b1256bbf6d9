#!/bin/bash
# The product at this commit on whatever the GPU machine has: the suite's GPU tests (tests/run.sh gpu,
# faults_train), then what a user runs first: plain `nvscale` (as `make run` does), `nvscale accept` and
# `nvscale topo`, each output kept. Usage: tools/device/head.sh DIR
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
rec accept timeout 150 ./nvscale accept --out "$R/raw/accept"
rec topo timeout 60 ./nvscale topo
step done
