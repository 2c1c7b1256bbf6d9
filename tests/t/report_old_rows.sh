#!/bin/sh
# A run.json written before collective rows said their sweep "size" (6 December 2026) beside report of a newer
# one: the old rows fell back to size = bytes, which all_gather, reduce_scatter and alltoall round to whole
# 16-byte blocks per rank (1 MiB of float over 3 ranks: 1048560 B), so the side-by-side table had the new run's
# 1 MiB and the old run's 1048560 B as two rows, each half empty. The old rows now get the size of the file's
# sweep plan that rounds to their bytes (runjson_size.c); without a plan the bytes still stand.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun "the MPI host backend runs under it"
need_cmd python3 "cannot edit the JSON"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir dir

expect 0 "" $MPIRUN -np 3 $NVS coll --backend mpi --coll all_gather,reduce_scatter,alltoall -b 1K -e 64K -f 4 \
    -n 2 -w 1 --out "$dir/new" || stop "the 3-rank run"
# the same run as an older nvscale wrote it: no "size"; and once more without its sweep section either (each
# started before the size was written: a copy of the run under its own start would be refused as that run twice)
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['started_utc'] = '2026-12-05T12:00:00Z'
for c in d['collectives']:
    c.pop('size', None)
json.dump(d, open(sys.argv[2], 'w'))
d.pop('sweep')
json.dump(d, open(sys.argv[3], 'w'))" "$dir/new/run.json" "$dir/old.json" "$dir/noplan.json" || stop "the old files"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/new/run.json" "$dir/old.json" || fail "report new old"
for coll in all_gather reduce_scatter alltoall; do
    table=$(awk -v h="### $coll, N=3" '$0 == h { on = 1; next } on && /^#/ { on = 0 } on' "$dir/r/report.md")
    rows=$(printf '%s\n' "$table" | grep -c '^| [0-9]')
    [ "$rows" -eq 4 ] || fail "$coll at N=3: $rows size rows side by side, not 4 (1, 4, 16, 64 KiB)"
    printf '%s\n' "$table" | grep '^| [0-9]' | grep -q '—' && fail "$coll at N=3: a half-empty row: $table"
    printf '%s\n' "$table" | grep -q '^| 64 KiB | [0-9.]* | [0-9.]* |' || fail "$coll at N=3: no 64 KiB row of both"
done
# no plan: the bytes stand (65520 B), not a size made up
expect_err 0 "" "$NVS" report --no-plots -o "$dir/r2" "$dir/noplan.json" || fail "report of a file without a plan"
grep -q '65520 B' "$dir/r2/report.md" || fail "the file without a plan: its rows are not at their bytes"
finish
