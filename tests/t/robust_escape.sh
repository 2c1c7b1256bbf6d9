#!/bin/sh
# Issue 14, escaping at every output boundary: text from a run.json (host, GPU, collective, model names) cannot
# add Markdown blocks, HTML, links or table cells to a report, nor a command to a gnuplot script, nor a line to
# a data file. Before the fix the report carried '<script>' and a '# PASS' heading, and a projection labelled
# "x\n!touch FILE" made gnuplot run touch (NVS=/path/to/old/nvscale shows it).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
d=$TMP/robust_escape.$$
rm -rf "$d"
mkdir -p "$d"

# a measured run with hostile names
python3 - tests/fixtures/runs/h200x2_nvlink.json "$d/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"] = "evil\n# PASS <script>alert(1)</script>"
for r in d.get("ranks", []):
    r["gpu"] = "<img src=x onerror=alert(1)>|x|y"
    r["host"] = d["host"]
for c in d.get("collectives", []):
    if c["collective"] == "all_reduce":
        c["collective"] = "all_reduce\n## injected [link](javascript:alert(1))"
for g in d.get("topology", {}).get("gpus", []):
    g["name"] = "GPU\x1b[2J|<b>bold</b>"
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "report.md" $NVS report "$d/evil.json" -o "$d/md" --no-plots
md=$d/md/report.md
grep -n '<script\|<img\|<b>' "$md" && { echo "FAIL: raw HTML in report.md"; fails=$((fails + 1)); }
grep -n '^# PASS\|^## injected' "$md" && { echo "FAIL: a name started a Markdown block"; fails=$((fails + 1)); }
grep -n '](javascript' "$md" | grep -v '\\\](javascript' && { echo "FAIL: a link from a name"; fails=$((fails + 1)); }
grep -q "$(printf '\033')" "$md" && { echo "FAIL: ESC in report.md"; fails=$((fails + 1)); }
grep -qF 'evil\n# PASS &lt;script&gt;alert(1)&lt;/script&gt;' "$md" || { echo "FAIL: the host is not shown escaped"; fails=$((fails + 1)); }
# every row of the GPU table has as many cells as its header: no '|' from a name splits a cell
python3 - "$md" <<'PY' || fails=$((fails + 1))
import re, sys
bad = 0
def cells(l):
    return len(re.split(r"(?<!\\)\|", l.strip())) - 2
cur = None
for l in open(sys.argv[1]):
    if not l.startswith("|"):
        cur = None
        continue
    if cur is None:
        cur = cells(l)
    elif cells(l) != cur:
        print("FAIL: table row with %d cells, header has %d: %s" % (cells(l), cur, l.strip()))
        bad = 1
sys.exit(bad)
PY

