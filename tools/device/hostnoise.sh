#!/bin/bash
# Issue 9: why the host-bound bf16 reference (PyTorch eager) moves from run to run, on ONE GPU. Measures, in one
# call: the CPU layout; nvscale's unit of host work (build/cpuprobe) alone for 15 s (drift) and beside a spinning
# process on each other vCPU (which vCPUs share a core); then PyTorch's 1-GPU bf16 steps (tools/ddp_bench.py at
# world 1) and nvscale's N=1 bf16 step, pinned to one vCPU, alone and with a spinner on the vCPU that slowed it
# most / least, and unpinned. /proc/stat (steal time) before and after each. Usage: tools/device/hostnoise.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/hostnoise-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale cpuprobe
describe "$R"
commands_header
P=2 # the vCPU the measured process runs on
step "CPU layout"
{
    lscpu
    for c in /sys/devices/system/cpu/cpu[0-9]*; do
        echo "$(basename "$c") siblings $(cat "$c/topology/thread_siblings_list") core $(cat "$c/topology/core_id") package $(cat "$c/topology/physical_package_id")"
    done
    grep MHz /proc/cpuinfo | sort | uniq -c
    cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1
} >"$R/cpu.txt" 2>&1
stat_line() { echo "$1 $(date -u +%T.%N) $(head -1 /proc/stat)" >>"$R/procstat.txt"; }
stat_line start
step "drift: 150 x 100 ms on vCPU $P, alone"
rec drift-alone taskset -c $P build/cpuprobe -m 100 -n 150
stat_line drift
step "pairs: vCPU $P beside a spinner on each other vCPU"
for X in $(seq 0 $(($(nproc) - 1))); do
    [ "$X" = $P ] && continue
    taskset -c "$X" build/cpuprobe -s &
    sp=$!
    sleep 0.1
    echo "$X $(taskset -c $P build/cpuprobe -m 200 -n 3 | awk '{printf "%s ", $2}')"
    kill $sp
    wait $sp 2>/dev/null
done >"$R/pairs.txt"
echo "none $(taskset -c $P build/cpuprobe -m 200 -n 3 | awk '{printf "%s ", $2}')" >>"$R/pairs.txt"
# the spinner placements to use below: the vCPU that slowed vCPU P most, and the one that slowed it least
WORST=$(grep -v '^none' "$R/pairs.txt" | awk '{s=0; for (i=2;i<=NF;i++) s+=$i; print s/(NF-1), $1}' | sort -n | head -1 | cut -d' ' -f2)
BEST=$(grep -v '^none' "$R/pairs.txt" | awk '{s=0; for (i=2;i<=NF;i++) s+=$i; print s/(NF-1), $1}' | sort -n | tail -1 | cut -d' ' -f2)
echo "WORST=$WORST BEST=$BEST" | tee "$R/spinners.txt"
stat_line pairs
CF=lm290m:bf16:8,bert-large:bf16:32
MODELS=tools/profiles/lm290m.prof,bert-large-mlm128
# case NAME SPIN_CPU|- PIN|-: PyTorch then nvscale under one placement
run_case() {
    local name=$1 spin=$2 pin=$3 sp="" pre=()
    [ "$pin" != - ] && pre=(taskset -c "$pin")
    if [ "$spin" != - ]; then taskset -c "$spin" build/cpuprobe -s & sp=$!; fi
    step "$name: PyTorch (pin $pin, spinner $spin)"
    stat_line "$name-pt-start"
    rec "pt-$name" timeout 200 "${pre[@]}" python3 tools/ddp_bench.py --configs $CF --steps 20 --warmup 5 \
        --json "$R/pt-$name.jsonl" --max-seconds 180
    stat_line "$name-pt-end"
    step "$name: nvscale (pin $pin, spinner $spin)"
    rec "nvs-$name" timeout 200 "${pre[@]}" ./nvscale train --model $MODELS --precision bf16 --steps 20 \
        --warmup-steps 5 --out "$R/nvs-$name"
    stat_line "$name-nvs-end"
    [ -n "$sp" ] && { kill "$sp"; wait "$sp" 2>/dev/null; }
}
run_case pin - $P
run_case pin-worst "$WORST" $P
run_case pin-best "$BEST" $P
run_case free - -
run_case pin2 - $P
step done
