#!/bin/sh
# nvscale report of a run that trained several workloads (run.json "trains": `--model bert-large,resnet50`, the
# default run on GPUs) shows every workload's training step and efficiency, not only the first's ("train"): the
# report of results/h200x2-final3/default-run showed bert-large (97.2 %) and nothing of resnet50 (88.4 %), the
# workload its own verdict named.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

python3 -c "import copy, json, sys
d = json.load(open(sys.argv[1]))
res = copy.deepcopy(d['train'])
res['model'] = 'resnet50'
res['batch'] = 128
res['results'][1].update(step_us=59114.0, samples_per_s=4330.6, efficiency=0.884)
d['trains'] = [d['train'], res]
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/h200x2_nvlink.json "$dir/two.json" || stop "cannot make the fixture"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/two.json" || finish
md=$dir/r/report.md
[ "$(grep -c '^### Training step' "$md")" -eq 1 ] || fail "not one Training step section"
grep -q "^Model bert-large (" "$md" || fail "bert-large's step is missing"
grep -q "^Model resnet50 (.*batch 128 per GPU" "$md" || fail "resnet50's step is missing"
grep -q "^| 2 | 59.11 | .* | 4330.6 | 88.4 % |$" "$md" || fail "resnet50's row at N=2 is missing"
grep -q "| bert-large training efficiency | resnet50 training efficiency |$" "$md" || fail "scaling lacks a workload"
grep -q "^| 2 | .* | 98.7 % | 88.4 % |$" "$md" || fail "scaling row at N=2 lacks a workload"

# side by side (two runs): a training table per workload, not the first workload's alone
# (the second its own run of the host, started later: a copy would be refused as the same run given twice)
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['started_utc'] = '2026-11-29T11:00:00Z'
json.dump(d, open(sys.argv[2], 'w'))" "$dir/two.json" "$dir/two_b.json" || stop "cannot make the second run"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/sbs" "$dir/two.json" "$dir/two_b.json" || finish
sbs=$dir/sbs/report.md
grep -q "^### Training step, workload 1 of 2$" "$sbs" || fail "side by side: no table of workload 1"
grep -q "^### Training step, workload 2 of 2$" "$sbs" || fail "side by side: no table of workload 2"
grep -q "^| N | R1 samples/s (resnet50) | R2 samples/s (resnet50) |" "$sbs" || fail "side by side: resnet50 missing"
grep -q "^| 2 | 4330.6 | 4330.6 | 1.000 | .* | 88.4 % | .* | 88.4 % |$" "$sbs" || fail "side by side: resnet50's N=2 row"
# the plots: the efficiency plot has a series per workload, the breakdown a bar per workload and N
if command -v gnuplot >/dev/null 2>&1; then
    expect_err 0 "" "$NVS" report -o "$dir/p" "$dir/two.json" || finish
    grep -q "^# training step (resnet50)$" "$dir/p/efficiency.dat" || fail "efficiency plot: no resnet50 series"
    grep -q "^# training step (bert-large)$" "$dir/p/efficiency.dat" || fail "efficiency plot: no bert-large series"
    grep -q '^"resnet50 N=2" ' "$dir/p/step_breakdown.dat" || fail "breakdown plot: no resnet50 bar"
    grep -q '^"bert-large N=2" ' "$dir/p/step_breakdown.dat" || fail "breakdown plot: no bert-large bar"
fi
finish "every workload reported"
