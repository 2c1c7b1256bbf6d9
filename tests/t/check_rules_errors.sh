#!/bin/sh
# nvscale check: every malformed rules file in tests/fixtures/rules/bad_*.rules exits 2 and names FILE:LINE and
# what is wrong. Each fixture's first line says what must be printed: "# expect: LINE: MESSAGE".
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
run=tests/fixtures/check/run_h200x2.json
tmp=tests/tmp/check_rules_errors.$$
mkdir -p tests/tmp
fail=0 n=0
for f in tests/fixtures/rules/bad_*.rules; do
    n=$((n + 1))
    expect=$(sed -n '1s/^# expect: //p' "$f")
    if [ -n "$expect" ]; then
        want="$f:$expect"
    else
        want="$f: empty: expected the header 'nvscale-rules 1'"
    fi
    "$nvs" check "$run" --rules "$f" >"$tmp.out" 2>"$tmp.err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $f: exit $rc, expected 2"; cat "$tmp.err"; fail=1; continue
    fi
    if ! grep -qF -- "$want" "$tmp.err"; then
        echo "FAIL $f: stderr lacks: $want"; echo "  got: $(cat "$tmp.err")"; fail=1; continue
    fi
    if [ -s "$tmp.out" ]; then
        echo "FAIL $f: printed a verdict table although the rules were rejected"; fail=1
    fi
done
rm -f "$tmp.out" "$tmp.err"
[ "$n" -ge 30 ] || { echo "FAIL: only $n bad rules fixtures found"; fail=1; }
[ "$fail" -eq 0 ] && echo "all $n malformed rules files rejected with their line"
exit $fail
