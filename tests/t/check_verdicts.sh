#!/bin/sh
# nvscale check on committed run.json fixtures: exit 0 when every verdict passes, 3 when any fails, and the
# verdict tables equal the golden files in tests/golden/check_*.txt (UPDATE_GOLDEN=1 rewrites them).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
rules=tests/fixtures/rules
tmp_dir tmp

# verdicts NAME EXIT nvscale-arguments...: the exit code, and stdout equal to tests/golden/check_NAME.txt
verdicts() {
    name=$1 want_rc=$2
    shift 2
    expect_err "$want_rc" "" "$NVS" "$@" && golden "$OUT" tests/golden/check_$name.txt
}

verdicts h200x2_pass 0 check $fx/run_h200x2.json --rules $rules/h200x2.rules
verdicts slow_fail 3 check $fx/run_slow.json --rules $rules/h200x2.rules
verdicts not_measured 3 check $fx/run_minimal.json --rules $rules/h200x2.rules
verdicts wrong_results 3 check $fx/run_wrong.json --rules $rules/h200x2.rules
verdicts flags 3 check $fx/run_slow.json --min-busbw all_reduce:1G:2:300 --min-busbw 'broadcast:256M:*:340' \
    --min-p2p 350 --min-efficiency 90%
verdicts baseline_fail 3 check $fx/run_slow.json --rules $rules/baseline.rules --baseline $fx/run_h200x2.json

# the same thresholds as flags pass on the good run
expect_err 0 "" "$NVS" check $fx/run_h200x2.json --min-busbw all_reduce:1G:2:300 --min-p2p 350 --min-efficiency 0.9

# JSON verdicts: one object, the same verdicts, exit code inside
expect_err 3 "" "$NVS" check $fx/run_slow.json --rules $rules/h200x2.rules --format json
cp "$OUT" "$tmp/verdicts.json"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/verdicts.json" <<'PY' || fail "the JSON verdicts (above)"
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
    grep -q '"result": "FAIL"' "$tmp/verdicts.json" || fail "JSON lacks the result"
    echo "note: python3 absent, JSON checked with grep only"
fi

# a rule's size is the sweep's: all_gather rounds it to whole 16-byte blocks per rank (nccl-tests), 1 MiB of float
# is 1048560 B at N=3, and `all_gather:1M:3` read "not measured", a FAIL (so did accept's all_gather 1G rule on
# 3, 5, 6 or 7 GPUs)
if command -v mpirun >/dev/null 2>&1; then
    $MPIRUN -np 3 "$NVS" coll --backend mpi --coll all_gather -b 1M -e 1M -n 2 -w 0 --out "$tmp/ag3" \
        >/dev/null 2>&1 || fail "coll all_gather on 3 ranks"
    grep -q '"bytes": 1048560' "$tmp/ag3/run.json" || fail "all_gather 1 MiB at N=3 is not 1048560 B"
    expect_err 0 "" "$NVS" check "$tmp/ag3/run.json" --min-busbw all_gather:1M:3:0.000001
    grep -q "busbw all_gather 1 MiB n=3 .* PASS" "$OUT" || fail "all_gather 1 MiB at n=3 not judged (above)"
fi

finish "check verdicts match the golden tables"
