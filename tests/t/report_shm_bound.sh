#!/bin/sh
# "% of bound" on a hop NCCL did not use: two H200s of 18 NVLinks with NCCL_P2P_DISABLE=1 went through host
# memory (SHM), and the collectives' table gave busbw / the 478 GB/s NVLink bound ('| 1 GiB | ... | 27.37 | 5.7 |')
# as if it were a % of what the path allows, while the plot leaves that bound's line out. A run.json without an
# explain section (the report derives the facts itself) did the same. The table gives no % there and says why.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot edit the JSON"
tmp_dir dir
R=tests/fixtures/runs

python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d.pop('explain')
json.dump(d, open(sys.argv[2], 'w'))" "$R/h200x2_shm.json" "$dir/noexp.json" || stop "the file without explain"
for f in "$R/h200x2_shm.json" "$dir/noexp.json"; do
    rm -rf "$dir/o"
    expect_err 0 "" "$NVS" report --no-plots -o "$dir/o" "$f" || stop "report $f"
    sed -n '/^#### all_reduce, N=2/,/^###/p' "$dir/o/report.md" >"$dir/t"
    grep -q '^| 1 GiB | 39226.60 | 27.37 | 27.37 | — | 0 |$' "$dir/t" || fail "$f: a % of the NVLink bound over SHM"
    grep -q '^% of bound: none here: the ring.s slowest hop is NVLink (NV18, 478 GB/s) but NCCL used SHM' "$dir/t" ||
        fail "$f: the table does not say why it gives no % of bound"
done
# over P2P the NVLink bound is the path's: the % stays
expect_err 0 "" "$NVS" report --no-plots -o "$dir/p" "$R/h200x2_nvlink.json" || stop "report nvlink"
sed -n '/^#### all_reduce, N=2/,/^###/p' "$dir/p/report.md" | grep -q '^| 1 GiB | .* | [0-9.]* | 0 |$' ||
    fail "the P2P run lost its % of bound"
sed -n '/^#### all_reduce, N=2/,/^###/p' "$dir/p/report.md" | grep -q '^% of bound: none' &&
    fail "the P2P run says its hop was not used"
finish
