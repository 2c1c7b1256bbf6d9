#!/bin/bash
# The smallest useful GPU call, for a session with little device time left: the build, the suite's GPU tests
# (bounded by GPU_TESTS_S, default 170 s) and `nvscale topo`. Usage: tools/device/mini.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
mkdir -p "$R"
step build
gpu_build "$R"
describe "$R"
commands_header
step "GPU tests"
rec gpu-tests timeout "${GPU_TESTS_S:-170}" tests/run.sh gpu
rec topo timeout 30 ./nvscale topo
step done
