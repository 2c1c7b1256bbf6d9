#!/bin/sh
# tools/paired_null.py (the null test of paired rounds on one GPU): from made-up ddp_bench lines at world size 1 it
# gives each line's three estimates and their distance from 100 %; it refuses (exit 2, one message) lines that are
# not world size 1 or have no rounds. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1
. tests/lib.sh
need_cmd python3 "tools/paired_null.py is Python"
tmp_dir d
P="python3 tools/paired_null.py"
line() { # world rounds-json: round_ddp1_us, round_world_us; step_ddp1_us = round 1's, eff_ddp1_paired computed
    python3 - "$@" <<'PY'
import json, statistics, sys
w = int(sys.argv[1]); rd, rw = json.loads(sys.argv[2]), json.loads(sys.argv[3])
d = dict(tool="ddp_bench", schema="ddp_bench/2", config="lm290m:bf16:8", world_size=w, steps=8, rounds=len(rd),
         round_ddp1_us=rd, round_world_us=rw, step_ddp1_us=rd[0], step_us=rw[0],
         eff_ddp1_paired=statistics.median(a / b for a, b in zip(rd, rw)))
print(json.dumps(d))
PY
}
# round 1: 60 / 50 = 120 %; pooled: median 50 / median 50 = 100 %; paired: 1.2, 1.0, 1.0 -> 100 %
line 1 '[60, 50, 40]' '[50, 50, 40]' >"$d/a.jsonl"
# a second line: 45 / 50 = 90 %; pooled 50 / 50; paired 0.9, 1.0, 1.1 -> 100 %
line 1 '[45, 50, 55]' '[50, 50, 50]' >>"$d/a.jsonl"
expect 0 "" $P "$d/a.jsonl" --out "$d/t.md"
grep -q "| .*a.jsonl:1 | lm290m:bf16:8 | 3 x 8 | 120.0 | 100.0 | 100.0 | 100.0-120.0 |" "$d/t.md" ||
    fail "line 1: $(cat "$d/t.md")"
grep -q "| .*a.jsonl:2 | lm290m:bf16:8 | 3 x 8 | 90.0 | 100.0 | 100.0 | 90.0-110.0 |" "$d/t.md" || fail "line 2"
# round 1: largest 20, rms sqrt((400 + 100) / 2) = 15.81; the other two 0
grep -q "| round 1 (one block each) | 20.00 | 15.81 |" "$d/t.md" || fail "round 1 distance: $(tail -4 "$d/t.md")"
grep -q "| paired rounds (median of the rounds' ratios) | 0.00 | 0.00 |" "$d/t.md" || fail "paired distance"
line 2 '[60, 50]' '[50, 50]' >"$d/w2.jsonl"
expect 2 "world size 2: the null test needs world size 1" $P "$d/w2.jsonl"
echo '{"tool": "ddp_bench", "world_size": 1, "step_us": 5}' >"$d/norounds.jsonl"
expect 2 "no paired rounds" $P "$d/norounds.jsonl"
echo 'nope' >"$d/bad.jsonl"
expect 2 "bad.jsonl:1: not JSON" $P "$d/bad.jsonl"
expect 2 "no such file|No such file" $P "$d/missing.jsonl"
finish
