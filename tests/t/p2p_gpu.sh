#!/bin/sh
# On a GPU machine: nvscale p2p measures every ordered pair, every copy validated (no wrong element), numbers in
# JSON with the bound and % of bound, uni below its bound, P2P where CUDA allows it. Needs two GPUs.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
if ! { command -v nvidia-smi >/dev/null 2>&1 && [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ]; }; then
    echo "fewer than two GPUs on this machine"
    exit 77
fi
command -v python3 >/dev/null || { echo "python3 not installed: cannot parse the JSON"; exit 77; }
dir=tests/tmp/p2p_gpu.$$
rm -rf "$dir"
mkdir -p "$dir"
fail=0
"$nvs" p2p --copy-bytes 64M --copy-iters 10 --out "$dir/run" >"$dir/out.txt" 2>"$dir/err"
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: nvscale p2p exit $rc"; cat "$dir/err"; fail=1; }
grep -q "Unidirectional copy bandwidth" "$dir/out.txt" || { echo "FAIL: no matrix printed"; fail=1; }
python3 - "$dir/run/run.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
t, p = d["topology"], d["p2p"]
n = len(t["gpus"])
errors = []
if len(p["pairs"]) != n * (n - 1):
    errors.append("%d pairs for %d GPUs" % (len(p["pairs"]), n))
canp2p = {(q["a"], q["b"]): q["p2p"]["cuda"] for q in t["pairs"]}
for q in p["pairs"]:
    name = "%d->%d" % (q["src"], q["dst"])
    if q["wrong"] != 0:
        errors.append("%s: %s wrong elements" % (name, q["wrong"]))
    if not (q["uni_gbps"] and q["uni_gbps"] > 0 and q["bidir_gbps"] > 0 and q["latency_us"] > 0):
        errors.append("%s: missing numbers %s" % (name, q))
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
rm -rf "$dir"
exit $fail
