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
finish "types and operations told apart"
