#!/bin/sh
# nvscale check with several run.json files (the fleet view), a baseline from another kind of machine, accept's
# rules on a saved run, and the JUnit / Prometheus outputs of check:
#   - four hosts' copies of the reference run, one with all_reduce 25 % slower: exit 3, that host named, the
#     others PASS; a looser --fleet-max-below passes; a host of other GPUs in the fleet is a WARN
#   - a baseline whose GPUs are other GPUs: a WARN row and a warning, the verdict otherwise unchanged
#   - health rules on a run.json with a health section: one row per GPU, the XID FAIL names its GPU
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot write the fixtures"
tmp_dir dir
ref=tests/fixtures/check/run_h200x2.json

# four hosts; node3's all_reduce busbw is 25 % lower; node9 is an H100 box
python3 - "$ref" "$dir" <<'PY'
import copy, json, sys
ref, d = json.load(open(sys.argv[1])), sys.argv[2]
for i, host in enumerate(["node0", "node1", "node2", "node3"]):
    r = copy.deepcopy(ref)
    r["host"] = host
    r["started_utc"] = "2026-11-29T%02d:00:00Z" % [12, 11, 9, 13][i]  # node2's the earliest
    r["duration_s"] = 40.0 + i
    for k in r["ranks"]:
        k["host"] = host
    for g in r["topology"]["gpus"]:
        g["host"] = host
    for c in r["collectives"]:
        if c["collective"] == "all_reduce" and c["busbw_gbps"] is not None:
            c["busbw_gbps"] *= (0.75 if host == "node3" else 1.0 + 0.005 * i)
    json.dump(r, open("%s/%s.json" % (d, host), "w"))
r = copy.deepcopy(ref)
r["host"] = "node9"
for g in r["topology"]["gpus"]:
    g["name"] = "NVIDIA H100 80GB HBM3"
json.dump(r, open("%s/h100.json" % d, "w"))
# a run with a health section: GPU 1 saw XID 79
r = copy.deepcopy(ref)
snap = {"ecc": {"enabled": True, "uncorrected_volatile": 0, "uncorrected_aggregate": 0, "corrected_volatile": 0},
        "row_remap": {"pending": False, "failure": False, "corrected": 0, "uncorrected": 0}}
r["health"] = {"source": "nvml, driver 580.159.04", "window_s": 60, "sample_ms": 100, "gpus": [
    {"host": "vm", "pci_bus_id": g["pci_bus_id"], "name": "NVIDIA H200", "gpu": i, "status": "ok",
     "before": snap, "after": snap, "xid": {"watched": True, "events": [{"xid": 79, "count": 1}] if i == 1 else []}}
    for i, g in enumerate(r["topology"]["gpus"])]}
json.dump(r, open("%s/health.json" % d, "w"))
PY

expect 3 '"result": "FAIL"' "$NVS" check "$dir/node0.json" "$dir/node1.json" "$dir/node2.json" "$dir/node3.json" \
    --junit "$dir/fleet.xml" --prometheus "$dir/fleet.prom" --format json
"$NVS" check "$dir/node0.json" "$dir/node1.json" "$dir/node2.json" "$dir/node3.json" --format json >"$dir/fleet.json" 2>/dev/null
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
v = json.load(open(d + "/fleet.json"))["verdicts"]
fails = [x for x in v if x["verdict"] == "FAIL"]
errors = []
if not fails or any(x["host"] != "node3" or x["kind"] != "fleet" or "all_reduce" not in x["metric"] for x in fails):
    errors.append("the outlier is not node3's all_reduce alone: %s" % [(x["metric"], x["host"]) for x in fails])
if not any(x["verdict"] == "PASS" and x["host"] == "node1" and "all_reduce 1 GiB" in x["metric"] for x in v):
    errors.append("node1's all_reduce is not a PASS row")
if not any("25.0% below the median" in x["note"] or "below the median" in x["note"] for x in fails):
    errors.append("the outlier's note does not say how far below the median it is")
t = ET.parse(d + "/fleet.xml").getroot()
if t.get("failures") != str(len(fails)):
    errors.append("junit: %s failures for %d FAIL rows" % (t.get("failures"), len(fails)))
if len(t.findall("testsuite/testcase")) != len(v):
    errors.append("junit: %d testcases for %d rows" % (len(t.findall("testsuite/testcase")), len(v)))
