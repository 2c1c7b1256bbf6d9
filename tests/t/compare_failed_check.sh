#!/bin/sh
# nvscale compare's busbw table and a row whose result check found wrong elements: the report's tables say
# 'failed check' and take no ratio from it (nvs_report_failed_check), but compare's own table showed its busbw as
# the transport's (seen: shm's 1 GiB row with wrong: 5 read '27.37' and 'shm/nvlink 0.083', on stdout and in
# compare.md, above an appendix saying 'failed check' for the same cell).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
tmp_dir tmp
dir=$tmp/d

"$fx/fake_nvscale" run --out "$dir/nvlink" >/dev/null || stop "fake nvlink run"
NCCL_P2P_DISABLE=1 "$fx/fake_nvscale" run --out "$dir/shm" >/dev/null || stop "fake shm run"
python3 - "$dir/shm/run.json" <<'EOF' || stop "cannot give the shm run a wrong row"
import json, sys
d = json.load(open(sys.argv[1]))
d["collectives"][2]["wrong"] = 5  # the 1 GiB row
d["result"] = {"status": "failed", "exit_code": 1, "wrong_total": 5, "reason": "result check failed"}
json.dump(d, open(sys.argv[1], "w"))
EOF

"$NVS" compare --report-only --transports nvlink,shm --out "$dir" >"$tmp/out" 2>"$tmp/log"
rc=$?
[ "$rc" -eq 1 ] || { fail "exit $rc, expected 1 (a run whose result check failed)"; cat "$tmp/log"; }
line=$(grep '^ *1 GiB ' "$tmp/out")
case "$line" in
*27.37*|*0.083*) fail "stdout takes the failed row's busbw as a number: '$line'" ;;
*"   329.65    failed  "*) ;; # the terminal's 9-wide columns: "failed", aligned with the numbers
*) fail "stdout's 1 GiB row does not say 'failed' in its column: '$line'" ;;
esac
table=$(sed -n '/^## busbw side by side/,/^# Runs in detail/p' "$dir/compare.md")
echo "$table" | grep -q '^| 1 GiB | 329.65 | failed check | - |$' ||
    fail "compare.md's side-by-side 1 GiB row is not '329.65 | failed check | -'"
echo "$table" | grep -q '^failed check: ' || fail "compare.md's table has no note saying what 'failed check' is"
grep -q '^failed: the row' "$tmp/out" || fail "stdout's table has no note saying what 'failed' is"
# the sizes that were right keep their numbers and ratios
grep -q '^ *16 MiB  *215.09  *26.50  *0.123$' "$tmp/out" || fail "the 16 MiB row lost its numbers"

# the failed row as the reference (first) transport: no ratio against it either
"$NVS" compare --report-only --transports shm,nvlink --out "$dir" >"$tmp/out2" 2>/dev/null
grep '^ *1 GiB ' "$tmp/out2" | grep -q '  failed    329.65  *-$' ||
    fail "with shm first, the 1 GiB ratio is taken from the failed row: $(grep '^ *1 GiB ' "$tmp/out2")"

finish "compare: a row whose result check failed is 'failed check' in the busbw table, no number or ratio"
