#!/bin/sh
# nvscale report shows, beside a row's bandwidths, the time they were computed from (the run's -a, run.json
# sweep.time_basis): a run of -a 2 (fastest rank) showed the slowest rank's time next to an algbw of the fastest
# rank's, so that bytes / time != algbw in the same row, under a heading that said "the slowest rank's". A
# time_basis the reader does not know is refused (exit 2, named).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

basis() { # BASIS OUT: the minimal run (8 B: time min 9.43, avg 9.62, max 9.72 us; 64 B: algbw 0.01) with BASIS
    python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['sweep'] = {'time_basis': sys.argv[2]}
json.dump(d, open(sys.argv[3], 'w'))" tests/fixtures/runs/minimal_coll.json "$1" "$2" || stop "cannot make the fixture"
}
for b in "fastest 9.43" "mean 9.62" "slowest 9.72"; do
    set -- $b
    basis "$1" "$dir/$1.json"
    expect_err 0 "" "$NVS" report --no-plots -o "$dir/$1" "$dir/$1.json" || continue
    grep -q "^| 8 B | $2 | 0.00 |" "$dir/$1/report.md" || fail "$1: the 8 B row does not show $2 us: $(grep '^| 8 B' "$dir/$1/report.md")"
done
grep -q "^Time is the fastest rank's (the run's -a 2);" "$dir/fastest/report.md" || fail "fastest: the heading says otherwise"
grep -q "^Time is the slowest rank's (as nccl-tests);" "$dir/slowest/report.md" || fail "slowest: the heading changed"
# rank 0's time is not in run.json: bytes / algbw (64 B at 0.01 GB/s = 6.40 us)
basis rank0 "$dir/rank0.json"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/rank0" "$dir/rank0.json" &&
    grep -q "^| 64 B | 6.40 | 0.01 |" "$dir/rank0/report.md" || fail "rank0: $(grep '^| 64 B' "$dir/rank0/report.md")"
basis median "$dir/median.json"
expect_err 2 "sweep.time_basis: 'median' is none of rank0, mean, fastest, slowest" "$NVS" report --no-plots \
    -o "$dir/median" "$dir/median.json"
[ -e "$dir/median" ] && fail "a refused run.json left an output directory"
finish "the time shown is the one the bandwidths use"
