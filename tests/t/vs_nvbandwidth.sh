#!/bin/sh
# tools/vs_nvbandwidth.py, nvbandwidth's host<->device copy tests beside `nvscale p2p --host`: on inputs made here
# (two GPUs, three rounds), it takes each side's median over the rounds, sums nvbandwidth's two bidirectional tests
# for the bidir row, pairs the all-at-once tests with nvscale's "all", exits 1 when a row is outside --tol and 2 on
# input that is not either tool's output. With --pairs (GPU pairs, `nvscale p2p`): each cell read from the
# nvbandwidth matrix row/column and block that holds that direction, the bidirectional Total against nvscale's sum,
# staged pairs listed as not compared, GPUs matched by PCI bus id, older run.jsons without the halves, refusals.
# Where a measured comparison is committed (VS-NVBANDWIDTH.md, VS-NVBANDWIDTH-D2D.md), it regenerates it.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "the comparison is Python"
tmp_dir tmp
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
T = ["host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "host_to_device_bidirectional_memcpy_ce",
     "device_to_host_bidirectional_memcpy_ce", "host_to_all_memcpy_ce", "all_to_host_memcpy_ce"]
# nvbandwidth round r, test t, GPU g: 50 + 10 t + g + r (bidir h2d 70+g+r, d2h 80+g+r: sum 150 + 2 g + 2 r)
for r in range(3):
    tcs = [{"name": t, "status": "Passed", "bandwidth_matrix": [["%g" % (50 + 10 * i + g + r) for g in range(2)]],
            "sum": 0} for i, t in enumerate(T)]
    tcs.append({"name": "device_local_copy", "status": "Waived"})
    json.dump({"nvbandwidth": {"version": "v0.8", "git_version": "", "testcases": tcs}},
              open("%s/nvb-%d.json" % (d, r), "w"))
# nvscale round r: single h2d 51+g (nvbandwidth's median 51+g: 0 %), d2h 63.3+g (median 61+g), bidir as below
for r in range(3):
    gpus = [{"gpu": g, "single": {"h2d_gbps": 51.0 + g + (r - 1) * 5, "d2h_gbps": 63.3 + g, "bidir_gbps": 152.0 + 2 * g,
                        "bidir_h2d_gbps": 71.0 + g, "bidir_d2h_gbps": 81.0 + g},
             "all": {"h2d_gbps": 91.0 + g, "d2h_gbps": 101.0 + g, "bidir_gbps": 1.0}} for g in (1, 0)]
    json.dump({"p2p": {"host_copies": {"copy_bytes": 268435456, "iters": 20, "samples": 3, "gpus": gpus}}},
              open("%s/nvs-%d.json" % (d, r), "w"))
PY
NVB="$tmp/nvb-0.json $tmp/nvb-1.json $tmp/nvb-2.json"
NVS="$tmp/nvs-0.json $tmp/nvs-1.json $tmp/nvs-2.json"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --nvbandwidth $NVB --nvscale $NVS --out "$tmp/vs" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "every row within 5 % (the largest 3.8 %) but exit $rc (see $tmp/out)"
grep -q "Every row within +-5 %: yes" "$tmp/vs.md" || fail "the Markdown does not say every row is within"
grep -q "| 0 | d2h | 61.0 | 63.3 | +3.8 % | 60.0-62.0 | 63.3-63.3 |" "$tmp/vs.md" || fail "no d2h row of GPU 0 in vs.md"
for row in "0,h2d,51.00,51.00,0.00,50.0-52.0,46.0-56.0" "1,h2d,52.00,52.00,0.00,51.0-53.0,47.0-57.0" \
    "0,d2h,61.00,63.30,3.77,60.0-62.0,63.3-63.3" "0,bidir,152.00,152.00,0.00,150.0-154.0,152.0-152.0" \
    "1,bidir,154.00,154.00,0.00,152.0-156.0,154.0-154.0" "0,h2d-all,91.00,91.00,0.00,90.0-92.0,91.0-91.0" \
    "1,d2h-all,102.00,102.00,0.00,101.0-103.0,102.0-102.0"; do
    grep -qx "$row" "$tmp/vs.csv" || fail "no row $row in $tmp/vs.csv"
