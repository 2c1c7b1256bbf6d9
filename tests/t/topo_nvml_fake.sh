#!/bin/sh
# The live discovery path without a GPU: a stand-in libnvidia-ml.so.1 (tests/fixtures/topo/fake_nvml.c, built
# here) answers like the 2xH200 reference machine's driver, and HWLOC_XMLFILE makes hwloc see that machine.
#   - the class matrix equals `nvidia-smi topo -m` of the reference machine (NV18), the bound is 18 x 26.5625
#   - a driver reporting NVLink "5.0" on Hopper: the per-link rate follows the driver's link speed
#   - a GeForce-like driver: no NVLink, PHB, the x8 link flagged, NVML's P2P "chipset not supported"
#   - nvmlInit failing, the library absent, a symbol absent: "unsupported", exit 0, never a crash
#   - one link's state unreadable: the links read are counted, and a warning says the count may be low
#   - a gen5 GPU in a gen4 slot, a x16 GPU in a x8 slot (sysfs max_link_width 16): the GPU's own maximum is shown
#     beside the link's, SLOT-LIMITED said, and written as pcie.gpu_max_gen/gpu_max_width/slot_limited
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot parse the JSON"
has_gpu && skip "a real GPU and driver are here: CUDA would answer instead of the stand-in"
CC=${CC:-cc}
need_cmd "$CC" "no C compiler to build the stand-in NVML"
tmp_dir dir
mkdir -p "$dir/lib" "$dir/lib_noremote" "$dir/empty" "$dir/sys_none" "$dir/sys/bus/pci/devices/0000:00:07.0"
# the GPU's own width is read from sysfs (max_link_width): none here unless a case makes one, whatever the host has
export NVS_TEST_SYSFS_ROOT="$dir/sys_none"
"$CC" -shared -fPIC -o "$dir/lib/libnvidia-ml.so.1" tests/fixtures/topo/fake_nvml.c || stop "cannot build the stand-in NVML"
"$CC" -shared -fPIC -DFAKE_NO_REMOTE_TYPE -o "$dir/lib_noremote/libnvidia-ml.so.1" tests/fixtures/topo/fake_nvml.c ||
    stop "cannot build the stand-in NVML without nvmlDeviceGetNvLinkRemoteDeviceType"
export HWLOC_XMLFILE=tests/fixtures/topo/h200x2.xml
live() { # live LIBDIR MODE OUT nvscale-topo-arguments...
    lib=$1 mode=$2 out=$3
    shift 3
    LD_LIBRARY_PATH="$lib" FAKE_NVML_MODE="$mode" "$NVS" topo --no-save "$@" >"$dir/$out" 2>"$dir/$out.err"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "$mode ($lib): exit $rc"; cat "$dir/$out.err"; }
}

# the matrix against nvidia-smi's on the reference machine
live "$dir/lib" h200 matrix.txt -q
python3 - tests/fixtures/topo/nvidia-smi-topo-h200x2.txt "$dir/matrix.txt" <<'PY' || fail "the class matrix (above)"
import re, sys
def rows(path):
    out = {}
    for line in open(path):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).strip()
        f = line.split()
        if f and re.fullmatch(r"GPU\d+", f[0]):
            n = sum(1 for x in f[1:] if x == "X" or re.fullmatch(r"NV\d+|PIX|PXB|PHB|NODE|SYS|NET", x))
            out[f[0]] = f[1:1 + n]
    return out
smi, ours = rows(sys.argv[1]), rows(sys.argv[2])
# the GPU columns: nvidia-smi lists RDMA NICs only, nvscale also the VM's Ethernet port (eth0, a NIC column,
# checked below)
ours = {g: c[:len(smi.get(g, []))] for g, c in ours.items()}
if not smi or smi != ours:
    print("FAIL: classes differ from nvidia-smi topo -m: nvidia-smi %s, nvscale %s" % (smi, ours))
    sys.exit(1)
PY

live "$dir/lib" h200 h200.json --format json
live "$dir/lib" hopper7 hopper7.json --format json
live "$dir/lib" geforce geforce.json --format json
live "$dir/lib" noinit noinit.json --format json
live "$dir/lib_noremote" h200 noremote.json --format json
live "$dir/empty" h200 nolib.json --format json
live "$dir/lib" geforce geforce.txt
# live with neither NVML nor CUDA: the PCIe generation is unknown because NVML is missing, not "offline" (which
# stood under "Topology: live")
live "$dir/empty" h200 nolib.txt
grep -q "PCIe: generation/width unknown (no NVML); bound 63.02" "$dir/nolib.txt" && ! grep -q "unknown offline" "$dir/nolib.txt" ||
    fail "live without NVML: $(grep 'PCIe:' "$dir/nolib.txt" | head -1)"
# one link's state unreadable: 17 links counted, and said on stderr (not a silent NV17)
live "$dir/lib" linkerr linkerr.json --format json
grep -q "nvmlDeviceGetNvLinkState failed on 1 link (.*): 17 NVLinks counted" "$dir/linkerr.json.err" ||
    { fail "an unreadable link's state is not said"; cat "$dir/linkerr.json.err"; }
