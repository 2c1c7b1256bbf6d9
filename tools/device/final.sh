#!/bin/bash
# Last GPU pass with the final code: the whole test suite on the GPU machine (GPU tests included), and the default
# `nvscale run` with a training step under mpirun (topology, sweeps at N = 1 and 2, resnet50, explanation).
# Usage: tools/device/final.sh RESULTS_DIR [OUT]
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R"
trap 'tar czf "$O/final.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
make -j16 test-bins $( pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson ) >>"$R/build.log" 2>&1
step tests
rec make-check make check $( pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson )
tail -6 "$R/make-check.txt"
step run
rec run-resnet50 mpirun --allow-run-as-root -np 2 --bind-to numa -x NCCL_NVLS_ENABLE ./nvscale run --model resnet50 \
    --batch 128 --out "$R/run-resnet50"
tail -12 "$R/run-resnet50.txt"
step done
