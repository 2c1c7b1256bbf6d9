#!/bin/sh
# Plots: SVG and PNG when gnuplot is on PATH; a notice and a report without them when it is not; a failing
# gnuplot leaves no half-written image and makes the command fail (exit 1) while report.md is still written.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
tmp=$(cd "$tmp" && pwd) # absolute: the PATH entries below must hold wherever nvscale runs gnuplot from
R=tests/fixtures/runs

# 1. no gnuplot on PATH: exit 0, one notice, the report says the plots were skipped
mkdir -p "$tmp/emptybin"
PATH="$tmp/emptybin" "$NVS" report -o "$tmp/nogp" "$R/h200x2_nvlink.json" >/dev/null 2>"$tmp/err1"
rc=$?
[ $rc -eq 0 ] || fail "without gnuplot: exit $rc"
[ "$(grep -c 'gnuplot' "$tmp/err1")" -eq 1 ] || fail "without gnuplot: expected one notice: $(cat "$tmp/err1")"
grep -q "Plots skipped: gnuplot was not found on PATH" "$tmp/nogp/report.md" || fail "report does not say plots were skipped"
ls "$tmp/nogp" | grep -q '\.svg$' && fail "images without gnuplot?"

# 2. a gnuplot that fails: exit 1, report.md written, no image and no temporary file left
mkdir -p "$tmp/badbin"
printf '#!/bin/sh\necho "fake gnuplot: failing on purpose" >&2\nexit 3\n' >"$tmp/badbin/gnuplot"
chmod +x "$tmp/badbin/gnuplot"
PATH="$tmp/badbin" "$NVS" report -o "$tmp/badgp" "$R/h200x2_nvlink.json" >/dev/null 2>"$tmp/err2"
rc=$?
[ $rc -eq 1 ] || fail "failing gnuplot: exit $rc, expected 1"
grep -q "exited with status 3" "$tmp/err2" || fail "failing gnuplot: no message: $(cat "$tmp/err2")"
grep -q "Plots failed" "$tmp/badgp/report.md" || fail "report does not say plots failed"
ls "$tmp/badgp" | grep -qE '\.(svg|png|tmp[.0-9]*)$' && fail "leftovers: $(ls "$tmp/badgp")"