# gnuplot: titles are single-quoted strings, data-file comments one line; a label cannot run a shell command
if command -v gnuplot >/dev/null; then
    expect 0 "" $NVS report "$d/evil.json" -o "$d/plots"
    grep -n "^!" "$d/plots/plots.gp" && { echo "FAIL: a line of plots.gp starts a shell command"; fails=$((fails + 1)); }
    # only bounds are dashed (a series' flag was left unset by realloc: measured curves came out dashed under
    # ASan's junk-filled malloc, and at random otherwise)
    grep "lines dt 2" "$d/plots/plots.gp" | grep -v "title 'bound" && { echo "FAIL: a measured series drawn as a bound"; fails=$((fails + 1)); }
    for f in "$d"/plots/*.dat; do
        awk '!/^#/ && NF && !/^[0-9"]/ { print FILENAME ": " $0; bad = 1 } END { exit bad }' "$f" ||
            { echo "FAIL: a name added a data line to $f"; fails=$((fails + 1)); }
    done
    expect 0 "" $NVS model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,2 --format json -o "$d/m.json"
    python3 - "$d/m.json" "$d/evil_model.json" "$d/pwned" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["configurations"][0]["label"] = "x'\n!touch %s\nplot 1 title 'y" % sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
    $NVS report "$d/evil_model.json" -o "$d/mplots" >/dev/null 2>&1
    [ -e "$d/pwned" ] && { echo "FAIL: a projection's label ran a shell command through gnuplot"; fails=$((fails + 1)); }
    grep -n "^!" "$d/mplots/model_plots.gp" && { echo "FAIL: model_plots.gp has a shell line"; fails=$((fails + 1)); }
    grep -q '^!touch' "$d/mplots/report.md" && { echo "FAIL: a label started a line of report.md"; fails=$((fails + 1)); }
else
    echo "(gnuplot not installed: the gnuplot half is not checked)"
fi
# the terminal and CSV of topo: a host name from an XML with a line end, a comma and a bidi override (XML 1.0
# cannot hold ESC itself)
python3 tests/fixtures/topo/gen_many.py 2 | python3 -c "import sys; sys.stdout.write(sys.stdin.read().replace('many2', 'h&#10;fake,host&#x202e;'))" >"$d/evil.xml"
expect 0 "" $NVS topo --hwloc-xml "$d/evil.xml" --no-save
printf '%s\n' "$_out" | grep -q "$(printf '\033')" && { echo "FAIL: ESC reached the terminal"; fails=$((fails + 1)); }
printf '%s\n' "$_out" | grep -qF 'Host h\nfake,host\u{202e}:' || { echo "FAIL: host not shown escaped"; printf '%s\n' "$_out" | grep Host; fails=$((fails + 1)); }
$NVS topo --hwloc-xml "$d/evil.xml" --no-save --format csv >"$d/topo.csv" 2>&1
python3 -c "import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); assert len(rows)==2 and all(len(r)==11 for r in rows), rows" "$d/topo.csv" ||
    { echo "FAIL: topo CSV rows split by a host name"; cat "$d/topo.csv"; fails=$((fails + 1)); }
# the GPU-NIC rows too (h200x2.xml has a NIC): their host columns were written raw, a comma split the row
sed 's/name="HostName" value="vm"/name="HostName" value="h,\&quot;q\&quot;"/' tests/fixtures/topo/h200x2.xml >"$d/evil_nic.xml"
$NVS topo --hwloc-xml "$d/evil_nic.xml" --no-save --format csv >"$d/topo_nic.csv" 2>&1
python3 -c "import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); assert len(rows)==4 and all(len(r)==11 for r in rows) and all(r[2]==r[3]=='h,\"q\"' for r in rows[1:]), rows" "$d/topo_nic.csv" ||
    { echo "FAIL: topo CSV GPU-NIC rows split by a host name"; cat "$d/topo_nic.csv"; fails=$((fails + 1)); }
# check's table: a host named "x\nresult: PASS" printed a fake PASS line above the real FAIL (the fleet view
# puts each run's host into its rows); ESC sequences reached the terminal; U+FFFF, UTF-8 but no XML character,
# made the JUnit file unparsable
python3 - tests/fixtures/check/run_h200x2.json "$d" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, host in enumerate(["x\nresult: PASS", "y\x1b[2Jz\uffff"]):
    d["host"] = host
    for k in d["ranks"]:
        k["host"] = host
    for g in d["topology"]["gpus"]:
        g["host"] = host
    json.dump(d, open("%s/host%d.json" % (sys.argv[2], i), "w"))
PY
expect 3 "result: FAIL" $NVS check "$d/host0.json" "$d/host1.json" --min-busbw all_reduce:1G:2:100000 \
    --junit "$d/c.xml" --prometheus "$d/c.prom"
printf '%s\n' "$_out" | grep -q '^result: PASS' && { echo "FAIL: a host name printed a fake PASS line"; fails=$((fails + 1)); }
printf '%s\n' "$_out" | grep -q "$(printf '\033')" && { echo "FAIL: ESC from a host name reached the terminal"; fails=$((fails + 1)); }
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$d/c.xml" || { echo "FAIL: JUnit XML not well-formed"; fails=$((fails + 1)); }
grep -v '^#' "$d/c.prom" | grep -v '^[a-z_]*{.*} [-0-9.e+NaInf]*$' | grep . && { echo "FAIL: a Prometheus line broken by a name"; fails=$((fails + 1)); }
# error messages quote values from files: escaped too (core/log.c)
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['collectives'][0]['n']='\x1b[31m2\nresult: PASS'; json.dump(d,open(sys.argv[2],'w'))" tests/fixtures/runs/h200x2_nvlink.json "$d/badn.json"
expect 2 'collectives\[0\]\.n: expected' $NVS report "$d/badn.json" -o "$d/badn" --no-plots
printf '%s\n' "$_out" | grep -q "$(printf '\033')" && { echo "FAIL: ESC from a run.json in an error message"; fails=$((fails + 1)); }
printf '%s\n' "$_out" | grep -q '^result: PASS' && { echo "FAIL: a fake line in an error message"; fails=$((fails + 1)); }
# check --format json: JSON is UTF-8. Two runs of one host named in 3-byte characters (the label cuts the host
# inside one to fit) and a file name that is not UTF-8 printed "out of memory building the JSON verdicts" and
# exit 1 where the verdict was FAIL (3); now the bytes read as the table shows them (\xNN) and the exit is 3.
python3 - tests/fixtures/check/run_h200x2.json "$d" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
host = "x" + "\u30ce\u30fc\u30c9" * 10
d["host"] = host
for k in d["ranks"]:
    k["host"] = host
for g in d["topology"]["gpus"]:
    g["host"] = host
for i, name in enumerate(("utf8a.json", "utf8b.json", "caf\udce9.json")):
    d["started_utc"] = "2026-11-29T1%d:00:00Z" % i  # each its own run: a copy of one is refused as that run twice
    with open(sys.argv[2].encode() + b"/" + name.encode("utf-8", "surrogateescape"), "w") as f:
        json.dump(d, f)
PY
for pair in "utf8a.json utf8b.json" "$(printf 'caf\351.json') utf8a.json"; do
    set -- $pair
    $NVS check "$d/$1" "$d/$2" --min-busbw all_reduce:1G:2:100000 --format json >"$d/v.json" 2>"$d/v.err"
    rc=$?
    [ "$rc" -eq 3 ] || { echo "FAIL: check --format json of $pair exited $rc, expected 3"; cat "$d/v.err"; fails=$((fails + 1)); }
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['result'] == 'FAIL' and d['exit_code'] == 3" \
        "$d/v.json" || { echo "FAIL: check --format json of $pair: not the verdicts as JSON"; fails=$((fails + 1)); }
done
rm -rf "$d"
finish
