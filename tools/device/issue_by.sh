#!/bin/bash
# Where nvscale's host time to issue a step goes (run.json issue_by_us, ideal_compute_issue_us), ResNet-50 on ONE
# GPU: for each precision and batch, the step under --framework pytorch-ddp and ideal. Usage:
# [PRECS="fp16 bf16 fp32"] [BATCHES="64 128"] [MODEL=resnet50] tools/device/issue_by.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/issue-by-$(basename "$R").tar.gz" "$R"' EXIT
step build
gpu_build "$R" nvscale
describe "$R"
commands_header
M=${MODEL:-resnet50}
for P in ${PRECS:-fp16 bf16 fp32}; do
    for B in ${BATCHES:-64 128}; do
        for F in pytorch-ddp ideal; do
            step "$M $P batch $B $F"
            rec "nvs-$P-$B-$F" timeout 120 ./nvscale train --model "$M" --batch "$B" --precision "$P" --framework "$F" \
                --steps 15 --warmup-steps 3 --out "$R/raw/nvs-$P-$B-$F"
        done
    done
done
step summary
python3 - "$R"/raw/nvs-*/run.json >"$R/issue-by.txt" <<'PY'
import json, sys
for f in sys.argv[1:]:
    t = json.load(open(f))["train"]
    r = t["results"][0]
    by = " ".join("%s %.1f" % (k, v / 1e3) for k, v in r.get("issue_by_us", {}).items() if v >= 50)
    print("%s %s b%d %-11s step %.1f issue %.1f ideal_issue %s | %s" % (
        t["model"], t["precision"], t["batch"], t["framework"]["name"], r["step_us"] / 1e3, r["issue_us"] / 1e3,
        "%.1f" % (r["ideal_compute_issue_us"] / 1e3) if "ideal_compute_issue_us" in r else "-", by))
PY
cat "$R/issue-by.txt"
step done