done
[ "$(wc -l <"$tmp/vs.csv")" -eq 11 ] || fail "expected a header and 10 rows in $tmp/vs.csv"
# GPU 0's d2h-all at 90 GB/s in one round: the median (101) does not move; in two: -10.9 %, outside 5 and 10 %
setall() { python3 -c "
import json, sys
p = sys.argv[1]; d = json.load(open(p))
[g for g in d['p2p']['host_copies']['gpus'] if g['gpu'] == 0][0]['all']['d2h_gbps'] = 90.0
json.dump(d, open(p, 'w'))" "$1"; }
setall "$tmp/nvs-1.json"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --nvbandwidth $NVB --nvscale $NVS --out "$tmp/vs1" >/dev/null 2>&1 ||
    fail "one round's outlier moved the median: exit $?"
setall "$tmp/nvs-2.json"
for tol in 5 10; do
    # shellcheck disable=SC2086
    python3 tools/vs_nvbandwidth.py --nvbandwidth $NVB --nvscale $NVS --tol $tol --out "$tmp/vs2" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 1 ] || fail "d2h-all of GPU 0 at -10.9 %, --tol $tol: exit $rc, expected 1"
    grep -q "Every row within +-$tol %: NO" "$tmp/vs2.md" || fail "--tol $tol: the Markdown does not say a row is outside"
    grep -q "| 0 | d2h-all | 101.0 | 90.0 | -10.9 % |" "$tmp/vs2.md" || fail "--tol $tol: no -10.9 % row"
done
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --nvbandwidth $NVB --nvscale $NVS --tol 11 --out "$tmp/vs3" >/dev/null 2>&1 ||
    fail "--tol 11 (largest gap 10.9 %) exited $?"

# --halves: a row per half of bidir, against each bidirectional test alone (medians 71+g and 81+g on both sides)
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --halves --nvbandwidth $NVB --nvscale $NVS --tol 11 --out "$tmp/vs4" >/dev/null 2>&1 ||
    fail "--halves exited $?"
grep -qx "1,bidir-h2d,72.00,72.00,0.00,71.0-73.0,72.0-72.0" "$tmp/vs4.csv" || fail "--halves: no bidir-h2d row of GPU 1"
grep -qx "0,bidir-d2h,81.00,81.00,0.00,80.0-82.0,81.0-81.0" "$tmp/vs4.csv" || fail "--halves: no bidir-d2h row of GPU 0"
grep -q "bidir-" "$tmp/vs3.csv" && fail "halves without --halves"

# unusable input: exit 2 with the file named
bad() { # EXPECTED-TEXT ARGS...
    want=$1; shift
    python3 tools/vs_nvbandwidth.py "$@" --out "$tmp/bad" >"$tmp/bad.out" 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2"
    grep -q "$want" "$tmp/bad.out" || fail "$*: no '$want' in: $(cat "$tmp/bad.out")"
}
bad "not nvbandwidth -j output" --nvbandwidth "$tmp/nvs-0.json" --nvscale "$tmp/nvs-0.json"
bad "no p2p.host_copies.gpus" --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/nvb-0.json"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['nvbandwidth']['testcases'][1]['status'] = 'Error'
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/nvb-0.json" "$tmp/nvb-err.json"
bad "no passed test device_to_host_memcpy_ce" --nvbandwidth "$tmp/nvb-err.json" --nvscale "$tmp/nvs-0.json"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for g in d['p2p']['host_copies']['gpus']:
    del g['single']['bidir_h2d_gbps']
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/nvs-0.json" "$tmp/nvs-old.json"
bad "gpus\[0\].single.bidir_h2d_gbps absent" --halves --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/nvs-old.json"
bad "tol nan: must be > 0" --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/nvs-0.json" --tol nan
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['p2p']['host_copies']['gpus'] = []
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/nvs-0.json" "$tmp/nvs-none.json"
bad "gpus is empty: nothing to compare" --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/nvs-none.json"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['nvbandwidth']['testcases'][0]['bandwidth_matrix'] = [['0', '0']]
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/nvb-0.json" "$tmp/nvb-zero.json"
bad "GPU 0 h2d: nvbandwidth's median is 0 GB/s" --nvbandwidth "$tmp/nvb-zero.json" --nvscale "$tmp/nvs-0.json"
bad "tol -1: must be > 0" --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/nvs-0.json" --tol -1

