#!/bin/sh
# The side-by-side tables of several runs quoted the busbw of rows whose result check failed and took R2/R1 from
# them (seen: nvscale report of a clean run and of mpirun -np 3 -x NVS_TEST_CORRUPT=1 nvscale coll --backend mpi
# --gpus 2,3, every row of which has a wrong element: '| 64 KiB | 0.68 | 0.12 | 0.177 |'), while the Scaling
# tables say 'failed check' (tests/t/report_failed_rows.sh); and a size one run's sweep left out as too small for
# the ranks (sweep.skipped) read '—', as a value lost. The cells say as the Scaling tables do, with a note.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

# R1: double (8-byte elements): 16 B is too small for 4 ranks of all_gather and skipped; R2: float measures it
cat >"$dir/r1.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 2, "nodes": 1},
 "sweep": {"skipped": [{"collective": "all_gather", "n": 2, "type": "double", "sizes": 1, "of": 3, "from_bytes": 16,
                        "to_bytes": 16, "why": "1 of 3 sizes (16 B to 16 B) left out: too small"}]},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 10.0, "wrong": 0},
  {"collective": "all_reduce", "n": 2, "size": 131072, "bytes": 131072, "busbw_gbps": 12.0, "wrong": 0},
  {"collective": "all_gather", "n": 2, "size": 32, "bytes": 32, "busbw_gbps": 1.0, "wrong": 0}]}
JSON
cat >"$dir/r2.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 2, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 28.0, "wrong": 8},
  {"collective": "all_reduce", "n": 2, "size": 131072, "bytes": 131072, "busbw_gbps": 6.0, "wrong": 0},
  {"collective": "all_gather", "n": 2, "size": 16, "bytes": 16, "busbw_gbps": 0.5, "wrong": 0},
  {"collective": "all_gather", "n": 2, "size": 32, "bytes": 32, "busbw_gbps": 2.0, "wrong": 0}]}
JSON
expect_err 0 "" "$NVS" report --no-plots -o "$dir/o" "$dir/r1.json" "$dir/r2.json" || stop "report"
md=$(sed -n '/^## Side by side/,$p' "$dir/o/report.md")
printf '%s\n' "$md" | grep -q '^| 64 KiB | 10.00 | failed check | — |$' ||
    fail "the side-by-side table quotes a failed row or takes a ratio from it"
printf '%s\n' "$md" | grep -q '2.800' && fail "a ratio of 2.8 from a row with wrong elements"
printf '%s\n' "$md" | grep -q '^| 128 KiB | 12.00 | 6.00 | 0.500 |$' || fail "a clean row lost its ratio"
printf '%s\n' "$md" | grep -q '^failed check: the row.s result check found wrong elements .*no ratio is taken' ||
    fail "no note says what failed check means in the side-by-side table"
printf '%s\n' "$md" | grep -q '^| 16 B | skipped | 0.50 | skipped |$' ||
    fail "a size R1's sweep skipped does not say skipped"
printf '%s\n' "$md" | grep -q '^| 32 B | 1.00 | 2.00 | 2.000 |$' || fail "a clean all_gather row"
printf '%s\n' "$md" | grep -q '^skipped: the sweep left that size out' ||
    fail "no note says what skipped means in the side-by-side table"
finish
