#!/bin/sh
# nvscale model gives exactly the committed outputs (tests/golden/model_*.txt) for the Lambda case, projections
# (one node, two GPUs compared, many nodes) and calibrations on the committed fixtures; the Lambda JSON says
# what the issue asks (A6000 scales better than 3090 at 8 GPUs for maskrcnn, and the cause is the link); the
# calibrations stay within the stated 10 % tolerance; tools/model_vs_results.sh runs.
# After an intended change of the model or its output: UPDATE_GOLDEN=1 sh tests/t/model_golden.sh, then review
# the diff.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
check() { # NAME ARGS...: nvscale model ARGS, its stdout equal to tests/golden/model_NAME.txt
    name=$1
    shift
    expect_err 0 "" "$NVS" model "$@" && golden "$OUT" tests/golden/model_$name.txt
}
F=tests/fixtures/model
check lambda --lambda
check project_3090_a6000 --gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model maskrcnn --precision tf32
check multinode --gpu h100-sxm --machine hgx-h100-8 --model gpt2-xl --precision bf16 --net ib-ndr400 --algo auto \
    --nodes 1,2,8,32,128
check calibrate_nvlink --calibrate $F/h200x2_nvlink_resnet50.json
check calibrate_shm --calibrate $F/h200x2_shm_bert.json
# the host budget against the measurement of the 2xH200 box (results/call3: host copy bandwidth, SHM all_reduce)
check calibrate_host --calibrate results/call3/shm-allreduce/run.json --machine nvlink-2gpu
check calibrate_box3090 --calibrate tests/fixtures/runs/box3090_8gpu_shm.json --machine pcie4-1s-8gpu-cascade \
    --tolerance 10
check presets --list-presets
# a training run with no all_reduce sweep, over NCCL's sockets between the two GPUs of one box (NCCL_HOSTID per rank;
# results/fidelity/run3-net, 2x H200): the link comes from the step's own all-reduces, NET/Socket is named, and no
# preset column is given where no preset describes the path
check calibrate_net --calibrate $F/h200x2_net_three_fp32.json --tolerance 5
check calibrate_net_bert --calibrate $F/h200x2_net_three_fp32.json --model bert-large-mlm128 --tolerance 5
# the same run with its two ranks on two hosts (hosts and the pairs between them edited from the one above): NET is the
# network between the nodes, not NCCL's hosts-told-apart path of one node (which was said of every NET N)
check calibrate_net_hosts --calibrate $F/h200x2_net_two_hosts.json --tolerance 5
# a run of three workloads under pytorch-ddp (results/fidelity/n1-1gpu-head, 1x H200): --model picks one, by its
# name or profile file; the compute scale comes from the GPU's own compute-only step (ideal_compute_us). The same
# file without ideal_compute_us (as runs before it had it): the scale is fitted through the host lane, and for a
# step no longer than the host work alone (bert-large-mlm128 at bf16) it is left unmeasured, with the reason
# a run with DDP's buffer broadcast (results/h200x1-buffers2, ResNet-50 fp16 at 3529fdc): the framework's cost per
# buffer operation is replayed on the host lane, and left out of the GPU-only fit of the compute scale
check calibrate_buffers --calibrate $F/h200x1_fp16_resnet50_buffers.json --tolerance 5
check calibrate_three_lm --calibrate $F/h200x1_bf16_three_models.json --model lm290m --gpus 1,2 --machine nvlink-2gpu
check calibrate_three_bert --calibrate $F/h200x1_bf16_three_models.json --model bert-large-mlm128
check calibrate_three_bert_noideal --calibrate $F/h200x1_bf16_three_models_no_ideal.json --model bert-large-mlm128
expect 2 "h200x1_bf16_three_models.json: trained resnet50, lm290m, bert-large-mlm128, not bert-large" \
    "$NVS" model --calibrate $F/h200x1_bf16_three_models.json --model bert-large

# docs/model.md quotes the Lambda table ("Result (tests/golden/model_lambda.txt)"): the quote is the golden's table,
# from its "fp32 (TF32 GEMMs)" line to its "cells compared" line, as the model prints it now
sed -n '/^fp32 (TF32 GEMMs)$/,/cells compared (not fitted)/p' tests/golden/model_lambda.txt >"$tmp/lambda_table"
awk '/^### Result \(tests\/golden\/model_lambda.txt\)$/ { on = 1 } on && /^fp32 \(TF32 GEMMs\)$/ { p = 1 }
     p { print } p && /cells compared \(not fitted\)/ { exit }' docs/model.md >"$tmp/lambda_doc"
[ -s "$tmp/lambda_table" ] && diff -u "$tmp/lambda_table" "$tmp/lambda_doc" ||
    fail "docs/model.md's Lambda table differs from tests/golden/model_lambda.txt (diff above)"
