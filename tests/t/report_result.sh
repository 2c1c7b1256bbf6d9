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
# a run stopped before N=2 and N=3 (its scaling lists them, its rows are N=1's): their Why says nothing was measured
# there, also where the file's own explain text (written before it said so) reads as if they had been
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['scaling'] = [{'n': n, 'ranks': list(range(n))} for n in (1, 2, 3)]
d['collectives'] = [c for c in d['collectives'] if c['n'] == 1] or [dict(d['collectives'][0], n=1)]
d['explain'] = [{'n': n, 'text': 'At %d GPUs (neither the topology nor NCCL transport is in this run).' % n}
                for n in (2, 3)]
d['result'] = {'status': 'interrupted', 'exit_code': 130, 'wrong_total': 0, 'reason': 'stopped'}
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/minimal_coll.json "$dir/stopped.json" ||
    stop "cannot make the stopped run"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/s" "$dir/stopped.json" &&
    grep -qxF -- "- **N=3**: At 3 GPUs nothing was measured: the run did not get to this count or failed at it (see its result)." \
        "$dir/s/report.md" || fail "a count not measured: $(grep -F '**N=3**' "$dir/s/report.md")"
# a run that ended well has no reason to give (tests/golden/report_*.md keep their "ok (exit 0)")
finish
