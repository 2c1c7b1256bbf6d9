#!/bin/bash
# The optimizer variants on the GPU at this commit, after head.sh in the same call (same DIR): `nvscale train` at
# bf16 with --optimizer sgd, adamw (under pytorch-ddp: PyTorch's foreach passes), adamw-fused, and adamw under
# --framework ideal (fused), each run.json kept; the step and optimizer_fused of each are compared by the reader.
# Usage: tools/device/optim.sh DIR (the build of head.sh/gpu_build already done)
. "$(dirname "$0")/lib.sh"
R=$1
mkdir -p "$R/raw"
commands_header
M=${MODELS:-resnet50,bert-large-mlm128}
for o in sgd adamw adamw-fused; do
    step "train bf16 --optimizer $o"
    rec "train-$o" timeout 150 ./nvscale train --model "$M" --precision bf16 --optimizer $o --steps 10 \
        --warmup-steps 3 --out "$R/raw/train-$o"
done
step "train bf16 --optimizer adamw --framework ideal"
rec train-adamw-ideal timeout 150 ./nvscale train --model "$M" --precision bf16 --optimizer adamw --framework ideal \
    --steps 10 --warmup-steps 3 --out "$R/raw/train-adamw-ideal"
step done
