#!/bin/bash
# Follow-up GPU pass: compute-sanitizer memcheck on nvscale's own kernels and memory (NCCL's and CUDA's internal
# API probes not reported), the GPU collective test after its fix, and plain `nvscale` (one process, a thread per
# GPU). Usage: tools/device/final-gpu2.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/final-gpu2.tar.gz" "$R"' EXIT
J=$(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson)
make -j32 NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $J >"$R/build.log" 2>&1 &&
    make -j32 test-bins NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $J >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
describe "$R"
commands_header
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
rec sanitizer-coll timeout 120 $CS ./nvscale coll -b 1M -e 16M -f 4 --coll all -n 3 -w 1 --no-save
rec sanitizer-train timeout 150 $CS ./nvscale train --model resnet50 --batch 8 --steps 2 --warmup-steps 1 --no-save
rec sanitizer-p2p timeout 60 $CS ./nvscale p2p --copy-bytes 16M --copy-iters 2 --no-save
rec gpu-coll-test timeout 150 tests/run.sh gpu_coll
rec default-threads timeout 120 ./nvscale --out "$R/default-threads"
step done
