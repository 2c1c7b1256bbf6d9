#!/bin/sh
# nvscale topo --format json prints a document that parses, with every pair's class, the per-GPU fields and
# bounds; --out writes the same document as run.json (whole); --format csv has one row per pair.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot parse the JSON"
tmp_dir dir
expect_err 0 "wrote $dir/run/run.json" "$NVS" topo --hwloc-xml tests/fixtures/topo/nvlink_pairs.xml --format json \
    --out "$dir/run"
cmp -s "$OUT" "$dir/run/run.json" || fail "stdout JSON differs from run.json"
ls "$dir/run" | grep -q tmp && fail "a temporary file was left behind"
python3 - "$dir/run/run.json" <<'PY' || fail "run.json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
errors = []
def want(cond, what):
    if not cond: errors.append(what)
want(d["schema"] == "nvscale.run/1", "schema")
want(d["command"]["subcommand"] == "topo", "command.subcommand")
want(d["command"]["argv"][:2] == ["nvscale", "topo"], "command.argv")
t = d["topology"]
want(t["source"] == "hwloc-xml:tests/fixtures/topo/nvlink_pairs.xml", "source")
want([h["name"] for h in t["hosts"]] == ["nvlink-pairs"] and t["hosts"][0]["gpus"] == [0, 1, 2, 3], "hosts")
classes = {(p["a"], p["b"]): p["class"] for p in t["pairs"]}
expect = {(0, 1): "NV4", (0, 2): "SYS", (0, 3): "SYS", (1, 2): "SYS", (1, 3): "SYS", (2, 3): "NV4"}
want(classes == expect, "pair classes %s" % classes)
pcie = {(p["a"], p["b"]): p["pcie_class"] for p in t["pairs"]}
want(pcie[(0, 1)] == "NODE" and pcie[(2, 3)] == "PHB", "pcie classes %s" % pcie)
p01 = [p for p in t["pairs"] if (p["a"], p["b"]) == (0, 1)][0]
want(abs(p01["bound_gbps"] - 100.0) < 1e-9 and p01["bound_link"] == "NVLink", "NV4 bound %s" % p01)
want(abs(p01["shm_bound_gbps"] - 31.507692) < 1e-5, "shm bound %s" % p01)
want(p01["p2p"]["cuda"] is None, "p2p unknown offline is null")
g = t["gpus"][2]
want(g["pci_bus_id"] == "0000:b1:00.0" and g["numa_node"] == 1 and g["cpuset"] == "8-15", "gpu 2 %s" % g)
want(g["cuda_device"] == -1 and g["name"] == "NVIDIA RTX A6000", "gpu 2 name/cuda")
want(g["nvlink"]["links_up"] == 4 and all(l["remote"] == "gpu" and l["remote_gpu"] == 3 for l in g["nvlink"]["links"]),
     "gpu 2 nvlink %s" % g["nvlink"])
want(g["pcie"]["gen"] is None and abs(g["pcie"]["gbps"] - 31.507692) < 1e-5, "pcie unknown gen is null")
if errors:
    print("FAIL: run.json: " + "; ".join(errors))
    sys.exit(1)
PY
"$NVS" topo --hwloc-xml tests/fixtures/topo/nvswitch8.xml --format csv --no-save >"$dir/out.csv" 2>"$dir/err"
[ "$(wc -l <"$dir/out.csv")" -eq 29 ] || fail "csv has $(wc -l <"$dir/out.csv") lines, expected 1 + 28"
grep -q '^0,7,hgx-h100,hgx-h100,NV18,18,SYS,,,478.125,NVLink$' "$dir/out.csv" || { fail "csv row 0,7"; head -3 "$dir/out.csv"; }
# command.argv and env keep an argument or a value that is not UTF-8 (a Latin-1 directory name), its byte made
# visible: both were dropped (jansson refuses such text), and argv read "... --out" with no value
odd="$dir/odd-$(printf '\377')"
NCCL_SOCKET_IFNAME="e$(printf '\377')" "$NVS" topo --hwloc-xml tests/fixtures/topo/nvlink_pairs.xml --out "$odd" \
    >/dev/null 2>&1 || fail "topo --out $odd: exit $?"
python3 - "$odd/run.json" <<'PY' || fail "run.json of a non-UTF-8 --out (above)"
import json, sys
d = json.load(open(sys.argv[1].encode("utf-8", "surrogateescape")))
argv, env = d["command"]["argv"], d["env"]
ok = len(argv) == 6 and argv[4] == "--out" and argv[5].endswith("/odd-\\xff") and env.get("NCCL_SOCKET_IFNAME") == "e\\xff"
if not ok: print("FAIL: argv %r, env %r" % (argv, env))
sys.exit(0 if ok else 1)
PY

# under mpirun the offline file is read once: one document on stdout (was one per rank: not JSON), and a bad
# file is named once
if command -v mpirun >/dev/null 2>&1; then
    $MPIRUN -np 2 "$NVS" topo --hwloc-xml tests/fixtures/topo/nvlink_pairs.xml --format json --no-save \
        >"$dir/mpi.json" 2>"$dir/err" || fail "mpirun topo --hwloc-xml: exit $?"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/mpi.json" 2>/dev/null ||
        fail "mpirun -np 2 topo --hwloc-xml --format json: stdout is not one JSON document"
    $MPIRUN -np 2 "$NVS" topo --hwloc-xml "$dir/missing.xml" --no-save >"$dir/out" 2>"$dir/err" &&
        fail "mpirun topo --hwloc-xml missing.xml: exit 0"
    [ "$(grep -c "cannot read hwloc XML" "$dir/err")" -eq 1 ] || { fail "mpirun: the bad file not named once:"; cat "$dir/err"; }
fi
finish
