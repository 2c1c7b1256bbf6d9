#!/bin/sh
# nvscale compare's busbw side-by-side table against the runs it reads: every cell is the busbw of that run's
# out-of-place row at that size in its run.json, and every size of every run has its row. A sweep of 300 sizes
# (-i 1M up to 300M: what -b 1M -e 1G -i 1M gives, 1024 sizes) lost every size past the 256th, the largest
# ones, without a word (a fixed array of 256 sizes).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
tmp_dir tmp
dir=$tmp/many

# two runs as compare's children leave them (the fake nvscale), then given 300 sizes each
"$fx/fake_nvscale" run --out "$dir/nvlink" >/dev/null || stop "fake nvlink run"
NCCL_P2P_DISABLE=1 "$fx/fake_nvscale" run --out "$dir/shm" >/dev/null || stop "fake shm run"
for t in nvlink shm; do
    python3 - "$dir/$t/run.json" "$t" <<'EOF' || stop "cannot make the $t run of 300 sizes"
import json, sys
d = json.load(open(sys.argv[1]))
row, scale = d["collectives"][0], 1.0 if sys.argv[2] == "nvlink" else 0.1
d["collectives"] = [dict(row, bytes=k << 20, count=k << 18, busbw_gbps=round(k * scale, 2),
                         algbw_gbps=round(k * scale, 2)) for k in range(1, 301)]
json.dump(d, open(sys.argv[1], "w"))
EOF
done

table_matches() { # TEXT(stdout of compare) RUN.JSON... in column order: each row against the runs
    python3 - "$@" <<'EOF'
import json, sys
text, runs = open(sys.argv[1]).read().splitlines(), [json.load(open(p)) for p in sys.argv[2:]]
unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
want = [{c["bytes"]: c["busbw_gbps"] for c in r["collectives"] if c["n"] == 2 and not c["inplace"]} for r in runs]
head = text.index("all_reduce, N=2: busbw (GB/s)")
seen = set()
for line in text[head + 2:]:
    w = line.split()
    if not w:
        break
    size = int(float(w[0]) * unit[w[1]])
    seen.add(size)
    for i, cell in enumerate(w[2:2 + len(runs)]):
        exp = "%.2f" % want[i][size] if size in want[i] else "-"
        if cell != exp:
            sys.exit("size %d, run %d: table says %s, its run.json %s" % (size, i + 1, cell, exp))
missing = sorted(set().union(*want) - seen)
if missing:
    sys.exit("%d sizes of the runs have no row in the table, the first %d bytes" % (len(missing), missing[0]))
EOF
}

"$NVS" compare --report-only --transports nvlink,shm --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || { fail "--report-only exit $rc, expected 0"; cat "$dir.log"; }
table_matches "$dir.out" "$dir/nvlink/run.json" "$dir/shm/run.json" || fail "stdout table differs from the runs"
# compare.md's own table (the appendix, nvscale report's, has one of the same look)
sed -n '/^## busbw side by side/,/^# Runs in detail/p' "$dir/compare.md" | grep -q "^| 300 MiB | 300.00 | 30.00 | 0.100 |$" ||
    fail "compare.md's table lacks the 300 MiB row"

# the runs compare starts itself (three sizes each): the table is theirs too
NVS_COMPARE_CHILD=$fx/fake_nvscale FAKE_TOPO=$fx/topo_nv18.json \
    "$NVS" compare --transports nvlink,shm,net --out "$tmp/cmp" >"$tmp/cmp.out" 2>"$tmp/cmp.log"
rc=$?
[ "$rc" -eq 0 ] || { fail "compare exit $rc, expected 0"; cat "$tmp/cmp.log"; }
table_matches "$tmp/cmp.out" "$tmp/cmp/nvlink/run.json" "$tmp/cmp/shm/run.json" "$tmp/cmp/net/run.json" ||
    fail "stdout table differs from the child runs"

finish "compare: the busbw table holds every size of the runs, each cell their run.json's"