# GPU pairs (--pairs): 3 GPUs, 0 <-> 1 P2P, GPU 2 staged through host memory (nvbandwidth: N/A there). Round r,
# row s, column d: one-way [s][d] = 100 + 10 s + d + r (s -> d); bidirectional Write2 [s][d] (s -> d) =
# 300 + 10 s + d + r, Write1 [s][d] (d -> s) = 200 + 20 d + s + r, Total their sum: each direction and each cell
# has its own value, so a swapped block, row or column reads another number. The host tests ride along.
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def mat(f):
    return [["N/A" if s == c or 2 in (s, c) else "%g" % f(s, c) for c in range(3)] for s in range(3)]
for r in range(3):
    nvb = json.load(open("%s/nvb-%d.json" % (d, r)))
    w1, w2 = (lambda s, c: 200 + 20 * c + s + r), (lambda s, c: 300 + 10 * s + c + r)
    nvb["nvbandwidth"]["testcases"] += [
        {"name": "device_to_device_memcpy_write_ce", "status": "Passed", "bandwidth_matrix": mat(lambda s, c: 100 + 10 * s + c + r)},
        {"name": "device_to_device_bidirectional_memcpy_write_ce", "status": "Passed",
         "bandwidth_matrix": mat(w1) + mat(w2) + mat(lambda s, c: w1(s, c) + w2(s, c))}]
    json.dump(nvb, open("%s/pnvb-%d.json" % (d, r), "w"))
    # nvscale: the medians above, but 1 -> 0 one-way 2 % high; fwd + rev = bidir
    pairs = []
    for s in range(3):
        for c in range(3):
            if s == c:
                continue
            q = {"src": s, "dst": c, "src_pci_bus_id": "0000:00:%02x.0" % (6 + s),
                 "dst_pci_bus_id": "0000:00:%02x.0" % (6 + c), "path": "host" if 2 in (s, c) else "P2P",
                 "uni_gbps": 101.0 + 10 * s + c, "bidir_fwd_gbps": 301.0 + 10 * s + c,
                 "bidir_rev_gbps": 201.0 + 20 * c + s}
            q["bidir_gbps"] = q["bidir_fwd_gbps"] + q["bidir_rev_gbps"]
            if (s, c) == (1, 0):
                q["uni_gbps"] = 111 * 1.02
            pairs.append(q)
    json.dump({"p2p": {"copy_bytes": 268435456, "iters": 20, "pairs": pairs}}, open("%s/pnvs-%d.json" % (d, r), "w"))
PY
PNVB="$tmp/pnvb-0.json $tmp/pnvb-1.json $tmp/pnvb-2.json"
PNVS="$tmp/pnvs-0.json $tmp/pnvs-1.json $tmp/pnvs-2.json"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --pairs --halves --nvbandwidth $PNVB --nvscale $PNVS --out "$tmp/pv" >"$tmp/pout" 2>&1 ||
    fail "--pairs: every row within 5 % but exit $? (see $tmp/pout)"
for row in "0,1,d2d,102.00,102.00,0.00,101.0-103.0,102.0-102.0" "1,0,d2d,111.00,113.22,2.00,110.0-112.0,113.2-113.2" \
    "0,1,d2d-bidir,523.00,523.00,0.00,521.0-525.0,523.0-523.0" "1,0,d2d-bidir,513.00,513.00,0.00,511.0-515.0,513.0-513.0" \
    "0,1,d2d-bidir-fwd,302.00,302.00,0.00,301.0-303.0,302.0-302.0" "0,1,d2d-bidir-rev,221.00,221.00,0.00,220.0-222.0,221.0-221.0" \
    "1,0,d2d-bidir-fwd,311.00,311.00,0.00,310.0-312.0,311.0-311.0" "1,0,d2d-bidir-rev,202.00,202.00,0.00,201.0-203.0,202.0-202.0"; do
    grep -qx "$row" "$tmp/pv.csv" || fail "--pairs: no row $row in $tmp/pv.csv"
