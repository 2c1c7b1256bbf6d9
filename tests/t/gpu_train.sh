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
# src/workload/framework.c): 11,113,984 output elements per image (tools/gen_profiles.py --summary), read and written;
# where the convolutions run as implicit GEMMs (--cudnn off), the step makes those copies itself
expect 0 "convolutions of resnet50: 53 as implicit GEMMs in cuBLAS \(--cudnn off\)" $NVS train --model resnet50 \
    --batch 16 --precision bf16 --steps 3 --warmup-steps 1 --cudnn off --out "$d/r50bf"
[ "$(json_get $d/r50bf/run.json "abs(d['train']['framework']['layout_copy_bytes_per_step'] / (245 / 53 * 2 * 11113984 * 16 * 2) - 1) < 1e-9")" = "True" ] ||
    fail "layout copies: $(json_get $d/r50bf/run.json "d['train']['framework']['layout_copy_bytes_per_step']")"
expect 0 "Training step: tiny-mlp" $NVS train --model tests/fixtures/train/tiny-mlp.prof --precision bf16 --grad-type bf16 \
    --steps 3 --warmup-steps 1 --no-save
# without cuDNN the batch norms run in nvscale's own kernels (train/norm_kernels.h)
[ "$(json_get $d/r50bf/run.json "d['train']['batchnorm']['engine'] == 'kernels' and d['train']['batchnorm']['layers'] == 53")" = "True" ] ||
    fail "batch norms without cuDNN: $(json_get $d/r50bf/run.json "d['train']['batchnorm']")"
# DDP's buffer broadcast before each full step (pytorch-ddp): 159 buffers of 53 batch norms, 163 operations
[ "$(json_get $d/r50bf/run.json "(d['train']['framework']['broadcast_buffers'], d['train']['framework']['buffer_ops_per_step'])")" = "(True, 163.0)" ] ||
    fail "buffer broadcast: $(json_get $d/r50bf/run.json "d['train']['framework']")"
# fp16 (autocast with a gradient scaler under pytorch-ddp): the layout copies as at bf16, and a step that runs
expect 0 "Training step: resnet50, batch 16 per GPU, fp16" $NVS train --model resnet50 --batch 16 --precision fp16 \
    --steps 3 --warmup-steps 1 --cudnn off --out "$d/r50fp16"
[ "$(json_get $d/r50fp16/run.json "abs(d['train']['framework']['layout_copy_bytes_per_step'] / (245 / 53 * 2 * 11113984 * 16 * 2) - 1) < 1e-9 and d['train']['results'][0]['step_us'] > 0")" = "True" ] ||
    fail "fp16 step: $(json_get $d/r50fp16/run.json "d['train']['framework']")"
expect 0 "Training step: tiny-mlp" $NVS train --model tests/fixtures/train/tiny-mlp.prof --precision fp16 --steps 3 \
    --warmup-steps 1 --framework ideal --no-save
# --rounds on the GPUs: every N measured three times in turn, each N its median round (train/rounds.h)
expect 0 "over 3 rounds, every N timed in turn|Training step: tiny-mlp" $NVS train \
    --model tests/fixtures/train/tiny-mlp.prof --precision bf16 --steps 3 --warmup-steps 1 --rounds 3 --out "$d/rounds"
[ "$(json_get $d/rounds/run.json "all(r['rounds_measured'] == 3 and len(r['rounds']) == 3 and r['efficiency_min'] <= r['efficiency'] <= r['efficiency_max'] and r['step_us'] == sorted(x['step_us'] for x in r['rounds'])[1] for r in d['train']['results'])")" = "True" ] ||
    fail "--rounds 3: $(json_get $d/rounds/run.json "d['train']['results']")"
expect 2 "needs .* GiB per GPU .* free: lower --batch" $NVS train --model gpt2-xl --batch 4096 --no-save
# a transformer (tools/profiles/lm290m.prof: ln= and perm= passes) at bf16 with AdamW (foreach): the executor's
# LayerNorms, copies through swapped views and AdamW passes (src/train/train_gpu_norm.c, _pass.c, _opt.c), which
# no ResNet-50 or tiny-mlp step above runs
expect 0 "Training step: lm290m" $NVS train --model tools/profiles/lm290m.prof --batch 2 --precision bf16 \
    --optimizer adamw --steps 3 --warmup-steps 1 --out "$d/lm"
[ "$(json_get $d/lm/run.json "(d['train']['optimizer'], d['train']['optimizer_fused'], d['train']['framework']['view_copies'], d['train']['framework']['autocast_fp32'], all(r['step_us'] > 0 for r in d['train']['results']))")" = "('adamw', False, True, True, True)" ] ||
    fail "lm290m bf16 AdamW: $(json_get $d/lm/run.json "(d['train']['optimizer'], d['train']['framework'])")"

