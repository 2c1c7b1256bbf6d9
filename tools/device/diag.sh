#!/bin/bash
# Second look on a GPU machine: GPU tests after fixes, small-message latency against nccl-tests' settings, and
# where the training step's time goes (nvscale's GEMM / memory-bound split beside PyTorch's kernel breakdown).
# Usage (repository root of the GPU machine): tools/device/diag.sh [OUTDIR]
set -u
O=${1:-${OUT:-/tmp/nvs-diag}}
W=$O/diag
mkdir -p "$W"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
MPIRUN="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE"
step() { echo "== $(date +%T) $*"; }
pack() { tar czf "$O/diag.tar.gz" -C "$O" diag; }
trap pack EXIT
JH=""
pkg-config --exists jansson || JH="JANSSON_HOME=.deps/jansson"
step build
make -j16 $JH >"$W/build.log" 2>&1 && make -j16 test-bins $JH >>"$W/build.log" 2>&1 || { tail -40 "$W/build.log"; exit 1; }
./nvscale version | head -3
step gpu tests
timeout 300 tests/run.sh gpu >"$W/gpu-tests.log" 2>&1; tail -8 "$W/gpu-tests.log"; cp tests/tmp/last-run.log "$W/gpu-tests-full.log"
step latency
lat() { "$@" 2>&1 | grep -E "^ +8 " | head -1; }
echo "mpi  -n20 -w5 log   : $(lat $MPIRUN ./nvscale coll --coll all_reduce -b 8 -e 8 -n 20 -w 5 --no-save)"
echo "mpi  -n20 -w5 nolog : $(lat $MPIRUN ./nvscale coll --coll all_reduce -b 8 -e 8 -n 20 -w 5 --no-save --no-nccl-log)"
echo "mpi  -n1000  nolog  : $(lat $MPIRUN ./nvscale coll --coll all_reduce -b 8 -e 8 -n 1000 --no-save --no-nccl-log)"
echo "thr  -n1000  nolog  : $(lat ./nvscale coll --coll all_reduce -b 8 -e 8 -n 1000 --no-save --no-nccl-log)"
echo "mpi  -G20 -n100 nolog: $(lat $MPIRUN ./nvscale coll --coll all_reduce -b 8 -e 8 -n 100 -G 20 --no-save --no-nccl-log)"
echo "mpi  -G20 -n100 log  : $(lat $MPIRUN ./nvscale coll --coll all_reduce -b 8 -e 8 -n 100 -G 20 --no-save)"
step train resnet50 N=1
timeout 120 ./nvscale train --model resnet50 --batch 128 --gpus 1 --steps 10 --warmup-steps 3 --out "$W/train-r50" >"$W/train-r50.txt" 2>&1
python3 -c "import json;r=json.load(open('$W/train-r50/run.json'))['train']['results'][0];print({k:r.get(k) for k in ('step_us','compute_us','no_gemm_us','gemm_us','gemm_tflops')})"
step ddp resnet50 N=1 breakdown
timeout 150 python3 tools/ddp_bench.py --model resnet50 --batch 128 --steps 8 --warmup 3 --breakdown --json "$W/ddp-r50.json" >"$W/ddp-r50.txt" 2>&1; grep -E "breakdown|us/step" "$W/ddp-r50.txt"
python3 -c "import json;d=json.load(open('$W/ddp-r50.json'));print('ddp r50 step',d['step_us'],'compute',d['compute_us'])"
step train lm290m
timeout 150 ./nvscale train --model tools/profiles/lm290m.prof --batch 8 --steps 10 --warmup-steps 3 --out "$W/train-lm" >"$W/train-lm.txt" 2>&1
tail -8 "$W/train-lm.txt"
python3 -c "import json;r=json.load(open('$W/train-lm/run.json'))['train']['results'][0];print({k:r.get(k) for k in ('step_us','compute_us','no_gemm_us','gemm_us','gemm_tflops')})"
step ddp lm290m N=1 breakdown
timeout 150 python3 tools/ddp_bench.py --model lm290m --batch 8 --steps 8 --warmup 3 --breakdown --json "$W/ddp-lm.json" >"$W/ddp-lm.txt" 2>&1; grep -E "breakdown|us/step" "$W/ddp-lm.txt"
python3 -c "import json;d=json.load(open('$W/ddp-lm.json'));print('ddp lm step',d['step_us'],'compute',d['compute_us'])"
step done
