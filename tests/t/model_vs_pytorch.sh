#!/bin/sh
# tools/model_vs_pytorch.py: the what-if model's 1-GPU step from presets alone against PyTorch's, measured. From the
# committed inputs it makes the committed table (results/model/model-vs-pytorch-n1.md: a change of the model shows
# there) and exits 3 as long as a row is outside the tolerance; on made-up records it takes the median of the
# plain configuration's runs, leaves other configurations out, prints the model's own step and the error, and
# exits 0 / 3 by the tolerance; bad input exits 2. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1
. tests/lib.sh
need_nvscale
need_cmd python3 "the tool is Python"
tmp_dir d

# the committed table: same rows, and the exit status says whether a row is out
python3 tools/model_vs_pytorch.py --list results/model/pytorch-n1-inputs.txt --out "$d/t" >"$d/out" 2>&1
rc=$?
grep '^|' "$d/t.md" >"$d/rows"
grep '^|' results/model/model-vs-pytorch-n1.md | diff - "$d/rows" >"$d/diff" ||
    fail "results/model/model-vs-pytorch-n1.md is not what tools/model_vs_pytorch.py makes now: $(cat "$d/diff")"
outs=$(grep -c '\*\*OUT\*\*' "$d/rows")
if [ "$outs" -gt 0 ]; then want=3; else want=0; fi
[ "$rc" -eq "$want" ] || fail "exit $rc with $outs rows out of the tolerance (want $want): $(tail -3 "$d/out")"
data='^| [^|]* | [^|]* | [0-9]' # a configuration's row: its batch in the third column
n=$(grep -c "$data" "$d/rows")
tail -1 "$d/t.md" | grep -q "^$((n - outs)) of $n configurations within 15 %\.\$" ||
    fail "summary line: $(tail -1 "$d/t.md")"

# made-up records: resnet50 fp32 batch 128 at 130 and 134 ms (median 132); the same with channels_last (not the
# plain configuration) and an A100's are left out; a line that is not JSON is skipped
rec() { # step_ms [extra json]
    printf '{"tool": "ddp_bench", "model": "resnet50", "precision": "fp32", "batch_per_gpu": 128, "gpu": "%s", "step_ddp1_us": %s000%s}\n' "$@"
}
{
    rec "NVIDIA H200" 130
    echo 'not json'
    rec "NVIDIA H200" 134
    rec "NVIDIA H200" 10 ', "channels_last": true'
    rec "NVIDIA A100-SXM4-80GB" 500
} >"$d/a.jsonl"
"$NVS" model --gpu h200-sxm --machine nvlink-2gpu --model resnet50 --precision fp32 --batch 128 --gpus 1 \
    --format json >"$d/m.json" || fail "nvscale model"
m=$(python3 -c "import json; print('%.1f' % (json.load(open('$d/m.json'))['configurations'][0]['points'][0]['step_us'] / 1e3))")
err=$(python3 -c "print('%+.1f' % (($m - 132) / 132 * 100))")
python3 tools/model_vs_pytorch.py --tolerance 99 "$d/a.jsonl" >"$d/o1" 2>&1 || fail "made-up records, tolerance 99: $(cat "$d/o1")"
grep -q "^| resnet50 | fp32 | 128 | 2 | 132.0 | 130.0-134.0 | $m | .* | $err % | ok |\$" "$d/o1" ||
    fail "made-up row (model $m ms, error $err %): $(grep '^| res' "$d/o1")"
[ "$(grep -c "$data" "$d/o1")" -eq 1 ] || fail "one configuration expected: $(grep "$data" "$d/o1")"
printf '# a comment\n%s\n' "$d/a.jsonl" >"$d/list"
python3 tools/model_vs_pytorch.py --tolerance 0.001 --list "$d/list" >"$d/o2" 2>&1
[ $? -eq 3 ] || fail "a row outside a 0.001 % tolerance must exit 3: $(tail -2 "$d/o2")"
grep -q '\*\*OUT\*\*' "$d/o2" || fail "the row outside is not marked"

# bad input
expect 2 "no input" python3 tools/model_vs_pytorch.py --list /dev/null
expect 2 "No such file" python3 tools/model_vs_pytorch.py "$d/missing.jsonl"
expect 2 "no plain ddp_bench record" python3 tools/model_vs_pytorch.py --gpu-name B200 "$d/a.jsonl"
expect 2 "must be above 0" python3 tools/model_vs_pytorch.py --tolerance 0 "$d/a.jsonl"
expect 2 "exit 2" python3 tools/model_vs_pytorch.py --gpu no-such-gpu "$d/a.jsonl"
finish
