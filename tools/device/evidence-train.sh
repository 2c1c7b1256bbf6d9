#!/bin/bash
# Evidence for the training step (issue 4): nvscale's synthetic step and the PyTorch DDP reference harness,
# resnet50 (fp32, batch 128) and lm290m (fp32, batch 8), N = 1 and 2, over NVLink and with NCCL_P2P_DISABLE=1.
# Usage: tools/device/evidence-train.sh RESULTS_DIR [OUT]
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R/ddp"
trap 'tar czf "$O/evidence-train.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
LM=tools/profiles/lm290m.prof
for tr in nvlink shm; do
    if [ $tr = shm ]; then export NCCL_P2P_DISABLE=1; else unset NCCL_P2P_DISABLE; fi
    step "nvscale $tr"
    rec train-resnet50-$tr $MPIRUN ./nvscale train --model resnet50 --batch 128 --precision fp32 --out "$R/train-resnet50-$tr"
    rec train-lm290m-$tr $MPIRUN ./nvscale train --model $LM --batch 8 --precision fp32 --out "$R/train-lm290m-$tr"
    step "PyTorch DDP $tr"
    for m in resnet50:128 lm290m:8; do
        model=${m%:*} batch=${m#*:}
        if [ $tr = nvlink ]; then
            rec ddp-$model-n1 torchrun --standalone --nproc_per_node 1 tools/ddp_bench.py --model $model \
                --batch $batch --precision fp32 --json "$R/ddp/$model-n1.json"
        fi
        rec ddp-$model-n2-$tr torchrun --standalone --nproc_per_node 2 tools/ddp_bench.py --model $model \
            --batch $batch --precision fp32 --json "$R/ddp/$model-n2-$tr.json"
    done
done
unset NCCL_P2P_DISABLE
step done