# 3. a report into a directory that holds an earlier report's plots: what this report does not draw again goes
# (was left: the step_breakdown.png of runs no longer in the report beside a report of one collective run), and with
# --no-plots or a failing gnuplot no old image stays as if it were this report's; files it did not write stay.
# A stand-in gnuplot draws every image plots.gp names, so that this runs without gnuplot.
stand_in_gnuplot "$tmp/drawbin"
d=$tmp/again
# minimal_coll.json's one busbw is 0.0, which a log-scale plot cannot draw (no point, report_plot_series.sh)
sed 's/"busbw_gbps": 0.0,/"busbw_gbps": 0.5,/' "$R/minimal_coll.json" >"$tmp/minimal_pos.json"
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$R/h200x2_nvlink.json" >/dev/null 2>"$tmp/err4" || fail "stand-in gnuplot: $(cat "$tmp/err4")"
[ -s "$d/step_breakdown.png" ] && [ -s "$d/busbw_broadcast.svg" ] || fail "stand-in gnuplot drew nothing: $(ls "$d")"
echo mine >"$d/notes.txt"
echo mine >"$d/busbw_mine.png"
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$tmp/minimal_pos.json" >/dev/null 2>"$tmp/err4" || fail "again: $(cat "$tmp/err4")"
left=$(ls "$d" | grep -E '^(busbw_broadcast|efficiency|step_breakdown)\.')
[ -z "$left" ] || fail "plots of the earlier report left beside the new one: $left"
[ -s "$d/busbw_all_reduce.svg" ] && [ -s "$d/busbw_all_reduce.dat" ] || fail "the plot drawn again is gone: $(ls "$d")"
PATH="$tmp/badbin:$PATH" "$NVS" report -o "$d" "$tmp/minimal_pos.json" >/dev/null 2>&1
left=$(ls "$d" | grep -E '^busbw_all_reduce\.(svg|png)$')
[ -z "$left" ] || fail "gnuplot failed, yet the earlier report's images are there: $left"
[ -s "$d/busbw_all_reduce.dat" ] && [ -s "$d/plots.gp" ] || fail "gnuplot failed: its data and script are gone"
"$NVS" report --no-plots -o "$d" "$tmp/minimal_pos.json" >/dev/null 2>&1
left=$(ls "$d" | grep -vxE 'report\.md|notes\.txt|busbw_mine\.png')
[ -z "$left" ] || fail "--no-plots: the earlier report's plots left: $left"
[ -s "$d/notes.txt" ] && [ -s "$d/busbw_mine.png" ] || fail "a file the report did not write was removed"
# ... and across the two kinds of report: a model report (model_plots.gp, model_efficiency.*) over a run report and
# a run report over a model report each left the other's plots and script beside them as if current
"$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model maskrcnn --format json -o "$tmp/m.json" \
    >/dev/null 2>&1 || fail "cannot make a model projection"
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$R/h200x2_nvlink.json" >/dev/null 2>&1
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$tmp/m.json" >/dev/null 2>"$tmp/err5" || fail "model report: $(cat "$tmp/err5")"
left=$(ls "$d" | grep -vxE 'report\.md|notes\.txt|busbw_mine\.png|model_plots\.gp|model_efficiency\.(dat|svg|png)')
[ -z "$left" ] || fail "a model report left the earlier run report's plots: $left"
[ -s "$d/model_efficiency.svg" ] || fail "the model report's plot is not there: $(ls "$d")"
PATH="$tmp/badbin:$PATH" "$NVS" report -o "$d" "$tmp/m.json" >/dev/null 2>&1
[ -e "$d/model_efficiency.svg" ] || [ -e "$d/model_efficiency.png" ] && fail "model report: gnuplot failed, yet the old images are there"
[ -s "$d/model_efficiency.dat" ] && [ -s "$d/model_plots.gp" ] || fail "model report: gnuplot failed: its data and script are gone"
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$tmp/m.json" >/dev/null 2>&1
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$R/minimal_coll.json" >/dev/null 2>"$tmp/err5" || fail "run report: $(cat "$tmp/err5")"
left=$(ls "$d" | grep -E '^model_')
[ -z "$left" ] || fail "a run report left the earlier model report's plots: $left"
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$d" "$tmp/m.json" >/dev/null 2>&1
"$NVS" report --no-plots -o "$d" "$tmp/m.json" >/dev/null 2>&1
left=$(ls "$d" | grep -vxE 'report\.md|notes\.txt|busbw_mine\.png')
[ -z "$left" ] || fail "model report --no-plots: the earlier model report's plots left: $left"
[ -s "$d/notes.txt" ] && [ -s "$d/busbw_mine.png" ] || fail "a file the model report did not write was removed"
# the step breakdown's key is outside the bars: inside, at the top left, it was drawn over the first bars of a run
# whose steps reach the top of the plot (results/h200x2-final5/default: "rest: framework, ..." and its colour were
# hidden behind the 85.7 and 90.2 ms bars of bert-large)
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$tmp/keys" "$R/h200x2_nvlink.json" >/dev/null 2>&1
sed -n "/^set output 'step_breakdown.svg.tmp'/,/^plot /p" "$tmp/keys/plots.gp" | tail -2 | head -1 | grep -qx 'set key below horizontal' ||
    fail "step_breakdown: the key is not placed below the plot: $(sed -n "/^set output 'step_breakdown.svg/,/^plot /p" "$tmp/keys/plots.gp")"
