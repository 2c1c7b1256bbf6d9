#!/bin/sh
# NVLS (NVLink SHARP) at the N where NCCL used it: run.json's transports entry says "nvls": true
# (src/explain/nccl_log_comm.c reads the communicator's "NVLS comm" line), but the report's Why and its transports
# table said only "P2P", as if the NVSwitch had not reduced. The report derives the facts itself (no explain
# section) and names NVLS there only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot edit the JSON"
tmp_dir dir
R=tests/fixtures/runs

python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d.pop('explain', None)
for t in d['transports']: t['nvls'] = True
json.dump(d, open(sys.argv[2], 'w'))" "$R/h200x2_nvlink.json" "$dir/nvls.json" || stop "the file with NVLS"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/o" "$dir/nvls.json" || stop "report nvls"
grep -q '^| 2 | P2P, with NVLink SHARP (NVLS) | P2P 16 |' "$dir/o/report.md" ||
    fail "the transports table does not name NVLS at N=2"
grep -q 'At 2 GPUs .*NCCL used P2P over NVLink, with NVLink SHARP (NVLS: the NVSwitch reduces)' "$dir/o/report.md" ||
    fail "the Why does not name NVLS at N=2"
# the same run without NVLS says nothing of it
expect_err 0 "" "$NVS" report --no-plots -o "$dir/p" "$R/h200x2_nvlink.json" || stop "report nvlink"
grep -q 'NVLink SHARP' "$dir/p/report.md" && fail "a run without NVLS names it"
finish
