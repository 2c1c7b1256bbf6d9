#!/bin/bash
# fp16's GradScaler with foreach and fused AdamW at N=1, PyTorch (tools/ddp_bench.py at world 1, --optimizer adamw /
# adamw-fused: AdamW(fused=True), which takes found_inf into its kernel and never waits on the host) and `nvscale
# train` the same, alternating ROUNDS times; then the NCCL world's creation with NCCL_DEBUG=INFO (the world is
# non-blocking, the communicators that carry collectives blocking: backend_nccl.c world_init, backend_nccl_comm.c
# split_world).
# Usage: tools/device/scaler.sh DIR [ROUNDS (default 2)] (after gpu_build, e.g. from mini.sh in the same call)
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
M=${MODEL:-bert-large}
NM=${NVS_MODEL:-bert-large-mlm128}
B=${BATCH:-32}
mkdir -p "$R/raw"
commands_header
for k in $(seq 1 "$ROUNDS"); do
    for o in adamw adamw-fused; do
        step "round $k: PyTorch fp16 $o"
        rec "pt-$o-$k" timeout 150 python3 tools/ddp_bench.py --configs "$M:fp16:$B" --optimizer $o --steps 15 \
            --warmup 3 --json "$R/raw/pt-$o-$k.jsonl"
        step "round $k: nvscale fp16 $o"
        rec "nvs-$o-$k" timeout 120 ./nvscale train --model "$NM" --batch "$B" --precision fp16 --optimizer $o \
            --steps 15 --warmup-steps 3 --out "$R/raw/nvs-$o-$k"
    done
done
step "NCCL world and splits, NCCL_DEBUG=INFO"
rec coll-ncclinfo env NCCL_DEBUG=INFO timeout 90 ./nvscale coll -b 1M -e 16M --out "$R/raw/coll"
step done
