#!/bin/sh
# The training step on GPUs: a small built-in model at every N, the memory refusal, bf16. Skipped without GPU.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
has_gpu || skip "no GPU on this machine"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
d=$TMP/gpu_train
rm -rf "$d"
expect 0 "Training step: resnet50" $NVS train --model resnet50 --batch 16 --steps 3 --warmup-steps 1 --out "$d/r50"
[ "$(json_get $d/r50/run.json "all(r['step_us'] > 0 and r['compute_us'] > 0 for r in d['train']['results'])")" = "True" ] ||
    fail "step times"
expect 0 "Training step: tiny-mlp" $NVS train --model tests/fixtures/train/tiny-mlp.prof --precision bf16 --grad-type bf16 \
    --steps 3 --warmup-steps 1 --no-save
expect 2 "needs .* GiB per GPU .* free: lower --batch" $NVS train --model gpt2-xl --batch 4096 --no-save
finish
