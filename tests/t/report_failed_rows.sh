#!/bin/sh
# A row whose result check found wrong elements is no evidence of a bandwidth (explain uses none, 49d8259), but the
# report's Scaling tables quoted its busbw as any other and took an efficiency from it (seen: mpirun -np 3 -x
# NVS_TEST_CORRUPT=1 nvscale coll --backend mpi --gpus 2,3: 'all_reduce efficiency 282.6 %' at N=3, under a Why
# saying its busbw is not used). The cell says "failed check", with a note, and gives no efficiency.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

cat >"$dir/r.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 3, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 10.0, "wrong": 0},
  {"collective": "all_reduce", "n": 3, "size": 65536, "bytes": 65536, "busbw_gbps": 28.0, "wrong": 8}]}
JSON
expect_err 0 "" "$NVS" report --no-plots -o "$dir/o" "$dir/r.json" || stop "report"
grep -q '^| 64 KiB | 10.00 | failed check |$' "$dir/o/report.md" || fail "the busbw Scaling table quotes a failed row"
grep -q '^| 3 | failed check | — |$' "$dir/o/report.md" || fail "an efficiency was taken from a failed row"
grep -q '280.0 %' "$dir/o/report.md" && fail "280 % efficiency of a row with wrong elements"
grep -q '^failed check: the row.s result check found wrong elements' "$dir/o/report.md" ||
    fail "no note says what failed check means"
grep -q '^| 64 KiB | — | — | 28.00 | — | 8 |$' "$dir/o/report.md" || fail "the collectives' table lost the row"
# a "skipped" cell after a "failed check" one in the same table lost the note of the failed one (busbw_cell set
# the flags to "skipped" instead of adding it)
cat >"$dir/s.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 3, "nodes": 1},
 "sweep": {"skipped": [{"collective": "all_gather", "n": 3, "type": "float", "sizes": 1, "of": 2, "from_bytes": 16,
                        "to_bytes": 16, "why": "1 of 2 sizes (16 B to 16 B) left out: too small"}]},
 "collectives": [
  {"collective": "all_gather", "n": 2, "size": 16, "bytes": 16, "busbw_gbps": 1.0, "wrong": 2},
  {"collective": "all_gather", "n": 2, "size": 48, "bytes": 48, "busbw_gbps": 2.0, "wrong": 0},
  {"collective": "all_gather", "n": 3, "size": 48, "bytes": 48, "busbw_gbps": 3.0, "wrong": 0}]}
JSON
expect_err 0 "" "$NVS" report --no-plots -o "$dir/s" "$dir/s.json" || stop "report"
grep -q '^| 16 B | failed check | skipped |$' "$dir/s/report.md" || fail "the Scaling cells of 16 B"
sed -n '/^### Scaling/,/^Efficiency/p' "$dir/s/report.md" | grep -q '^failed check: the row.s result check' ||
    fail "a skipped cell after a failed one dropped the note of the failed one"
# the busbw plot drew a failed row as a point of its curve (the efficiency plot already left it out): left out, and
# the series' title says so. A stand-in gnuplot draws every image plots.gp names, so that this runs without one.
stand_in_gnuplot "$dir/bin"
cat >"$dir/p.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 3, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 3, "size": 65536, "bytes": 65536, "busbw_gbps": 28.0, "wrong": 8},
  {"collective": "all_reduce", "n": 3, "size": 131072, "bytes": 131072, "busbw_gbps": 12.0, "wrong": 0}]}
JSON
PATH="$(cd "$dir/bin" && pwd):$PATH" expect_err 0 "" "$NVS" report -o "$dir/p" "$dir/p.json" || stop "report with plots"
grep -q '^65536 ' "$dir/p/busbw_all_reduce.dat" && fail "the busbw plot draws a row that failed its check"
grep -q '^131072 12$' "$dir/p/busbw_all_reduce.dat" || fail "the busbw plot lost a clean row"
grep -q '^# N=3 .*(1 size failed check, left out)$' "$dir/p/busbw_all_reduce.dat" ||
    fail "the series does not say a failed row was left out"
