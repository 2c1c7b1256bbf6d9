#!/bin/sh
# nvscale topo --hwloc-xml on every fixture prints the reviewed golden output (tests/golden/topo_*.txt: the
# per-GPU details, the nvidia-smi-like class matrix, bounds and legend), with no GPU, driver or MPI needed;
# -q prints the matrix alone; nothing is written with --no-save.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
dir=tests/tmp/topo_xml.$$
rm -rf "$dir"
mkdir -p "$dir"
fail=0
for f in pcie8 nvlink_pairs nvswitch8 h200x2 hgx8nic hgx8nic_oem pcie_nic; do
    "$nvs" topo --hwloc-xml tests/fixtures/topo/$f.xml --no-save >"$dir/$f.out" 2>"$dir/$f.err"
    rc=$?
    [ "$rc" -eq 0 ] || { echo "FAIL: $f: exit $rc"; cat "$dir/$f.err"; fail=1; continue; }
    [ -s "$dir/$f.err" ] && { echo "FAIL: $f: unexpected stderr"; cat "$dir/$f.err"; fail=1; }
    diff -u tests/golden/topo_$f.txt "$dir/$f.out" || { echo "FAIL: $f differs from tests/golden/topo_$f.txt"; fail=1; }
done
# -q: the matrix only, the same rows as in the full output
"$nvs" topo --hwloc-xml tests/fixtures/topo/pcie8.xml --no-save -q >"$dir/q.out" 2>&1
[ "$(wc -l <"$dir/q.out")" -eq 9 ] || { echo "FAIL: -q printed $(wc -l <"$dir/q.out") lines, expected 9"; cat "$dir/q.out"; fail=1; }
grep -q '^GPU4  SYS   SYS   SYS   SYS    X    PIX   PXB   PXB   8-15          1$' "$dir/q.out" ||
    { echo "FAIL: -q matrix row GPU4"; cat "$dir/q.out"; fail=1; }
# the OEM HGX fixture against the published `nvidia-smi topo -m` of that layout: every GPU and NIC row, class by
# class, and the NIC Legend
"$nvs" topo --hwloc-xml tests/fixtures/topo/hgx8nic_oem.xml --no-save -q >"$dir/oem.out" 2>&1
python3 - tests/fixtures/topo/nvidia-smi-topo-hgx-oem.txt "$dir/oem.out" <<'PY' || fail=1
import re, sys
def parse(path):
    rows, legend = {}, []
    for line in open(path):
        if line.startswith("#"): continue
        f = line.split()
        if f and re.fullmatch(r"(GPU|NIC)\d+", f[0]):
            rows[f[0]] = [x for x in f[1:] if x == "X" or re.fullmatch(r"NV\d+|PIX|PXB|PHB|NODE|SYS|NET", x)]
        m = re.match(r"\s*NIC(\d+):\s*(\S+)", line)
        if m: legend.append(m.group(2))
    return rows, legend
smi, ours = parse(sys.argv[1]), parse(sys.argv[2])
bad = [k for k in smi[0] if smi[0][k] != ours[0].get(k)]
for k in bad: print("FAIL: %s: nvidia-smi %s, nvscale %s" % (k, smi[0][k], ours[0].get(k)))
if len(smi[0]) != 16 or smi[1] != ours[1]: print("FAIL: rows %d, legend %s vs %s" % (len(smi[0]), smi[1], ours[1])); bad = 1
sys.exit(1 if bad else 0)
PY
[ -d results ] && find results -newer "$dir" -name run.json | grep -q . &&
    { echo "FAIL: --no-save wrote a run.json"; fail=1; }
rm -rf "$dir"
exit $fail
