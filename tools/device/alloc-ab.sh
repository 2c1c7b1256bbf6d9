#!/bin/bash
# nccl-tests is 12-15 % slower than nvscale at 32-128 MiB on one H200 at -e 8G -w 1, not at -e 512M or -w 20
# (README, "At one GPU"). nccl-tests allocates its buffers with ncclMemAlloc since NCCL 2.19 (common.cu
# AllocateBuffs), nvscale with cudaMalloc. This A/B, in one call, ROUNDS rounds: stock nccl-tests; the same source
# with AllocateBuffs/free taking their pre-2.19 cudaMalloc branch (patched in a copy under /tmp, never committed);
# nvscale with cudaMalloc (default) and with ncclMemAlloc (--alloc nccl), the latter also at nccl-tests' -n 20
# -w 1; and both nccl-tests builds at -e 512M. Carry .ref (a git archive of NVIDIA/nccl-tests).
# Usage: tools/device/alloc-ab.sh DIR [ROUNDS (default 2)]
. "$(dirname "$0")/lib.sh"
R=$1
ROUNDS=${2:-2}
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/alloc-ab-$(basename "$R").tar.gz" "$R"' EXIT
[ -f .ref/nccl-tests/Makefile ] || { echo "no .ref/nccl-tests (a git archive of NVIDIA/nccl-tests, carried)"; exit 2; }
step build
ch=$(dirname "$(dirname "$(command -v nvcc)")")
rm -rf /tmp/ntc && cp -r .ref/nccl-tests /tmp/ntc
perl -0pi -e 's/#if NCCL_VERSION_CODE >= NCCL_VERSION\(2,19,0\)(\s+NCCLCHECK\(ncclMemAlloc\(sendbuff)/#if 0 \/* nvscale A\/B: cudaMalloc *\/$1/' /tmp/ntc/src/common.cu
perl -0pi -e 's/#if NCCL_VERSION_CODE >= NCCL_VERSION\(2,19,0\)(\s+if \(sendbuffs\[i\]\) NCCLCHECK\(ncclMemFree)/#if 0 \/* nvscale A\/B: cudaFree *\/$1/' /tmp/ntc/src/common.cu
[ "$(grep -c 'nvscale A/B' /tmp/ntc/src/common.cu)" = 2 ] || { echo "nccl-tests' AllocateBuffs/free not found as expected"; exit 1; }
(make -C /tmp/ntc -j8 CUDA_HOME="$ch" NVCC_GENCODE="$SM90_GENCODE" >"$R/ntc-build.log" 2>&1; echo "exit $?" >>"$R/ntc-build.log") &
pid=$!
gpu_build "$R" nvscale
describe "$R"
commands_header
nccl_tests_build "$R"
wait $pid
grep -q "^exit 0" "$R/ntc-build.log" || { tail -20 "$R/ntc-build.log"; exit 1; }
for i in $(seq 1 "$ROUNDS"); do
    step "round $i"
    rec nt-stock-$i $NT_BIN/all_reduce_perf -b 32M -e 8G -f 2 -g 1
    rec nt-cudamalloc-$i /tmp/ntc/build/all_reduce_perf -b 32M -e 8G -f 2 -g 1
    rec nvs-$i ./nvscale coll --coll all_reduce -b 32M -e 8G -f 2 --out "$R/raw/nvs-$i"
    rec nvs-ncclmem-$i ./nvscale coll --alloc nccl --coll all_reduce -b 32M -e 8G -f 2 --out "$R/raw/nvs-ncclmem-$i"
    rec nvs-ncclmem-nt-$i ./nvscale coll --alloc nccl --coll all_reduce -b 32M -e 8G -f 2 -n 20 -w 1 \
        --out "$R/raw/nvs-ncclmem-nt-$i"
    rec nt-stock-512m-$i $NT_BIN/all_reduce_perf -b 32M -e 512M -f 2 -g 1
    rec nt-cudamalloc-512m-$i /tmp/ntc/build/all_reduce_perf -b 32M -e 512M -f 2 -g 1
done
step done
