#!/bin/bash
# The optimizer's host cost on one GPU: tools/device/optim_host.py (torch.optim's update alone, for SGD, foreach
# AdamW and fused AdamW over BERT-large's and ResNet-50's parameter tensors) next to `nvscale train`'s step for
# the same model and optimizers, so that nvscale's per-update host operations (workload/optimizer.c) can be set
# from a measurement. Then tools/device/scaler.sh (fp16 GradScaler, PyTorch vs nvscale) for ROUNDS rounds.
# Usage: tools/device/optimhost.sh DIR [ROUNDS (default 1)]
. "$(dirname "$0")/lib.sh"
R=$1
mkdir -p "$R/raw"
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
for m in bert-large resnet50; do
    step "optim_host $m"
    rec "optim-host-$m" timeout 120 python3 tools/device/optim_host.py --model $m --reps 30
done
bash "$(dirname "$0")/scaler.sh" "$R" "${2:-1}"
