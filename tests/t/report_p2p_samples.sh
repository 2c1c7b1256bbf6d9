#!/bin/sh
# A GPU pair's bandwidth is the median of p2p.samples timed blocks (topo/p2p.h, NVS_P2P_SAMPLES), as nvbandwidth
# reports it: report's pair table says how many, a run.json written before the field (one block) says nothing as
# before, and a count outside 1..64 is bad input naming its key (exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

run='{"schema": "nvscale.run/1", "p2p": {"copy_bytes": 268435456, "iters": 20, SAMPLES"pairs": [{"src": 0,
 "dst": 1, "path": "P2P", "class": "NV18", "uni_gbps": 390.1, "bidir_gbps": 760.2, "latency_us": 2.1,
 "bound_gbps": 478.1, "pct_of_bound": 81.6, "wrong": 0}]}}'
write() { printf '%s\n' "$run" | sed "s/SAMPLES/$2/" >"$dir/$1.json"; }
write three '"samples": 3, '
write old ''
write zero '"samples": 0, '
write many '"samples": 65, '

expect_err 0 "" "$NVS" report --no-plots -o "$dir/three" "$dir/three.json" || fail "report of samples 3"
grep -q '^Copies of 256 MiB; bandwidth: the median of 3 timed blocks\.$' "$dir/three/report.md" ||
    fail "the pair table does not say the median of 3 blocks: $(grep -A2 'Copy-engine' "$dir/three/report.md")"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/old" "$dir/old.json" || fail "report of a run.json without samples"
grep -q '^Copies of 256 MiB\.$' "$dir/old/report.md" ||
    fail "a run.json without samples: $(grep -A2 'Copy-engine' "$dir/old/report.md")"
expect_err 2 "p2p.samples: expected an integer from 1 to 64, got 0" "$NVS" report --no-plots -o "$dir/z" "$dir/zero.json" ||
    fail "samples 0 was not refused"
expect_err 2 "p2p.samples: expected an integer from 1 to 64, got 65" "$NVS" report --no-plots -o "$dir/m" "$dir/many.json" ||
    fail "samples 65 was not refused"
finish
