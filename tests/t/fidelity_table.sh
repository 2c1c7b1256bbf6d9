#!/bin/sh
# tools/fidelity.py (issue 9's table of PyTorch DDP vs nvscale train): from made-up ddp_bench JSON Lines and
# nvscale run.json files it writes the CSV with the exact columns and the Markdown with rows outside the targets
# marked; it refuses (exit 2, one message, nothing written) missing files, files of the wrong kind, mislabelled
# transports and every mismatch or ambiguity between the two sides. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the tree
. tests/lib.sh
need_cmd python3 "tools/fidelity.py is Python"
tmp_dir d
FID="python3 tools/fidelity.py"

# --- PyTorch side: ddp_bench/2 lines (the numbers are invented for the test)
line() { # transport model precision batch nodp ddp1 step compute [extra json]
    python3 - "$@" <<'PY'
import json, sys
t, m, p, b, n1, d1, s, c = sys.argv[1:9]
n1, d1, s, c = float(n1), float(d1), float(s), float(c)
samples = {"lm290m": "one 512-token sequence", "resnet50": "one 224x224 RGB image", "bert-large": "one 128-token sequence"}
params = {"lm290m": 292794368, "resnet50": 25557032, "bert-large": 335174458}
d = dict(tool="ddp_bench", schema="ddp_bench/2", config="%s:%s:%s" % (m, p, b), model=m, precision=p,
         batch_per_gpu=int(b), sample=samples[m], params=params[m], world_size=2, transport=t,
         step_nodp_1_us=n1, step_ddp1_us=d1, step_us=s, compute_us=c, exposed_comm_us=s - c,
         eff=n1 / s, eff_ddp1=d1 / s, gpu="NVIDIA H200", torch="2.11.0", nccl="2.28.9", time_utc="2026-12-01T00:00:00Z",
         nccl_transports_seen={"nvlink": {"P2P": 24}, "shm": {"SHM": 8}, "net": {"NET": 4}}[t])
if len(sys.argv) > 9:
    d.update(json.loads(sys.argv[9]))
print(json.dumps(d))
PY
}
{
    line nvlink lm290m bf16 8 34300 42300 52400 46700
    line nvlink resnet50 fp32 128 132600 133000 133200 132700
    line nvlink bert-large bf16 32 30000 36000 40000 33000
    line nvlink bert-large fp32 32 1 1 1 1 '{"error": "world 2 DDP and no_sync: OutOfMemoryError: CUDA out of memory"}'
} >"$d/pt-nvlink.jsonl"
line shm lm290m bf16 8 34300 42300 58400 46700 >"$d/pt-shm.jsonl"

# --- nvscale side: run.json of `nvscale train`
run() { # file model precision batch step1 step2 summary-json link [sample]
    python3 - "$@" <<'PY'
import json, sys
f, m, p, b, s1, s2, summ, link = sys.argv[1:9]
samples = {"lm290m": "one 512-token sequence", "resnet50": "one 224x224 RGB image", "bert-large": "one 128-token sequence"}
params = {"lm290m": 292794368.0, "resnet50": 25557032.0, "bert-large": 335174458.0}
s1, s2 = float(s1), float(s2)
tr = [{"n": 1, "summary": {}}]
if summ != "-":
    tr.append({"n": 2, "summary": json.loads(summ), "link": link})
d = {"schema": "nvscale.run/1", "tool": "nvscale", "started_utc": "2026-12-01T00:10:00Z",
     "command": {"subcommand": "train", "argv": ["nvscale", "train", "--model", m, "--batch", b, "--precision", p]},
     "transports": tr,
     "train": {"model": m, "precision": p, "batch": int(b), "params": params[m],
               "sample": sys.argv[9] if len(sys.argv) > 9 else samples[m],
               "results": [{"n": 1, "step_us": s1, "efficiency": 1.0, "efficiency_reference_n": 1},
                           {"n": 2, "step_us": s2, "efficiency": s1 / s2, "efficiency_reference_n": 1}]}}
json.dump(d, open(f, "w"))
PY
}
run "$d/lm-nvlink.json" lm290m bf16 8 29000 32300 '{"P2P": 48}' NVLink
run "$d/r50-nvlink.json" resnet50 fp32 128 114000 115300 '{"P2P": 48}' NVLink
run "$d/lm-shm.json" lm290m bf16 8 29000 49000 '{"SHM": 8}' "host memory"
run "$d/lm-fp32.json" lm290m fp32 8 147000 150000 '{"P2P": 48}' NVLink
run "$d/lm-b16.json" lm290m bf16 16 29000 32300 '{"P2P": 48}' NVLink
run "$d/bert-512.json" bert-large bf16 32 29000 32300 '{"P2P": 48}' NVLink "one 512-token sequence"
run "$d/bert-nvlink.json" bert-large fp32 32 90000 92000 '{"P2P": 48}' NVLink
run "$d/lm-nosumm.json" lm290m bf16 8 29000 32300 - -
TABLE="$d/out/ddp-vs-nvscale"
GOOD="--pytorch nvlink=$d/pt-nvlink.jsonl --pytorch shm=$d/pt-shm.jsonl --nvscale nvlink=$d/lm-nvlink.json
      --nvscale nvlink=$d/r50-nvlink.json --nvscale shm=$d/lm-shm.json --out $TABLE"

