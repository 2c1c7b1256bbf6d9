#!/bin/bash
# First look on a GPU machine: environment, build, GPU tests, short versions of every benchmark. Everything goes
# to $1 (default $OUT) and is packed into one archive (the device tool brings back at most 8 files).
# Usage (on the GPU machine, repository root): tools/device/smoke.sh [OUTDIR]
set -u
O=${1:-${OUT:-/tmp/nvs-smoke}}
W=$O/smoke
mkdir -p "$W"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
MPIRUN="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE"
step() { echo "== $(date +%T) $*"; }
pack() { tar czf "$O/smoke.tar.gz" -C "$O" smoke; }
trap pack EXIT

step env
{
    date -u; uname -a; nproc; nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s
    ls -l /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>&1; ls /usr/lib/x86_64-linux-gnu | grep -E "nccl|hwloc|jansson|cublas" 2>&1
    pkg-config --modversion hwloc jansson 2>&1; mpicc --showme 2>&1; which mpirun nvcc gnuplot lstopo 2>&1
    python3 -c "import torch, torchvision; print(torch.__version__, torchvision.__version__, torch.cuda.nccl.version())" 2>&1
} >"$W/env.txt" 2>&1

step build
JH=""
pkg-config --exists jansson || JH="JANSSON_HOME=.deps/jansson"
make -j16 $JH >"$W/build.log" 2>&1 || { tail -40 "$W/build.log"; exit 1; }
make -j16 test-bins $JH >>"$W/build.log" 2>&1 || { tail -40 "$W/build.log"; exit 1; }
./nvscale version | tee "$W/version.txt"

step gpu tests
timeout 240 tests/run.sh gpu_ >"$W/gpu-tests.log" 2>&1; tail -15 "$W/gpu-tests.log"
timeout 120 tests/run.sh topo >"$W/topo-tests.log" 2>&1; tail -8 "$W/topo-tests.log"
cp tests/tmp/last-run.log "$W/last-run.log" 2>/dev/null

step topo and p2p
timeout 60 ./nvscale topo --out "$W/topo" >"$W/topo.txt" 2>&1; echo "topo rc=$?"; head -30 "$W/topo.txt"
timeout 60 ./nvscale p2p --out "$W/p2p" >"$W/p2p.txt" 2>&1; echo "p2p rc=$?"; tail -20 "$W/p2p.txt"

step coll mpirun
timeout 120 $MPIRUN ./nvscale coll -b 8 -e 1G -f 8 --out "$W/coll-mpi" >"$W/coll-mpi.txt" 2>&1; echo rc=$?
grep -E "^ +(8|1048576|1073741824) " "$W/coll-mpi.txt"
step coll threads
timeout 120 ./nvscale coll -b 8 -e 1G -f 8 --out "$W/coll-thr" >"$W/coll-thr.txt" 2>&1; echo rc=$?
grep -E "^ +(8|1048576|1073741824) " "$W/coll-thr.txt"
step coll graph
timeout 60 ./nvscale coll -G 5 -b 8 -e 64K -f 8 --coll all_reduce --out "$W/coll-graph" >"$W/coll-graph.txt" 2>&1; echo rc=$?
grep -E "^ +8 " "$W/coll-graph.txt"
step run shm
NCCL_P2P_DISABLE=1 timeout 120 $MPIRUN ./nvscale run -b 1M -e 256M -f 16 --coll all_reduce -w 2 -n 5 --out "$W/run-shm" >"$W/run-shm.txt" 2>&1; echo rc=$?
tail -12 "$W/run-shm.txt"
step train resnet50
timeout 150 ./nvscale train --model resnet50 --batch 128 --steps 8 --warmup-steps 3 --out "$W/train-r50" >"$W/train-r50.txt" 2>&1; echo rc=$?
tail -8 "$W/train-r50.txt"
step ddp resnet50
timeout 120 torchrun --standalone --nproc_per_node 1 tools/ddp_bench.py --model resnet50 --batch 128 --steps 8 --warmup 3 --json "$W/ddp-r50-1.json" >"$W/ddp-r50-1.txt" 2>&1; echo rc=$?
tail -5 "$W/ddp-r50-1.txt"
step done
