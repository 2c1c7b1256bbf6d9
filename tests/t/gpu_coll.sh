#!/bin/sh
# NCCL backend on real GPUs: every collective, type and operation validated, one process (threads) and under
# mpirun; buffers from ncclMemAlloc; CUDA-graph launches; a planted wrong element exits 3; a stalled rank is named
# and the communicators aborted. Skipped on machines without a GPU.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
has_gpu || skip "no GPU on this machine"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
ngpu=$(nvidia-smi -L | grep -c '^GPU')
d=$TMP/gpu_coll
rm -rf "$d"
expect 0 "Wrong elements     : 0 OK" $NVS run -v --no-train --coll all -d all -o all -b 1K -e 4M -f 64 -n 5 -w 2 --out "$d/threads"
bad=$(json_get $d/threads/run.json "sum(1 for c in d['collectives'] if c['wrong'] != 0)")
[ "$bad" = "0" ] || fail "$bad wrong rows (threads)"
[ "$(json_get $d/threads/run.json "d['command']['launcher']")" = "threads" ] || fail "launcher"
[ "$(json_get $d/threads/run.json "d['world']['size']")" = "$ngpu" ] || fail "one rank per GPU"
if command -v mpirun >/dev/null; then
    expect 0 "Wrong elements     : 0 OK" $MPIRUN -np $ngpu -x NCCL_NVLS_ENABLE $NVS coll --coll all -d float,bfloat16 \
        -o sum,max -b 1K -e 4M -f 64 -n 5 -w 2 --out "$d/mpi"
    [ "$(json_get $d/mpi/run.json "d['command']['launcher']")" = "mpi" ] || fail "mpi launcher"
    expect 3 "wrong element" env NVS_TEST_CORRUPT=0 $MPIRUN -np $ngpu -x NVS_TEST_CORRUPT -x NCCL_NVLS_ENABLE $NVS coll \
        -b 1M -e 1M --no-save
    if [ "$ngpu" -ge 2 ]; then
        expect 1 "all_reduce of 1 MiB .* did not complete within 5 s .* aborting the NCCL communicators" \
            env NVS_TEST_STALL=1:1M $MPIRUN -np $ngpu -x NVS_TEST_STALL -x NCCL_NVLS_ENABLE $NVS coll -b 256K -e 4M \
            -f 4 --timeout 5 --no-save
    fi
fi
expect 0 "CUDA graph launches" $NVS coll -G 3 -b 8 -e 64K -f 8 -n 10 --out "$d/graph"
[ "$(json_get $d/graph/run.json "all(c['graph'] and c['wrong'] == 0 for c in d['collectives'])")" = "True" ] ||
    fail "graph rows"
expect 3 "wrong element" env NVS_TEST_CORRUPT=0 $NVS coll -b 1M -e 1M --no-save
# buffers from ncclMemAlloc (nccl-tests' allocation): every collective validated, run.json says which allocator
expect 0 "Wrong elements     : 0 OK" $NVS coll -v --alloc nccl --coll all -b 1K -e 4M -f 64 -n 5 -w 2 --out "$d/ncclmem"
[ "$(json_get $d/ncclmem/run.json "d['sweep']['alloc']")" = "ncclMemAlloc" ] || fail "sweep.alloc ncclMemAlloc"
[ "$(json_get $d/ncclmem/run.json "sum(1 for c in d['collectives'] if c['wrong'] != 0)")" = "0" ] || fail "ncclmem rows"
[ "$(json_get $d/threads/run.json "d['sweep']['alloc']")" = "cudaMalloc" ] || fail "sweep.alloc cudaMalloc"
# more ranks on a host than GPUs: refused before any NCCL call
if command -v mpirun >/dev/null; then
    # several visible GPUs: the extra rank has none; one visible GPU (the launcher's choice per rank): two
    # ranks drive it
    expect 2 "ranks run on host .* but only $ngpu GPU|ranks 0 and 1 on host .* both drive GPU" \
        $MPIRUN -np $((ngpu + 1)) -x NCCL_NVLS_ENABLE $NVS coll -b 1K -e 1K --no-save
fi
finish
