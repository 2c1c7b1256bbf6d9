#!/bin/bash
# Issue 9, the transformers' GPU work at N=1: where PyTorch's lm290m (batch 8) and bert-large (32) steps spend
# their GPU time, kernel by kernel, at fp32 and bf16 (ddp_bench at world size 1 with its profiler, read by
# tools/device/kernel_census.py: by_kind_us, top_time), beside every kernel of nvscale's step for the same shapes
# under Nsight Compute ($NCU, durations only; read by tools/device/ncu_kernels.py) and a plain `nvscale train`
# of them (gemm_us, no_gemm_us). Usage: tools/device/tfm_census.sh DIR
# CONFIGS=model:precision:batch,... (ddp_bench's names) changes the shapes; PROFILE_NVS=0 skips Nsight Compute;
# PROFILE_PT=0 skips PyTorch's profile (nvscale's kernels only, against a census made earlier in the session).
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw" "$R/traces"
trap 'rm -rf "$R/traces"; tar czf "$O/tfm-census-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
C=${CONFIGS:-lm290m:fp32:8,lm290m:bf16:8,bert-large:fp32:32,bert-large:bf16:32}
if [ "${PROFILE_PT:-1}" = 1 ]; then
    step "PyTorch with the profiler"
    rec pt-prof timeout 300 python3 tools/ddp_bench.py --configs "$C" --steps 8 --warmup 3 --profile \
        --profile-steps 3 --trace-dir "$R/traces" --json "$R/raw/pt-prof.jsonl" --max-seconds 280
    step census
    rec census python3 tools/device/kernel_census.py --top 60 "$R"/traces/*gpu1_ddp1*.json
    # and the plain step without DDP, like for like with nvscale's compute-only step (ideal_compute_us), which has
    # no reducer and so none of DDP's copies of the gradients into their buckets
    rec census-nodp python3 tools/device/kernel_census.py --top 60 "$R"/traces/*gpu1_nodp*.json
fi
# nvscale's names: the LM profile file ddp_bench's lm290m matches, the MLM BERT ddp_bench's bert-large runs
nvs_model() {
    case $1 in
    lm290m) echo tools/profiles/lm290m.prof ;;
    bert-large) echo bert-large-mlm128 ;;
    *) echo "$1" ;;
    esac
}
for cfg in ${C//,/ }; do
    IFS=: read -r M P B <<<"$cfg"
    T=$(nvs_model "$M")
    step "nvscale $cfg"
    rec "nvs-$M-$P" timeout 120 ./nvscale train --model "$T" --precision "$P" --batch "$B" --gpus 1 --steps 8 \
        --warmup-steps 3 --out "$R/raw/nvs-$M-$P"
    if [ "${PROFILE_NVS:-1}" = 1 ]; then
        # one step of each variant (full, compute-only, communication-only, compute-only without the framework's
        # host work, without GEMMs: src/run/phase_train_measure.c), every kernel timed
        rec "ncu-$M-$P" timeout 240 $NCU --cache-control none --metrics gpu__time_duration.sum --csv \
            --log-file "$R/ncu-$M-$P.csv" ./nvscale train --model "$T" --precision "$P" --batch "$B" --gpus 1 \
            --steps 1 --warmup-steps 0 --no-save
        rec "ncu-$M-$P-sum" python3 tools/device/ncu_kernels.py --top 60 "$R/ncu-$M-$P.csv"
        gzip -f "$R/ncu-$M-$P.csv"
    fi
done
step done