# against a plain GPU without DDP (--baseline nodp) first: the arithmetic of every column
expect 0 "6 rows to" $FID $GOOD --baseline nodp
head -1 "$TABLE.csv" | grep -q '^model,precision,transport,n,step_ms_pytorch,step_ms_nvscale,eff_pytorch,eff_nvscale' ||
    fail "CSV header: $(head -1 "$TABLE.csv")"
[ "$(wc -l <"$TABLE.csv")" -eq 7 ] || fail "CSV has $(wc -l <"$TABLE.csv") lines, expected 7"
# rows in model order (resnet50 first), transports nvlink before shm; values straight from the inputs
python3 - "$TABLE.csv" <<'PY' || fail "the CSV's rows (above)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = [(r["model"], r["transport"], r["n"]) for r in rows]
want = [("resnet50", "nvlink", "1"), ("resnet50", "nvlink", "2"), ("lm290m", "nvlink", "1"), ("lm290m", "nvlink", "2"),
        ("lm290m", "shm", "1"), ("lm290m", "shm", "2")]
assert got == want, "row order %s" % got
r = rows[3]
checks = [(r["step_ms_pytorch"], "52.400"), (r["step_ms_nvscale"], "32.300"), (r["eff_pytorch"], "0.6546"),
          (r["eff_nvscale"], "0.8978"), (r["d_eff_points"], "24.33"), (r["within_3pts"], "no"), (r["within_15pct"], ""),
          (r["transport_verified"], "nvscale+pytorch"), (r["batch"], "8"),
          (rows[2]["step_ms_pytorch"], "34.300"), (rows[2]["step_err_pct"], "-15.45"), (rows[2]["within_15pct"], "no"),
          (rows[2]["step_ddp1_ms_pytorch"], "42.300"), (rows[0]["within_15pct"], "yes"), (rows[1]["within_3pts"], "yes")]
for have, want in checks:
    assert have == want, "have %r, want %r (row %s)" % (have, want, r)
PY
grep -q '| lm290m | bf16 | 8 | nvlink | 2 | 52.400 | 32.300 | .* | \*\*OUT\*\* |' "$TABLE.md" ||
    fail "Markdown lacks the OUT row"
grep -q '| resnet50 | fp32 | 128 | nvlink | 2 | .* | ok |' "$TABLE.md" || fail "Markdown lacks an ok row"
grep -q "pt-nvlink.jsonl" "$TABLE.md" && grep -q "lm-shm.json" "$TABLE.md" ||
    fail "Markdown does not name its inputs"
grep -q "bert-large:bf16:32 over nvlink: step" "$TABLE.md" && grep -q "bert-large:fp32:32 over nvlink: failed" "$TABLE.md" ||
    fail "Markdown lacks the PyTorch lines not compared"
