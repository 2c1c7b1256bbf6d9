#!/bin/bash
# Issue 9, second look at the noise of the host-bound bf16 reference on ONE GPU (hostnoise.sh found no core
# sharing between vCPUs, no steal time, and PyTorch's 1-GPU bf16 step switching between two speeds within one
# run). Here three monitors sample through the whole call, so every PyTorch step (tools/ddp_bench.py records when
# each phase's timed steps began) can be lined up with them: the GPU's SM clock, power and throttle reasons
# (nvidia-smi, every 100 ms), nvscale's L1-resident unit of host work (build/cpuprobe on its own vCPU) and the
# latency of dependent loads through 512 MiB (build/cpuprobe -w 512, another vCPU). Measured, alternating, pinned
# to vCPU 2: PyTorch lm290m and bert-large bf16 at world 1 (one run before the monitors start, then 3),
# nvscale's N=1 bf16 step (2 runs).
# Usage: tools/device/hostnoise2.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
MON=()
stop_monitors() { for p in "${MON[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'stop_monitors; tar czf "$O/hostnoise2-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale cpuprobe
describe "$R"
commands_header
N=$(nproc)
pt() {
    step "PyTorch run $1"
    rec "pt-$1" timeout 200 taskset -c 2 python3 tools/ddp_bench.py --configs $CF --steps 40 --warmup 5 \
        --json "$R/pt-$1.jsonl" --max-seconds 180
}
nvs() {
    step "nvscale run $1"
    rec "nvs-$1" timeout 200 taskset -c 2 ./nvscale train --model $MODELS --precision bf16 --steps 40 \
        --warmup-steps 5 --out "$R/nvs-$1"
}
CF=lm290m:bf16:8,bert-large:bf16:32
MODELS=tools/profiles/lm290m.prof,bert-large-mlm128
pt 0 # before the monitors start: do they change anything?
step "monitors"
Q=timestamp,clocks.sm,clocks.mem,power.draw,pstate,temperature.gpu,utilization.gpu,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$Q --format=csv -lms 100 >"$R/gpu.csv" 2>&1 &
MON+=($!)
taskset -c $((N - 2)) build/cpuprobe -m 100 -n 100000 >"$R/probe-l1.txt" 2>&1 &
MON+=($!)
taskset -c $((N - 1)) build/cpuprobe -w 512 -m 100 -n 100000 >"$R/probe-mem.txt" 2>&1 &
MON+=($!)
sleep 3
pt 1
nvs 1
pt 2
nvs 2
pt 3
sleep 2
step done