# ... and the efficiencies it quotes from tests/golden/model_multinode.txt at 1, 2 and 8 nodes ("Limits")
mn=$(awk '$2 == 1 || $2 == 2 || $2 == 8 { if ($3 == "x") printf "%s%s", sep, $12; sep = ", " }' \
    tests/golden/model_multinode.txt)
grep -q "model_multinode.txt\` now falls $mn % at 1, 2, 8 nodes" docs/model.md ||
    fail "docs/model.md does not quote tests/golden/model_multinode.txt's efficiencies ($mn % at 1, 2, 8 nodes)"
# ... and the bridged A6000 pair against the same pair over PCIe ("Interference": the NVLink share scaled by the
# bridge's rate), as the model prints them now (the quote said 99.0 and 97.4 after the model had moved on)
eff2() { "$NVS" model --gpu rtxa6000 --machine "$1" --model bert-large --batch 8 --gpus 2 |
    awk '$1 == 2 && $3 == "x" { print $12 }'; }
nv=$(eff2 pcie4-2s-8gpu-nvpairs) pcie=$(eff2 pcie4-2s-8gpu-switch)
grep -q "now $nv against $pcie %" docs/model.md ||
    fail "docs/model.md does not quote the bridged A6000 pair at N=2 as the model prints it ($nv against $pcie %)"

