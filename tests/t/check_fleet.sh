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
if 'host="node3"' not in open(d + "/fleet.prom").read():
    errors.append("prometheus: node3 not labelled")
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
expect 2 "invalid value '100' for --fleet-max-below" "$NVS" check "$dir/node0.json" "$dir/node1.json" --fleet-max-below 100
# a different machine in the fleet is said (a WARN: its numbers are shown, compared with care)
expect 0 "fleet machine node9 .*different machine .*WARN" "$NVS" check "$dir/node0.json" "$dir/node1.json" "$dir/h100.json"

# a baseline from an H100 box: said, as a WARN row and on stderr; the rules decide the verdict
expect 0 "warning: .*h100.json and .*node0.json are not the same kind of machine: GPU NVIDIA H100 80GB HBM3 vs NVIDIA H200" \
    "$NVS" check "$dir/node0.json" --baseline "$dir/h100.json" --max-below-baseline 5
"$NVS" check "$dir/node0.json" --baseline "$dir/h100.json" --max-below-baseline 5 2>/dev/null | grep -q "^baseline machine .*WARN" ||
    fail "no WARN row for the baseline's machine"

# accept's health rules on a saved run
printf 'nvscale-rules 1\nhealth xid\nhealth ecc\n' >"$dir/health.rules"
expect 3 "xid GPU1 .*FAIL .*XID 79 x1 \\(GPU has fallen off the bus\\)" "$NVS" check "$dir/health.json" --rules "$dir/health.rules"
expect 3 "health xid +not measured .*no health section" "$NVS" check "$ref" --rules "$dir/health.rules"
finish
