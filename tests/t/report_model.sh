#!/bin/sh
# nvscale report of what-if model projections: efficiency vs N per configuration (table, and plot with gnuplot).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
d=$TMP/report_model
rm -rf "$d"
mkdir -p "$d"
expect 0 "" $NVS model --gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model maskrcnn --format json -o "$d/m.json"
expect 0 "report.md" $NVS report "$d/m.json" -o "$d/out" --no-plots
for want in "### rtx3090 @ pcie4-2s-8gpu-switch" "### rtxa6000 @ pcie4-2s-8gpu-switch" "| 8 |" "modelled, not measured"; do
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
[ -e "$d/bad/report.md" ] && fail "report.md written for a bad projection"
expect 2 "not a model projection" $NVS report "$d/m.json" tests/fixtures/runs/h200x2_nvlink.json -o "$d/mixed"
finish