# the Lambda case in JSON: rows keyed by model, an eff_a/eff_b pair (model, Lambda, published) per precision and
# N; A6000 > 3090 at 8 GPUs for maskrcnn and the overlap mode takes a share of the gap; every model cell within
# the issue's tolerance of Lambda's same-machine cell but the one named miss; shares add up to the gap
"$NVS" model --lambda --format json >"$tmp/lambda.json" || fail "--lambda --format json"
if command -v jq >/dev/null 2>&1; then
    jq -e '.schema == "nvscale.model/1" and .kind == "lambda" and .nccl == "2.7.8" and
           (.rows | keys | sort == ["bert-large", "maskrcnn", "resnet50", "ssd300"]) and
           ([.rows[][] | objects | .n | keys] | all(. == ["2", "4", "8"]))' "$tmp/lambda.json" >/dev/null ||
        fail "lambda JSON shape"
    jq -e '.rows.maskrcnn.fp32.n["8"] | .eff_b.model > .eff_a.model + 0.2 and .gap.cause == "link" and
           .gap.shares.overlap > 0.05 and (.eff_b.lambda - 0.9074 | fabs < 1e-4) and .eff_b.published > 0.96' \
        "$tmp/lambda.json" >/dev/null ||
        fail "maskrcnn at 8 GPUs: A6000 ahead, cause link, overlap share, Lambda 90.7 / published 96.9"
    jq -e '[.rows[] | .fp32, .fp16 | .n[] | .gap | (.shares | .link + .host + .batch + .compute + .overlap) - .gap
           | fabs < 1e-9] | all' "$tmp/lambda.json" >/dev/null || fail "lambda shares do not add up"
    jq -e '[.rows | to_entries[] | .key as $m | .value | (.fp32, .fp16) as $p | $p.n | to_entries[] |
           .key as $n | (.value.eff_a, .value.eff_b) | select(.lambda != null and (.fitted | not)) |
           (.error | fabs) > (if $n == "8" then 0.05 else 0.08 end)] | map(select(.)) | length == 1' \
        "$tmp/lambda.json" >/dev/null || fail "lambda cells outside the tolerance (one named miss)"
    jq -e '.summary.cells_compared == 41 and (.fitted | length == 4)' "$tmp/lambda.json" >/dev/null ||
        fail "lambda summary"
    "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --format json >"$tmp/p.json" &&
        jq -e '.configurations[0].points | length == 4 and (.[0].efficiency == 1) and (.[3].n == 8)' "$tmp/p.json" \
            >/dev/null || fail "projection JSON"
    # counts and whole sizes are JSON integers, as in run.json (params was written 25557032.0); jq cannot tell
    # 4 from 4.0, Python's json can
    [ "$(json_get "$tmp/p.json" 'all(type(v) is int for v in [d["model"]["params"], d["model"]["layers"],
        d["configurations"][0]["grad_bytes"], d["configurations"][0]["bucket_first_bytes"],
        d["configurations"][0]["bucket_cap_bytes"]])')" = True ] ||
        fail "projection JSON: params, layers, grad_bytes or bucket sizes not integers"
    [ "$(json_get "$tmp/p.json" 'all(type(v) is int for k, v in d["configurations"][0]["memory"].items()
        if k.endswith("_bytes"))')" = True ] || fail "projection JSON: memory byte counts not integers"
    [ "$(json_get "$tmp/lambda.json" 'type(d["rows"]["resnet50"]["fp32"]["grad_bytes_a"]) is int')" = True ] ||
        fail "lambda JSON: grad_bytes_a not an integer"
    "$NVS" model --calibrate $F/h200x2_nvlink_resnet50.json --format json --gpus 1,2 >"$tmp/c.json" &&
        jq -e '.kind == "calibration" and (.train | length == 2) and (.projection.configurations | length == 1) and
               ([.terms[] | select(.origin == "measured")] | length >= 4)' "$tmp/c.json" >/dev/null ||
        fail "calibration JSON"
    [ "$(json_get "$tmp/c.json" 'len(d["all_reduce"]) > 0 and all(type(r["bytes"]) is int for r in d["all_reduce"])')" = True ] ||
        fail "calibration JSON: all_reduce sizes not integers"
    "$NVS" model --calibrate $F/h200x2_net_three_fp32.json --format json >"$tmp/n.json" &&
        jq -e '.nccl_transports == [{"n": 2, "transports": "NET/Socket/0", "net": true, "collnet": false}] and .net_local == true and
               .links[0].from == "step" and .links[0].preset_busbw_gbps == 3.4 and
               (.train[1].preset_step_us > 0) and ((.train[1].comm_err_pct | fabs) < 0.01)' "$tmp/n.json" >/dev/null ||
        fail "calibration JSON of a run over NET/Socket between the GPUs of one host (the preset's sockets)"
    # the 2xH200 box: NCCL SHM at 2 ranks runs at its host memory bandwidth (budget = copy bandwidth / 2)
    "$NVS" model --calibrate results/call3/shm-allreduce/run.json --machine nvlink-2gpu --format json >"$tmp/h.json" &&
        jq -e '.host_check[0] | .n == 2 and .host_mem_gbps == 112 and
               ((.host_mem_model_busbw_gbps / .measured_busbw_gbps - 1) | fabs < 0.02) and .dram_share > 0.95' \
            "$tmp/h.json" >/dev/null || fail "the host budget does not reproduce the 2xH200 SHM run"
    "$NVS" model --list-presets --format json >"$tmp/ps.json" &&
        jq -e '[.gpus[].keys.fp32_tflops.source | length > 0] | all' "$tmp/ps.json" >/dev/null ||
        fail "presets JSON lacks sources"
    # values as the preset file writes them: choices by name (nvlink was 2.0, its index), counts and byte sizes as
    # integers (rtx3090's memory_bytes 25769803776 read 25769803780.0 at 10 digits)
    [ "$(json_get "$tmp/ps.json" '[[m["keys"][k]["value"] for k in ("nvlink", "p2p_level", "cpu", "gpus")] for m in
        d["machines"] if m["id"] == "hgx-h100-8"][0] == ["nvswitch", None, "unknown", 8] and
        [g["keys"]["memory_bytes"]["value"] for g in d["gpus"] if g["id"] == "rtx3090"] == [25769803776] and
        type([g for g in d["gpus"] if g["id"] == "rtx3090"][0]["keys"]["nvlink_links"]["value"]) is int')" = True ] ||
        fail "presets JSON: enum keys not by name, or counts and memory_bytes not exact integers"
else
    grep -q '"cause": "link"' "$tmp/lambda.json" || fail "lambda JSON names no link cause"
    echo "note: jq not installed: JSON checked by grep only"
fi

# the stated tolerance (10 % on the step time at every measured N) on every committed fixture
for f in $F/*.json; do
    "$NVS" model --calibrate "$f" --tolerance 10 >/dev/null 2>"$tmp/tol.err" ||
        fail "$f outside 10 %: $(cat "$tmp/tol.err")"
done
# ... and a tolerance that cannot hold exits 3
"$NVS" model --calibrate tests/fixtures/runs/box3090_8gpu_shm.json --tolerance 0.01 >/dev/null 2>&1
[ $? -eq 3 ] || fail "--tolerance 0.01 did not exit 3"

# the evidence script: a results directory made of the fixtures
mkdir -p "$tmp/results/a" "$tmp/results/b"
cp $F/h200x2_nvlink_resnet50.json "$tmp/results/a/run.json"
cp $F/h200x2_shm_bert.json "$tmp/results/b/run.json"
NVSCALE=$NVS tools/model_vs_results.sh 10 "$tmp/results" >"$tmp/evidence" 2>&1 ||
    { fail "tools/model_vs_results.sh"; cat "$tmp/evidence"; }
grep -q "2 run(s) compared" "$tmp/evidence" || fail "the evidence script compared no runs"
finish
