#!/bin/bash
# Diagnostic for issue 9 on 2x H200: where real DDP loses time at bf16 over NVLink, and what nvscale's step does
# with the same shapes, in ONE call (machines differ from call to call). Usage: tools/device/diag-fidelity.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/diag.tar.gz" "$R"' EXIT
export NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90"
step build
make -j32 NVCC_GENCODE="$NVCC_GENCODE" $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) >"$R/build.log" 2>&1 ||
    { tail -30 "$R/build.log"; exit 1; }
describe "$R"
commands_header
uptime >"$R/load-before.txt"
MR="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE"
step "nvscale train (current step, NVLink)"
rec nvs-lm-bf16 $MR ./nvscale train --model tools/profiles/lm290m.prof --batch 8 --precision bf16 -v --out "$R/nvs-lm-bf16"
rec nvs-bert-bf16 $MR ./nvscale train --model bert-large-mlm128 --batch 32 --precision bf16 -v --out "$R/nvs-bert-bf16"
rec nvs-lm-fp32 $MR ./nvscale train --model tools/profiles/lm290m.prof --batch 8 --precision fp32 -v --out "$R/nvs-lm-fp32"
step "PyTorch DDP with the profiler (NVLink)"
rec ddp-nvlink-prof timeout 330 torchrun --standalone --nproc_per_node 2 tools/ddp_bench.py \
    --configs lm290m:bf16:8,bert-large:bf16:32,lm290m:fp32:8 --transport nvlink --profile --steps 15 --warmup 4 \
    --json "$R/ddp-nvlink-prof.jsonl" --max-seconds 300
step "harness vs a minimal DDP script (1 GPU)"
rec min-lm-bf16-noddp timeout 90 torchrun --standalone --nproc_per_node 1 tools/ddp_minimal.py lm290m bf16 --no-ddp \
    --against "$R/ddp-nvlink-prof.jsonl" --json "$R/minimal.jsonl"
rec min-lm-bf16-ddp timeout 90 torchrun --standalone --nproc_per_node 1 tools/ddp_minimal.py lm290m bf16 \
    --against "$R/ddp-nvlink-prof.jsonl" --json "$R/minimal.jsonl"
uptime >"$R/load-after.txt"
step done
