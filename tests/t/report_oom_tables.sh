#!/bin/sh
# When the collectives' tables could not get their memory (the list of collectives, or the rows of one table:
# (rows + 1) pointers each), coll_tables returned without a word: the report read as a run that measured no
# collective. Each single failed allocation of that size must leave the tables or a line saying they are left out.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot write the run"
CC=${CC:-cc}
need_cmd "$CC" "no C compiler to build the failing malloc"
[ -n "${ASAN_OPTIONS:-}" ] && skip "a sanitizer build has its own malloc"
ldd "$NVS" 2>/dev/null | grep -q 'libasan\|libtsan' && skip "a sanitizer build has its own malloc"
tmp_dir dir
"$CC" -shared -fPIC -o "$dir/fail_malloc.so" tests/fixtures/fail_malloc.c 2>/dev/null ||
    skip "the failing malloc does not build here (glibc only)"

# 1237 rows: an allocation of (1237 + 1) x 8 bytes is the collectives' list or a table's rows
python3 -c "import json, sys
rows = [{'collective': 'all_reduce', 'n': 2, 'size': 4 * s, 'bytes': 4 * s, 'busbw_gbps': 1.0, 'wrong': 0}
        for s in range(1, 1238)]
json.dump({'schema': 'nvscale.run/1', 'host': 'box', 'world': {'size': 2, 'nodes': 1}, 'collectives': rows},
          open(sys.argv[1], 'w'))" "$dir/r.json" || stop "the run"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/ok" "$dir/r.json" || stop "report"
grep -q '^#### all_reduce, N=2$' "$dir/ok/report.md" || stop "no table without a failed allocation"
for k in 1 2 3 4; do
    rm -rf "$dir/o"
    FAIL_MALLOC_SIZE=9904 FAIL_MALLOC_NTH=$k LD_PRELOAD="$dir/fail_malloc.so" \
        "$NVS" report --no-plots -o "$dir/o" "$dir/r.json" >/dev/null 2>"$dir/err"
    rc=$?
    [ "$rc" -lt 128 ] || { fail "allocation $k failed: killed by a signal (exit $rc)"; continue; }
    [ -f "$dir/o/report.md" ] || continue # the run itself could not be read: said on stderr, no report
    grep -q '^#### all_reduce, N=2$' "$dir/o/report.md" ||
        grep -q "^(out of memory: the collectives' tables are left out)$" "$dir/o/report.md" ||
        fail "allocation $k failed: the collectives' tables are gone without a word"
done
finish