done
[ "$(wc -l <"$tmp/pv.csv")" -eq 9 ] || fail "--pairs --halves: expected a header and 8 rows (P2P pairs only) in $tmp/pv.csv"
grep -q "| 1 -> 0 | d2d | 111.0 | 113.2 | +2.0 % | 110.0-112.0 | 113.2-113.2 |" "$tmp/pv.md" || fail "--pairs: no 1 -> 0 d2d row in pv.md"
for f in "$tmp/pv.md" "$tmp/pout"; do
    grep -qx "Not compared, path host (staged through pinned host memory.*): 0 -> 2, 1 -> 2, 2 -> 0, 2 -> 1" "$f" ||
        fail "--pairs: the staged pairs are not said to be not compared in $f"
done
grep -q "Every row within +-5 %: yes" "$tmp/pv.md" || fail "--pairs: the Markdown does not say every row is within"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --pairs --tol 1.9 --nvbandwidth $PNVB --nvscale $PNVS --out "$tmp/pv1" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "--pairs --tol 1.9, 1 -> 0 d2d at +2.0 %: exit $rc, expected 1"
grep -q "Every row within +-1.9 %: NO" "$tmp/pv1.md" || fail "--pairs --tol 1.9: the Markdown does not say a row is outside"
[ "$(wc -l <"$tmp/pv1.csv")" -eq 5 ] || fail "--pairs without --halves: expected a header and 4 rows in $tmp/pv1.csv"
grep -q "bidir-fwd\|bidir-rev" "$tmp/pv1.csv" && fail "--pairs: halves without --halves"
# the host rows from the same nvbandwidth files (with the D2D tests in them) are those of the host-only files
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --nvbandwidth $NVB --nvscale $NVS --tol 11 --out "$tmp/vs-h" >/dev/null 2>&1 ||
    fail "host rows (tol 11): exit $?"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --nvbandwidth $PNVB --nvscale $NVS --tol 11 --out "$tmp/vs-hp" >/dev/null 2>&1 ||
    fail "host rows from nvbandwidth files that also hold the D2D tests: exit $?"
cmp -s "$tmp/vs-hp.csv" "$tmp/vs-h.csv" || fail "the D2D tests in the nvbandwidth files changed the host rows (csv)"
cmp -s "$tmp/vs-hp.md" "$tmp/vs-h.md" || fail "the D2D tests in the nvbandwidth files changed the host rows (md)"
# nvbandwidth names its GPUs by PCI bus id: ordinal 0 is nvscale's GPU 1 (00:07) and 1 is GPU 0, so nvscale's
# 0 -> 1 is nvbandwidth's [1][0]
for r in 0 1 2; do
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['nvbandwidth']['GPU Device list'] = ['0: NVIDIA H100 (x) (00000000:00:07): (h)', '1: NVIDIA H100 (x) (00000000:00:06): (h)',
                                       '2: NVIDIA H100 (x) (00000000:00:08): (h)']
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/pnvb-$r.json" "$tmp/bnvb-$r.json"
done
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --pairs --tol 50 --nvbandwidth "$tmp/bnvb-0.json" "$tmp/bnvb-1.json" "$tmp/bnvb-2.json" \
    --nvscale $PNVS --out "$tmp/pvb" >/dev/null 2>&1 || fail "--pairs with bus ids: exit $?"
grep -qx "0,1,d2d,111.00,102.00,-8.11,110.0-112.0,102.0-102.0" "$tmp/pvb.csv" ||
    fail "--pairs: nvscale's 0 -> 1 not read from nvbandwidth's [1][0] by the bus ids: $(cat "$tmp/pvb.csv")"
