#!/bin/sh
# nvscale accept: the JSON's exit_code (stdout and the saved verdicts.json) is the exit code the process returns.
# A --junit that cannot be written is exit 1; the JSON was printed before the exports were written, and said 0.
# Wrong results (NVS_TEST_CORRUPT=0: rank 0 spoils one element before each validation, as for run and coll, which
# accept once ignored) are exit 3 with a FAIL verdict: the table's run result row, its result line, the JSON's
# "result" and exit_code.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot parse the outputs"
has_gpu && skip "a real GPU is here: its health, not this test's, would decide the verdict"
tmp_dir d
export HWLOC_XMLFILE=tests/fixtures/topo/h200x2.xml
mkdir -p "$d/sys_none"
export NVS_TEST_SYSFS_ROOT="$d/sys_none" # no sysfs PCIe width: the host's own devices say nothing here

# the hook's value is checked like any input: one message naming it, exit 2
expect_err 2 "invalid value 'x' for environment variable NVS_TEST_CORRUPT" env NVS_TEST_CORRUPT=x "$NVS" accept \
    --backend mpi --level 1 --no-save
# level 2 is the lowest that sweeps collectives (1 to 16 MiB on the host backend, about 20 s); one run, the table
# on stdout and the JSON verdicts saved with it (verdicts.json, the document --format json prints)
expect_err 3 "" env NVS_TEST_CORRUPT=0 "$NVS" accept --backend mpi --level 2 --out "$d/wrong"
grep -Eq '^run result +wrong +ok +- +FAIL +[0-9]+ wrong elements? in the run$' "$OUT" ||
    fail "accept with wrong results: no FAIL row for the run result: $(grep '^run result' "$OUT")"
grep -Eq '^result: FAIL \(' "$OUT" || fail "accept with wrong results: the result line is not FAIL: $(grep '^result:' "$OUT")"
# one rank: the training step ran at N=1 (wrong results do not stop it), so efficiency is skipped saying why, not
# "no training step" (which it said although run.json had the step)
grep -Eq '^ +skipped: the training step ran at N=1 only: efficiency needs N >= 2' "$OUT" ||
    fail "accept at one rank: the efficiency SKIP does not say the step ran at N=1: $(grep -A1 'efficiency train' "$OUT")"
got=$(json_get "$d/wrong/run.json" "[r['n'] for r in d['train']['results']]")
[ "$got" = "[1]" ] || fail "accept with wrong results: run.json's training results are at n=$got, expected [1]"
got=$(json_get "$d/wrong/verdicts.json" "d['result']")
[ "$got" = FAIL ] || fail "accept with wrong results: verdicts.json says result '$got', expected FAIL"
got=$(json_get "$d/wrong/verdicts.json" "d['exit_code']")
[ "$got" = 3 ] || fail "accept with wrong results: verdicts.json says exit_code $got, the process 3"

# shown as skipped when it cannot run, the checks above still counted
[ -c /dev/full ] || { [ "$fails" -eq 0 ] || finish; skip "no /dev/full to fail a write (wrong results: checked)"; }

# level 1 on the host backend (about a second): every check passes, only the export fails
expect_err 1 "cannot write /dev/full" "$NVS" accept --backend mpi --level 1 -q --format json --out "$d/acc" \
    --junit /dev/full
got=$(json_get "$OUT" "d['exit_code']")
[ "$got" = 1 ] || fail "accept --junit /dev/full: stdout's JSON says exit_code $got, the process 1"
got=$(json_get "$d/acc/verdicts.json" "d['exit_code']")
[ "$got" = 1 ] || fail "accept --junit /dev/full: verdicts.json says exit_code $got, the process 1"
finish "accept: the JSON's exit_code is the process's; wrong results are FAIL, exit 3"
