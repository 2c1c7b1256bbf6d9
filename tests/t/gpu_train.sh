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
# at bf16 pytorch-ddp copies each convolution's output (78 + 167) / 53 times (NCHW layout transforms,
# src/workload/framework.c): 11,113,984 output elements per image (tools/gen_profiles.py --summary), read and written
expect 0 "Training step: resnet50" $NVS train --model resnet50 --batch 16 --precision bf16 --steps 3 --warmup-steps 1 \
    --out "$d/r50bf"
[ "$(json_get $d/r50bf/run.json "abs(d['train']['framework']['layout_copy_bytes_per_step'] / (245 / 53 * 2 * 11113984 * 16 * 2) - 1) < 1e-9")" = "True" ] ||
    fail "layout copies: $(json_get $d/r50bf/run.json "d['train']['framework']['layout_copy_bytes_per_step']")"
expect 0 "Training step: tiny-mlp" $NVS train --model tests/fixtures/train/tiny-mlp.prof --precision bf16 --grad-type bf16 \
    --steps 3 --warmup-steps 1 --no-save
# fp16 (autocast with a gradient scaler under pytorch-ddp): the layout copies as at bf16, and a step that runs
expect 0 "Training step: resnet50, batch 16 per GPU, fp16" $NVS train --model resnet50 --batch 16 --precision fp16 \
    --steps 3 --warmup-steps 1 --out "$d/r50fp16"
[ "$(json_get $d/r50fp16/run.json "abs(d['train']['framework']['layout_copy_bytes_per_step'] / (245 / 53 * 2 * 11113984 * 16 * 2) - 1) < 1e-9 and d['train']['results'][0]['step_us'] > 0")" = "True" ] ||
    fail "fp16 step: $(json_get $d/r50fp16/run.json "d['train']['framework']")"
expect 0 "Training step: tiny-mlp" $NVS train --model tests/fixtures/train/tiny-mlp.prof --precision fp16 --steps 3 \
    --warmup-steps 1 --framework ideal --no-save
expect 2 "needs .* GiB per GPU .* free: lower --batch" $NVS train --model gpt2-xl --batch 4096 --no-save
finish
