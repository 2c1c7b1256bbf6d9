#!/bin/bash
# Third GPU call: issue 9's socket rows (PyTorch and nvscale over NET/Socket, same call) and issue 10's
# measurement of the host-memory path on this box (NCCL SHM all_reduce at 2 ranks; host copy bandwidth).
# Usage: tools/device/call3.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/call3.tar.gz" "$R"' EXIT
make -j32 NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) \
    >"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
describe "$R"
commands_header
step "issue 10: host memory and NCCL SHM on this box"
rec membw sh -c "make -s hostbw >/dev/null && build/hostbw -t 32"
rec shm-allreduce mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE=1 \
    ./nvscale coll --coll all_reduce -b 1M -e 4G -f 4 --out "$R/shm-allreduce"
rec shm-allreduce-4ch mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE=1 \
    -x NCCL_MAX_NCHANNELS=2 ./nvscale coll --coll all_reduce -b 64M -e 1G -f 4 --out "$R/shm-allreduce-2ch"
step "issue 9: sockets"
tools/device/fidelity.sh "$R/fidelity" net
step done
