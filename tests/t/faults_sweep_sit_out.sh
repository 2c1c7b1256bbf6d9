#!/bin/sh
# A rank that sits out a sweep point (N=1 of 2 ranks: --gpus 1) waits in a host collective while the measuring rank
# times the point. The measurer says it is still working with heartbeats (runtime.h nvs_rt_beat) between its
# operations, so a timed loop longer than --timeout (+ the host grace) is not taken for a stall. Without them the
# waiting rank gave up after 4 s ("timed out after 4 s waiting for all ranks at gathering times; some rank is
# stalled or gone") and stopped a healthy run (exit 1, status "interrupted", no row).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d

# all-reduces of 16 MiB on one rank, more of them than --timeout 2 + 2 s of grace take (a shorter --timeout does not
# leave MPI its start-up on a loaded machine): 2500 take 5-10 s on a loaded 2-core machine but 1.2 s on an idle one
# (CI, 6 December), so a loop that came out shorter than 4 s is run again, longer by what it lacked (at most 3 tries)
n=2500
try=1
while :; do
    rm -rf "$d/sit"
    expect 0 "" $MPIRUN -np 2 "$NVS" run --no-train --gpus 1 --backend mpi -b 16M -e 16M -n $n -w 1 \
        --coll all_reduce -d float --inplace out --timeout 2 --out "$d/sit"
    if [ "$(json_get "$d/sit/run.json" "[c['n'] for c in d['collectives']]" 2>/dev/null)" != "[1]" ]; then
        fail "no row at N=1 kept (-n $n): $(tail -n 5 "$ERR" 2>/dev/null)"
        break
    fi
    [ "$(json_get "$d/sit/run.json" "d['result']['status']")" = ok ] || fail "status is not ok (-n $n)"
    # the N=1 loop has to have outlasted the waiting rank's bound, or this test proves nothing
    loop=$(json_get "$d/sit/run.json" "[c['time_us']['max'] * c['iters'] / 1e6 for c in d['collectives']][0]")
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 4 else 1)" "$loop" && break
    if [ $try -ge 3 ]; then
        fail "the N=1 timed loop took only $loop s at -n $n, not more than 4 s, after $try tries"
        break
    fi
    n=$(python3 -c "import math, sys; print(math.ceil(int(sys.argv[1]) * 6 / max(float(sys.argv[2]), 0.1)))" $n "$loop")
    try=$((try + 1))
done
finish
