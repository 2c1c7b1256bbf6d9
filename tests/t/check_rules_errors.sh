#!/bin/sh
# nvscale check: every malformed rules file in tests/fixtures/rules/bad_*.rules exits 2 and names FILE:LINE and
# what is wrong, with no verdict table. Each fixture's first line says what must be printed: "# expect: LINE:
# MESSAGE".
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
run=tests/fixtures/check/run_h200x2.json
n=0
for f in tests/fixtures/rules/bad_*.rules; do
    n=$((n + 1))
    expect=$(sed -n '1s/^# expect: //p' "$f")
    if [ -n "$expect" ]; then
        want="$f:$expect"
    else
        want="$f: empty: expected the header 'nvscale-rules 1'"
    fi
    expect_err 2 "$want" "$NVS" check "$run" --rules "$f"
done
[ "$n" -ge 30 ] || fail "only $n bad rules fixtures found"
finish "all $n malformed rules files rejected with their line"
