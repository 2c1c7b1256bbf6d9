#!/bin/sh
# tools/device/rank_states.py (issue 9, "At N=2" of docs/fidelity.md) on a made-up ddp_bench record whose answer
# is worked out by hand: a world-2 step is slow when either rank's probe is; the step is the slowest rank's; the
# efficiency is given overall and within the fast state. Bad input is refused with exit 2 and a message.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "the tool is Python"
tmp_dir d
R=tools/device/rank_states.py
# 1 GPU with DDP: 50 ms in the fast state (probe 800 us), 80 ms in the slow one (1500 us): median 65 ms.
# World 2: rank 0 slow before step 3, rank 1 before step 1 -> steps 1 and 3 slow; per step the slower rank's time
# 55, 91, 56, 90 ms: median 73, fast 55.5, slow 90.5 -> efficiency 65/73 = 89.0 %, fast state 50/55.5 = 90.1 %.
cat >"$d/rec.jsonl" <<'J'
{"tool": "ddp_bench", "config": "lm290m:bf16:8", "transport": "nvlink",
 "step_nodp_1_us_all": [40000, 40000, 60000], "step_nodp_1_detail": {"probe_us": [800, 800, 1500]},
 "step_ddp1_us_all": [50000, 50000, 80000, 80000], "step_ddp1_detail": {"probe_us": [800, 800, 1500, 1500]},
 "step_world_detail_per_rank": [
  {"ddp": {"step_us": [55000, 90000, 55000, 90000], "probe_us": [800, 800, 800, 1500]},
   "nosync": {"step_us": [50000, 50000, 50000, 50000], "probe_us": [800, 800, 800, 800]}},
  {"ddp": {"step_us": [54000, 91000, 56000, 89000], "probe_us": [800, 1500, 800, 800]},
   "nosync": {"step_us": [50000, 52000, 50000, 50000], "probe_us": [800, 1500, 800, 800]}}]}
J
tr -d '\n' <"$d/rec.jsonl" >"$d/one.jsonl" && echo >>"$d/one.jsonl"
expect 0 "\| lm290m:bf16:8 nvlink \| 1 GPU, DDP \| 4 \| 50 % \| 50 % \| 65.0 / 50.0 / 80.0 \|" python3 $R "$d/one.jsonl"
expect 0 "\| world 2, DDP \| 4 \| 25 % / 25 % \| 50 % \| 73.0 / 55.5 / 90.5 \| 89.0 % / 90.1 % \|" \
    python3 $R "$d/one.jsonl"
expect 0 "\| world 2, no_sync \| 4 \| 0 % / 25 % \| 25 % \| 50.0 / 50.0 / 52.0 \|" python3 $R "$d/one.jsonl"
# 3 + 4 + 8 + 8 probes, 6 of them above 1100 us (1 + 2 + 1 + 2): 26 %; sorted, 17 x 800 then 6 x 1500: p10 (index 2)
# 800, p50 (index 11) 800, p90 (index 20) 1500
expect 0 "probes: 23, above 1100 us \(slow\): 26 %; p10 800, p50 800, p90 1500 us" python3 $R "$d/one.jsonl"
# the split moves a step between states: above every probe, all steps are fast
expect 0 "\| world 2, DDP \| 4 \| 0 % / 0 % \| 0 % \| 73.0 / 73.0 / - \| 89.0 % / 89.0 % \|" \
    python3 $R --split-us 2000 "$d/one.jsonl"
expect 2 "--split-us 0: must be > 0" python3 $R --split-us 0 "$d/one.jsonl"
echo '{"tool": "nvscale"}' >"$d/other.jsonl"
expect 2 "other.jsonl:1: not a ddp_bench record" python3 $R "$d/other.jsonl"
expect 2 "rec.jsonl:1: not JSON" python3 $R "$d/rec.jsonl"
sed 's/"probe_us": \[800, 1500, 800, 800\]}/"probe_us": [800]}/' "$d/one.jsonl" >"$d/short.jsonl"
expect 2 "rank 1 ddp: needs step_us and probe_us lists of one length" python3 $R "$d/short.jsonl"
echo '{"tool": "ddp_bench", "config": "x"}' >"$d/old.jsonl"
expect 2 "no record with per-rank world-phase probes" python3 $R "$d/old.jsonl"
expect 2 "No such file" python3 $R "$d/none.jsonl"
finish
