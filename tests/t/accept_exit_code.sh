#!/bin/sh
# nvscale accept: the JSON's exit_code (stdout and the saved verdicts.json) is the exit code the process returns.
# A --junit that cannot be written is exit 1; the JSON was printed before the exports were written, and said 0.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot parse the outputs"
has_gpu && skip "a real GPU is here: its health, not this test's, would decide the verdict"
[ -c /dev/full ] || skip "no /dev/full to fail a write"
tmp_dir d
export HWLOC_XMLFILE=tests/fixtures/topo/h200x2.xml
mkdir -p "$d/sys_none"
export NVS_TEST_SYSFS_ROOT="$d/sys_none" # no sysfs PCIe width: the host's own devices say nothing here

# level 1 on the host backend (about a second): every check passes, only the export fails
expect_err 1 "cannot write /dev/full" "$NVS" accept --backend mpi --level 1 -q --format json --out "$d/acc" \
    --junit /dev/full
got=$(json_get "$OUT" "d['exit_code']")
[ "$got" = 1 ] || fail "accept --junit /dev/full: stdout's JSON says exit_code $got, the process 1"
got=$(json_get "$d/acc/verdicts.json" "d['exit_code']")
[ "$got" = 1 ] || fail "accept --junit /dev/full: verdicts.json says exit_code $got, the process 1"
finish "accept: the JSON's exit_code is the process's"