# the header holds for the whole fleet, not for its first run: when the fleet's measurements began (node2's
# start, the earliest), no one host, no one run's duration; every run named (the first run's host, time and
# path stood for all four)
s = t.find("testsuite")
if s.get("timestamp") != "2026-11-29T09:00:00Z" or s.get("hostname") is not None or s.get("time") is not None \
        or t.get("time") is not None:
    errors.append("junit header: timestamp %s hostname %s time %s (want the earliest start, no host, no time)"
                  % (s.get("timestamp"), s.get("hostname"), s.get("time")))
# the JSON names every run judged ("run" alone is the first's)
jr = json.load(open(d + "/fleet.json")).get("runs") or []
if [r.rsplit("/", 1)[-1] for r in jr] != ["node%d.json" % i for i in range(4)]:
    errors.append("json: runs %s, want the four runs" % jr)
runs = [p.get("value") for p in s.findall("properties/property") if p.get("name") == "run"]
if [r.rsplit("/", 1)[-1] for r in runs] != ["node%d.json" % i for i in range(4)]:
    errors.append("junit: run properties %s, want the four runs" % runs)
if 'host="node3"' not in open(d + "/fleet.prom").read():
    errors.append("prometheus: node3 not labelled")
# every row of a fleet is one host's, and says which (run result and efficiency rows blame no rank: their host
# label was empty, so a per-host alert on node3's Prometheus series missed a failed run of node3)
for x in v:
    if not x["host"]:
        errors.append("row '%s' has no host" % x["metric"])
if any('host=""' in l for l in open(d + "/fleet.prom") if l.startswith("nvscale_check_status")):
    errors.append("prometheus: a row with host=\"\"")
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
expect 0 "result: PASS" "$NVS" check "$dir/node0.json" "$dir/node1.json" "$dir/node2.json" "$dir/node3.json" \
    --fleet-max-below 30
# the row's rule says the limit given, not rounded to a whole percent (2.5 read "at most 3%")
"$NVS" check "$dir/node0.json" "$dir/node1.json" --fleet-max-below 2.5 --format json >"$dir/fl.json" 2>/dev/null
json_get "$dir/fl.json" "sorted(set(v['rule'] for v in d['verdicts'] if v['kind'] == 'fleet'))" |
    grep -qF "['fleet: at most 2.5% below the median']" || fail "fleet rule text: $(cat "$dir/fl.json" | grep '"rule": "fleet' | head -1)"
# a value just short of its limit never prints as the limit: "1.7 GB/s >= 1.7 GB/s ... FAIL" (one decimal)
# read as a pass. edge2's all_reduce and training efficiency are 0.8999 of the others': 0.01 % short of
# --fleet-max-below 10. Efficiency rows are in a unit docs/check.md lists (fraction), not "%".
python3 - "$ref" "$dir" <<'PY'
import copy, json, sys
ref, d = json.load(open(sys.argv[1])), sys.argv[2]
for i, host in enumerate(["edge0", "edge1", "edge2"]):
    r = copy.deepcopy(ref)
    r["host"] = host
    for k in r["ranks"]:
        k["host"] = host
    for g in r["topology"]["gpus"]:
        g["host"] = host
    f = 0.8999 if host == "edge2" else 1.0
    for c in r["collectives"]:
        if c["collective"] == "all_reduce" and c["busbw_gbps"] is not None:
            c["busbw_gbps"] *= f
    for t in r["train"]["results"]:
        if t["n"] > 1:
            t["efficiency"] *= f
    json.dump(r, open("%s/%s.json" % (d, host), "w"))
PY
"$NVS" check "$dir/edge0.json" "$dir/edge1.json" "$dir/edge2.json" --fleet-max-below 10 --format json >"$dir/edge.json" 2>/dev/null
# the report's fleet table too: edge2 is 10.01 % below the median, which "%.1f" printed as "10.0 % below" under
# "more than 10 % below the median"
"$NVS" report "$dir/edge0.json" "$dir/edge1.json" "$dir/edge2.json" -o "$dir/edgerep" >/dev/null 2>&1
grep -q "more than 10 % below the median" "$dir/edgerep/report.md" || fail "report: no fleet table"
grep -q "R3 (edge2): .*, 10\.01 % below" "$dir/edgerep/report.md" && ! grep -q "10\.0 % below" "$dir/edgerep/report.md" ||
    fail "report's fleet table: $(grep -o 'R3 (edge2)[^|]*' "$dir/edgerep/report.md" | head -2)"
