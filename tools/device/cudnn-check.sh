#!/bin/bash
# The cuDNN path (src/train/conv.h) on the other built-in profiles that give convolution geometry, where it meets
# what ResNet-50 does not: ssd300's head outputs at an odd batch (layer buffers not 16-byte aligned before the
# 128-element rounding of train_plan.c), maskrcnn_nvidia's frozen stem (convolutions without weight gradients),
# each at fp32, bf16 and fp16, with --cudnn on; and the tests that cover it (cudnn_abi, gpu_train; TESTS=0: not).
# MODELS="NAME:BATCH ..." instead of those two. Usage: tools/device/cudnn-check.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/cudnn-check-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R"
describe "$R"
commands_header
CUDNN_LIB=$(pytorch_cudnn_lib)
if [ "${TESTS:-1}" = 1 ]; then
    step "tests: cudnn_abi, gpu_train"
    rec cudnn-abi timeout 60 tests/run.sh cudnn_abi
    rec gpu-train timeout 240 tests/run.sh gpu_train
fi
for M in ${MODELS:-ssd300:3 maskrcnn-nvidia:1}; do
    for P in fp32 bf16 fp16; do
        step "${M%%:*} batch ${M#*:} $P --cudnn on"
        rec "${M%%:*}-$P" env LD_LIBRARY_PATH="$CUDNN_LIB" timeout 120 ./nvscale train --model "${M%%:*}" \
            --batch "${M#*:}" --precision $P --cudnn on --steps 3 --warmup-steps 1 --out "$R/raw/${M%%:*}-$P"
    done
done
step done
