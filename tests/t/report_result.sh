#!/bin/sh
# nvscale report of a run that did not end well says why, as run.json's result.reason does: a checkpoint left by a
# kill -9 read "result | running" (as if it were still measuring) and an interrupted run "interrupted (exit 130)",
# with nothing saying that its tables hold only what was measured before the signal.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['result'] = {'status': 'running', 'wrong_total': 0,
               'reason': 'a checkpoint: the run had not ended when this was written'}
json.dump(d, open(sys.argv[2], 'w'))
d['result'] = {'status': 'interrupted', 'exit_code': 130, 'wrong_total': 0,
               'reason': 'interrupted by signal 2 (SIGINT, Ctrl-C): the rows | steps measured before it are kept'}
json.dump(d, open(sys.argv[3], 'w'))" tests/fixtures/runs/minimal_coll.json "$dir/running.json" "$dir/int.json" ||
    stop "cannot make the fixtures"

expect_err 0 "" "$NVS" report --no-plots -o "$dir/r" "$dir/running.json" &&
    grep -qxF "| result | running: a checkpoint: the run had not ended when this was written |" "$dir/r/report.md" ||
    fail "a checkpoint's result row: $(grep '^| result' "$dir/r/report.md")"
# the reason is text of the file: a '|' in it does not end the cell
expect_err 0 "" "$NVS" report --no-plots -o "$dir/i" "$dir/int.json" &&
    grep -qxF "| result | interrupted (exit 130): interrupted by signal 2 (SIGINT, Ctrl-C): the rows \\| steps measured before it are kept |" \
        "$dir/i/report.md" || fail "an interrupted run's result row: $(grep '^| result' "$dir/i/report.md")"
# a run that ended well has no reason to give (tests/golden/report_*.md keep their "ok (exit 0)")
finish
