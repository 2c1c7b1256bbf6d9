#!/bin/sh
# On a GPU machine: nvscale p2p measures every ordered pair, every copy validated (no wrong element), numbers in
# JSON with the bound and % of bound, each the median of 3 timed blocks (samples 3, and the table says so), bidir
# the sum of its two halves, uni below its bound, P2P where CUDA allows it.
# Needs two GPUs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
[ "$(gpu_count)" -ge 2 ] || skip "fewer than two GPUs on this machine"
need_cmd python3 "cannot parse the JSON"
tmp_dir dir
expect_err 0 "" "$NVS" p2p --copy-bytes 64M --copy-iters 10 --out "$dir/run"
grep -q "Unidirectional copy bandwidth" "$OUT" || fail "no matrix printed"
grep -q "timed after [0-9]* warm-up, the median of 3 such blocks" "$OUT" || fail "the table does not say the median of 3 blocks"
python3 - "$dir/run/run.json" <<'PY' || fail "run.json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
t, p = d["topology"], d["p2p"]
n = len(t["gpus"])
errors = []
# every bandwidth is the median of 3 timed blocks, as nvbandwidth's (topo/p2p.h, NVS_P2P_SAMPLES)
if p.get("samples") != 3:
    errors.append("samples %s, expected 3 (the median of 3 timed blocks)" % p.get("samples"))
if len(p["pairs"]) != n * (n - 1):
    errors.append("%d pairs for %d GPUs" % (len(p["pairs"]), n))
canp2p = {(q["a"], q["b"]): q["p2p"]["cuda"] for q in t["pairs"]}
for q in p["pairs"]:
    name = "%d->%d" % (q["src"], q["dst"])
    if q["wrong"] != 0:
        errors.append("%s: %s wrong elements" % (name, q["wrong"]))
    if not (q["uni_gbps"] and q["uni_gbps"] > 0 and q["bidir_gbps"] > 0 and q["latency_us"] > 0):
        errors.append("%s: missing numbers %s" % (name, q))
    # bidir is its two halves summed, each direction timed to its own end (topo/p2p.c, time_bidir)
    fwd, rev = q.get("bidir_fwd_gbps"), q.get("bidir_rev_gbps")
    if not (fwd and fwd > 0 and rev and rev > 0):
        errors.append("%s: bidir's halves missing: bidir_fwd_gbps %s, bidir_rev_gbps %s" % (name, fwd, rev))
    elif q["bidir_gbps"] and abs(q["bidir_gbps"] - (fwd + rev)) > 1e-6 * q["bidir_gbps"]:
        errors.append("%s: bidir_gbps %s is not bidir_fwd_gbps + bidir_rev_gbps (%s + %s)" % (name, q["bidir_gbps"], fwd, rev))
    if q["bound_gbps"] is not None and q["uni_gbps"] > 1.02 * q["bound_gbps"]:
        errors.append("%s: %.1f GB/s above its bound %.1f (%s)" % (name, q["uni_gbps"], q["bound_gbps"], q["bound_source"]))
    key = (min(q["src"], q["dst"]), max(q["src"], q["dst"]))
    if canp2p.get(key) is True and q["path"] != "P2P":
        errors.append("%s: CUDA allows P2P but the path is %s" % (name, q["path"]))
if d["result"]["wrong_total"] != 0:
    errors.append("wrong_total %s" % d["result"]["wrong_total"])
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
finish
