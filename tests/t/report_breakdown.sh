#!/bin/sh
# The step-breakdown plot of nvscale report draws the exposed communication the run measured (the number of the
# report's table), and the rest of the step beside it: all of step - compute was drawn as "exposed
# communication", 52 ms on a host run whose table said 1.2 ms (since train/split.h the step also holds the
# framework's reducer, compute slowed beside the all-reduces and waiting for a slower rank). The data file is
# checked; a stand-in gnuplot on PATH writes the images, so the test does not need gnuplot. The text under the
# table defines exposed as the run does.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir
dir=$(cd "$dir" && pwd) # absolute: PATH must hold wherever nvscale runs gnuplot from

stand_in_gnuplot "$dir/bin"

# the N=2 step of the fixture: 162.1 ms, compute 160.3 ms; of the 1.8 ms beyond compute, 0.3 ms exposed
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['train']['results'][1]['exposed_comm_us'] = 300.0
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/h200x2_nvlink.json "$dir/run.json" || stop "cannot make the fixture"

PATH="$dir/bin:$PATH" expect_err 0 "" "$NVS" report -o "$dir/r" "$dir/run.json" || finish
dat=$dir/r/step_breakdown.dat
grep -q '^"N=2" 160.300 0.300 1.500$' "$dat" || fail "N=2: compute, exposed, rest wrong: $(cat "$dat")"
grep -q '^"N=1" 160.000 0.000 0.000$' "$dat" || fail "N=1: $(cat "$dat")"
grep -q "title 'exposed communication', '' using 4 title 'rest" "$dir/r/plots.gp" || fail "no third part in plots.gp"
# the report's table says the same 0.30 ms
grep -q "^| 2 | 162.10 | 160.30 | 8.30 | 0.30 |" "$dir/r/report.md" || fail "the table disagrees"
# the text under the table does not define exposed as step - compute for a run where it is not (a run that
# records interference_us counts the framework's reducer and slowed compute apart; results/h200x2-final3)
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
for r in d['train']['results']:
    r['interference_us'] = 0.0
json.dump(d, open(sys.argv[2], 'w'))" "$dir/run.json" "$dir/split.json" || stop "cannot make the split fixture"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/s" "$dir/split.json" || finish
grep -q "exposed = step - compute" "$dir/s/report.md" && fail "exposed defined as step - compute, 0.30 ms of 1.80"
finish "the breakdown matches the table"
