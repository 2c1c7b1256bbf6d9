#!/bin/sh
# tools/host_spread.py (results/fidelity/host-spread.md: PyTorch's host time for one step, machine to machine, the
# figures behind the Why's caveat on a host-bound step): from made-up folders of ddp_bench records and nvscale
# run.json files it writes each folder's median host time against the median over the folders, and refuses (exit 2,
# nothing written) a bad --config or fewer than three usable folders. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1
. tests/lib.sh
need_cmd python3 "tools/host_spread.py is Python"
tmp_dir d
mk() { # folder host_ms probe_us units_per_us [config]
    mkdir -p "$d/r/$1/raw/nvs-bf16-1"
    python3 - "$d/r/$1" "$2" "$3" "$4" "${5:-lm290m:bf16:8}" <<'PY'
import json, sys
f, h, p, u, c = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
det = {"host_us": [h * 1e3 * k for k in (0.9, 1.0, 1.1)], "probe_us": [p] * 3}
with open(f + "/raw/pt-1.jsonl", "w") as o:
    o.write(json.dumps({"tool": "ddp_bench", "config": c, "optimizer": "SGD(momentum=0.9)", "step_nodp_1_detail": det}) + "\n")
    o.write(json.dumps({"tool": "ddp_bench", "config": "resnet50:bf16:128", "step_nodp_1_detail": {"host_us": [1.0], "probe_us": [1.0]}}) + "\n")
json.dump({"trains": [{"model": "tools/profiles/%s.prof" % c.split(":")[0], "framework": {"cpu_work_units_per_us": u}}]},
          open(f + "/raw/nvs-bf16-1/run.json", "w"))
PY
}
mk a 20 700 170
mk b 40 1400 150
mk c 80 2800 120
mk other 10 100 100 resnet50:bf16:64 # another configuration only: not a row
HS="python3 tools/host_spread.py --root $d/r"
expect 0 "3 folders to" $HS --out "$d/hs.md"
grep -q "host time 20.0 to 80.0 ms, median 40.0 (0.50x to 2.00x of the median)" "$d/hs.md" || fail "summary: $(sed -n 5p "$d/hs.md")"
grep -q "Python probe 1.00" "$d/hs.md" || fail "the probe's correlation (it follows the host time exactly here)"
grep -q "of the host time / the Python probe 0.00" "$d/hs.md" || fail "the CV after dividing by the probe"
grep -q '| `'"$d"'/r/b` | SGD(momentum=0.9) | 40.0 | 1.00 | 1400 | 150.0 |' "$d/hs.md" || fail "row b: $(grep /b "$d/hs.md")"
grep -q "/other" "$d/hs.md" && fail "a folder without the configuration became a row"
cp "$d/hs.md" "$d/kept.md"
expect 2 "expected MODEL:PRECISION:BATCH" $HS --config lm290m:bf16 --out "$d/hs.md"
expect 2 "1 folders under .* have both sides for resnet50:bf16:64" $HS --config resnet50:bf16:64 --out "$d/hs.md"
cmp -s "$d/hs.md" "$d/kept.md" || fail "a refused run changed the output"
finish
