#!/bin/sh
# The busbw plot's data: (1) two runs whose names are the same and carry no transport are told apart by "(R#)" once
# (seen: '# N=2 ?, vm (R1) (R1)', the name's mark and the plot's own); (2) a busbw of 0 (a file's rounded value)
# cannot be drawn on the log-scale axis: a series of only such points made gnuplot stop ('all points y value
# undefined') and report exit 1; it is no point, and a few-byte size's ~1e-4 GB/s keeps its digits (%.4f gave 0.0001).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir
stand_in_gnuplot "$dir/bin"
cat >"$dir/a.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "vm", "backend": "mpi", "world": {"size": 2, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 8, "bytes": 8, "busbw_gbps": 0.000123, "wrong": 0},
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 1.5, "wrong": 0},
  {"collective": "broadcast", "n": 2, "size": 8, "bytes": 8, "busbw_gbps": 0.0, "wrong": 0}]}
JSON
cp "$dir/a.json" "$dir/b.json"
PATH="$(cd "$dir/bin" && pwd):$PATH" expect_err 0 "" "$NVS" report -o "$dir/p" "$dir/a.json" "$dir/b.json" ||
    stop "report with plots"
grep -q '(R1) (R1)' "$dir/p/busbw_all_reduce.dat" && fail "a series title says (R1) twice"
grep -q '^# N=2 .*(R2)$' "$dir/p/busbw_all_reduce.dat" || fail "the second run's series is not marked (R2)"
grep -q '^8 0.000123$' "$dir/p/busbw_all_reduce.dat" || fail "a few-byte size's busbw lost its digits"
[ -e "$dir/p/busbw_broadcast.dat" ] && grep -q '^8 0' "$dir/p/busbw_broadcast.dat" &&
    fail "a busbw of 0 is a point of the log-scale plot"
finish
