#!/bin/sh
# nvscale accept stopped by Ctrl-C (SIGINT, no launcher): exit 130, no verdict, what was measured kept (run.json
# "interrupted"); and 130 is in accept's exit codes, both in --help and in docs/accept.md's table (it was missing
# from both while accept exited 130).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir d

"$NVS" accept --help | grep -q "130: interrupted" || fail "accept --help: exit 130 not listed"
grep -q "^| 130 | interrupted" docs/accept.md || fail "docs/accept.md: exit 130 not in the table"

# level 3 on the host backend lasts long enough (a 30 s sustained phase) to be stopped mid-run
as_fg "$NVS" accept --backend mpi --level 3 --sustain 30 --timeout 10 --out "$d/acc" >"$d/out" 2>&1 &
pid=$!
# until something is measured (a sweep's progress line), or 60 s, or the run ended
i=0
while [ $i -lt 600 ] && kill -0 $pid 2>/dev/null && ! grep -qs "sweep N=1" "$d/out"; do sleep 0.1; i=$((i + 1)); done
grep -q "sweep N=1" "$d/out" || { kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; stop "accept never measured: $(tail -n 3 "$d/out")"; }
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || { fail "accept stopped by SIGINT: exit $rc, expected 130"; tail -n 3 "$d/out" | sed 's/^/    /'; }
f=$d/acc/run.json
[ -s "$f" ] || f=$d/acc.partial/run.json
[ "$(json_get "$f" "d['result']['status']")" = interrupted ] || fail "accept stopped by SIGINT: run.json not 'interrupted'"
grep -q "PASS\|FAIL" "$d/out" && fail "accept stopped by SIGINT: a verdict was printed"
finish "accept stopped by SIGINT: exit $rc, run.json interrupted"
