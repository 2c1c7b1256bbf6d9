#!/bin/sh
# nvscale check --save-baseline: the baseline is written whole (no temporary left), is a run.json again, a run
# checked against its own baseline passes, a worse run against a better baseline fails, a better run against a
# worse baseline passes.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
fx=tests/fixtures/check
dir=tests/tmp/check_baseline.$$
rm -rf "$dir"
mkdir -p "$dir"
fail=0
run() { # run EXIT nvscale-arguments...
    want=$1
    shift
    "$nvs" "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq "$want" ] || { echo "FAIL: nvscale $*: exit $rc, expected $want"; cat "$dir/err" "$dir/out"; fail=1; }
}

run 0 check $fx/run_h200x2.json --save-baseline "$dir/good.json"
grep -q "baseline written to $dir/good.json" "$dir/err" || { echo "FAIL: no 'baseline written' message"; fail=1; }
[ -s "$dir/good.json" ] || { echo "FAIL: no baseline file"; fail=1; }
ls "$dir" | grep -q tmp && { echo "FAIL: a temporary file was left behind"; fail=1; }
grep -q '"source_run": "tests/fixtures/check/run_h200x2.json"' "$dir/good.json" || { echo "FAIL: baseline lacks source_run"; fail=1; }
grep -q '"explain"' "$dir/good.json" && { echo "FAIL: the baseline kept the explain section"; fail=1; }
grep -q '"busbw_gbps"' "$dir/good.json" || { echo "FAIL: the baseline lost the collectives"; fail=1; }

# a baseline is a run.json: it can be checked and saved again
run 0 check "$dir/good.json" --min-p2p 350 --save-baseline "$dir/again.json"

# round trip: the run against its own baseline, 0% allowed, every collective/p2p/efficiency point
cat >"$dir/all0.rules" <<'R'
nvscale-rules 1
busbw * n=* below_baseline<=0%
p2p uni below_baseline<=0%
p2p bidir below_baseline<=0%
efficiency train n=* below_baseline<=0%
R
run 0 check $fx/run_h200x2.json --rules "$dir/all0.rules" --baseline "$dir/good.json"
# 18 = the result row + 2 collectives x 6 sizes at n=2 (n=1 is never compared) + 2 uni + 2 bidir pairs + 1 efficiency
grep -q "result: PASS (18 checks)" "$dir/out" || { echo "FAIL: round trip did not pass 18 checks"; cat "$dir/out"; fail=1; }
run 0 check $fx/run_h200x2.json --max-below-baseline 0 --baseline "$dir/good.json"

# the degraded run against the good baseline: 15% down is caught at 5%, not at 20%
run 0 check $fx/run_slow.json --save-baseline "$dir/slow.json"
run 3 check $fx/run_slow.json --max-below-baseline 5 --baseline "$dir/good.json"
grep -q "busbw all_reduce 1 GiB n=2 vs baseline .* FAIL .*15.0% below it" "$dir/out" || { echo "FAIL: the 15% drop is not named"; cat "$dir/out"; fail=1; }
grep -q "busbw broadcast 1 GiB n=2 vs baseline .* PASS" "$dir/out" || { echo "FAIL: broadcast (unchanged) did not pass"; fail=1; }
run 0 check $fx/run_slow.json --max-below-baseline 20 --baseline "$dir/good.json"
# the good run against the worse baseline passes even at 0%
run 0 check $fx/run_h200x2.json --max-below-baseline 0 --baseline "$dir/slow.json"
# a baseline with sizes this run did not measure: every missing point fails as not measured
run 3 check $fx/run_minimal.json --max-below-baseline 50 --baseline "$dir/good.json"
grep -q "busbw all_reduce 1 GiB n=2 vs baseline .* FAIL .*not measured" "$dir/out" || { echo "FAIL: missing size did not fail"; cat "$dir/out"; fail=1; }

# a baseline cannot be written where it cannot be written: exit 1, nothing left behind
run 1 check $fx/run_h200x2.json --save-baseline "$dir/no/such/dir/b.json"
[ -e "$dir/no" ] && { echo "FAIL: something was created for an unwritable baseline"; fail=1; }

rm -rf "$dir"
[ "$fail" -eq 0 ] && echo "baseline round trip ok"
exit $fail
