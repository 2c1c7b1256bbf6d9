#!/bin/sh
# tools/model_vs_pytorch.py: the what-if model's 1-GPU step (and with --world 2 its efficiency) from presets alone
# against PyTorch's, measured. From the committed inputs it makes the committed tables (results/model/
# model-vs-pytorch-n1.md, -n2.md: a change of the model shows there) and exits 3 as long as a row is outside the tolerance; on made-up records it takes the median of the
# plain configuration's runs, leaves other configurations out, prints the model's own step and the error, and
# exits 0 / 3 by the tolerance; bad input exits 2. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1
. tests/lib.sh
need_nvscale
need_cmd python3 "the tool is Python"
tmp_dir d

# committed_table WORLD FILE: the committed table is what the tool makes now from the committed inputs, and the
# exit status says whether a row is out; leaves the rows in $d/rows-WORLD and the table in $d/t-WORLD.md
committed_table() {
    python3 tools/model_vs_pytorch.py --world "$1" --list results/model/pytorch-n1-inputs.txt --out "$d/t-$1" \
        >"$d/out-$1" 2>&1
    rc=$?
    grep '^|' "$d/t-$1.md" >"$d/rows-$1"
    grep '^|' "$2" | diff - "$d/rows-$1" >"$d/diff-$1" ||
        fail "$2 is not what tools/model_vs_pytorch.py --world $1 makes now: $(cat "$d/diff-$1")"
    outs=$(grep -c '\*\*OUT\*\*' "$d/rows-$1")
    if [ "$outs" -gt 0 ]; then want=3; else want=0; fi
    [ "$rc" -eq "$want" ] || fail "--world $1: exit $rc with $outs rows out of the tolerance (want $want): $(tail -3 "$d/out-$1")"
}

# the 1-GPU step (results/model/model-vs-pytorch-n1.md)
committed_table 1 results/model/model-vs-pytorch-n1.md
data='^| [^|]* | [^|]* | [0-9]' # a configuration's row: its batch in the third column
n=$(grep -c "$data" "$d/rows-1")
tail -1 "$d/t-1.md" | grep -q "^$((n - outs)) of $n configurations within 15 %\.\$" ||
    fail "summary line: $(tail -1 "$d/t-1.md")"

# the same at world 2 (results/model/model-vs-pytorch-n2.md): efficiency in points, over all three transports
# the PyTorch records were made on (nvlink, shm, and net: sockets, from the machine's net_local_gbps)
committed_table 2 results/model/model-vs-pytorch-n2.md
for tr in nvlink shm net; do
    grep -Eq "^\| [a-z0-9-]+ \| [a-z0-9]+ \| [0-9]+ \| $tr \| .* \| [+-][0-9.]+ \| (ok|\*\*OUT\*\*) \|\$" "$d/rows-2" ||
        fail "--world 2: no modelled row over $tr"
done
grep -q 'not modelled' "$d/rows-2" && fail "--world 2: a row is not modelled: $(grep 'not modelled' "$d/rows-2")"

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

# made-up records at world 2 over SHM: efficiency 90 and 94 % (median 92), against the model with --p2p off; one
# over sockets (50 %), against the model with --p2p off --shm off; one over a transport the script has no flags for
wrec() { # eff transport
    printf '{"tool": "ddp_bench", "model": "resnet50", "precision": "fp32", "batch_per_gpu": 128, "gpu": "NVIDIA H200", "world_size": 2, "transport": "%s", "eff_ddp1": %s, "step_ddp1_us": 130000}\n' "$2" "$1"
}
{ wrec 0.90 shm; wrec 0.94 shm; wrec 0.5 net; wrec 0.6 pigeon; } >"$d/w.jsonl"
meff() { # model efficiency at 2 GPUs, in %, with the flags given
    "$NVS" model --gpu h200-sxm --machine nvlink-2gpu --model resnet50 --precision fp32 --batch 128 --gpus 1,2 "$@" \
        --format json >"$d/wm.json" || fail "nvscale model $*"
    python3 -c "import json; print('%.1f' % (100 * json.load(open('$d/wm.json'))['configurations'][0]['points'][1]['efficiency']))"
}
we=$(meff --p2p off)
wd=$(python3 -c "print('%+.1f' % ($we - 92))")
ne=$(meff --p2p off --shm off)
nd=$(python3 -c "print('%+.1f' % ($ne - 50))")
python3 tools/model_vs_pytorch.py --world 2 --tolerance 50 "$d/w.jsonl" >"$d/o3" 2>&1 || fail "--world 2, tolerance 50: $(cat "$d/o3")"
grep -q "^| resnet50 | fp32 | 128 | shm | 2 | 92.0 | 90.0-94.0 | $we | .* | $wd | ok |\$" "$d/o3" ||
    fail "made-up world-2 row (model $we %, diff $wd): $(grep '^| res' "$d/o3")"
grep -q "^| resnet50 | fp32 | 128 | net | 1 | 50.0 | 50.0-50.0 | $ne | .* | $nd | ok |\$" "$d/o3" ||
    fail "made-up world-2 row over sockets (model $ne %, diff $nd): $(grep '^| res' "$d/o3")"
[ "$we" != "$ne" ] || fail "the model gives SHM and sockets the same efficiency ($we %)"
grep -q "^| resnet50 | fp32 | 128 | pigeon | 1 | 60.0 | .* not modelled: transport pigeon has no flags" "$d/o3" ||
    fail "the row over an unknown transport is not marked: $(grep pigeon "$d/o3")"
grep -q "^2 of 2 modelled configurations within 50 points\.\$" "$d/o3" || fail "world-2 summary: $(tail -1 "$d/o3")"
expect 2 "at world 4" python3 tools/model_vs_pytorch.py --world 4 "$d/w.jsonl"
grep '"pigeon"' "$d/w.jsonl" >"$d/wpig.jsonl"
expect 2 "no configuration at world 2 over a transport the model has flags for \(net, nvlink, shm\)" \
    python3 tools/model_vs_pytorch.py --world 2 "$d/wpig.jsonl"
expect 2 "must be 1 or more" python3 tools/model_vs_pytorch.py --world 0 "$d/w.jsonl"

# bad input
expect 2 "no input" python3 tools/model_vs_pytorch.py --list /dev/null
expect 2 "No such file" python3 tools/model_vs_pytorch.py "$d/missing.jsonl"
expect 2 "no plain ddp_bench record" python3 tools/model_vs_pytorch.py --gpu-name B200 "$d/a.jsonl"
expect 2 "must be above 0" python3 tools/model_vs_pytorch.py --tolerance 0 "$d/a.jsonl"
expect 2 "exit 2" python3 tools/model_vs_pytorch.py --gpu no-such-gpu "$d/a.jsonl"
finish