# a series whose every size failed its check was left off the plot without a word (the plot read as if the run had
# not measured N=2): its key entry says so, and it takes no data block (the next series keeps its own)
cat >"$dir/q.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 3, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 9.0, "wrong": 4},
  {"collective": "all_reduce", "n": 2, "size": 131072, "bytes": 131072, "busbw_gbps": 11.0, "wrong": 4},
  {"collective": "all_reduce", "n": 3, "size": 65536, "bytes": 65536, "busbw_gbps": 10.0, "wrong": 0},
  {"collective": "all_reduce", "n": 3, "size": 131072, "bytes": 131072, "busbw_gbps": 12.0, "wrong": 0}]}
JSON
PATH="$(cd "$dir/bin" && pwd):$PATH" expect_err 0 "" "$NVS" report -o "$dir/q" "$dir/q.json" || stop "report with plots"
grep -q "^plot NaN with lines lt nodraw title 'N=2 [^']*: not drawn, every size failed check', \\\\$" \
    "$dir/q/plots.gp" || { fail "the plot does not say N=2 was left out"; cat "$dir/q/plots.gp"; }
grep -q "^ *'busbw_all_reduce.dat' index 0 using 1:2 with linespoints title 'N=3 " "$dir/q/plots.gp" ||
    fail "the drawn series is not data block 0"
grep -q '^131072 11$' "$dir/q/busbw_all_reduce.dat" && fail "the busbw plot draws a row that failed its check"
# a collective whose every size failed its check got no plot at all (key entries alone were dropped: gnuplot cannot
# scale an axis on nothing), and with nothing else to draw the Plots section said "Nothing to plot.": the report read
# as if the collective had not been measured. A figure on fixed axes says so, with the series' key entries.
cat >"$dir/a.json" <<'JSON'
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 2, "nodes": 1},
 "collectives": [
  {"collective": "all_reduce", "n": 2, "size": 65536, "bytes": 65536, "busbw_gbps": 9.0, "wrong": 4},
  {"collective": "all_reduce", "n": 2, "size": 131072, "bytes": 131072, "busbw_gbps": 11.0, "wrong": 4}]}
JSON
PATH="$(cd "$dir/bin" && pwd):$PATH" expect_err 0 "" "$NVS" report -o "$dir/a" "$dir/a.json" || stop "report with plots"
grep -q 'Nothing to plot' "$dir/a/report.md" && fail "a collective that failed every size has no plot"
grep -q '^!\[all_reduce: bus bandwidth not drawn, every size failed its result check\](busbw_all_reduce.svg)$' \
    "$dir/a/report.md" || { fail "the report shows no figure for the collective that failed every size"; sed -n '/Plots/,$p' "$dir/a/report.md"; }
[ -s "$dir/a/busbw_all_reduce.svg" ] || fail "no image for the collective that failed every size"
grep -q "^plot NaN with lines lt nodraw title 'N=2 [^']*: not drawn, every size failed check'$" "$dir/a/plots.gp" ||
    { fail "its key entry does not say N=2 failed every size"; cat "$dir/a/plots.gp"; }
grep -q "^set yrange \[0:1\]$" "$dir/a/plots.gp" || fail "the figure of nothing has no fixed axes"
grep -q '^[0-9]' "$dir/a/busbw_all_reduce.dat" && fail "a failed row became a point"
# and a real gnuplot draws it (an axis scaled on nothing is an error there)
if command -v gnuplot >/dev/null 2>&1; then
    expect_err 0 "" "$NVS" report -o "$dir/g" "$dir/a.json" || stop "report with gnuplot"
    [ -s "$dir/g/busbw_all_reduce.svg" ] || fail "gnuplot drew no figure for the collective that failed every size"
fi
finish
