#!/bin/bash
# The collective evidence again after the start-of-loop alignment (sweep.c: one untimed operation after the host
# barrier): default iterations, nccl-tests' -n 20 -w 5, CUDA graphs, SHM and socket.
# Usage: tools/device/evidence-coll3.sh RESULTS_DIR [OUT]
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R"
trap 'tar czf "$O/evidence-coll3.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step sweeps NVLink
rec coll-mpi $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 --out "$R/coll-mpi"
rec coll-threads ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 --out "$R/coll-threads"
rec coll-mpi-n20 $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 -n 20 -w 5 --out "$R/coll-mpi-n20"
rec coll-graph $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 1M -f 2 -G 20 --out "$R/coll-graph"
rec coll-others $MPIRUN ./nvscale coll --coll all_gather,reduce_scatter,alltoall,sendrecv -b 8 -e 1G -f 8 --out "$R/coll-others"
rec coll-others-n20 $MPIRUN ./nvscale coll --coll all_gather,reduce_scatter,alltoall,sendrecv -b 8 -e 1G -f 8 -n 20 -w 5 \
    --out "$R/coll-others-n20"
step sweeps SHM and socket
export NCCL_P2P_DISABLE=1
rec coll-shm $MPIRUN ./nvscale coll --coll all_reduce -b 1M -e 4G -f 4 -w 3 -n 10 --out "$R/coll-shm"
export NCCL_SHM_DISABLE=1
rec coll-socket mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE \
    -x NCCL_SHM_DISABLE ./nvscale coll --coll all_reduce -b 1M -e 1G -f 4 -w 2 -n 5 --out "$R/coll-socket"
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step done
