#!/bin/sh
# nvscale report on committed run.json fixtures gives exactly the committed Markdown (tests/golden/report_*.md).
# After an intended change of the report: UPDATE_GOLDEN=1 sh tests/t/report_golden.sh, then review the diff.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
R=tests/fixtures/runs
check() { # NAME ARGS...: report into $tmp/NAME, compare with tests/golden/report_NAME.md
    name=$1
    shift
    expect_err 0 "" "$NVS" report --no-plots -o "$tmp/$name" "$@" || return
    [ "$(cat "$OUT")" = "$tmp/$name/report.md" ] || fail "$name: stdout is not the report's path"
    golden "$tmp/$name/report.md" tests/golden/report_$name.md
}
check h200x2_nvlink "$R/h200x2_nvlink.json"
check box3090 "$R/box3090_8gpu_shm.json"
check minimal "$R/minimal_coll.json"
check nvlink_vs_shm --title "H200 pair: NVLink vs SHM (NCCL_P2P_DISABLE=1)" "$R/h200x2_nvlink.json" "$R/h200x2_shm.json"
check three_boxes "$R/h200x2_nvlink.json" "$R/h200x2_shm.json" "$R/box3090_8gpu_shm.json"
# several hosts: one matrix per layout of the GPUs within a host (node-a and node-b alike, node-c's NVLinks down)
check three_hosts "$R/three_hosts.json"
# 64 hosts of 2 GPUs, host 40 the odd one out: two layouts, the 63 alike named 8 at a time, no 128-column matrix
python3 -c "
import copy, json, sys
d = json.load(open(sys.argv[1]))
t = d['topology']
a, c = [g for g in t['gpus'] if g['host'] == 'node-a'], [g for g in t['gpus'] if g['host'] == 'node-c']
pa, pc = t['pairs'][0], t['pairs'][2]
t['hosts'], t['gpus'], t['pairs'] = [], [], []
for h in range(64):
    name = 'n%02d' % h
    t['hosts'].append({'name': name, 'gpus': [2 * h, 2 * h + 1]})
    for k, g in enumerate(c if h == 40 else a):
        g = copy.deepcopy(g)
        g['index'], g['host'] = 2 * h + k, name
        t['gpus'].append(g)
    p = copy.deepcopy(pc if h == 40 else pa)
    p['a'], p['b'] = 2 * h, 2 * h + 1
    t['pairs'].append(p)
json.dump(d, open(sys.argv[2], 'w'))" "$R/three_hosts.json" "$tmp/many.json" || fail "cannot make the 64-host run"
expect_err 0 "" "$NVS" report --no-plots -o "$tmp/many" "$tmp/many.json" &&
    grep -q "^64 hosts, 2 layouts of the GPUs within a host" "$tmp/many/report.md" &&
    grep -q "^#### 63 hosts: n00, n01, n02, n03, n04, n05, n06, n07 and 55 more$" "$tmp/many/report.md" &&
    grep -q "^#### 1 host: n40$" "$tmp/many/report.md" &&
    grep -q "n00: GPU 0, 1; n01: GPU 2, 3; n02: GPU 4, 5; n03: GPU 6, 7; and so on\.$" "$tmp/many/report.md" &&
    ! grep -q "GPU127" "$tmp/many/report.md" ||
    { sed -n '/### Topology/,/### Coll/p' "$tmp/many/report.md" | head -30; fail "64 hosts: not one matrix per layout (above)"; }

# a run with the step's split (train/split.h) gets the "waited" column and says what exposed and waited mean;
# the older runs above keep their table
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
for r, w in zip(d['train']['results'], (0.0, 2500.0)):
    r['rank_wait_us'] = w
json.dump(d, open(sys.argv[2], 'w'))" "$R/h200x2_nvlink.json" "$tmp/wait.json" || fail "cannot make the split fixture"
expect_err 0 "" "$NVS" report --no-plots -o "$tmp/wait" "$tmp/wait.json" &&
    grep -q "exposed % of step | waited (ms) | predicted comm" "$tmp/wait/report.md" &&
    grep -q "^| 2 | 162.10 | 160.30 | 8.30 | 1.80 | 1.1 % | 2.50 | 8.10 |" "$tmp/wait/report.md" &&
    grep -q "waited = time at the all-reduces waiting for a slower rank" "$tmp/wait/report.md" ||
    { grep -A5 "| N | step" "$tmp/wait/report.md"; fail "the report lacks the waited column (above)"; }

# the same input twice gives the same bytes (nothing of "now" in the report)
"$NVS" report --no-plots -o "$tmp/again" "$R/box3090_8gpu_shm.json" >/dev/null 2>&1 &&
    cmp -s "$tmp/again/report.md" "$tmp/box3090/report.md" || fail "two reports of one run differ"

# without -o the report goes beside the first run.json
mkdir -p "$tmp/beside" && cp "$R/minimal_coll.json" "$tmp/beside/run.json"
"$NVS" report --no-plots "$tmp/beside/run.json" >/dev/null 2>&1 && [ -s "$tmp/beside/report.md" ] ||
    fail "no report.md beside the run.json"
finish
