#!/bin/sh
# On a GPU machine: nvscale p2p --host validates every host copy and stays below the PCIe bound; nvscale accept
# --level 1 reads NVML health for every GPU (no counter silently zero: supported or null), and --level 2 under
# mpirun (or standalone with one GPU) gives one table whose rows are all PASS or WARN with a note, with its
# JSON, JUnit and Prometheus outputs well formed, and a GPU self-test of every rank's GPU (validated, plausible). Needs one GPU (two for the p2p rows and mpirun). --expect-gpus N counts every GPU on the host.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
has_gpu || skip "no GPU on this machine"
need_cmd python3 "cannot parse the JSON"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
tmp_dir dir

"$NVS" p2p --host --copy-bytes 64M --copy-iters 10 --out "$dir/host" >"$dir/host.txt" 2>"$dir/host.err"
rc=$?
[ "$rc" -eq 0 ] || { fail "p2p --host exit $rc"; cat "$dir/host.err"; }
python3 - "$dir/host/run.json" "$ngpu" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
g = d["p2p"]["host_copies"]["gpus"]
errors = []
if d["p2p"]["host_copies"].get("samples") != 3:
    errors.append("samples %s, expected 3 (the median of 3 timed blocks)" % d["p2p"]["host_copies"].get("samples"))
if len(g) != int(sys.argv[2]):
    errors.append("%d GPUs measured of %s" % (len(g), sys.argv[2]))
for x in g:
    s = x["single"]
    if not s or s["wrong"] != 0 or not (s["h2d_gbps"] > 0 and s["d2h_gbps"] > 0 and s["bidir_gbps"] > 0):
        errors.append("GPU%d single: %s" % (x["gpu"], s))
    elif x["bound_gbps"] and max(s["h2d_gbps"], s["d2h_gbps"]) > 1.02 * x["bound_gbps"]:
        errors.append("GPU%d: %.1f GB/s above its PCIe bound %.1f" % (x["gpu"], max(s["h2d_gbps"], s["d2h_gbps"]), x["bound_gbps"]))
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY

grep -q "timed after [0-9]* warm-up, the median of 3 such blocks" "$dir/host.txt" || fail "p2p --host: the table does not say the median of 3 blocks"

"$NVS" accept --level 1 --expect-gpus "$ngpu" --out "$dir/l1" --format json >"$dir/l1.json" 2>"$dir/l1.err"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { fail "accept --level 1 exit $rc"; cat "$dir/l1.err"; }
# every GPU CUDA shows is counted on its host: --expect-gpus N passes with N, fails with N + 1 (naming the count)
gpus_row() { # gpus_row FILE.json VERDICT MEASURED
    python3 -c "import json,sys; r=[v for v in json.load(open(sys.argv[1]))['verdicts'] if v['metric'].startswith('gpus on ')]; \
sys.exit(0 if len(r) == 1 and r[0]['verdict'] == sys.argv[2] and r[0]['measured'] == sys.argv[3] else 1)" "$@"
}
gpus_row "$dir/l1.json" PASS "$ngpu" || fail "accept --level 1 --expect-gpus $ngpu: no PASS row 'gpus on HOST' measuring $ngpu"
"$NVS" accept --level 1 --expect-gpus $((ngpu + 1)) --no-save --format json >"$dir/l1x.json" 2>"$dir/l1x.err"
rc=$?
[ "$rc" -eq 3 ] || fail "accept --level 1 --expect-gpus $((ngpu + 1)) on $ngpu GPUs: exit $rc, expected 3"
gpus_row "$dir/l1x.json" FAIL "$ngpu" || fail "accept --expect-gpus $((ngpu + 1)): no FAIL row 'gpus on HOST' measuring $ngpu"
python3 - "$dir/l1/run.json" "$ngpu" <<'PY' || fails=$((fails + 1))
import json, sys
h = json.load(open(sys.argv[1]))["health"]
errors = []
if not h["source"].startswith("nvml") or len(h["gpus"]) != int(sys.argv[2]):
    errors.append("health: %s, %d GPUs" % (h["source"], len(h["gpus"])))