pmod() { # SRC DST PYTHON-ON-d
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$3
json.dump(d, open(sys.argv[2], 'w'))" "$1" "$2"
}
# a run.json from before the halves: their rows left out, said so, the rest compared
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for q in d['p2p']['pairs']:
    del q['bidir_fwd_gbps'], q['bidir_rev_gbps']
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/pnvs-1.json" "$tmp/pnvs-old.json"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --pairs --halves --nvbandwidth $PNVB --nvscale "$tmp/pnvs-0.json" "$tmp/pnvs-old.json" \
    "$tmp/pnvs-2.json" --out "$tmp/pvo" >"$tmp/pvo.out" 2>&1 || fail "--pairs --halves, an old run.json: exit $?"
[ "$(wc -l <"$tmp/pvo.csv")" -eq 5 ] || fail "--pairs --halves, an old run.json: expected a header and 4 rows"
grep -q "left out: $(basename "$tmp")/pnvs-old.json has no bidir_fwd_gbps" "$tmp/pvo.md" ||
    fail "--pairs --halves, an old run.json: the Markdown does not say why the halves are left out"
# the same where they are null (a run.json re-written from an older one)
pmod "$tmp/pnvs-2.json" "$tmp/pnvs-null-halves.json" "d['p2p']['pairs'][0]['bidir_rev_gbps'] = None"
# shellcheck disable=SC2086
python3 tools/vs_nvbandwidth.py --pairs --halves --nvbandwidth $PNVB --nvscale "$tmp/pnvs-0.json" "$tmp/pnvs-1.json" \
    "$tmp/pnvs-null-halves.json" --out "$tmp/pvn" >/dev/null 2>&1 || fail "--pairs --halves, null halves: exit $?"
grep -q "left out: $(basename "$tmp")/pnvs-null-halves.json has no bidir_fwd_gbps" "$tmp/pvn.md" ||
    fail "--pairs --halves, null halves: the Markdown does not say why the halves are left out"
# refusals (exit 2, the file named)
# nvbandwidth names its GPUs by bus id but a pair has none: its index may be another GPU's ordinal (it was taken as
# one, exit 0)
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-nobus.json" "del d['p2p']['pairs'][0]['dst_pci_bus_id']"
bad "pnvs-nobus.json: GPU 1 of its pair 0 -> 1 has no dst_pci_bus_id" --pairs --nvbandwidth "$tmp/bnvb-0.json" \
    --nvscale "$tmp/pnvs-nobus.json"
bad "nvs-0.json: no p2p.pairs (a run of .nvscale p2p., without --host?)" --pairs --nvbandwidth "$tmp/pnvb-0.json" --nvscale "$tmp/nvs-0.json"
bad "pnvs-0.json: no p2p.host_copies.gpus .*--pairs compares those" --nvbandwidth "$tmp/pnvb-0.json" --nvscale "$tmp/pnvs-0.json"
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-empty.json" "d['p2p']['pairs'] = []"
bad "pnvs-empty.json: p2p.pairs is empty" --pairs --nvbandwidth "$tmp/pnvb-0.json" --nvscale "$tmp/pnvs-empty.json"
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-staged.json" "[q.update(path='host') for q in d['p2p']['pairs']]"
bad "pnvs-staged.json: no pair has path P2P" --pairs --nvbandwidth "$tmp/pnvb-0.json" --nvscale "$tmp/pnvs-staged.json"
bad "nvb-0.json: no passed test device_to_device_memcpy_write_ce (not run)" --pairs --nvbandwidth "$tmp/nvb-0.json" --nvscale "$tmp/pnvs-0.json"
pmod "$tmp/pnvb-0.json" "$tmp/pnvb-waived.json" "d['nvbandwidth']['testcases'][-1] = {'name': 'device_to_device_bidirectional_memcpy_write_ce', 'status': 'Waived'}"
bad "pnvb-waived.json: no passed test device_to_device_bidirectional_memcpy_write_ce (status Waived)" --pairs \
    --nvbandwidth "$tmp/pnvb-waived.json" --nvscale "$tmp/pnvs-0.json"
