#!/bin/bash
# The last GPU pass of this session, one call: the default run (issue 11), accept level 2 (issue 12), emulated
# nodes (issue 15), Ctrl-C and kill -9 on NCCL runs and compute-sanitizer (issue 14), the GPU tests. Each step
# has its own time limit, and steps are skipped once the call's budget runs low, so that the archive comes back.
# Usage: tools/device/final-gpu.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
T0=$(date +%s)
trap 'tar czf "$O/final-gpu.tar.gz" "$R"' EXIT
left() { echo $((540 - ($(date +%s) - T0))); }
go() { # go SECONDS NAME CMD...: run unless the budget is short
    local lim=$1; shift
    if [ "$(left)" -lt "$lim" ]; then echo "$1: SKIPPED (budget)"; echo "| $1 | skipped: the call's budget ran low | | | |" >>"$R/COMMANDS.md"; return 0; fi
    local name=$1; shift
    rec "$name" timeout "$lim" "$@"
}
make -j32 NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) \
    >"$R/build.log" 2>&1 && make -j32 test-bins NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
    $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) >>"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
describe "$R"
commands_header
git_rev=$(cat .nvs-rev 2>/dev/null || echo unknown); echo "commit: $git_rev" >>"$R/MACHINE.md"
MR="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE"
LO="-x NCCL_SOCKET_IFNAME=lo --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"

step "issue 11: the default run"
go 120 default-run $MR ./nvscale --out "$R/default-run"
step "issue 12: accept level 2 and host copies"
go 150 accept-l2-mpi $MR ./nvscale accept --level 2 --out "$R/accept-l2" --junit "$R/accept-l2.junit.xml" \
    --prometheus "$R/accept-l2.prom"
go 60 p2p-host ./nvscale p2p --host --out "$R/p2p-host"
step "issue 15: two emulated hosts of one GPU each (NET/Socket between them)"
go 120 emulate-2x1 mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE $LO ./nvscale --emulate-nodes 2 \
    -b 8 -e 256M -f 4 --no-train --out "$R/emulate-2x1"
step "issue 14: Ctrl-C and kill -9 on NCCL runs"
( tools/as-fg ./nvscale coll -b 1M -e 8G -f 2 -n 100 --out "$R/sigint" >"$R/sigint.txt" 2>&1 & p=$!
  for i in $(seq 1 300); do [ -s "$R/sigint.partial/run.json" ] && grep -q '"collective"' "$R/sigint.partial/run.json" && break; sleep 0.1; done
  sleep 2; kill -INT $p; wait $p; echo "exit $?" >>"$R/sigint.txt" )
( $MR ./nvscale coll -b 1M -e 8G -f 2 -n 100 --out "$R/kill9" >"$R/kill9.txt" 2>&1 & p=$!
  for i in $(seq 1 300); do [ -s "$R/kill9.partial/run.json" ] && grep -q '"collective"' "$R/kill9.partial/run.json" && break; sleep 0.1; done
  sleep 2
  for q in $(pgrep -f "nvscale coll -b 1M -e 8G -f 2 -n 100 --out $R/kill9"); do
      tr '\0' '\n' <"/proc/$q/environ" | grep -qx OMPI_COMM_WORLD_RANK=1 && kill -9 "$q" && echo "killed rank 1 (pid $q)" >>"$R/kill9.txt"
  done
  wait $p; echo "exit $?" >>"$R/kill9.txt" )
for x in sigint kill9; do
    f=$R/$x/run.json; [ -s "$f" ] || f=$R/$x.partial/run.json
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1], d['result']['status'], len(d['collectives']), 'rows, largest', max([c['bytes'] for c in d['collectives']] or [0]), d['result'].get('reason'))" "$f" >>"$R/faults-summary.txt" 2>&1
done
cat "$R/faults-summary.txt"
step "issue 14: compute-sanitizer (memcheck) on the GPU code paths"
go 90 sanitizer-coll compute-sanitizer --tool memcheck --error-exitcode 9 ./nvscale coll -b 1M -e 16M -f 4 --coll all -n 3 -w 1 --no-save
go 120 sanitizer-train compute-sanitizer --tool memcheck --error-exitcode 9 ./nvscale train --model resnet50 --batch 8 --steps 2 \
    --warmup-steps 1 --no-save
step "GPU tests"
go 200 gpu-tests sh -c 'for t in gpu_coll gpu_train p2p_gpu topo_gpu; do tests/run.sh $t; done'
step done