# the other check tables: an efficiency and a busbw threshold just above the run's 0.9615 and 327.09 GB/s
"$NVS" check "$ref" --min-efficiency 0.96152 --min-busbw all_reduce:1G:2:327.1 --format json >"$dir/edge1.json" 2>/dev/null
# and held to a baseline 0.01 % past --max-below-baseline: the note's "N% below it (limit L%)" too
"$NVS" check "$dir/edge2.json" --baseline "$dir/edge0.json" --max-below-baseline 10 --format json >"$dir/edge3.json" 2>/dev/null
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, re, sys
d = sys.argv[1]
errors = []
def num(s):
    m = re.search(r"-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", s)
    return float(m.group(0)) if m else None
rows = [x for x in json.load(open(d + "/edge.json"))["verdicts"] if x["kind"] == "fleet" and x["measured_value"] is not None]
rows += [x for x in json.load(open(d + "/edge1.json"))["verdicts"] if x["kind"] in ("efficiency", "busbw")]
fails = [x for x in rows if x["verdict"] == "FAIL"]
if len(fails) < 3:
    errors.append("expected FAIL rows at the edge, got %d" % len(fails))
for x in rows:
    m, e = num(x["measured"]), num(x["expected"])
    if x["verdict"] == "FAIL" and not m < e or x["verdict"] == "PASS" and not m >= e:
        errors.append("%s: '%s' vs '%s' reads as the other verdict than %s" % (x["metric"], x["measured"], x["expected"], x["verdict"]))
    if x["verdict"] == "FAIL" and num(x["margin"]) >= 0:
        errors.append("%s: FAIL with margin '%s'" % (x["metric"], x["margin"]))
    if x["unit"] not in ("GB/s", "fraction"):
        errors.append("%s: unit '%s' is not one docs/check.md lists" % (x["metric"], x["unit"]))
    if x["metric"].startswith("fleet efficiency") and (x["unit"] != "fraction" or not 0 < x["measured_value"] <= 1):
        errors.append("%s: unit %s, value %s, not a fraction" % (x["metric"], x["unit"], x["measured_value"]))
# a FAIL's note must not read as within the limit: "10.0% below the median" / "10.0% below it (limit 10.0%)"
base = [x for x in json.load(open(d + "/edge3.json"))["verdicts"] if x["kind"] == "busbw" and "below it" in x["note"]]
if not any(x["verdict"] == "FAIL" for x in base):
    errors.append("no FAIL row against the baseline")
for x in [y for y in rows if y["kind"] == "fleet"] + base:
    m = re.search(r"([0-9.]+)% below (the median|it \(limit ([0-9.]+)%\))", x["note"])
    if x["verdict"] == "FAIL" and m and not float(m.group(1)) > float(m.group(3) or 10):
        errors.append("%s: FAIL with the note '%s'" % (x["metric"], x["note"]))
if not any(x["metric"].startswith("fleet efficiency") for x in rows):
    errors.append("no fleet efficiency row")
if errors:
    print("FAIL: " + "\n      ".join(errors[:12]))
    sys.exit(1)
PY
# one run named twice (a glob and a name, a link): refused, not counted twice in the median. node0 twice made
# the median node0's and node1..node3 read against it
expect 2 "node0.json and .*/./node0.json are the same file" "$NVS" check "$dir/node0.json" "$dir/node1.json" \
    "$dir/./node0.json"
expect 2 "invalid value '100' for --fleet-max-below" "$NVS" check "$dir/node0.json" "$dir/node1.json" --fleet-max-below 100
# a different machine in the fleet is said (a WARN: its numbers are shown, compared with care)
expect 0 "fleet machine node9 .*different machine .*WARN" "$NVS" check "$dir/node0.json" "$dir/node1.json" "$dir/h100.json"
# the odd machine is named whatever its place: given first, it was the H200 boxes that read "different machine"
"$NVS" check "$dir/h100.json" "$dir/node0.json" "$dir/node1.json" >"$dir/odd.txt" 2>&1
grep -q "^fleet machine node9 .*WARN .*H200 vs NVIDIA H100 80GB HBM3" "$dir/odd.txt" && ! grep -q "^fleet machine node[01]" "$dir/odd.txt" ||
    fail "the H100 box given first: $(grep '^fleet machine' "$dir/odd.txt" | head -2)"

