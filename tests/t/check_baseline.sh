#!/bin/sh
# nvscale check --save-baseline: the baseline is written whole (no temporary left), is a run.json again, a run
# checked against its own baseline passes, a worse run against a better baseline fails, a better run against a
# worse baseline passes.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
tmp_dir dir
run() { # run EXIT nvscale-arguments...: the exit code; stdout in $OUT, stderr in $ERR
    want=$1
    shift
    expect_err "$want" "" "$NVS" "$@" || cat "$OUT"
}

run 0 check $fx/run_h200x2.json --save-baseline "$dir/good.json"
grep -q "baseline written to $dir/good.json" "$ERR" || fail "no 'baseline written' message"
[ -s "$dir/good.json" ] || fail "no baseline file"
ls "$dir" | grep -q tmp && fail "a temporary file was left behind"
grep -q '"source_run": "tests/fixtures/check/run_h200x2.json"' "$dir/good.json" || fail "baseline lacks source_run"
grep -q '"explain"' "$dir/good.json" && fail "the baseline kept the explain section"
grep -q '"busbw_gbps"' "$dir/good.json" || fail "the baseline lost the collectives"

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
grep -q "result: PASS (18 checks)" "$OUT" || { fail "round trip did not pass 18 checks"; cat "$OUT"; }
run 0 check $fx/run_h200x2.json --max-below-baseline 0 --baseline "$dir/good.json"

# the degraded run against the good baseline: 15% down is caught at 5%, not at 20%
run 0 check $fx/run_slow.json --save-baseline "$dir/slow.json"
run 3 check $fx/run_slow.json --max-below-baseline 5 --baseline "$dir/good.json"
grep -q "busbw all_reduce 1 GiB n=2 vs baseline .* FAIL .*15.0% below it" "$OUT" || { fail "the 15% drop is not named"; cat "$OUT"; }
grep -q "busbw broadcast 1 GiB n=2 vs baseline .* PASS" "$OUT" || fail "broadcast (unchanged) did not pass"
run 0 check $fx/run_slow.json --max-below-baseline 20 --baseline "$dir/good.json"
# the good run against the worse baseline passes even at 0%
run 0 check $fx/run_h200x2.json --max-below-baseline 0 --baseline "$dir/slow.json"
# a baseline with sizes this run did not measure: every missing point fails as not measured
run 3 check $fx/run_minimal.json --max-below-baseline 50 --baseline "$dir/good.json"
grep -q "busbw all_reduce 1 GiB n=2 vs baseline .* FAIL .*not measured" "$OUT" || { fail "missing size did not fail"; cat "$OUT"; }

# a baseline cannot be written where it cannot be written: a bad output path is a usage error (exit 2, issue
# 14; was 1), nothing left behind
run 2 check $fx/run_h200x2.json --save-baseline "$dir/no/such/dir/b.json"
[ -e "$dir/no" ] && fail "something was created for an unwritable baseline"

# a run whose file name is not UTF-8 (a Latin-1 directory): the baseline names it with the byte made visible, as
# every message does; it said "out of memory building the baseline" and exited 1 (json_pack refuses such text)
odd="$dir/run-$(printf '\377').json"
cp $fx/run_h200x2.json "$odd"
run 0 check "$odd" --save-baseline "$dir/odd_base.json"
grep -q '"source_run": ".*/run-\\\\xff.json"' "$dir/odd_base.json" || { fail "source_run of a non-UTF-8 path"; cat "$dir/odd_base.json" | grep source_run; }

finish "baseline round trip ok"
