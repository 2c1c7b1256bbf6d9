#!/bin/sh
# tools/vs_nccl_tests.py, the side-by-side of nvscale's collectives and nccl-tests': it regenerates the committed
# comparisons of results/h200x2-2026-11-30 (all but the title and the command line), compares algbw at one GPU
# (where busbw is undefined: nvscale null, nccl-tests 0) on a table made here, and refuses bad arguments (exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "the comparison is Python"
tmp_dir tmp
res=results/h200x2-2026-11-30
for d in coll coll2 coll3; do
    python3 tools/vs_nccl_tests.py $res/nccl-tests-reference $res/$d >"$tmp/$d.md" 2>&1 ||
        fail "vs_nccl_tests.py on $res/$d exited $?"
    tail -n +4 $res/$d/VS-NCCL-TESTS.md >"$tmp/$d.ref"
    tail -n +4 "$tmp/$d.md" | cmp -s - "$tmp/$d.ref" || fail "$res/$d/VS-NCCL-TESTS.md is not what the tool makes now"
done

# one GPU: a run.json with n=1 rows beside an nccl-tests table of the same sizes (nccl-tests' 13 columns: size
# count type redop root, then time algbw busbw #wrong out of place and in place)
mkdir -p "$tmp/ref" "$tmp/res/coll-threads"
cat >"$tmp/ref/allreduce.txt" <<'T'
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
          64            16     float     sum      -1    10.00    0.01    0.00      0    10.00    0.01    0.00      0
     1048576        262144     float     sum      -1    10.00  104.86    0.00      0    10.00  104.86    0.00      0
     2097152        524288     float     sum      -1    20.00  104.86    0.00      0    20.00  104.86    0.00      0
T
python3 - "$tmp/res/coll-threads/run.json" <<'PY'
import json, sys
rows = []
for size, algbw in ((64, 64 / 5.0 / 1e3), (1048576, 110.10), (2097152, 94.37)):
    for inplace in (False, True):
        rows.append({"collective": "all_reduce", "n": 1, "type": "float", "inplace": inplace, "bytes": size,
                     "time_us": {"max": size / algbw / 1e3}, "algbw_gbps": algbw, "busbw_gbps": None, "wrong": 0})
json.dump({"collectives": rows}, open(sys.argv[1], "w"))
PY
python3 tools/vs_nccl_tests.py --n 1 "$tmp/ref" "$tmp/res" >"$tmp/n1.md" 2>&1 || fail "vs_nccl_tests.py --n 1 exited $?"
grep -q "algbw is compared" "$tmp/n1.md" || fail "--n 1 does not say it compares algbw"
grep -q "| 1048576 | 104.86 | 110.10 | +5.0 % | 104.86 | 110.10 | +5.0 % |" "$tmp/n1.md" ||
    fail "--n 1: the 1 MiB row is not +5.0 %"
# below 1 GB/s nccl-tests' two decimals hold under 3 digits (0.01): the delta comes from the times, 10 us against 5
grep -q "| 64 | 0.01 | 0.01 | +100.0 % | 0.01 | 0.01 | +100.0 % |" "$tmp/n1.md" ||
    fail "--n 1: the 64 B row is not +100.0 % (from the times)"
grep -q "Largest algbw difference at sizes >= 1 MiB: -10.0 % (at 2097152 B), tolerance +-2 %: OUTSIDE" "$tmp/n1.md" ||
    fail "--n 1: the largest difference is not -10.0 % at 2 MiB, outside"
# the same files at n=2 hold no row to compare: nothing is said to pass, and it exits 1
python3 tools/vs_nccl_tests.py "$tmp/ref" "$tmp/res" >"$tmp/n2.md" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--n 2 with nothing to compare exited $rc, expected 1"
grep -q "| 1048576 |" "$tmp/n2.md" && fail "--n 2 compared n=1 rows"
grep -q "within" "$tmp/n2.md" && fail "--n 2 says within with nothing compared"
grep -q "nothing compared" "$tmp/n2.md" || fail "--n 2 does not say nothing was compared"

expect 2 "--n 'x': expected a world size of 1 or more" python3 tools/vs_nccl_tests.py --n x "$tmp/ref" "$tmp/res"
expect 2 "--n '0': expected" python3 tools/vs_nccl_tests.py --n 0 "$tmp/ref" "$tmp/res"
expect 2 "usage: tools/vs_nccl_tests.py" python3 tools/vs_nccl_tests.py "$tmp/ref"
finish
