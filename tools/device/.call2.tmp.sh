#!/bin/bash
# session call 2: is the one-GPU gap to nccl-tests (64 KiB - 256 MiB) the iteration count? Both tools at both
# counts, interleaved, two rounds; then the default run on this machine.
. tools/device/lib.sh
R=results/h200x1-iters
O0=$OUT
mkdir -p "$R"
trap 'tar czf "$O0/call2.tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
step "nccl-tests build"
CH=$(dirname "$(dirname "$(command -v nvcc)")")
(cd .ref/nccl-tests && make -j16 CUDA_HOME="$CH" NVCC_GENCODE="$SM90_GENCODE" >"$OLDPWD/$R/nccl-tests-build.log" 2>&1) || exit 1
echo "nccl-tests: NVIDIA/nccl-tests a0b82b2 (v2.19.6), git archive, built here" >>"$R/MACHINE.md"
NT=.ref/nccl-tests/build
for i in 1 2; do
    step "round $i"
    mkdir -p "$R/nt-default-$i" "$R/nt-n1000-$i" "$R/nvs-n20-$i" "$R/nvs-default-$i"
    rec nt-default-$i $NT/all_reduce_perf -b 8 -e 512M -f 2 -g 1
    cp "$R/nt-default-$i.txt" "$R/nt-default-$i/allreduce.txt"
    rec nvs-n20-$i ./nvscale coll --coll all_reduce -b 8 -e 512M -f 2 -n 20 -w 1 --out "$R/nvs-n20-$i/coll-threads"
    rec nt-n1000-$i $NT/all_reduce_perf -b 8 -e 512M -f 2 -g 1 -n 1000 -w 20
    cp "$R/nt-n1000-$i.txt" "$R/nt-n1000-$i/allreduce.txt"
    rec nvs-default-$i ./nvscale coll --coll all_reduce -b 8 -e 512M -f 2 --out "$R/nvs-default-$i/coll-threads"
done
step "default run"
rec default-run ./nvscale --out "$R/default-run"
step done
