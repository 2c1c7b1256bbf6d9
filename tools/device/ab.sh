#!/bin/bash
# A change to the synthetic step against the commit before it, on ONE GPU, in one call: the working tree's
# nvscale ("new") and a baseline built from BASE_TAR (`git archive -o base.tar REV`, copied in as an untracked
# file; "base"), with PyTorch (tools/ddp_bench.py at world size 1) as the reference. ROUNDS times, alternating:
# PyTorch, then each binary at each precision in PRECS (default "fp16 fp32") for MODEL (default resnet50) at
# BATCH (default 128). With KERNELS="new base" (or either), first one step of those binaries under Nsight Compute
# at the first precision (every kernel's duration, CSV). With PT_NOBUF=1, each round also runs PyTorch with DDP's
# broadcast_buffers=False (pt-nobuf-i). The GPU kernel and training tests run first. cuDNN is the one PyTorch's
# environment carries, on LD_LIBRARY_PATH.
# Usage: BASE_TAR=base.tar tools/device/ab.sh DIR [ROUNDS (default 2)]
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
O=${OUT:-/tmp}
MODEL=${MODEL:-resnet50}
BATCH=${BATCH:-128}
PRECS=${PRECS:-fp16 fp32}
mkdir -p "$R/raw"
trap 'tar czf "$O/ab-$(basename "$R").tar.gz" "$R"' EXIT
[ -f "${BASE_TAR:-}" ] || { echo "BASE_TAR (a git archive of the baseline commit) not found: '${BASE_TAR:-}'"; exit 2; }
step build
gpu_build "$R"
describe "$R"
commands_header
step "baseline build"
BASE=/tmp/nvs-base
RA=$(cd "$R" && pwd)
rm -rf "$BASE" && mkdir -p "$BASE" && tar xf "$BASE_TAR" -C "$BASE" && cp -r .deps "$BASE/" &&
    (cd "$BASE" && make -j32 NVCC_GENCODE="$SM90_GENCODE" JANSSON_HOME=.deps/jansson \
        >"$RA/build-base.log" 2>&1) || { tail -30 "$RA/build-base.log"; exit 1; }
echo "baseline: $BASE_TAR (name it after its commit)" >>"$R/MACHINE.md"
CUDNN_LIB=$(pytorch_cudnn_lib)
echo "cuDNN library folder: ${CUDNN_LIB:-none found}" >>"$R/MACHINE.md"
step "tests: test_kernels_gpu, gpu_train"
rec kernels-gpu timeout 60 tests/run.sh test_kernels_gpu
rec gpu-train timeout 300 tests/run.sh gpu_train
bin() { [ "$1" = new ] && echo ./nvscale || echo "$BASE/nvscale"; }
P1=${PRECS%% *}
if [ -n "${KERNELS:-}" ]; then
    for V in $KERNELS; do
        step "kernels: $V $MODEL $P1"
        rec "ncu-$V" env LD_LIBRARY_PATH="$CUDNN_LIB" timeout 240 $NCU --cache-control none \
            --metrics gpu__time_duration.sum --csv --log-file "$R/ncu-$V.csv" "$(bin $V)" train --model "$MODEL" \
            --precision "$P1" --batch "$BATCH" --gpus 1 --steps 1 --warmup-steps 0 --no-save
        gzip -f "$R/ncu-$V.csv"
    done
fi
C=""
for P in $PRECS; do C="$C${C:+,}$MODEL:$P:$BATCH"; done
for i in $(seq 1 "$ROUNDS"); do
    step "round $i: PyTorch"
    rec "pt-$i" timeout "${PT_TIMEOUT:-200}" python3 tools/ddp_bench.py --configs "$C" --steps 15 --warmup 3 \
        --json "$R/raw/pt-$i.jsonl" --max-seconds $(( ${PT_TIMEOUT:-200} - 20 ))
    if [ -n "${PT_NOBUF:-}" ]; then
        step "round $i: PyTorch, broadcast_buffers=False"
        rec "pt-nobuf-$i" timeout "${PT_TIMEOUT:-200}" python3 tools/ddp_bench.py --configs "$C" --steps 15 \
            --warmup 3 --no-broadcast-buffers --json "$R/raw/pt-nobuf-$i.jsonl" --max-seconds $(( ${PT_TIMEOUT:-200} - 20 ))
    fi
    for P in $PRECS; do
        for V in new base; do
            step "round $i: nvscale ($V) $P"
            rec "nvs-$V-$P-$i" env LD_LIBRARY_PATH="$CUDNN_LIB" timeout 150 "$(bin $V)" train --model "$MODEL" \
                --batch "$BATCH" --precision "$P" --steps 15 --warmup-steps 3 --out "$R/raw/nvs-$V-$P-$i"
        done
    done
done
step done
