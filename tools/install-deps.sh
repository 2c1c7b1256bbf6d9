#!/bin/sh
# Install what nvscale needs to build and test, with apt, on Debian 12 / Ubuntu 22.04+ (run as root).
# The CUDA toolkit with NCCL is not in these distributions' default repositories: it must already be under
# $CUDA_HOME (default /usr/local/cuda); this script checks and says so.
set -e
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
need=""
have_pkg() { dpkg -s "$1" >/dev/null 2>&1; }
# build: compilers, MPI, hwloc (headers), jansson (JSON), pkg-config; tests: openmpi-bin (mpirun), hwloc (lstopo)
# libopenblas-dev (CBLAS GEMMs of the host training step), gnuplot (report plots, optional at run time but exercised by the tests) and python3, jq (the tests read JSON with them),
# python3-yaml (tests/t/deploy_files.sh parses the Kubernetes manifest), clang (the libFuzzer harnesses of fuzz/,
# run briefly by tests/t/fuzz_smoke.sh)
for p in build-essential pkg-config libopenmpi-dev openmpi-bin libhwloc-dev hwloc libjansson-dev libopenblas-dev gnuplot-nox python3 jq python3-yaml clang; do
    have_pkg "$p" || need="$need $p"
done
# libFuzzer's runtime: its own package on Debian 12 (libclang-rt-dev); Ubuntu ships it inside clang's. Installed
# where the distribution has it; without it the fuzz smoke test says "skipped". strace: tests/t/log_one_write.sh
# counts the writes of a message to stderr (skipped without it).
opt=""
for p in libclang-rt-dev strace; do
    have_pkg "$p" || opt="$opt $p"
done
if [ -n "$need$opt" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        if [ -n "$need" ]; then
            echo "install-deps: missing packages:$need (run as root, or: sudo apt-get install$need)" >&2
            exit 1
        fi
        echo "install-deps: optional, for the fuzz harnesses and log_one_write.sh:$opt (sudo apt-get install$opt)" >&2
    else
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        for p in $opt; do
            apt-cache show "$p" >/dev/null 2>&1 && need="$need $p"
        done
        if [ -n "$need" ]; then
            echo "install-deps: installing$need"
            apt-get install -y -q --no-install-recommends $need >/dev/null
        fi
    fi
fi
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "install-deps: no CUDA toolkit at $CUDA_HOME (nvcc missing): install CUDA 12.x/13.x with NCCL, or set CUDA_HOME" >&2
    exit 1
fi
if [ ! -f "$CUDA_HOME/include/nccl.h" ] && [ ! -f /usr/include/nccl.h ] && [ -z "$NCCL_HOME" ]; then
    echo "install-deps: NCCL headers not found in $CUDA_HOME/include or /usr/include: install libnccl-dev or set NCCL_HOME" >&2
    exit 1
fi
echo "install-deps: all build dependencies present"
