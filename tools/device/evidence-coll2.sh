#!/bin/bash
# Follow-up to evidence-coll.sh: the same sweeps with nccl-tests' own iteration settings (-n 20 -w 5) for a
# like-for-like comparison, and the socket transport without mpirun's one-core binding.
# Usage: tools/device/evidence-coll2.sh RESULTS_DIR [OUT]
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R"
trap 'tar czf "$O/evidence-coll2.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step "sweeps with nccl-tests' -n 20 -w 5"
rec coll-mpi-n20 $MPIRUN ./nvscale coll --coll all_reduce,broadcast -b 8 -e 8G -f 2 -n 20 -w 5 --out "$R/coll-mpi-n20"
rec coll-others-n20 $MPIRUN ./nvscale coll --coll all_gather,reduce_scatter,alltoall,sendrecv -b 8 -e 1G -f 8 -n 20 -w 5 \
    --out "$R/coll-others-n20"
step "socket transport, processes not bound to one core"
export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
rec coll-socket-bind-none mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE \
    -x NCCL_SHM_DISABLE ./nvscale coll --coll all_reduce -b 1M -e 1G -f 4 -w 2 -n 5 --out "$R/coll-socket-bind-none"
rec coll-socket-bind-numa mpirun --allow-run-as-root -np 2 --bind-to numa -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE \
    -x NCCL_SHM_DISABLE ./nvscale coll --coll all_reduce -b 1M -e 1G -f 4 -w 2 -n 5 --out "$R/coll-socket-bind-numa"
unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE
step done
