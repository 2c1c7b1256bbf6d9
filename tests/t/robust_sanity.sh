#!/bin/sh
# Issue 14, derived numbers that cannot be right as they stand (src/runjson/sanity.h): a training efficiency
# above 100 % by more than timing noise (a tiny profile gave 146.4 % without a word) and a busbw above the bound
# of the link it ran on get a WARN row in check (exit unchanged: a warning is not a failure) and a Warnings
# section in report; a baseline from another kind of machine or backend is a WARN row too (a CPU run checked
# against a GPU baseline printed "0.0 GB/s >= 0.0 GB/s (+140.8 %)"). NVS=/path/to/old/nvscale shows the silence.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot write the fixtures"
tmp_dir d
ref=tests/fixtures/check/run_h200x2.json
python3 - "$ref" "$d" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["train"]["results"][1]["efficiency"] = 1.464
d["train"]["results"][1]["step_us"] = 68300.0
for c in d["collectives"]:
    if c["collective"] == "all_reduce" and c["n"] == 2 and c["bytes"] == 1 << 30:
        c["busbw_gbps"] = 600.0  # the NV18 bound of the fixture is 478.1 GB/s
json.dump(d, open(sys.argv[2] + "/odd.json", "w"))
PY
expect 0 "WARN" $NVS check "$d/odd.json" --min-busbw all_reduce:1M:2:1
printf '%s\n' "$_out" | grep -q "^sanity: training efficiency n=2 .*146.4%.*WARN" ||
    fail "no WARN row for 146.4 % efficiency: $(printf '%s\n' "$_out" | grep -i effic)"
printf '%s\n' "$_out" | grep -q "^sanity: busbw all_reduce 1 GiB n=2.*600.0 GB/s.*<= 478.1 GB/s.*WARN" ||
    fail "no WARN row for busbw above the bound"
printf '%s\n' "$_out" | grep -q "^result: PASS" || fail "a warning changed the verdict"
# the note whole, not cut at a fixed width ("...host launch overhead of a sma")
printf '%s\n' "$_out" | grep -q "this run's efficiencies are not scaling" || fail "the efficiency note is cut short"
expect 0 "report.md" $NVS report "$d/odd.json" -o "$d/r" --no-plots
grep -q "^### Warnings" "$d/r/report.md" && grep -q "146.4 % at N=2" "$d/r/report.md" ||
    fail "report.md has no Warnings section for the efficiency"
grep -q "600.0 GB/s is above the 478.1 GB/s bound" "$d/r/report.md" || fail "report.md does not warn about the bound"
# the unchanged fixture has nothing to warn about
expect 0 "" $NVS check "$ref" --min-busbw all_reduce:1M:2:1
printf '%s\n' "$_out" | grep -q "^sanity:" && fail "a WARN row for a sound run"
# a CPU run against a GPU baseline: a WARN row naming both, and numbers below 1 GB/s with their digits
python3 - "$ref" "$d" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["command"]["backend"] = "mpi"
for r in d["ranks"]:
    r["gpu"] = "host memory (MPI)"
for c in d["collectives"]:
    if c["busbw_gbps"] is not None:
        c["busbw_gbps"] = c["busbw_gbps"] / 2000.0
json.dump(d, open(sys.argv[2] + "/cpu.json", "w"))
PY
expect 3 "baseline machine +different machine +the same kind .*WARN" $NVS check "$d/cpu.json" --baseline "$ref" \
    --max-below-baseline 5
printf '%s\n' "$_out" | grep -q "0\.0 GB/s *>= 0\.0 GB/s" && fail "numbers below 1 GB/s printed as 0.0"
printf '%s\n' "$_out" | grep -q "backend nccl vs mpi" || fail "the backends are not named"
finish
