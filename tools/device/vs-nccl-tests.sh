#!/bin/bash
# nccl-tests beside nvscale on this machine's GPUs, in one call: all_reduce and broadcast, ROUNDS rounds
# interleaved (nccl-tests, then nvscale), each tool in one process driving every visible GPU (nccl-tests -g N,
# nvscale's threads launcher), then tools/vs_nccl_tests.py --n N on each round. nccl-tests is built here from
# .ref/nccl-tests (git-ignored: put a `git archive` of NVIDIA/nccl-tests there and carry it; never committed).
# SIZES (default "-b 8 -e 8G -f 2") are both tools' size flags; NT_FLAGS are added to nccl-tests' (e.g. "-w 40");
# NGPUS the GPU count (default: all that nvidia-smi lists).
# Usage: tools/device/vs-nccl-tests.sh DIR [ROUNDS (default 2)]
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
O=${OUT:-/tmp}
SIZES=${SIZES:--b 8 -e 8G -f 2}
NT_FLAGS=${NT_FLAGS:-}
mkdir -p "$R"
trap 'tar czf "$O/vs-nccl-tests-$(basename "$R").tar.gz" "$R"' EXIT
[ -f .ref/nccl-tests/Makefile ] || { echo "no .ref/nccl-tests (a git archive of NVIDIA/nccl-tests, carried)"; exit 2; }
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
nccl_tests_build "$R"
N=${NGPUS:-$(nvidia-smi -L | wc -l)} # every GPU nvidia-smi lists, or NGPUS (with CUDA_VISIBLE_DEVICES: set it)
for i in $(seq 1 "$ROUNDS"); do
    step "round $i"
    mkdir -p "$R/nt-$i" "$R/nvs-$i"
    # shellcheck disable=SC2086
    rec nt-allreduce-$i $NT_BIN/all_reduce_perf $SIZES -g "$N" $NT_FLAGS
    cp "$R/nt-allreduce-$i.txt" "$R/nt-$i/allreduce.txt"
    # shellcheck disable=SC2086
    rec nt-bcast-$i $NT_BIN/broadcast_perf $SIZES -g "$N" $NT_FLAGS
    cp "$R/nt-bcast-$i.txt" "$R/nt-$i/bcast.txt"
    # shellcheck disable=SC2086
    rec nvs-$i ./nvscale coll --coll all_reduce,broadcast $SIZES --gpus "$N" --out "$R/nvs-$i/coll-threads"
    python3 tools/vs_nccl_tests.py --n "$N" "$R/nt-$i" "$R/nvs-$i" >"$R/VS-NCCL-TESTS-$i.md"
done
step done
