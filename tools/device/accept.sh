#!/bin/bash
# Issue 12 evidence: nvscale accept on the GPU machine. Level 2 standalone (one process, a thread per GPU) and
# under mpirun (one rank per GPU), each with its JSON (verdicts.json in the run's folder), JUnit and Prometheus
# verdicts; host copies alone
# (p2p --host); the GPU test of accept; with LEVEL3=1 also level 3 (a 120 s sustained load).
# Usage: tools/device/accept.sh RESULTS_DIR [OUT]     (e.g. results/h200x2-<date>/accept)
. "$(dirname "$0")/lib.sh"
R=$1
O=${2:-${OUT:-/tmp}}
mkdir -p "$R"
trap 'tar czf "$O/accept.tar.gz" "$R"' EXIT
build "$R"
describe "$R"
commands_header
step "host copies"
rec p2p-host ./nvscale p2p --host --out "$R/p2p-host"
step "accept level 2, one process"
rec accept-l2-threads ./nvscale accept --level 2 --out "$R/accept-l2-threads" --format table \
    --junit "$R/accept-l2-threads.junit.xml" --prometheus "$R/accept-l2-threads.prom"
tail -6 "$R/accept-l2-threads.txt"
step "accept level 2, mpirun"
n=$(nvidia-smi -L | grep -c '^GPU')
rec accept-l2-mpi mpirun --allow-run-as-root -np "$n" --bind-to numa -x NCCL_NVLS_ENABLE ./nvscale accept --level 2 \
    --out "$R/accept-l2-mpi" --junit "$R/accept-l2-mpi.junit.xml" --prometheus "$R/accept-l2-mpi.prom"
tail -6 "$R/accept-l2-mpi.txt"
step "GPU test of accept"
rec gpu-accept-test sh tests/t/gpu_accept.sh
if [ "${LEVEL3:-0}" = 1 ]; then
    step "accept level 3 (sustained load)"
    rec accept-l3-mpi mpirun --allow-run-as-root -np "$n" --bind-to numa -x NCCL_NVLS_ENABLE ./nvscale accept --level 3 \
        --out "$R/accept-l3-mpi" --junit "$R/accept-l3-mpi.junit.xml" --prometheus "$R/accept-l3-mpi.prom"
    tail -6 "$R/accept-l3-mpi.txt"
fi
step done