grep -q "DOWNTRAINED: x8 of x16 lanes" "$dir/geforce.txt" || fail "the x8 link is not flagged"
# the slot limits the link: GPU 0 a gen5 GPU in a gen4 slot (nvmlDeviceGetGpuMaxPcieLinkGeneration 5), GPU 1 a
# x16 GPU (sysfs max_link_width 16) in a x8 slot. NVML's maximum is the GPU and slot together, so the link is at
# its maximum and nothing said it until 6 December 2026
echo 16 >"$dir/sys/bus/pci/devices/0000:00:07.0/max_link_width"
FAKE_NVML_FAULT=slotgen4:0,slot8:1 NVS_TEST_SYSFS_ROOT="$dir/sys" live "$dir/lib" h200 slot.txt
FAKE_NVML_FAULT=slotgen4:0,slot8:1 NVS_TEST_SYSFS_ROOT="$dir/sys" live "$dir/lib" h200 slot.json --format json
grep -q "PCIe: gen4 x16 now, max gen4 x16, the GPU's own gen5 x16;" "$dir/slot.txt" &&
    grep -q "SLOT-LIMITED: the link's maximum (GPU and slot together) is gen4, the GPU is gen5: host transfers capped at gen4" "$dir/slot.txt" ||
    { fail "a gen5 GPU in a gen4 slot is not shown"; grep -A2 "PCIe:" "$dir/slot.txt"; }
grep -q "PCIe: gen5 x8 now, max gen5 x8, the GPU's own gen5 x16;" "$dir/slot.txt" &&
    grep -q "SLOT-LIMITED: .* is x8, the GPU is x16 (width: its Link Capabilities: sysfs max_link_width)" "$dir/slot.txt" ||
    { fail "a x16 GPU in a x8 slot is not shown"; grep -A2 "PCIe:" "$dir/slot.txt"; }
! grep -q "SLOT-LIMITED\|the GPU's own" "$dir/geforce.txt" || fail "a link at the GPU's own maximum called slot-limited"
python3 - "$dir" <<'PY' || fail "the discovered topologies (above)"
import json, sys
d = sys.argv[1]
errors = []
def want(cond, what):
    if not cond: errors.append(what)
def load(name):
    return json.load(open("%s/%s" % (d, name)))["topology"]

t = load("h200.json")
g = t["gpus"][0]
want(t["source"] == "live" and t["nvml"] == "ok, driver 580.159.04", "h200: status %s / %s" % (t["source"], t["nvml"]))
want(g["name"] == "NVIDIA H200" and g["pci_bus_id"] == "0000:00:06.0", "h200: gpu %s" % g["name"])
want(g["pcie"]["gen"] == 5 and g["pcie"]["width"] == 16 and g["pcie"]["downtrained"] is False, "h200: pcie %s" % g["pcie"])
# no sysfs width here: the H200's datasheet width (x16) says the x16 link is not slot-limited
want(g["pcie"]["gpu_max_gen"] == 5 and g["pcie"]["gpu_max_width"] is None and g["pcie"]["slot_limited"] is False,
     "h200: own maximum %s" % g["pcie"])
s = load("slot.json")["gpus"]
want([(x["pcie"]["gpu_max_gen"], x["pcie"]["gpu_max_width"], x["pcie"]["slot_limited"]) for x in s] == [(5, None, True), (5, 16, True)],
     "slot-limited: %s" % [x["pcie"] for x in s])
n = g["nvlink"]
want(n["links_up"] == 18 and n["version"] == 4 and n["gbps_per_link"] == 26.5625 and n["to_nvswitch"] == 0,
     "h200: nvlink %s" % {k: n[k] for k in n if k != "links"})
want([l["link"] for l in n["links"]] == list(range(18)), "h200: link numbers")
want(all(l["remote"] == "gpu" and l["remote_gpu"] == 1 and l["remote_pci_bus_id"] == "0000:00:07.0" for l in n["links"]),
     "h200: links reach GPU1")
p = t["pairs"][0]
want(p["class"] == "NV18" and p["pcie_class"] == "PHB", "h200: pair classes %s/%s" % (p["class"], p["pcie_class"]))
want(abs(p["bound_gbps"] - 478.125) < 1e-9 and p["bound_link"] == "NVLink", "h200: bound %s" % p["bound_gbps"])
want(p["p2p"]["nvml_read"] == "OK" and p["p2p"]["cuda"] is None, "h200: p2p %s" % p["p2p"])
# the host's NICs come with the live topology too (they were left behind until 3 December 2026): the VM's virtio
# Ethernet port on the GPUs' host bridge, and each GPU's NET line names it
nics = t["nics"]
want([x["name"] for x in nics] == ["eth0"] and nics[0]["kind"] == "Ethernet", "h200: nics %s" % [x["name"] for x in nics])
want(nics and nics[0]["gpu_classes"] == ["PHB", "PHB"] and nics[0]["nic_classes"] == ["X"],
     "h200: NIC classes %s" % [(x["gpu_classes"], x["nic_classes"]) for x in nics])
