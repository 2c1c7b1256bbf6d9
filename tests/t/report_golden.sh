#!/bin/sh
# nvscale report on committed run.json fixtures gives exactly the committed Markdown (tests/golden/report_*.md).
# After an intended change of the report: NVS_UPDATE_GOLDEN=1 sh tests/t/report_golden.sh, then review the diff.
cd "$(dirname "$0")/../.." || exit 1
NVS=./nvscale
[ -x "$NVS" ] || { echo "nvscale is not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
R=tests/fixtures/runs
fail=0
check() { # NAME ARGS...: report into $tmp/NAME, compare with tests/golden/report_NAME.md
    name=$1
    shift
    if ! "$NVS" report --no-plots -o "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        echo "FAIL $name: exit status $? ($(cat "$tmp/$name.err"))"
        fail=1
        return
    fi
    [ "$(cat "$tmp/$name.out")" = "$tmp/$name/report.md" ] || { echo "FAIL $name: stdout is not the report's path"; fail=1; }
    golden=tests/golden/report_$name.md
    if [ -n "$NVS_UPDATE_GOLDEN" ]; then
        cp "$tmp/$name/report.md" "$golden" && echo "updated $golden"
    elif ! diff -u "$golden" "$tmp/$name/report.md"; then
        echo "FAIL $name: report.md differs from $golden"
        fail=1
    fi
}
check h200x2_nvlink "$R/h200x2_nvlink.json"
check box3090 "$R/box3090_8gpu_shm.json"
check minimal "$R/minimal_coll.json"
check nvlink_vs_shm --title "H200 pair: NVLink vs SHM (NCCL_P2P_DISABLE=1)" "$R/h200x2_nvlink.json" "$R/h200x2_shm.json"
check three_boxes "$R/h200x2_nvlink.json" "$R/h200x2_shm.json" "$R/box3090_8gpu_shm.json"

# the same input twice gives the same bytes (nothing of "now" in the report)
"$NVS" report --no-plots -o "$tmp/again" "$R/box3090_8gpu_shm.json" >/dev/null 2>&1 &&
    cmp -s "$tmp/again/report.md" "$tmp/box3090/report.md" || { echo "FAIL: two reports of one run differ"; fail=1; }

# without -o the report goes beside the first run.json
mkdir -p "$tmp/beside" && cp "$R/minimal_coll.json" "$tmp/beside/run.json"
"$NVS" report --no-plots "$tmp/beside/run.json" >/dev/null 2>&1 && [ -s "$tmp/beside/report.md" ] ||
    { echo "FAIL: no report.md beside the run.json"; fail=1; }
exit $fail
