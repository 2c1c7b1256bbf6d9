#!/bin/bash
# session call 1: GPU suite at the nvs_sm_shape change, nccl-tests vs nvscale at one GPU (two rounds), biasgrad
. tools/device/lib.sh
R=results/h200x1-smshape
O0=$OUT
mkdir -p "$R"
trap 'tar czf "$O0/call1.tar.gz" "$R" .ref/nccl-tests/build.log 2>/dev/null' EXIT
step build
gpu_build "$R"
make -j16 biasgrad lnbench NVCC_GENCODE="$SM90_GENCODE" JANSSON_HOME=.deps/jansson >>"$R/build.log" 2>&1 || { tail -20 "$R/build.log"; exit 1; }
describe "$R"
commands_header
step "nccl-tests build"
CH=$(dirname "$(dirname "$(command -v nvcc)")")
(cd .ref/nccl-tests && make -j16 CUDA_HOME="$CH" NVCC_GENCODE="$SM90_GENCODE" >build.log 2>&1) || { tail -20 .ref/nccl-tests/build.log; }
NT=.ref/nccl-tests/build
echo "nccl-tests: $(git -C .ref/nccl-tests log -1 2>/dev/null || echo 'NVIDIA/nccl-tests a0b82b2 (v2.19.6), git archive')" >>"$R/MACHINE.md"
gpu_suite
for i in 1 2; do
    step "round $i"
    mkdir -p "$R/ref$i" "$R/r$i"
    rec nt-allreduce-$i $NT/all_reduce_perf -b 8 -e 8G -f 2 -g 1
    cp "$R/nt-allreduce-$i.txt" "$R/ref$i/allreduce.txt"
    rec nt-bcast-$i $NT/broadcast_perf -b 8 -e 8G -f 2 -g 1
    cp "$R/nt-bcast-$i.txt" "$R/ref$i/bcast.txt"
    rec nvs-coll-$i ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 --out "$R/r$i/coll-threads"
done
step biasgrad
SH="4096x1024 4096x3072 4096x4096 4096x30522"
rec biasgrad-bf16 build/biasgrad --elem bf16 $SH
rec biasgrad-fp32 build/biasgrad --elem fp32 $SH
rec torch-biasgrad-bf16 python3 tools/device/biasgrad_torch.py --elem bf16 $SH
rec torch-biasgrad-fp32 python3 tools/device/biasgrad_torch.py --elem fp32 $SH
step done
