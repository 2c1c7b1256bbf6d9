#!/bin/sh
# A row whose result check found wrong elements is no evidence of a bandwidth (explain uses none, 49d8259), but the
# report's Scaling tables quoted its busbw as any other and took an efficiency from it (seen: mpirun -np 3 -x
# NVS_TEST_CORRUPT=1 nvscale coll --backend mpi --gpus 2,3: 'all_reduce efficiency 282.6 %' at N=3, under a Why
# saying its busbw is not used). The cell says "failed check", with a note, and gives no efficiency.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

cat >"$dir/r.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 3, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 10.0, "wrong": 0},
  {"collective": "all_reduce", "n": 3, "size": 65536, "bytes": 65536, "busbw_gbps": 28.0, "wrong": 8}]}
JSON
expect_err 0 "" "$NVS" report --no-plots -o "$dir/o" "$dir/r.json" || stop "report"
grep -q '^| 64 KiB | 10.00 | failed check |$' "$dir/o/report.md" || fail "the busbw Scaling table quotes a failed row"
grep -q '^| 3 | failed check | — |$' "$dir/o/report.md" || fail "an efficiency was taken from a failed row"
grep -q '280.0 %' "$dir/o/report.md" && fail "280 % efficiency of a row with wrong elements"
grep -q '^failed check: the row.s result check found wrong elements' "$dir/o/report.md" ||
    fail "no note says what failed check means"
grep -q '^| 64 KiB | — | — | 28.00 | — | 8 |$' "$dir/o/report.md" || fail "the collectives' table lost the row"
finish