pmod "$tmp/pnvb-0.json" "$tmp/pnvb-3x3.json" "t = d['nvbandwidth']['testcases'][-1]; t['bandwidth_matrix'] = t['bandwidth_matrix'][6:]"
bad "pnvb-3x3.json: test device_to_device_bidirectional_memcpy_write_ce: expected a bandwidth_matrix of 3 x n rows" --pairs \
    --nvbandwidth "$tmp/pnvb-3x3.json" --nvscale "$tmp/pnvs-0.json"
pmod "$tmp/pnvb-0.json" "$tmp/pnvb-na.json" "d['nvbandwidth']['testcases'][-2]['bandwidth_matrix'][1][0] = 'N/A'"
bad "pnvb-na.json: test device_to_device_memcpy_write_ce: cell \[1\]\[0\] is N/A, nvscale's pair 1 -> 0 is P2P" --pairs \
    --nvbandwidth "$tmp/pnvb-na.json" --nvscale "$tmp/pnvs-0.json"
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-null.json" "d['p2p']['pairs'][0]['bidir_gbps'] = None"
bad "pnvs-null.json: pair 0 -> 1: bidir_gbps absent or not a number" --pairs --nvbandwidth "$tmp/pnvb-0.json" \
    --nvscale "$tmp/pnvs-null.json"
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-fewer.json" "d['p2p']['pairs'].pop()"
bad "pnvs-fewer.json: its pairs (src, dst, path) differ from" --pairs --nvbandwidth "$tmp/pnvb-0.json" \
    --nvscale "$tmp/pnvs-0.json" "$tmp/pnvs-fewer.json"

# a GPU index that is not a whole number >= 0: refused, not read from Python's end of the row ([0][-2] is [0][1]:
# "0 -> -2" was compared with 0 -> 1's cell, exit 0) nor taken for 1 (true)
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-neg.json" "d['p2p']['pairs'][0]['dst'] = -2"
bad "pnvs-neg.json: p2p.pairs\[0\] needs src and dst, whole numbers >= 0" --pairs --nvbandwidth "$tmp/pnvb-0.json" \
    --nvscale "$tmp/pnvs-neg.json"
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-bool.json" "d['p2p']['pairs'][0]['dst'] = True"
bad "pnvs-bool.json: p2p.pairs\[0\] needs src and dst, whole numbers >= 0" --pairs --nvbandwidth "$tmp/pnvb-0.json" \
    --nvscale "$tmp/pnvs-bool.json"
# a run of several hosts (nvscale p2p under mpirun): nvbandwidth measured one machine, and each other host's pairs
# were read from its cells (by bus id, the same on identical hosts), exit 0
pmod "$tmp/pnvs-0.json" "$tmp/pnvs-2hosts.json" "[q.update(host='a' if q['src'] == 0 else 'b') for q in d['p2p']['pairs']]"
bad "pnvs-2hosts.json: pairs of 2 hosts (a, b)" --pairs --nvbandwidth "$tmp/pnvb-0.json" --nvscale "$tmp/pnvs-2hosts.json"
for res in results/*/VS-NVBANDWIDTH.md results/*/VS-NVBANDWIDTH-D2D.md; do
    [ -f "$res" ] || continue
    d=$(dirname "$res")
    row=vs-default
    [ "${res%-D2D.md}" != "$res" ] && row=vs-d2d
    set -- $(sed -n "s/^| $row | \`python3 tools\/vs_nvbandwidth.py \(.*\) --out [^ ]*\`.*/\1/p" "$d/COMMANDS.md")
    [ $# -gt 0 ] || fail "$d/COMMANDS.md has no $row row"
    # the commands name the device's paths (results/gpu-X/...): the folder here has another name
    args=$(echo "$*" | sed "s#results/[^/ ]*/#$d/#g")
    # shellcheck disable=SC2086
    python3 tools/vs_nvbandwidth.py $args --out "$tmp/again" >/dev/null 2>&1
    cmp -s "$tmp/again.md" "$res" || fail "$res is not what the tool makes now"
done
finish
