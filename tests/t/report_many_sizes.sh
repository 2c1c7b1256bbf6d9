#!/bin/sh
# nvscale report of several runs: the side-by-side busbw table of a (collective, N) has a row for every size the runs
# measured. It kept the first 512 sizes, so a sweep of more (-b 1M -e 1G -i 1M is 1024 sizes) lost its largest
# sizes from the table without a word.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
row = dict(d['collectives'][0], n=2, inplace=False)
row.pop('size', None)
d['collectives'] = [dict(row, bytes=(k + 1) << 20, size=(k + 1) << 20, count=(k + 1) << 18) for k in range(600)]
d.pop('explain', None)
json.dump(d, open(sys.argv[2], 'w'))
json.dump(d, open(sys.argv[3], 'w'))" tests/fixtures/runs/minimal_coll.json "$dir/a.json" "$dir/b.json" ||
    stop "cannot make the fixtures"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/a.json" "$dir/b.json" || fail "report of two runs"
coll=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['collectives'][0]['collective'])" "$dir/a.json")
# the side-by-side table: from its heading to the next section
table=$(awk -v h="### $coll, N=2" '$0 == h { on = 1; next } on && /^#/ { on = 0 } on' "$dir/r/report.md")
rows=$(printf '%s\n' "$table" | grep -c '^| [0-9]')
[ "$rows" -eq 600 ] || fail "the side-by-side table of $coll at N=2 has $rows size rows, not 600"
printf '%s\n' "$table" | grep -q '^| 600 MiB |' || fail "the side-by-side table has no row for the largest size, 600 MiB"
finish
