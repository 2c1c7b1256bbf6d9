#!/bin/bash
# nvbandwidth beside `nvscale p2p --host` on this machine, in one call: host<->device copies, ROUNDS rounds
# interleaved (nvbandwidth, then nvscale at its default 256 MiB, then nvscale at nvbandwidth's 512 MiB), then
# tools/vs_nvbandwidth.py over the rounds. With two GPUs or more, GPU pairs too: each nvbandwidth round also runs
# device_to_device_memcpy_write_ce and device_to_device_bidirectional_memcpy_write_ce, each round also a plain
# `nvscale p2p` (every ordered pair) at 256 MiB and at 512 MiB, and tools/vs_nvbandwidth.py --pairs --halves makes
# VS-NVBANDWIDTH-D2D(-512M). nvbandwidth is a binary built elsewhere from a `git archive` of
# NVIDIA/nvbandwidth (v0.8) and carried at $NVB (default .ref/nvbw/build/nvbandwidth; git-ignored, never
# committed): the GPU machine has no Boost. How it was built here (Debian 12, CUDA 13, results/h100x1-s62a):
#   apt-get install libboost-program-options-dev cmake; git archive v0.8 of NVIDIA/nvbandwidth into .ref/nvbw/src;
#   nvml.h from NVIDIA/go-nvml (pkg/nvml/nvml.h) into .ref/nvbw/nvml/include; a link-time stand-in
#   .ref/nvbw/nvml/lib/libnvidia-ml.so (soname libnvidia-ml.so.1, empty functions nvmlInit_v2, nvmlShutdown,
#   nvmlErrorString, nvmlSystemGetDriverVersion, nvmlDeviceGetHandleByUUID, nvmlDeviceSetCpuAffinity: the GPU
#   machine's driver provides the real library); then in .ref/nvbw/build: cmake ../src -DCMAKE_CUDA_ARCHITECTURES=90
#   with -I.../nvml/include in CMAKE_CXX_FLAGS and CMAKE_CUDA_FLAGS, -L.../nvml/lib -L$CUDA/lib64/stubs in
#   CMAKE_EXE_LINKER_FLAGS; make.
# Usage: tools/device/vs-nvbandwidth.sh DIR [ROUNDS (default 3)]
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-3}
O=${OUT:-/tmp}
NVB=${NVB:-.ref/nvbw/build/nvbandwidth}
TESTS="host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce device_to_host_bidirectional_memcpy_ce"
mkdir -p "$R"
trap 'tar czf "$O/vs-nvbandwidth-$(basename "$R").tar.gz" "$R"' EXIT
[ -x "$NVB" ] || { echo "no nvbandwidth binary at $NVB (carry it)"; exit 2; }
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
PAIRS=0
[ "$(nvidia-smi -L | wc -l)" -gt 1 ] && PAIRS=1 &&
    TESTS="$TESTS host_to_all_memcpy_ce all_to_host_memcpy_ce device_to_device_memcpy_write_ce device_to_device_bidirectional_memcpy_write_ce"
rec nvbandwidth-list "$NVB" -l
echo "nvbandwidth: $("$NVB" -h 2>&1 | grep -m1 -i version) ($NVB, built from NVIDIA/nvbandwidth v0.8)" >>"$R/MACHINE.md"
for i in $(seq 1 "$ROUNDS"); do
    step "round $i"
    # shellcheck disable=SC2086
    rec nvb-$i sh -c "\"$NVB\" -j -t $TESTS >\"$R/nvb-$i.json\""
    rec nvs-$i ./nvscale p2p --host --out "$R/nvs-$i"
    rec nvs512-$i ./nvscale p2p --host --copy-bytes 512M --out "$R/nvs512-$i"
    if [ "$PAIRS" = 1 ]; then
        rec nvsp-$i ./nvscale p2p --out "$R/nvsp-$i"
        rec nvsp512-$i ./nvscale p2p --copy-bytes 512M --out "$R/nvsp512-$i"
    fi
done
J() { local p=$1 i; for i in $(seq 1 "$ROUNDS"); do printf '%s ' "$R/$p-$i$2"; done; }
# shellcheck disable=SC2046
rec vs-default python3 tools/vs_nvbandwidth.py --nvbandwidth $(J nvb .json) --nvscale $(J nvs /run.json) --out "$R/VS-NVBANDWIDTH"
# shellcheck disable=SC2046
rec vs-512 python3 tools/vs_nvbandwidth.py --nvbandwidth $(J nvb .json) --nvscale $(J nvs512 /run.json) --out "$R/VS-NVBANDWIDTH-512M"
if [ "$PAIRS" = 1 ]; then
    # shellcheck disable=SC2046
    rec vs-d2d python3 tools/vs_nvbandwidth.py --pairs --halves --nvbandwidth $(J nvb .json) --nvscale $(J nvsp /run.json) --out "$R/VS-NVBANDWIDTH-D2D"
    # shellcheck disable=SC2046
    rec vs-d2d-512 python3 tools/vs_nvbandwidth.py --pairs --halves --nvbandwidth $(J nvb .json) --nvscale $(J nvsp512 /run.json) --out "$R/VS-NVBANDWIDTH-D2D-512M"
fi
step done