ls "$d/out" | grep -q tmp && fail "a temporary file was left"
# the default baseline is DDP at world 1 (nvscale's N=1 runs its reducer too): 42.3 / 52.4 = 0.8073
expect 0 "6 rows to" $FID $GOOD
python3 - "$TABLE.csv" <<'PY' || fail "the default baseline (above)"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert (r[3]["eff_pytorch"], r[2]["step_ms_pytorch"]) == ("0.8073", "42.300"), (r[3]["eff_pytorch"], r[2]["step_ms_pytorch"])
PY
cp "$TABLE.csv" "$d/kept.csv"

# an nvscale run that does not list its transports: compared, marked not verified
expect 0 "2 rows" $FID --pytorch nvlink="$d/pt-nvlink.jsonl" --nvscale nvlink="$d/lm-nosumm.json" --out "$d/ns"
grep -q "^lm290m,bf16,nvlink,2,.*,pytorch," "$d/ns.csv" || fail "not-verified row"

# refusals: exit 2, one message, the previous outputs untouched
P="--pytorch nvlink=$d/pt-nvlink.jsonl"
expect 2 "nope.jsonl: no such file" $FID --pytorch nvlink="$d/nope.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
expect 2 "nope.json: no such file" $FID $P --nvscale nvlink="$d/nope.json" --out "$TABLE"
expect 2 "no --nvscale" $FID $P --out "$TABLE"
expect 2 "unknown transport 'ib'" $FID --pytorch ib="$d/pt-nvlink.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
expect 2 "expected TRANSPORT=FILE" $FID --pytorch "$d/pt-nvlink.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
expect 2 "measured with --transport nvlink, but given as --pytorch shm" \
    $FID --pytorch shm="$d/pt-nvlink.jsonl" --nvscale shm="$d/lm-shm.json" --out "$TABLE"
expect 2 "NCCL used shm at N=2, but the run is given as --nvscale nvlink" \
    $FID $P --nvscale nvlink="$d/lm-shm.json" --out "$TABLE"
expect 2 "no --pytorch nvlink line has model lm290m and precision fp32" $FID $P --nvscale nvlink="$d/lm-fp32.json" --out "$TABLE"
expect 2 "batch 16 per GPU, but the PyTorch lines for lm290m bf16 over nvlink have batch 8" \
    $FID $P --nvscale nvlink="$d/lm-b16.json" --out "$TABLE"
expect 2 "PyTorch bert-large:fp32:32 failed there: world 2 DDP" $FID $P --nvscale nvlink="$d/bert-nvlink.json" --out "$TABLE"
expect 2 "\"one 128-token sequence\" in PyTorch, \"one 512-token sequence\" in nvscale" \
    $FID $P --nvscale nvlink="$d/bert-512.json" --out "$TABLE"
expect 2 "both are lm290m bf16 batch 8 over nvlink" \
    $FID $P --nvscale nvlink="$d/lm-nvlink.json" --nvscale nvlink="$d/lm-nosumm.json" --out "$TABLE"
expect 2 "given twice" $FID $P $P --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
# the optimizer, where both sides state it: AdamW's update is milliseconds longer than SGD's, fused or not
optim() { # in out optimizer fused
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["train"].update(optimizer=sys.argv[3],
optimizer_fused=sys.argv[4] == "1"); json.dump(d, open(sys.argv[2], "w"))' "$@"
}
optim "$d/lm-nvlink.json" "$d/lm-sgd.json" sgd 0
optim "$d/lm-nvlink.json" "$d/lm-sgd-ideal.json" sgd 1
optim "$d/lm-nvlink.json" "$d/lm-adamw.json" adamw 0
optim "$d/lm-nvlink.json" "$d/lm-adamw-fused.json" adamw 1
line nvlink lm290m bf16 8 34300 42300 52400 46700 '{"optimizer": "AdamW"}' >"$d/pt-adamw.jsonl"
line nvlink lm290m bf16 8 34300 42300 52400 46700 '{"optimizer": "AdamW(fused=True)"}' >"$d/pt-adamw-fused.jsonl"
line nvlink lm290m bf16 8 34300 42300 52400 46700 '{"optimizer": "SGD(momentum=0.9)"}' >"$d/pt-sgd.jsonl"
expect 2 "the optimizer is AdamW in PyTorch, --optimizer sgd in nvscale" \
    $FID --pytorch nvlink="$d/pt-adamw.jsonl" --nvscale nvlink="$d/lm-sgd.json" --out "$TABLE"
