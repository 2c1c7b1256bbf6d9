#!/bin/sh
# nvscale check on committed run.json fixtures: exit 0 when every verdict passes, 3 when any fails, and the
# verdict tables equal the golden files in tests/golden/check_*.txt (UPDATE_GOLDEN=1 rewrites them).
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
fx=tests/fixtures/check
rules=tests/fixtures/rules
tmp=tests/tmp/check_verdicts.$$
mkdir -p tests/tmp
fail=0

# golden NAME EXIT nvscale-arguments...
golden() {
    name=$1 want_rc=$2
    shift 2
    "$nvs" "$@" >"$tmp.out" 2>"$tmp.err"
    rc=$?
    if [ "$rc" -ne "$want_rc" ]; then
        echo "FAIL $name: nvscale $*: exit $rc, expected $want_rc"; cat "$tmp.err"; fail=1; return
    fi
    g=tests/golden/check_$name.txt
    if [ -n "${UPDATE_GOLDEN:-}" ]; then cp "$tmp.out" "$g"; echo "updated $g"; return; fi
    if ! diff -u "$g" "$tmp.out"; then echo "FAIL $name: output differs from $g"; fail=1; fi
}

golden h200x2_pass 0 check $fx/run_h200x2.json --rules $rules/h200x2.rules
golden slow_fail 3 check $fx/run_slow.json --rules $rules/h200x2.rules
golden not_measured 3 check $fx/run_minimal.json --rules $rules/h200x2.rules
golden wrong_results 3 check $fx/run_wrong.json --rules $rules/h200x2.rules
golden flags 3 check $fx/run_slow.json --min-busbw all_reduce:1G:2:300 --min-busbw 'broadcast:256M:*:340' \
    --min-p2p 350 --min-efficiency 90%
golden baseline_fail 3 check $fx/run_slow.json --rules $rules/baseline.rules --baseline $fx/run_h200x2.json

# the same thresholds as flags pass on the good run
"$nvs" check $fx/run_h200x2.json --min-busbw all_reduce:1G:2:300 --min-p2p 350 --min-efficiency 0.9 >/dev/null
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: flags on the good run: exit $rc, expected 0"; fail=1; }

# JSON verdicts: one object, the same verdicts, exit code inside
"$nvs" check $fx/run_slow.json --rules $rules/h200x2.rules --format json >"$tmp.json" 2>"$tmp.err"
rc=$?
[ "$rc" -eq 3 ] || { echo "FAIL: --format json exit $rc, expected 3"; fail=1; }
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "nvscale.check/1", d["schema"]
assert d["result"] == "FAIL" and d["exit_code"] == 3, (d["result"], d["exit_code"])
v = d["verdicts"]
assert len(v) == d["checks"] == 8, len(v)
assert sum(x["verdict"] == "FAIL" for x in v) == d["failed"] == 3
ar = [x for x in v if x["metric"] == "busbw all_reduce 1 GiB n=2"][0]
assert ar["verdict"] == "FAIL" and ar["unit"] == "GB/s" and ar["expected_value"] == 300.0, ar
assert abs(ar["measured_value"] - 278.03) < 0.01, ar["measured_value"]
assert ar["rule"].endswith("h200x2.rules:5"), ar["rule"]
assert d["slowest_rank"][0]["rank"] == 1 and d["slowest_pair"]["src"] == 1, (d["slowest_rank"], d["slowest_pair"])
PY
else
    grep -q '"result": "FAIL"' "$tmp.json" || { echo "FAIL: JSON lacks the result"; fail=1; }
    echo "note: python3 absent, JSON checked with grep only"
fi

rm -f "$tmp.out" "$tmp.err" "$tmp.json"
[ "$fail" -eq 0 ] && echo "check verdicts match the golden tables"
exit $fail
