#!/bin/sh
# nvscale report of what-if model projections: efficiency vs N per configuration (table, and plot with gnuplot).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
d=$TMP/report_model
rm -rf "$d"
mkdir -p "$d"
expect 0 "" $NVS model --gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model maskrcnn --format json -o "$d/m.json"
expect 0 "report.md" $NVS report "$d/m.json" -o "$d/out" --no-plots
for want in "### rtx3090 @ pcie4-2s-8gpu-switch" "### rtxa6000 @ pcie4-2s-8gpu-switch" "| 8 |" "modelled, not measured" \
    "| interference (ms) |"; do
    grep -qF "$want" "$d/out/report.md" || fail "report lacks '$want'"
done
if command -v gnuplot >/dev/null; then
    expect 0 "" $NVS report "$d/m.json" -o "$d/plots"
    [ -s "$d/plots/model_efficiency.svg" ] && [ -s "$d/plots/model_efficiency.png" ] ||
        fail "no model plot"
fi
# a projection with a broken point, and a projection mixed with a run.json: refused, nothing written
python3 -c "import json; d=json.load(open('$d/m.json')); d['configurations'][0]['points'][1]['efficiency']='high'; json.dump(d, open('$d/bad.json','w'))"
expect 2 "bad.json: configurations\[0\].points\[1\]" $NVS report "$d/bad.json" -o "$d/bad"
[ -e "$d/bad" ] && fail "an output directory made for a bad projection"
# numbers of the right type but no meaning: refused too (were a row "| -5 |" and a 300-digit percentage)
python3 -c "import json; d=json.load(open('$d/m.json')); d['configurations'][0]['points'][0]['n']=-5; json.dump(d, open('$d/neg.json','w'))"
expect 2 "n -5, .*expected n from 1" $NVS report "$d/neg.json" -o "$d/neg"
python3 -c "import json; d=json.load(open('$d/m.json')); d['configurations'][0]['points'][0]['efficiency']=1e300; json.dump(d, open('$d/huge.json','w'))"
expect 2 "efficiency 1e.300" $NVS report "$d/huge.json" -o "$d/huge"
[ -e "$d/neg" ] || [ -e "$d/huge" ] && fail "an output directory made for a refused projection"
# the interference column: the projection's own number at N=8 (a share of the overlap: above 0 on the 3090's SHM);
# a projection from before the term has none and shows "-"; a negative or textual one is refused
i8=$(python3 -c "import json; d=json.load(open('$d/m.json')); print('%.2f' % (d['configurations'][0]['points'][-1]['interference_us'] / 1e3))")
grep -q "^| 8 | [0-9.]* | [0-9.]* | $i8 |" "$d/out/report.md" || fail "the N=8 row lacks the interference $i8 ms"
python3 -c "import json; d=json.load(open('$d/m.json'))
for c in d['configurations']:
    for p in c['points']: del p['interference_us']
json.dump(d, open('$d/old.json','w'))"
expect 0 "report.md" $NVS report "$d/old.json" -o "$d/old" --no-plots
grep -q "^| 8 | [0-9.]* | [0-9.]* | - |" "$d/old/report.md" || fail "an old projection's row does not say '-'"
# an exposed communication of null (accepted: not modelled) is "-", not 0.00
python3 -c "import json; d=json.load(open('$d/m.json')); d['configurations'][0]['points'][-1]['exposed_comm_us']=None; json.dump(d, open('$d/nullx.json','w'))"
expect 0 "report.md" $NVS report "$d/nullx.json" -o "$d/nullx" --no-plots
grep -q "^| 8 | [0-9.]* | - |" "$d/nullx/report.md" || fail "a null exposed communication is not '-'"
python3 -c "import json; d=json.load(open('$d/m.json')); d['configurations'][0]['points'][1]['interference_us']=-3; json.dump(d, open('$d/negi.json','w'))"
expect 2 "points\[1\]: interference_us: expected a time" $NVS report "$d/negi.json" -o "$d/negi"
[ -e "$d/negi" ] && fail "an output directory made for a negative interference"
expect 2 "given twice" $NVS report "$d/m.json" -o "$d/o1" -o "$d/o2"
expect 2 "not a model projection" $NVS report "$d/m.json" tests/fixtures/runs/h200x2_nvlink.json -o "$d/mixed"
finish