expect 2 "the optimizer is AdamW in PyTorch, --optimizer adamw-fused in nvscale" \
    $FID --pytorch nvlink="$d/pt-adamw.jsonl" --nvscale nvlink="$d/lm-adamw-fused.json" --out "$TABLE"
expect 2 "the optimizer is AdamW.fused=True. in PyTorch, --optimizer adamw in nvscale" \
    $FID --pytorch nvlink="$d/pt-adamw-fused.jsonl" --nvscale nvlink="$d/lm-adamw.json" --out "$TABLE"
expect 2 "the optimizer is SGD.momentum=0.9. in PyTorch, --optimizer adamw in nvscale" \
    $FID --pytorch nvlink="$d/pt-sgd.jsonl" --nvscale nvlink="$d/lm-adamw.json" --out "$TABLE"
for pair in adamw:adamw adamw-fused:adamw-fused sgd:sgd sgd:sgd-ideal; do
    expect 0 "2 rows" $FID --pytorch nvlink="$d/pt-${pair%%:*}.jsonl" --nvscale nvlink="$d/lm-${pair#*:}.json" \
        --out "$d/opt-${pair#*:}"
done
line nvlink lm290m bf16 8 34000 42000 52000 46000 >"$d/pt-again.jsonl"
expect 2 "2 PyTorch lines match" $FID $P --pytorch nvlink="$d/pt-again.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
# --repeats: several runs per configuration, each side the median of its runs (3 PyTorch lines, 2 nvscale runs)
line nvlink lm290m bf16 8 30000 60000 70000 46000 >"$d/pt-third.jsonl"
run "$d/lm-nvlink2.json" lm290m bf16 8 35000 38000 '{"P2P": 48}' NVLink
R3="--pytorch nvlink=$d/pt-again.jsonl --pytorch nvlink=$d/pt-third.jsonl --nvscale nvlink=$d/lm-nvlink.json"
expect 0 "2 rows" $FID $P $R3 --nvscale nvlink="$d/lm-nvlink2.json" --repeats --out "$d/rep"
python3 - "$d/rep.csv" <<'PY' || fail "--repeats medians (above)"
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["model"] == "lm290m"]
# N=1: PyTorch ddp1 42.3, 42.0, 60.0 -> 42.3; nvscale 29.0, 35.0 -> 32.0; N=2 eff: 42.3/52.4, 42/52, 60/70 -> 0.8077
want = [("1", "42.300", "32.000", "3", "2", "42.0-60.0", "29.0-35.0"), ("2", "52.400", "35.150", "3", "2", "52.0-70.0",
        "32.3-38.0")]
got = [(x["n"], x["step_ms_pytorch"], x["step_ms_nvscale"], x["runs_pytorch"], x["runs_nvscale"],
        x["step_ms_pytorch_range"], x["step_ms_nvscale_range"]) for x in r]
