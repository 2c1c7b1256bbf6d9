#!/bin/bash
# Evidence for the collective sweeps (issue 2), topology and copies (issue 3) and the transport comparison
# (issue 5) on the GPU machine. Usage: tools/device/evidence-coll.sh RESULTS_DIR [OUT]
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R"
trap 'tar czf "$O/evidence-coll.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step sweeps NVLink
rec coll-mpi $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 --out "$R/coll-mpi"
rec coll-threads ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 --out "$R/coll-threads"
rec coll-graph $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 1M -f 2 -G 20 --out "$R/coll-graph"
rec coll-mpi-bind-none mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE ./nvscale coll \
    --coll all_reduce,broadcast -b 8 -e 1M -f 2 --out "$R/coll-mpi-bind-none"
rec coll-others $MPIRUN ./nvscale coll --coll all_gather,reduce_scatter,alltoall,sendrecv -b 8 -e 1G -f 8 \
    --out "$R/coll-others"
step sweeps SHM and socket
export NCCL_P2P_DISABLE=1
rec coll-shm $MPIRUN ./nvscale coll --coll all_reduce -b 1M -e 4G -f 4 -w 3 -n 10 --out "$R/coll-shm"
export NCCL_SHM_DISABLE=1
rec coll-socket $MPIRUN ./nvscale coll --coll all_reduce -b 1M -e 1G -f 4 -w 2 -n 5 --out "$R/coll-socket"
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step topology and copies
rec nvidia-smi-topo nvidia-smi topo -m
rec nvidia-smi-nvlink nvidia-smi nvlink -s
rec topo ./nvscale topo --out "$R/topo"
rec p2p ./nvscale p2p --out "$R/p2p"
step transport comparison
rec compare ./nvscale compare --transports nvlink,pcie,shm,net --out "$R/compare" -b 1K -e 1G -f 8 \
    --coll all_reduce,broadcast --model resnet50 --batch 128 --steps 10 --warmup-steps 3
step done
