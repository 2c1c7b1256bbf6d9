#!/bin/sh
# nvscale report of a run.json without an "explain" section (or without an entry for some N) writes the Why
# paragraph from the facts; that paragraph was cut at 1023 bytes, mid-word, while a host-bound step of several
# workloads with a host running at two speeds says about 1.2 KB. The whole paragraph, ending in its full stop.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d.pop('explain', None)
res = lambda n: {'n': n, 'step_us': 100000.0, 'compute_us': 60000.0, 'comm_us': 30000.0, 'exposed_comm_us': 20000.0,
                 'interference_us': 5000.0, 'contention_us': 5000.0, 'host_rate_p10': 100.0, 'host_rate_p90': 170.0,
                 'rank_wait_us': 4000.0, 'issue_us': 95000.0, 'issue_by_us': {'framework': 50000.0, 'gemm': 20000.0},
                 'predicted_comm_us': 15000.0, 'efficiency': 60.0}
d['trains'] = [{'model': 'bert-large-mlm128', 'results': [dict(res(1), efficiency=100), res(2)]},
               {'model': 'resnet50', 'results': [{'n': 1, 'step_us': 1000.0, 'efficiency': 100},
                                                 {'n': 2, 'step_us': 1000.0, 'efficiency': 99}]}]
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/minimal_coll.json "$dir/long.json" ||
    stop "cannot make the fixture"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/long.json" || fail "report of the fixture"
line=$(grep -F -- "- **N=2**: " "$dir/r/report.md")
[ "${#line}" -gt 1100 ] && case "$line" in *"so repeat the run and compare medians.") true ;; *) false ;; esac ||
    fail "the N=2 paragraph is cut (${#line} bytes): ...$(printf '%s' "$line" | tail -c 80)"
finish
