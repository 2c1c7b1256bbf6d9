#!/bin/sh
# The efficiency plot's y axis holds every point: it was fixed at 0-110 %, and a collective whose busbw grows with
# N (a faster hop joining the ring) or a training efficiency above 100 % (the report warns of it) was drawn off the
# chart, without a word. 0-110 % stays the axis of the usual runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
tmp=$(cd "$tmp" && pwd)
# plots.gp is written before gnuplot runs: a stand-in that fails keeps the test off a real gnuplot
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexit 3\n' >"$tmp/bin/gnuplot"
chmod +x "$tmp/bin/gnuplot"
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['train']['results'][1]['efficiency'] = 1.464
json.dump(d, open(sys.argv[2], 'w'))" tests/fixtures/runs/h200x2_nvlink.json "$tmp/odd.json" || stop "cannot make the fixture"

yrange() { sed -n "/^set output 'efficiency.svg.tmp'/,/^unset output/s/^set yrange //p" "$1/plots.gp"; }
PATH="$tmp/bin:$PATH" "$NVS" report -o "$tmp/odd" "$tmp/odd.json" >/dev/null 2>&1
grep -q "^146.400" "$tmp/odd/efficiency.dat" 2>/dev/null || grep -q " 146.400$" "$tmp/odd/efficiency.dat" ||
    stop "the fixture's 146.4 % is not in efficiency.dat"
case $(yrange "$tmp/odd") in
'[0:110]' | '') fail "146.4 % drawn on a 0-110 % axis: $(yrange "$tmp/odd")" ;;
esac
top=$(yrange "$tmp/odd" | sed -n 's/^\[0:\([0-9.]*\)\]$/\1/p')
[ -n "$top" ] && python3 -c "import sys; sys.exit(not float(sys.argv[1]) >= 146.4)" "$top" ||
    fail "the axis does not reach 146.4 %: $(yrange "$tmp/odd")"
PATH="$tmp/bin:$PATH" "$NVS" report -o "$tmp/ok" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>&1
[ "$(yrange "$tmp/ok")" = "[0:110]" ] || fail "a run within 100 % changed its axis: $(yrange "$tmp/ok")"
finish
