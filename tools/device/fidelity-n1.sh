#!/bin/bash
# Issue 9's N=1 rows on a ONE-GPU machine, with repeats: PyTorch (tools/ddp_bench.py at world size 1) and
# `nvscale train` (N=1), alternating, ROUNDS times, for resnet50 (batch 128), lm290m (8) and bert-large (32) at
# fp32 and bf16 (PRECS="fp16", or any list of precisions, instead). A host-bound bf16 step follows the vCPU's
# speed, which changes from second to second on these VMs (results/h200x1-hostnoise*), so each side is taken as
# the median of its runs (tools/fidelity.py --repeats). Usage: tools/device/fidelity-n1.sh DIR [ROUNDS (default 2)]
# With IDEAL=1, last: `nvscale train --framework ideal` at bf16, the hardware's step without the framework's host
# work, to see how close to it each model's pytorch-ddp step is (a GPU-bound step is close). With GPU_TESTS=1,
# first: the suite's GPU tests at this commit (tests/run.sh gpu) and build/devcopy (tools/devcopy.c).
# With SHAPES="resnet50:64 lm290m:16 ..." (MODEL:BATCH, ddp_bench's model names): those shapes instead of the
# three default ones (issue 9: "other shapes and precisions will be checked the same way"); nvscale then runs once
# per shape with --batch, as its --batch applies to every model of a run. With OPTIM=adamw or adamw-fused: that
# update on both sides (default sgd, issue 9's; tools/fidelity.py refuses a pair whose optimizers differ).
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/fidelity-n1-$(basename "$R").tar.gz" "$R"' EXIT
step build
if [ "${GPU_TESTS:-0}" = 1 ]; then gpu_build "$R"; else gpu_build "$R" nvscale; fi
describe "$R"
commands_header
if [ "${GPU_TESTS:-0}" = 1 ]; then
    step "GPU tests"
    rec gpu-tests timeout 240 tests/run.sh gpu
    step "device copy bandwidth (the layout copies' kernel beside cudaMemcpy)"
    make devcopy NVCC_GENCODE="$SM90_GENCODE" \
        $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) >>"$R/build.log" 2>&1 &&
        rec devcopy build/devcopy 16 51 196 1024
fi
PRECS=${PRECS:-fp32 bf16}
OPTIM=${OPTIM:-sgd}
case $OPTIM in
sgd | adamw | adamw-fused) ;;
*) echo "fidelity-n1.sh: OPTIM=$OPTIM: expected sgd, adamw or adamw-fused" >&2 && exit 2 ;;
esac
SHAPES=${SHAPES:-}
# nvscale's name for each of ddp_bench's models
nvs_model() { case $1 in lm290m) echo tools/profiles/lm290m.prof ;; bert-large) echo bert-large-mlm128 ;; *) echo "$1" ;; esac; }
C=""
for P in $PRECS; do
    if [ -n "$SHAPES" ]; then
        for S in $SHAPES; do C="$C${C:+,}${S%%:*}:$P:${S#*:}"; done
    else
        C="$C${C:+,}resnet50:$P:128,lm290m:$P:8,bert-large:$P:32"
    fi
done
MODELS=resnet50,tools/profiles/lm290m.prof,bert-large-mlm128
for i in $(seq 1 "$ROUNDS"); do
    step "round $i: PyTorch"
    rec "pt-$i" timeout "${PT_TIMEOUT:-200}" python3 tools/ddp_bench.py --configs "$C" --steps 15 --warmup 3 \
        --optimizer "$OPTIM" --json "$R/raw/pt-$i.jsonl" \
        --max-seconds $(( ${PT_TIMEOUT:-200} - 20 ))
    for P in $PRECS; do
        if [ -n "$SHAPES" ]; then
            for S in $SHAPES; do
                M=${S%%:*} B=${S#*:}
                step "round $i: nvscale $P $M batch $B"
                rec "nvs-$P-$M-$B-$i" timeout 120 ./nvscale train --model "$(nvs_model "$M")" --batch "$B" \
                    --precision $P --optimizer "$OPTIM" --steps 15 --warmup-steps 3 --out "$R/raw/nvs-$P-$M-$B-$i"
            done
            continue
        fi
        step "round $i: nvscale $P"
        rec "nvs-$P-$i" timeout 120 ./nvscale train --model $MODELS --precision $P --optimizer "$OPTIM" --steps 15 \
            --warmup-steps 3 --out "$R/raw/nvs-$P-$i"
    done
done
if [ "${IDEAL:-0}" = 1 ]; then
    step "nvscale bf16, --framework ideal"
    rec nvs-bf16-ideal timeout 120 ./nvscale train --model $MODELS --precision bf16 --steps 15 --warmup-steps 3 \
        --framework ideal --out "$R/raw/nvs-bf16-ideal"
fi
step done
