#!/bin/sh
# nccl-tests' flags that nvscale does not take (-p, -N, -T, -R, -J, ...) are refused as such, exit 2, saying what
# they are and what nvscale does instead, not as an "unknown option" an nccl-tests user takes for a typo.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
out=$TMP/cli_nccl_tests_flags
rm -rf "$out"
for f in "-p 1" "--parallel_init 1" "-N 2" "--run_cycles=2" "-y 1" "-C 1" "-S 1" "-R 1" "--local_register 1" \
    "-x 1" "-D 1" "-V 4" "-M 1" "-u 1" "-I 1" "-K 2"; do
    # shellcheck disable=SC2086
    expect 2 "is nccl-tests' --[a-z_]+, which nvscale does not take" $NVS coll $f --out $out
done
expect 2 "-T is nccl-tests' --timeout.*nvscale's is --timeout S" $NVS coll -T 60 --out $out
expect 2 "-J is nccl-tests' --output_file.*run.json" $NVS coll -J x.json --out $out
expect 2 "-N is nccl-tests' --run_cycles" $NVS run -N 2 --out $out
# a flag nccl-tests does not have either stays an unknown option; a subcommand without the sweep says so plainly
expect 2 "unknown option '-Z'" $NVS coll -Z 1 --out $out
expect 2 "unknown option '-p'" $NVS topo -p 1 --out $out
[ -e "$out" ] && fail "a rejected command left $out behind"
# nccl-tests' own -d names and -o avg are taken (int8 and avg were unknown names, exit 2), named in the table as
# nccl-tests names them, and validated: the MPI host backend (no MPI_AVG: sum, then divide) reports 0 wrong
if command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    tmp_dir dir
    if expect 0 "Wrong elements *: 0 OK" $MPIRUN -np 3 $NVS coll --backend mpi --coll all_reduce,reduce_scatter \
        -d int8,uint8,uint32,int64,uint64 -o avg,sum -b 64 -e 1K -n 2 -w 1 --out "$dir/types"; then
        for t in int8 uint8 uint32 int64 uint64; do
            grep -Eq " $t +avg " "$dir/types/table.txt" || fail "table.txt has no $t avg row"
        done
        awk '$4 == "avg" || $4 == "sum" { if ($9 != 0 || ($13 != "" && $13 != 0)) bad = 1 } END { exit bad }' \
            "$dir/types/table.txt" || fail "wrong elements in the new types' rows"
    fi
    expect 2 "invalid value 'int16' for -d.*types are int8, uint8" $NVS coll -d int16 --out $out
fi
finish
