#!/bin/sh
# The MPI host backend under mpirun -np 1/2/4 (more ranks than CI's 2 cores): every collective, type and
# operation validated, run.json fields checked; a planted wrong element exits 3; a stalled rank is named.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd mpirun "the MPI host backend runs under it"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 1 2 4; do
    d=$TMP/mpi_host_$np
    rm -rf "$d"
    # the one-screen answer on stdout; the nccl-tests tables of every size in table.txt
    expect 0 "^Collectives: busbw" $MPIRUN -np $np $NVS run --no-train --backend mpi -b 1K -e 256K -f 16 -n 5 -w 1 \
        --coll all -d float,half,bfloat16,int32,double -o all --out "$d" || continue
    grep -q "all_reduce on $np rank" "$d/table.txt" || fail "table.txt lacks all_reduce on $np rank"
    # the summary's rows above N=1 name what carries them: host memory, with no bound (they said "unknown")
    if [ $np -gt 1 ]; then
        printf '%s\n' "$_out" | grep -Eq "^ +$np +host memory, no bound " ||
            fail "np=$np: the summary's N=$np row does not say host memory, no bound: $(printf '%s\n' "$_out" | grep -E "^ +$np ")"
    fi
    j=$d/run.json
    [ "$(json_get $j "d['schema']")" = "nvscale.run/1" ] || fail "schema np=$np"
    [ "$(json_get $j "d['world']['size']")" = "$np" ] || fail "world.size np=$np"
    [ "$(json_get $j "len(d['ranks'])")" = "$np" ] || fail "ranks np=$np"
    # no GPU: no bus id and no device memory, absent (docs/run-json.md: never 0 or ""); they were "" and 0.0
    [ "$(json_get $j "[k for r in d['ranks'] for k in ('pci_bus_id', 'memory_bytes') if k in r]")" = "[]" ] ||
        fail "ranks np=$np name a GPU's bus id or memory on the host backend: $(json_get $j "d['ranks'][0]")"
    [ "$(json_get $j "d['command']['backend']")" = "mpi" ] || fail "backend np=$np"
    # every configuration validated, nothing wrong, a positive time
    bad=$(json_get $j "sum(1 for c in d['collectives'] if c['wrong'] != 0 or c['time_us']['max'] <= 0)")
    [ "$bad" = "0" ] || fail "$bad rows wrong or untimed (np=$np)"
    # 7 collectives x 5 types: 7 reducing configurations per type for the 3 op-collectives x 4 ops ...
    nrows=$(json_get $j "len(d['collectives'])")
    counts=$(json_get $j "sorted(set(c['n'] for c in d['collectives']))")
    [ "$nrows" -gt 100 ] || fail "only $nrows rows (np=$np)"
    echo "np=$np: $nrows validated rows at N=$counts"
    [ "$(json_get $j "d['result']['status']")" = "ok" ] || fail "status np=$np"
    [ -s "$d/collectives.csv" ] && [ -s "$d/table.txt" ] || fail "csv/table missing"
done
# N = 1, 2, 4 all measured in the 4-rank run, with the ranks of each listed
[ "$(json_get $TMP/mpi_host_4/run.json "[s['n'] for s in d['scaling']]")" = "[1, 2, 4]" ] ||
    fail "scaling plan"

# sizes off a power of two up to -e itself, 3 ranks, in and out of place: the timed loops move through slices
# of the buffers (collectives/slices.h) and every slice stays inside them (the sanitizer pass would say if not)
d=$TMP/mpi_host_slices
rm -rf "$d"
expect 0 "" $MPIRUN -np 3 $NVS coll --backend mpi --coll all -d float,double -o sum -b 1000 -e 20000 -i 3000 \
    -n 7 -w 2 --inplace both --out "$d" &&
    [ "$(json_get $d/run.json "sum(1 for c in d['collectives'] if c['wrong'] != 0)")" = "0" ] ||
    fail "the sliced sweep at -np 3 with -i steps has wrong rows"

# a planted wrong element on rank 1 is caught: exit 3, status "wrong", rank named
d=$TMP/mpi_host_corrupt
rm -rf "$d"
expect 3 "wrong element.*first on rank 1" env NVS_TEST_CORRUPT=1 $MPIRUN -np 2 -x NVS_TEST_CORRUPT $NVS coll \
    --backend mpi -b 4K -e 4K --out "$d"
[ "$(json_get $d/run.json "d['result']['status']")" = "wrong" ] || fail "corrupt status"

# -z 1 as nccl-tests': a host barrier of every rank after each operation, the rank outside the point (--gpus 2 of 3)
# too, one for one with the members' (it sat in the next collective instead and paired with the wrong barrier);
# run.json says -z as a number
d=$TMP/mpi_host_z1
rm -rf "$d"
expect 0 "" $MPIRUN -np 3 $NVS coll --backend mpi --gpus 2 --coll all_reduce -b 1K -e 4K -n 50 -w 2 -z 1 --timeout 5 \
    --out "$d" -q
[ "$(json_get $d/run.json "(d['sweep']['blocking'], len(d['collectives']), d['result']['status'])")" = "(1, 6, 'ok')" ] ||
    fail "-z 1 at --gpus 2 of 3 ranks: $(json_get $d/run.json "(d['sweep']['blocking'], len(d['collectives']), d['result']['status'])")"

# a rank that never joins: the others stop after --timeout and name the collective and size, the rank and its host
expect 1 "all_reduce of 64 KiB .* did not complete within 2 s on rank 0 \\(host $(hostname)\\)" env NVS_TEST_STALL=1:64K \
    $MPIRUN -np 2 -x NVS_TEST_STALL $NVS coll --backend mpi -b 4K -e 1M -f 4 --timeout 2 --no-save
finish