# the bar labels slant down to the left, ending at their bar (slanting right, the last ones ran off the image), and
# a long first label gets the left margin it reaches into: about cos(30) of its characters
sb=$(sed -n "/^set output 'step_breakdown.svg.tmp'/,/^plot /p" "$tmp/keys/plots.gp")
echo "$sb" | grep -qx 'set xtics rotate by 30 right' || fail "step_breakdown: labels not slanted to end at their bar: $sb"
python3 - "$R/h200x2_nvlink.json" "$tmp/long.json" <<'PY' || fail "could not write the long-label run"
import json, sys
d = json.load(open(sys.argv[1]))
# two workloads: each bar is then named by its model
t = dict(d["train"], model="a-model-name-of-forty-characters-exactly")
d["trains"] = [t, dict(d["train"], model="short")]
d["train"] = t
json.dump(d, open(sys.argv[2], "w"))
PY
PATH="$tmp/drawbin:$PATH" "$NVS" report -o "$tmp/long" "$tmp/long.json" >/dev/null 2>&1
lm=$(sed -n "/^set output 'step_breakdown.svg.tmp'/,/^plot /p" "$tmp/long/plots.gp" | sed -n 's/^set lmargin //p')
[ "${lm:-0}" -ge 35 ] || fail "step_breakdown: a 44-character first label got left margin '${lm}', it needs about 40"
# a plots.gp edited by hand names nothing the report removes outside its directory
echo mine >"$tmp/victim.svg"
mkdir -p "$d/sub" && echo mine >"$d/sub/x.png"
printf "set output '../victim.svg.tmp'\nset output 'sub/x.png.tmp'\n" >"$d/plots.gp"
"$NVS" report --no-plots -o "$d" "$R/minimal_coll.json" >/dev/null 2>&1
[ -s "$tmp/victim.svg" ] && [ -s "$d/sub/x.png" ] || fail "a file outside the report's own names was removed"

# 4. the real gnuplot, if there is one
if ! command -v gnuplot >/dev/null 2>&1; then
    [ "$fails" -eq 0 ] || finish
    skip "gnuplot is not installed here: the plots themselves were not drawn (parts 1 and 2 passed)"
fi
"$NVS" report -o "$tmp/gp" "$R/h200x2_nvlink.json" "$R/h200x2_shm.json" "$R/box3090_8gpu_shm.json" >/dev/null 2>"$tmp/err3"
rc=$?
[ $rc -eq 0 ] || fail "with gnuplot: exit $rc: $(cat "$tmp/err3")"
for p in busbw_all_reduce busbw_broadcast efficiency step_breakdown; do
    [ -s "$tmp/gp/$p.svg" ] && grep -q '<svg' "$tmp/gp/$p.svg" || fail "$p.svg missing or not SVG"
    [ -s "$tmp/gp/$p.png" ] && [ "$(head -c 4 "$tmp/gp/$p.png" | tail -c 3)" = "PNG" ] || fail "$p.png missing or not PNG"
    [ -s "$tmp/gp/$p.dat" ] || [ "$p" = "x" ] || fail "$p.dat missing"
    grep -qF "($p.svg)" "$tmp/gp/report.md" || fail "report.md does not show $p.svg"
done
# every series of the side-by-side busbw plot is there, named by N, transport and host (not R1/R2/R3), with the
# bound of the link each ran on drawn (none for the SHM run of an NVLinked pair: it did not use that link)
for s in "N=2 P2P, vm" "N=2 SHM, vm" "N=2 SHM, box3090" "N=4 SHM, box3090" "N=8 SHM, box3090" \
    "bound N=2: NV18 478 GB/s (P2P over NV18, vm)" "bound N=8: SYS 32 GB/s (SHM, box3090)"; do
    grep -qF "$s" "$tmp/gp/busbw_all_reduce.svg" || fail "series \"$s\" not in busbw_all_reduce.svg"
done
grep -q "bound N=2: NV18 478 GB/s (SHM, vm)" "$tmp/gp/busbw_all_reduce.dat" && fail "NVLink bound drawn for an SHM run"
grep -q "set logscale y" "$tmp/gp/plots.gp" || fail "busbw axis is not logarithmic"
ls "$tmp/gp" | grep -q 'tmp' && fail "temporary files left: $(ls "$tmp/gp")"
[ -s "$tmp/gp/plots.gp" ] || fail "plots.gp missing"
finish
