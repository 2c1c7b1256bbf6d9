#!/bin/sh
# Ranks started with different command lines (issue 14): a wrapper that gives one rank another -e or --coll made the
# ranks call different collectives, and the job waited for --timeout, then blamed a stalled peer. Now: exit 2 at
# the start, within seconds, each command line shown, nothing created. The same command on every rank still runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d

# rank 1 sweeps one more collective than rank 0, with more warm-up iterations
t0=$(date +%s)
$MPIRUN -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --coll all_reduce,broadcast -w 3; fi
    exec "$0" "$@"' "$NVS" coll --backend mpi -b 1K -e 64K -n 5 --timeout 60 --out "$d/mm" >"$d/mm.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 2 ] || fail "ranks with different options: exit $rc, expected 2"
grep -q "started with different command lines" "$d/mm.out" ||
    fail "ranks with different options: not said: $(grep -v '^nvscale: \[' "$d/mm.out" | head -n 3)"
grep -q "rank 1 has: nvscale coll .*--coll all_reduce,broadcast -w 3" "$d/mm.out" ||
    fail "ranks with different options: rank 1's command line not shown"
[ $t -lt 40 ] || fail "ranks with different options: $t s, it waited for --timeout (60 s)"
[ ! -e "$d/mm" ] && [ ! -e "$d/mm.partial" ] || fail "ranks with different options: a run directory was made"

# rank 0 the odd one of 5: every other rank differs from it, and only the first 3 of them show their command line
$MPIRUN --oversubscribe -np 5 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then set -- "$@" -w 3; fi
    exec "$0" "$@"' "$NVS" coll --backend mpi -b 1K -e 4K -n 2 --timeout 60 --no-save >"$d/odd.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "rank 0 the odd one: exit $rc, expected 2"
shown=$(grep -c "error: rank [0-9] has: nvscale coll" "$d/odd.out")
[ "$shown" -eq 4 ] || fail "rank 0 the odd one of 5: $shown command lines shown, expected 4 (rank 0's and 3 others)"

# the same options on both ranks: a run
$MPIRUN -np 2 "$NVS" coll --backend mpi -b 1K -e 4K -n 5 --out "$d/same" >"$d/same.out" 2>&1 ||
    fail "the same options on both ranks: exit $?: $(tail -n 3 "$d/same.out")"
finish
