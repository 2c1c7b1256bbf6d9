#!/bin/sh
# On a GPU machine: `nvscale topo` classes equal `nvidia-smi topo -m`'s for every GPU pair and every GPU-NIC pair
# of the NICs nvidia-smi lists (matched by name), NVML answered, and every pair has a bound. Skipped where there is
# no GPU.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
has_gpu || skip "no GPU on this machine"
need_cmd python3 "cannot parse the JSON"
tmp_dir dir
nvidia-smi topo -m >"$dir/smi.txt" 2>&1 || { cat "$dir/smi.txt"; stop "nvidia-smi topo -m failed (above)"; }
"$NVS" topo --no-save -q >"$dir/ours.txt" 2>"$dir/err" || { fail "nvscale topo exit $?"; cat "$dir/err"; }
"$NVS" topo --no-save --format json >"$dir/ours.json" 2>>"$dir/err" || fail "nvscale topo --format json"
python3 - "$dir/smi.txt" "$dir/ours.txt" "$dir/ours.json" <<'PY' || fail "topology against nvidia-smi (above)"
import json, re, sys
def rows(path):
    out = {}
    for line in open(path):
        f = re.sub(r"\x1b\[[0-9;]*m", "", line).split()
        if f and re.fullmatch(r"GPU\d+", f[0]):
            out[f[0]] = [x for x in f[1:] if x == "X" or re.fullmatch(r"NV\d+|PIX|PXB|PHB|NODE|SYS|NET", x)]
    return out
def nic_legend(path):
    names = []
    for line in open(path):
        m = re.match(r"\s*NIC(\d+):\s*(\S+)", re.sub(r"\x1b\[[0-9;]*m", "", line))
        if m: names.append(m.group(2))
    return names
smi, ours = rows(sys.argv[1]), rows(sys.argv[2])
smi_nics, our_nics = nic_legend(sys.argv[1]), nic_legend(sys.argv[2])
# nvidia-smi lists every GPU; CUDA_VISIBLE_DEVICES may hide some from nvscale: compare what both show.
# Columns: the GPUs, then the NICs (nvidia-smi lists RDMA devices only, nvscale Ethernet ports too: by name).
errors = []
if not ours:
    errors.append("nvscale printed no matrix")
g = len(smi)
if len(ours) == g:
    for gpu in smi:
        if smi[gpu][:g] != ours.get(gpu, [])[:g]:
            errors.append("%s: GPU classes differ: nvidia-smi %s, nvscale %s" % (gpu, smi[gpu][:g], ours.get(gpu, [])[:g]))
        for k, name in enumerate(smi_nics):
            if name not in our_nics:
                errors.append("nvidia-smi's NIC%d %s is not among nvscale's NICs %s" % (k, name, our_nics))
                continue
            want, got = smi[gpu][g + k:g + k + 1], ours[gpu][g + our_nics.index(name):g + our_nics.index(name) + 1]
            if want != got:
                errors.append("%s to %s: nvidia-smi %s, nvscale %s" % (gpu, name, want, got))
t = json.load(open(sys.argv[3]))["topology"]
if not t["nvml"].startswith("ok"):
    errors.append("NVML: %s" % t["nvml"])
if not t["cuda"].startswith("ok"):
    errors.append("CUDA: %s" % t["cuda"])
for p in t["pairs"]:
    if p["bound_gbps"] is None:
        errors.append("pair %d-%d has no bound (%s)" % (p["a"], p["b"], p["bound_source"]))
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
finish
