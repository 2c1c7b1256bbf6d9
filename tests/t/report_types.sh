#!/bin/sh
# nvscale report of a sweep over several types or operations (-d float,double -o sum,max): every row of the
# collective's table says its type and operation. The table showed four rows per size that nothing told apart,
# under a heading "(float, sum)" that was true of one of them.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

# the minimal run, its 8-byte row measured again as double max (busbw 0.50) after the float sum one (0.00)
python3 -c "import copy, json, sys
d = json.load(open(sys.argv[1]))
row = copy.deepcopy(d['collectives'][0])
row.update(type='double', op='max', count=1, busbw_gbps=0.5, algbw_gbps=0.5)
d['collectives'].append(row)
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/minimal_coll.json "$dir/types.json" || stop "cannot make the fixture"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/types.json" || finish
md=$dir/r/report.md
grep -q "^#### all_reduce, N=2$" "$md" || fail "the heading names one type and operation for all rows"
grep -q "^| size | type | op | time (us) |" "$md" || fail "no type and op columns"
grep -q "^| 8 B | double | max | 9.72 | 0.50 | 0.50 |" "$md" || fail "the double max row does not say so"
grep -q "^| 8 B | float | sum | 9.72 | 0.00 | 0.00 |" "$md" || fail "the float sum row does not say so"
# a sweep of one type and operation keeps its heading and table (tests/golden/report_minimal.md)
expect_err 0 "" "$NVS" report --no-plots -o "$dir/one" tests/fixtures/runs/minimal_coll.json &&
    grep -q "^#### all_reduce, N=2 (float, sum)$" "$dir/one/report.md" || fail "one type: heading changed"

# the tables that show one row per size (Scaling, the fleet's rows of check) take the first out-of-place one of a
# sweep of several types and ops, and say which: a real run of the MPI host backend, N = 1 and 2
if command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    if $MPIRUN -np 2 "$NVS" coll -b 1K -e 64K -d float,double -o sum,max --gpus 1,2 --out "$dir/mv" >"$dir/mv.log" 2>&1; then
        expect_err 0 "" "$NVS" report --no-plots -o "$dir/mvr" "$dir/mv/run.json" || finish
        grep -q "^all_reduce busbw (GB/s) per size and GPU count, float sum (the first type and op of the sweep):$" \
            "$dir/mvr/report.md" || fail "the Scaling table does not say its rows are float sum: $(grep 'per size and GPU' "$dir/mvr/report.md")"
        grep -q "^broadcast busbw (GB/s) per size and GPU count, float (the first type and op of the sweep):$" \
            "$dir/mvr/report.md" || fail "the broadcast Scaling table does not say its rows are float"
        # a second run of the host (its own start: a copy would be refused as the same run given twice)
        python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['started_utc'] = '2026-11-29T10:00:00Z'
json.dump(d, open(sys.argv[2], 'w'))" "$dir/mv/run.json" "$dir/mv2.json" || stop "cannot make the second run"
        "$NVS" check "$dir/mv/run.json" "$dir/mv2.json" >"$dir/mvc.txt" 2>&1
        grep -q "^fleet busbw all_reduce 64 KiB n=2 (float sum) @" "$dir/mvc.txt" ||
            fail "the fleet row does not say it is float sum: $(grep 'fleet busbw all_reduce' "$dir/mvc.txt" | head -1)"
        # compare's side-by-side busbw tables (--report-only reads DIR/<transport>/run.json)
        mkdir -p "$dir/cmp/shm" && cp "$dir/mv/run.json" "$dir/cmp/shm/"
        "$NVS" compare --report-only --transports shm --out "$dir/cmp" >"$dir/cmp.out" 2>&1
        grep -q "^all_reduce float sum, N=2: busbw (GB/s)$" "$dir/cmp.out" ||
            fail "compare's table does not say it is float sum: $(grep 'busbw (GB/s)$' "$dir/cmp.out" | head -1)"
        grep -q "^### all_reduce float sum, N=2: busbw (GB/s)$" "$dir/cmp/compare.md" || fail "compare.md: no float sum"
    else
        fail "mpirun of the host backend failed: $(tail -3 "$dir/mv.log")"
    fi
fi
finish "types and operations told apart"
