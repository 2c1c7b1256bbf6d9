#!/bin/bash
# cuDNN convolutions in the synthetic step (src/train/conv.h) on ONE GPU: the tests that cover them (cudnn_abi,
# gpu_train), then ResNet-50's N=1 step in PyTorch (tools/ddp_bench.py at world size 1) and in `nvscale train`
# with --cudnn on and with --cudnn off, alternating, ROUNDS times, at PRECS (default "fp32 bf16 fp16") and
# BATCHES (default "128 64"). cuDNN is the one PyTorch's environment carries (its site-packages/nvidia/cudnn),
# put on LD_LIBRARY_PATH for nvscale. Usage: tools/device/conv.sh DIR [ROUNDS (default 2)]
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/conv-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R"
describe "$R"
commands_header
CUDNN_LIB=$(pytorch_cudnn_lib)
echo "cuDNN library folder: ${CUDNN_LIB:-none found}" >>"$R/MACHINE.md"
step "tests: cudnn_abi, gpu_train"
rec cudnn-abi timeout 60 tests/run.sh cudnn_abi
rec gpu-train timeout 300 tests/run.sh gpu_train
PRECS=${PRECS:-fp32 bf16 fp16}
BATCHES=${BATCHES:-128 64}
C=""
for P in $PRECS; do for B in $BATCHES; do C="$C${C:+,}resnet50:$P:$B"; done; done
for i in $(seq 1 "$ROUNDS"); do
    step "round $i: PyTorch"
    rec "pt-$i" timeout "${PT_TIMEOUT:-240}" python3 tools/ddp_bench.py --configs "$C" --steps 15 --warmup 3 \
        --json "$R/raw/pt-$i.jsonl" --max-seconds $(( ${PT_TIMEOUT:-240} - 20 ))
    for P in $PRECS; do
        for B in $BATCHES; do
            for V in on off; do
                step "round $i: nvscale $P batch $B --cudnn $V"
                rec "nvs-$V-$P-$B-$i" env LD_LIBRARY_PATH="$CUDNN_LIB" timeout 150 ./nvscale train --model resnet50 \
                    --batch "$B" --precision "$P" --cudnn "$V" --steps 15 --warmup-steps 3 \
                    --out "$R/raw/nvs-$V-$P-$B-$i"
            done
        done
    done
done
step done
