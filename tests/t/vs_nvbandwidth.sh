#!/bin/sh
# tools/vs_nvbandwidth.py, nvbandwidth's host<->device copy tests beside `nvscale p2p --host`: on inputs made here
# (two GPUs, three rounds), it takes each side's median over the rounds, sums nvbandwidth's two bidirectional tests
# for the bidir row, pairs the all-at-once tests with nvscale's "all", exits 1 when a row is outside --tol and 2 on
# input that is not either tool's output. Where a measured comparison is committed, it regenerates it.
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

for res in results/*/VS-NVBANDWIDTH.md; do
    [ -f "$res" ] || continue
    d=$(dirname "$res")
    set -- $(sed -n 's/^| vs-default | `python3 tools\/vs_nvbandwidth.py \(.*\) --out [^ ]*`.*/\1/p' "$d/COMMANDS.md")
    [ $# -gt 0 ] || fail "$d/COMMANDS.md has no vs-default row"
    # the commands name the device's paths (results/gpu-X/...): the folder here has another name
    args=$(echo "$*" | sed "s#results/[^/ ]*/#$d/#g")
    # shellcheck disable=SC2086
    python3 tools/vs_nvbandwidth.py $args --out "$tmp/again" >/dev/null 2>&1
    cmp -s "$tmp/again.md" "$res" || fail "$res is not what the tool makes now"
done
finish