# two runs of one machine: each row names its run, not only the host ("vm: run result" twice, "@ vm" twice;
# results/h200x2-final5/default against h200x2-final3/default-run): the host and the run's directory (a run.json)
# or file name, its position where those repeat too; a host that ran once keeps its bare name
# (each its own run: another start; a copy of one run is refused as that run twice, report_errors.sh)
mkdir -p "$dir/a" "$dir/b" "$dir/x/a" "$dir/y/a"
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
for i, sub in enumerate(["a", "b", "x/a", "y/a"]):
    r = json.load(open(d + "/node0.json"))
    r["started_utc"] = "2026-11-30T%02d:00:00Z" % i
    json.dump(r, open("%s/%s/run.json" % (d, sub), "w"))
PY
"$NVS" check "$dir/a/run.json" "$dir/b/run.json" "$dir/node1.json" --format json >"$dir/same.json" 2>/dev/null
"$NVS" check "$dir/x/a/run.json" "$dir/y/a/run.json" --format json >"$dir/same2.json" 2>/dev/null
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, sys
d = sys.argv[1]
errors = []
for f, want in (("same.json", ["node0 (a): run result", "node0 (b): run result", "node1: run result",
                               "fleet busbw all_reduce 1 GiB n=2 @ node0 (b)", "fleet busbw all_reduce 1 GiB n=2 @ node1"]),
                ("same2.json", ["node0 (run 1): run result", "node0 (run 2): run result",
                                "fleet busbw all_reduce 1 GiB n=2 @ node0 (run 2)"])):
    m = [x["metric"] for x in json.load(open(d + "/" + f))["verdicts"]]
    if len(set(m)) != len(m):
        errors.append("%s: rows of the same name: %s" % (f, sorted(x for x in set(m) if m.count(x) > 1)[:4]))
    errors += ["%s: no row '%s' (%s)" % (f, w, m[:3]) for w in want if w not in m]
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY

# a baseline from an H100 box: said, as a WARN row and on stderr; the rules decide the verdict
expect 0 "warning: .*h100.json and .*node0.json are not the same kind of machine: GPU NVIDIA H100 80GB HBM3 vs NVIDIA H200" \
    "$NVS" check "$dir/node0.json" --baseline "$dir/h100.json" --max-below-baseline 5
"$NVS" check "$dir/node0.json" --baseline "$dir/h100.json" --max-below-baseline 5 2>/dev/null | grep -q "^baseline machine .*WARN" ||
    fail "no WARN row for the baseline's machine"

# a fleet of 64 hosts, each a full sweep (2 collectives x 28 sizes x both in-place modes x N = 1, 2, 4, 8): the
# largest size every host measured was looked for again for every row of every run, and this took about
# 80 s on 2 cores (minutes for a larger cluster); once per collective and N it takes a few seconds
mkdir -p "$dir/big"
python3 - "$ref" "$dir/big" <<'PY'
import copy, json, sys
ref, d = json.load(open(sys.argv[1])), sys.argv[2]
row = ref["collectives"][0]
rows = []
for coll in ("all_reduce", "broadcast"):
    for n in (1, 2, 4, 8):
        for e in range(3, 31):
            for inplace in (False, True):
                x = dict(row, collective=coll, n=n, bytes=2 ** e, count=2 ** e // 4, inplace=inplace,
                         root=-1 if coll == "all_reduce" else 0, busbw_gbps=0.0 if n == 1 else 100.0 + e)
                rows.append(x)
ref["collectives"] = rows
for i in range(64):
    ref["host"] = "big%02d" % i
    json.dump(ref, open("%s/big%02d.json" % (d, i), "w"))
PY
start=$(date +%s)
timeout 60 "$NVS" check "$dir"/big/big*.json --format json >"$dir/big.json" 2>/dev/null
rc=$? took=$(($(date +%s) - start))
[ "$rc" -eq 0 ] && [ "$took" -le 30 ] || fail "64 hosts x 448 rows: exit $rc after $took s (want 0 within 30 s)"

# accept's health rules on a saved run
printf 'nvscale-rules 1\nhealth xid\nhealth ecc\n' >"$dir/health.rules"
expect 3 "xid GPU1 .*FAIL .*XID 79 x1 \\(GPU has fallen off the bus\\)" "$NVS" check "$dir/health.json" --rules "$dir/health.rules"
expect 3 "health xid +not measured .*no health section" "$NVS" check "$ref" --rules "$dir/health.rules"
finish
