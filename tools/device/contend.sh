#!/bin/bash
# The interference's mechanism on one GPU (tools/contend.c): a bf16 GEMM beside 2-32 resident CTAs that spin,
# copy device to device or copy to pinned host memory, as NCCL's kernel keeps one CTA per channel resident beside
# the backward pass; bf16 twice at M = 8192 (the run's noise) and once at 4096, then fp32 on the CUDA cores
# (the interference fit's precision) at 8192 and 4096. Usage: tools/device/contend.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/contend-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale contend
describe "$R"
commands_header
step "GEMM beside resident CTAs"
rec contend-8192 timeout 120 build/contend 8192 30
rec contend-4096 timeout 120 build/contend 4096 100
rec contend-8192-again timeout 120 build/contend 8192 30
rec contend-8192-fp32 timeout 300 build/contend 8192 5 fp32
rec contend-4096-fp32 timeout 120 build/contend 4096 20 fp32
step done