want(g["net"]["class"] == "PHB" and g["net"]["nearest"] == "eth0", "h200: GPU0's NET %s" % g["net"])

n = load("hopper7.json")["gpus"][1]["nvlink"]
want(abs(n["gbps_per_link"] - 26.562) < 1e-9 and "NVML" in n["source"], "hopper7: rate %s from %s" % (n["gbps_per_link"], n["source"]))

t = load("geforce.json")
g = t["gpus"][0]
want(g["nvlink"] is not None and g["nvlink"]["links_up"] == 0, "geforce: nvlink %s" % g["nvlink"])
want(g["pcie"]["width"] == 8 and g["pcie"]["downtrained"] is True and g["pcie"]["width_below_max"] is True
     and g["pcie"]["gen_below_max"] is False, "geforce: pcie %s" % g["pcie"])
# a model nvscale has no datasheet width for, and no sysfs width: whether the slot limits it is not known
want(g["pcie"]["gpu_max_gen"] == 4 and g["pcie"]["slot_limited"] is None, "geforce: own maximum %s" % g["pcie"])
want(abs(g["pcie"]["gbps"] - 15.753846) < 1e-5, "geforce: x8 gen4 bound %s" % g["pcie"]["gbps"])
p = t["pairs"][0]
want(p["class"] == "PHB" and p["p2p"]["nvml_read"] == "CNS", "geforce: pair %s %s" % (p["class"], p["p2p"]))

for name, why in (("noinit.json", "nvmlInit_v2 failed: Driver Not Loaded"), ("nolib.json", "libnvidia-ml.so.1 not loaded")):
    t = load(name)
    want(t["nvml"].startswith("unsupported") and why in t["nvml"], "%s: nvml status %s" % (name, t["nvml"]))
    g = t["gpus"][0]
    want(g["nvlink"] is None and why in g["nvlink_status"], "%s: nvlink %s / %s" % (name, g["nvlink"], g.get("nvlink_status")))
    want(t["pairs"][0]["class"] == "PHB" and t["pairs"][0]["p2p"]["nvml_read"] is None, "%s: pair %s" % (name, t["pairs"][0]))
    want(g["pcie"]["gen"] is None and abs(g["pcie"]["gbps"] - 63.015385) < 1e-5, "%s: pcie from hwloc %s" % (name, g["pcie"]))

t = load("noremote.json")
want(t["pairs"][0]["class"] == "NV18", "no RemoteDeviceType symbol: class %s" % t["pairs"][0]["class"])
want(all(l["remote"] == "gpu" and l["remote_gpu"] == 1 for l in t["gpus"][0]["nvlink"]["links"]), "no RemoteDeviceType: peers by bus id")
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
# under mpirun: three ranks on one host give one host, printed once by rank 0
if command -v mpirun >/dev/null 2>&1; then
    $MPIRUN -np 3 -x HWLOC_XMLFILE -x LD_LIBRARY_PATH="$dir/lib" "$NVS" topo --no-save --format json \
        >"$dir/mpi.json" 2>"$dir/mpi.err"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "mpirun -np 3 topo: exit $rc"; cat "$dir/mpi.err"; }
    python3 - "$dir/mpi.json" <<'PY' || fail "the topology under mpirun (above)"
import json, sys
d = json.load(open(sys.argv[1]))  # one document: only rank 0 printed
t = d["topology"]
ok = d["command"]["launcher"] == "mpi" and len(t["hosts"]) == 1 and len(t["gpus"]) == 2 and t["pairs"][0]["class"] == "NV18"
if not ok:
    print("FAIL: mpirun topology: launcher %s, hosts %s, pairs %s" % (d["command"]["launcher"], t["hosts"], t["pairs"]))
    sys.exit(1)
PY
    # --emulate-nodes 2 where NVML answers and CUDA does not: each virtual host keeps the GPU its rank drives
    # (the GPU list is hwloc's, bus id order); every virtual host found none ("none of the GPUs its ranks drive
    # was found") and the run stopped
    $MPIRUN -np 2 -x HWLOC_XMLFILE -x LD_LIBRARY_PATH="$dir/lib" "$NVS" topo --emulate-nodes 2 --no-save \
        --format json >"$dir/emu.json" 2>"$dir/emu.err"
    rc=$?
    [ "$rc" -eq 0 ] || { fail "mpirun -np 2 topo --emulate-nodes 2: exit $rc"; cat "$dir/emu.err"; }
    python3 - "$dir/emu.json" <<'PY' || fail "the topology under --emulate-nodes 2 (above)"
import json, sys
t = json.load(open(sys.argv[1]))["topology"]
got = [(h["name"], [t["gpus"][g]["pci_bus_id"] for g in h["gpus"]]) for h in t["hosts"]]
if got != [("vm/vnode0", ["0000:00:06.0"]), ("vm/vnode1", ["0000:00:07.0"])]:
    print("FAIL: virtual hosts and their GPUs: %s" % got)
    sys.exit(1)
PY
fi
finish