for g in h["gpus"]:
    b = g["before"]
    if g["status"] != "ok" or b is None or g["after"] is None:
        errors.append("%s: %s" % (g["pci_bus_id"], g["status"]))
        continue
    if b["pcie"]["width"] is None or b["temperature"]["gpu_c"] is None or b["clocks"]["sm_max_mhz"] is None:
        errors.append("%s: basic counters unsupported: %s" % (g["pci_bus_id"], b))
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY

# level 2: the "Done when" command (mpirun with two or more GPUs)
if [ "$ngpu" -ge 2 ] && command -v mpirun >/dev/null 2>&1; then
    launch="$MPIRUN -np $ngpu --bind-to numa -x NCCL_NVLS_ENABLE"
else
    launch=""
fi
start=$(date +%s)
$launch "$NVS" accept --level 2 --out "$dir/l2" --junit "$dir/l2.xml" --prometheus "$dir/l2.prom" >"$dir/l2.txt" 2>"$dir/l2.err"
rc=$?
took=$(($(date +%s) - start))
cat "$dir/l2.txt"
echo "accept --level 2 took $took s, exit $rc"
[ "$rc" -eq 0 ] || { fail "accept --level 2 exit $rc"; tail -20 "$dir/l2.err"; }
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
r = json.load(open(d + "/l2/run.json"))
errors = []
for key in ("health", "p2p", "topology", "train"):
    if key not in r:
        errors.append("run.json lacks %s" % key)
if "host_copies" not in r.get("p2p", {}):
    errors.append("run.json lacks p2p.host_copies")
# the GPU self-test: every rank's GPU measured, validated, and within what a GPU can do (no HBM reaches 20 TB/s,
# no GPU 5 PFLOPS of dense bf16: a timing bug would)
st = r.get("gpu_selftest")
ranks = r["world"]["size"]
if not st or st.get("skipped"):
    errors.append("gpu_selftest: %s" % (st.get("skipped") if st else "absent"))
else:
    if len(st["gpus"]) != ranks:
        errors.append("gpu_selftest: %d GPUs for %s ranks" % (len(st["gpus"]), ranks))
    for g in st["gpus"]:
        print("self-test %s GPU%s (%s): %.1f GB/s, %.1f TFLOPS, wrong %s/%s" % (g["host"], g["gpu"], g["name"],
              g["membw_gbps"] or -1, g["gemm_tflops"] or -1, g["membw_wrong"], g["gemm_wrong"]))
        if g["why"] or g["membw_wrong"] != 0 or g["gemm_wrong"] != 0:
            errors.append("gpu_selftest GPU%s: %s" % (g["gpu"], g))
        elif not (100 < g["membw_gbps"] < 20000 and 1 < g["gemm_tflops"] < 5000):
            errors.append("gpu_selftest GPU%s: implausible %s GB/s, %s TFLOPS" % (g["gpu"], g["membw_gbps"], g["gemm_tflops"]))
t = ET.parse(d + "/l2.xml").getroot()
if t.get("failures") != "0":
    errors.append("junit: %s failures" % t.get("failures"))
for tc in t.iter("testcase"):
    v = [p.get("value") for p in tc.iter("property") if p.get("name") == "verdict"]
    if v == ["WARN"] and tc.find("system-out") is None:
        errors.append("junit: WARN without its reason: %s" % tc.get("name"))
    if v == ["SKIP"] and tc.find("skipped") is None:
        errors.append("junit: SKIP without <skipped>: %s" % tc.get("name"))
if "nvscale_check_status{" not in open(d + "/l2.prom").read():
    errors.append("prometheus: no status samples")
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
# p2p's skip names its cause: with one GPU there is no pair (not a CUDA_VISIBLE_DEVICES per rank)
if [ "$ngpu" -eq 1 ]; then
    grep -q "the run drives 1 GPU on this host: no pair to copy between" "$dir/l2.txt" ||
        fail "accept on one GPU does not say there is no pair: $(grep -m1 'skipped: p2p' "$dir/l2.txt")"
elif grep -q "no pair to copy between" "$dir/l2.txt"; then
    fail "accept on $ngpu GPUs says there is no pair"
fi
[ "$took" -le 180 ] || fail "accept --level 2 took $took s (the target is under 2 minutes on 8 GPUs)"
finish
