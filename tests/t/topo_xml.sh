#!/bin/sh
# nvscale topo --hwloc-xml on every fixture prints the reviewed golden output (tests/golden/topo_*.txt: the
# per-GPU details, the nvidia-smi-like class matrix, bounds and legend), with no GPU, driver or MPI needed;
# -q prints the matrix alone; nothing is written with --no-save.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir
for f in pcie8 nvlink_pairs nvswitch8 h200x2; do
    expect_err 0 "" "$NVS" topo --hwloc-xml tests/fixtures/topo/$f.xml --no-save || continue
    [ -s "$ERR" ] && { fail "$f: unexpected stderr"; cat "$ERR"; }
    golden "$OUT" tests/golden/topo_$f.txt
done
# -q: the matrix only, the same rows as in the full output
"$NVS" topo --hwloc-xml tests/fixtures/topo/pcie8.xml --no-save -q >"$dir/q.out" 2>&1
[ "$(wc -l <"$dir/q.out")" -eq 9 ] || { fail "-q printed $(wc -l <"$dir/q.out") lines, expected 9"; cat "$dir/q.out"; }
grep -q '^GPU4  SYS   SYS   SYS   SYS    X    PIX   PXB   PXB   8-15          1$' "$dir/q.out" ||
    { fail "-q matrix row GPU4"; cat "$dir/q.out"; }
[ -d results ] && find results -newer "$dir" -name run.json | grep -q . && fail "--no-save wrote a run.json"
finish
