#!/bin/bash
# The null test of paired rounds on ONE GPU (tools/paired_null.py): LAUNCHES launches of tools/ddp_bench.py at
# world size 1 with --rounds ROUNDS, where DDP at "world 1" and 1-rank DDP are the same program, so every
# deviation of their ratio from 1 is noise; then `nvscale train --rounds` at bf16 on the GPU (the path that
# pairs N=1 and N=2 on a machine with two). With HEAD=1, first: tools/device/head.sh's GPU suite and user runs.
# CONFIGS=LIST: ddp_bench configurations instead of the bf16 three.
# Usage: [HEAD=1] [CONFIGS=LIST] tools/device/paired.sh DIR [LAUNCHES (default 3)] [ROUNDS (default 5)]
. "$(dirname "$0")/lib.sh"
R=$1
LAUNCHES=${2:-3}
ROUNDS=${3:-5}
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/paired-$(basename "$R").tar.gz" "$R"' EXIT
step build
if [ "${HEAD:-0}" = 1 ]; then gpu_build "$R"; else gpu_build "$R" nvscale; fi
describe "$R"
commands_header
if [ "${HEAD:-0}" = 1 ]; then
    gpu_suite
    step "what a user runs first"
    rec nvscale-default timeout 150 ./nvscale --out "$R/raw/default"
    rec accept timeout 150 ./nvscale accept --out "$R/raw/accept"
fi
C=${CONFIGS:-lm290m:bf16:8,bert-large:bf16:32,resnet50:bf16:128}
for i in $(seq 1 "$LAUNCHES"); do
    step "launch $i: PyTorch, $ROUNDS paired rounds"
    rec "pt-null-$i" timeout 150 python3 tools/ddp_bench.py --configs "$C" --steps 8 --warmup 3 --rounds "$ROUNDS" \
        --json "$R/raw/pt-null-$i.jsonl" --max-seconds 120
done
step "nvscale train --rounds at bf16"
rec nvs-rounds timeout 150 ./nvscale train --model tools/profiles/lm290m.prof,bert-large-mlm128 --precision bf16 \
    --steps 8 --warmup-steps 3 --rounds 3 --out "$R/raw/nvs-rounds"
step "the null test's table"
rec paired-null python3 tools/paired_null.py "$R"/raw/pt-null-*.jsonl --out "$R/paired-null.md"
step done
