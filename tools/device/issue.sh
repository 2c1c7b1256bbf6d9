#!/bin/bash
# Issue 9, the framework's per-operation host cost: how long nvscale's own step takes the host to issue
# (run.json issue_us / compute_issue_us) with `--framework ideal` (its launches alone) and with pytorch-ddp (its
# launches + the framework's host work), for resnet50, lm290m and bert-large-mlm128 at bf16 on one GPU.
# Usage: tools/device/issue.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/issue-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
MODELS=resnet50,tools/profiles/lm290m.prof,bert-large-mlm128
for FW in ideal pytorch-ddp; do
    step "nvscale bf16 --framework $FW"
    rec "nvs-bf16-$FW" timeout 120 ./nvscale train --model $MODELS --precision bf16 --steps 15 --warmup-steps 3 \
        --framework "$FW" --out "$R/raw/nvs-bf16-$FW"
done
step done
