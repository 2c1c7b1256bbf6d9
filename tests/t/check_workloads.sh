#!/bin/sh
# nvscale check on a run that trained several workloads (run.json "trains": `--model bert-large,resnet50`, the
# default run on GPUs): an efficiency rule holds every workload, not only the first ("train"), and a saved
# baseline keeps every workload so that below_baseline compares each with its own. Before, a run whose resnet50
# kept 88.4 % of linear scaling passed --min-efficiency 90% on bert-large's 97.2 % while the run's own verdict
# named resnet50 (results/h200x2-final3/default-run).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

# the fixture run, made to have trained two workloads: bert-large first (97.2 % at n=2), resnet50 (88.4 %)
python3 -c "import copy, json, sys
d = json.load(open(sys.argv[1]))
bert = copy.deepcopy(d['train']); bert['model'] = 'bert-large'; bert['results'][1]['efficiency'] = 0.972
res = copy.deepcopy(d['train']); res['results'][1]['efficiency'] = 0.884
d['train'] = bert
d['trains'] = [bert, res]
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/check/run_h200x2.json "$dir/two.json" || stop "cannot make the fixture"

expect_err 3 "" "$NVS" check "$dir/two.json" --min-efficiency 90%
grep -q "^efficiency bert-large n=2 .* PASS" "$OUT" || fail "bert-large not judged: $(cat "$OUT")"
grep -q "^efficiency resnet50 n=2  *88.4% .* FAIL" "$OUT" || fail "resnet50 (88.4 %) not judged: $(cat "$OUT")"

# the baseline keeps both workloads, without their bucket lists; the run against it compares each
expect_err 0 "baseline written" "$NVS" check "$dir/two.json" --save-baseline "$dir/base.json"
json_get "$dir/base.json" "[t['model'] for t in d['trains']] == ['bert-large', 'resnet50'] and \
    not any('buckets' in t for t in d['trains'])" | grep -q True || fail "the baseline lost a workload or kept buckets"
expect_err 0 "" "$NVS" check "$dir/two.json" --baseline "$dir/base.json" --rules /dev/stdin <<'R'
nvscale-rules 1
efficiency train n=* below_baseline<=0%
R
grep -q "result: PASS (3 checks)" "$OUT" || fail "the run against its own baseline: $(cat "$OUT")"

# the fleet view compares every workload too: resnet50 of a second host far below the median is named
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['host'] = 'node2'
d['trains'][1]['results'][1]['efficiency'] = 0.70
json.dump(d, open(sys.argv[2], 'w'))" "$dir/two.json" "$dir/node2.json" || stop "cannot make the second host"
expect_err 3 "" "$NVS" check "$dir/two.json" "$dir/node2.json"
grep -q "^fleet efficiency resnet50 n=2 @ node2 .* FAIL" "$OUT" || fail "the fleet left resnet50 out: $(cat "$OUT")"
finish "every workload judged"