assert got == want, got
assert r[1]["eff_pytorch"] == "0.8077", r[1]["eff_pytorch"]
# each side's per-run efficiencies at N=2: 42.3/52.4 = 80.7 %, 42/52 = 80.8 %, 60/70 = 85.7 %; nvscale 29/32.3 =
# 89.8 % and 35/38 = 92.1 %
assert (r[0]["eff_pct_pytorch_range"], r[1]["eff_pct_pytorch_range"]) == ("", "80.7-85.7"), r
assert r[1]["eff_pct_nvscale_range"] == "89.8-92.1", r[1]["eff_pct_nvscale_range"]
PY
grep -q "| 3: 42.0-60.0 / 2: 29.0-35.0 | - |" "$d/rep.md" || fail "--repeats Markdown lacks the runs column"
grep -q "| 3: 52.0-70.0 / 2: 32.3-38.0 | 80.7-85.7 / " "$d/rep.md" || fail "--repeats Markdown lacks the efficiency range"
# a line of ddp_bench.py --rounds 3: its rounds' medians, not round 1's (42.3 / 52.4); --baseline nodp keeps round 1
line nvlink lm290m bf16 8 34300 42300 52400 46700 '{"rounds": 3, "round_ddp1_us": [42300, 50000, 44000],
    "round_world_us": [52400, 51000, 46000], "eff_ddp1_rounds": [0.8073, 0.9804, 0.9565], "eff_ddp1_paired": 0.9565,
    "step_ddp1_us_paired": 44000, "step_us_paired": 51000}' >"$d/pt-rounds.jsonl"
expect 0 "2 rows" $FID --pytorch nvlink="$d/pt-rounds.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$d/rounds"
grep -q "^lm290m,bf16,nvlink,1,44.000,29.000,1.0000," "$d/rounds.csv" &&
    grep -q "^lm290m,bf16,nvlink,2,51.000,32.300,0.9565," "$d/rounds.csv" || fail "paired rounds: $(cat "$d/rounds.csv")"
expect 0 "2 rows" $FID --pytorch nvlink="$d/pt-rounds.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --baseline nodp \
    --out "$d/rounds-nodp"
grep -q "^lm290m,bf16,nvlink,2,52.400,32.300,0.6546," "$d/rounds-nodp.csv" || fail "nodp baseline with rounds"
sed 's/"eff_ddp1_paired": 0.9565/"eff_ddp1_paired": "high"/' "$d/pt-rounds.jsonl" >"$d/pt-rounds-bad.jsonl"
expect 2 "eff_ddp1_paired: expected a positive number" \
    $FID --pytorch nvlink="$d/pt-rounds-bad.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
echo '{"tool": "ddp_bench", "model": "lm290m", "step_us": 1}' >"$d/old.jsonl"
expect 2 "old.jsonl:1: schema null, expected \"ddp_bench/2\"" \
    $FID --pytorch nvlink="$d/old.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
echo 'not json' >"$d/bad.jsonl"
expect 2 "bad.jsonl:1: not JSON" $FID --pytorch nvlink="$d/bad.jsonl" --nvscale nvlink="$d/lm-nvlink.json" --out "$TABLE"
echo '{"schema": "nvscale.run/1"}' >"$d/coll.json"
expect 2 "coll.json: no \"train\" object" $FID $P --nvscale nvlink="$d/coll.json" --out "$TABLE"
expect 2 "pt-shm.jsonl: not an nvscale run.json" $FID $P --nvscale nvlink="$d/pt-shm.jsonl" --out "$TABLE"
echo '{"schema": "nvscale.run/2"}' >"$d/v2.json"
expect 2 "v2.json: not an nvscale run.json of schema nvscale.run/1" $FID $P --nvscale nvlink="$d/v2.json" --out "$TABLE"
# a different nvscale model name needs --map, never a guess
sed 's/"model": "lm290m"/"model": "gpt-290m"/' "$d/lm-nvlink.json" >"$d/renamed.json"
expect 2 "use --map gpt-290m=HARNESS_MODEL" $FID $P --nvscale nvlink="$d/renamed.json" --out "$TABLE"
expect 0 "2 rows" $FID $P --nvscale nvlink="$d/renamed.json" --map gpt-290m=lm290m --out "$d/mapped"
expect 2 "is a directory" $FID $P --nvscale nvlink="$d/lm-nvlink.json" --out "$d/out"
cmp -s "$TABLE.csv" "$d/kept.csv" || fail "a refused run changed $TABLE.csv"
expect 0 "usage: fidelity.py" $FID --help
finish