# cuDNN runs the convolutions (src/train/conv.h) where it loads: at each precision, all 53 of ResNet-50's, their
# shapes' algorithms chosen by timing (the stem's input needs no gradient: no dgrad for its shape alone), the
# layout copies left to cuDNN, the fp16 weight gradients cast into fp32 gradients; and its 53 batch norms at fp32
# and fp16, not at bf16 (PyTorch's choices), where they run in nvscale's kernels (train/norm_kernels.h)
if root=$(cudnn_root); then
    libdir=${root#* }
    # the convolutions captured and replayed compute what the textbook sums say (tests/unit/test_cudnn_gpu.c)
    out=$(env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" build/tests/test_cudnn_gpu 2>&1)
    printf '%s\n' "$out" | grep -q '^ok 1 - t_conv_graphs$' || fail "test_cudnn_gpu with cuDNN from $libdir: $out"
    for prec in fp32 bf16 fp16; do
        bnline="batch norms of resnet50: 53 in cuDNN [0-9.]+ \(as PyTorch runs them at fp32 and fp16\)"
        [ $prec = bf16 ] && bnline="batch norms of resnet50: 53 as nvscale's kernels, launched as PyTorch launches its own, not cuDNN: PyTorch runs bf16"
        expect 0 "$bnline" env LD_LIBRARY_PATH="$libdir" $NVS train --model resnet50 --batch 4 --precision $prec \
            --steps 2 --warmup-steps 1 --cudnn on --no-save
        expect 0 "convolutions of resnet50: 53 in cuDNN [0-9]+\.[0-9]+\.[0-9]+ \([0-9]+ shapes" \
            env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $NVS train --model resnet50 --batch 16 \
            --precision $prec --steps 3 --warmup-steps 1 --cudnn on --out "$d/cudnn-$prec" || continue
        python3 - "$d/cudnn-$prec/run.json" <<'PY' || fail "cuDNN at $prec (above)"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["train"]["conv"]
sh = c["shapes"]
no_dgrad = [s for s in sh if "dgrad" not in s]
ok = (c["engine"] == "cudnn" and c["layers"] == 53 and sum(s["layers"] for s in sh) == 53
      and all("fwd" in s and "wgrad" in s for s in sh) and len(no_dgrad) == 1 and no_dgrad[0]["r"] == 7
      and d["train"]["framework"]["layout_copy_bytes_per_step"] == 0
      # each of the 158 calls (53 forward, 52 input and 53 weight gradients) replayed as a CUDA graph of
      # cuDNN's kernels (conv_cudnn.c conv_call), none direct
      and c["graphs"] == {"replayed": 158, "direct": 0}
      and all(r["step_us"] > 0 and r["compute_us"] > 0 for r in d["train"]["results"]))
b = d["train"]["batchnorm"]
if d["train"]["precision"] == "bf16":
    ok = ok and b["engine"] == "kernels" and b["layers"] == 53 and b["of"] == 53 and "bf16" in b["why"]
else:
    ok = ok and b["engine"] == "cudnn" and b["layers"] == 53 and b["of"] == 53 and "why" not in b
if not ok:
    print(json.dumps(c)[:2000], d["train"]["framework"].get("layout_copy_bytes_per_step"), b)
sys.exit(0 if ok else 1)
PY
    done
    # --cudnn auto takes cuDNN when it loads, and without it (no library on the path) says why and runs GEMMs
    expect 0 "convolutions of resnet50: 53 in cuDNN" env LD_LIBRARY_PATH="$libdir" $NVS train --model resnet50 \
        --batch 8 --steps 2 --warmup-steps 1 --no-save
    if ! ldconfig -p 2>/dev/null | grep -q 'libcudnn\.so\.9 '; then
        expect 0 "53 as implicit GEMMs in cuBLAS, not cuDNN: libcudnn.so.9 not loaded" env LD_LIBRARY_PATH= \
            $NVS train --model resnet50 --batch 8 --steps 2 --warmup-steps 1 --no-save
        expect 1 "--cudnn on: cuDNN cannot run the convolutions and batch norms: libcudnn.so.9 not loaded" env LD_LIBRARY_PATH= \
            $NVS train --model resnet50 --batch 8 --steps 2 --warmup-steps 1 --cudnn on --no-save
    fi
else
    echo "cuDNN parts skipped: no cuDNN 9 with headers found (tests/lib.sh cudnn_root)"
fi
finish
