#!/bin/sh
# nvscale model: every user input is validated (exit 2 and a message naming the bad value), bad preset files
# are reported as FILE:LINE, runtime failures exit 1 and leave no partial file, --help works.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
M="$NVS model"
P=tests/fixtures/presets
OK="--gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50"

expect 0 "usage: nvscale model" $M --help
# '-' reads standard input for --calibrate and --preset-file (stdin_inputs.sh); the help said so for report only
expect 0 "A --calibrate RUN.json or --preset-file FILE of '-' is read from standard input \(one of them\)\." $M --help
expect 0 "usage: nvscale model" $M -h
expect 2 "--gpu is required" $M
expect 2 "--machine is required" $M --gpu rtx3090
expect 2 "--model is required" $M --gpu rtx3090 --machine pcie4-2s-8gpu-switch
expect 2 "--overlap-penalty .1.5.: expected a fraction from 0 to 1" $M $OK --overlap-penalty 1.5
expect 2 "unknown option '--bogus'" $M $OK --bogus
# a short option inside a cluster is named alone (was 'model', or the value before it)
expect 2 "unknown option '-Z'" $M -Zq --lambda
expect 2 "unknown option '-Z'" $M $OK -Zq
expect 2 "needs a value" $M $OK --gpus
expect 2 "unexpected argument 'extra'" $M $OK extra
expect 2 "option --gpu given twice" $M $OK --gpu rtxa6000
# the mode flags too, as --pairs (were taken twice without a word, exit 0)
expect 2 "option --lambda given twice" $M --lambda --lambda
expect 2 "option --fit given twice" $M --lambda --fit --fit
expect 2 "option --list-presets given twice" $M --list-presets --list-presets
expect 2 "option --batch needs a non-empty value" $M $OK --batch ""
# the flag as given (was "option --o")
expect 2 "option -o needs a non-empty value" $M $OK -o ""
expect 2 "option -o given twice" $M $OK --output /dev/null -o /dev/null
expect 2 "option --output given twice" $M $OK -o /dev/null --output /dev/null
expect 2 "--gpu 'gtx480': unknown GPU" $M --gpu gtx480 --machine pcie4-2s-8gpu-switch --model resnet50
expect 2 "--machine 'pcie9': unknown machine" $M --gpu rtx3090 --machine pcie9 --model resnet50
expect 2 "unknown model profile 'alexnet'" $M --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model alexnet
expect 2 "--batch '0'" $M $OK --batch 0
expect 2 "--batch 'many'" $M $OK --batch many
expect 2 "--batch '2000000'" $M $OK --batch 2000000
expect 2 "--gpus: '0' is not a whole number" $M $OK --gpus 0
expect 2 "--gpus: 'x' is not a whole number" $M $OK --gpus 1,x
expect 2 "--gpus '1,,2'" $M $OK --gpus 1,,2
expect 2 "--gpus '4,1,4': 4 given twice" $M $OK --gpus 4,1,4
expect 2 "--nodes '2,2': 2 given twice" $M $OK --nodes 2,2 --net ib-hdr200
expect 2 "must be a multiple of 8" $M $OK --gpus 12 --net ib-hdr200
expect 2 "need a network between them" $M $OK --gpus 16
expect 2 "need a network between them" $M $OK --nodes 2
expect 2 "--gpus and --nodes" $M $OK --gpus 8 --nodes 2
expect 2 "--gpus-per-node '9'" $M $OK --nodes 2 --gpus-per-node 9 --net ib-hdr200
expect 2 "more than 65536 GPUs" $M $OK --nodes 10000 --net ib-hdr200
expect 2 "--net 'carrier-pigeon'" $M $OK --net carrier-pigeon
expect 2 "--precision 'fp64'" $M $OK --precision fp64
expect 2 "--grad 'fp8'" $M $OK --grad fp8
expect 2 "--nccl '2.x': expected a version" $M $OK --nccl 2.x
expect 2 "--dp 'overlap': expected ddp, delay or none" $M $OK --dp overlap
expect 2 "--step-cv '2': expected a fraction" $M $OK --step-cv 2
expect 2 "--framework 'jax': expected pytorch-ddp|ideal" $M $OK --framework jax
expect 2 "option --framework given twice" $M $OK --framework ideal --framework pytorch-ddp
expect 2 "--lambda models Lambda's own runs" $M --lambda --framework ideal
expect 2 "--framework with --calibrate sets a projection" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --framework ideal
# --optimizer (workload/optimizer.h): validated; AdamW's two fp32 states (8 bytes a parameter, 4 more than SGD's
# momentum) and, run as PyTorch's default foreach passes, its temporary exp_avg_sq_sqrt (4 more) leave room for
# fewer samples: bert-large's 335M parameters take 2.68 GB more, the batch that fits drops
expect 2 "--optimizer 'adam': expected sgd, adamw or adamw-fused" $M $OK --optimizer adam
expect 2 "--optimizer 'adamw-fusedx': expected sgd, adamw or adamw-fused" $M $OK --optimizer adamw-fusedx
expect 2 "option --optimizer given twice" $M $OK --optimizer sgd --optimizer adamw
expect 2 "--lambda models Lambda's own runs" $M --lambda --optimizer adamw
B="--gpu rtxa6000 --machine pcie4-2s-8gpu-switch --model bert-large-mlm128 --format json"
$M $B >"$OUT" 2>&1 || fail "bert-large with SGD failed"
sgd_fit=$(jq '.configurations[0].memory.max_batch' "$OUT")
sgd_opt=$(jq '.configurations[0].memory.optimizer_bytes' "$OUT")
$M $B --optimizer adamw >"$OUT" 2>&1 || fail "bert-large with AdamW failed"
adam_fit=$(jq '.configurations[0].memory.max_batch' "$OUT")
adam_opt=$(jq '.configurations[0].memory.optimizer_bytes' "$OUT")
[ "$adam_opt" -eq $((3 * sgd_opt)) ] || fail "foreach AdamW's state and temporary $adam_opt are not 3x SGD's $sgd_opt"
[ "$adam_fit" -lt "$sgd_fit" ] || fail "AdamW fits batch $adam_fit, SGD $sgd_fit: no smaller"
$M $B --optimizer adamw-fused >"$OUT" 2>&1 || fail "bert-large with fused AdamW failed"
fused_opt=$(jq '.configurations[0].memory.optimizer_bytes' "$OUT")
fused_fit=$(jq '.configurations[0].memory.max_batch' "$OUT")
[ "$fused_opt" -eq $((2 * sgd_opt)) ] || fail "fused AdamW's state $fused_opt is not twice SGD's $sgd_opt (no temporary)"
[ "$fused_fit" -gt "$adam_fit" ] && [ "$fused_fit" -lt "$sgd_fit" ] ||
    fail "fused AdamW fits batch $fused_fit: not between foreach AdamW's $adam_fit and SGD's $sgd_fit"
[ "$(jq -r '.configurations[0].optimizer' "$OUT")" = adamw ] || fail "the JSON does not name AdamW"
expect 0 "fp32, AdamW optimizer, ring all-reduce" $M $OK --optimizer adamw
# adamw runs as the framework runs it (pytorch-ddp: 8 foreach passes, 72 + 2 x 4 bytes a parameter; ideal: one fused
# pass, 24 + 4), adamw-fused as one fused pass under any framework: as nvscale train's step (train_plan.c)
# The JSON says which it assumed, as run.json's train.optimizer_fused (the update as one fused pass) says which ran:
# model_calib reads that, so a user compares the two
opt_us() { # OPTIMIZER FRAMEWORK FUSED: the compute time of the first point into $us, at one batch (the largest
    # that fits differs); not in a subshell, so that a failure counts
    $M $OK --batch 32 --format json --optimizer $1 --framework $2 >"$OUT" 2>&1 || fail "--optimizer $1 --framework $2: exit $?"
    [ "$(jq -r '.configurations[0].optimizer_fused' "$OUT")" = "$3" ] ||
        fail "--optimizer $1 --framework $2: optimizer_fused $(jq -r '.configurations[0].optimizer_fused' "$OUT"), expected $3"
    us=$(jq '.configurations[0].points[0].compute_us' "$OUT")
}
opt_us adamw pytorch-ddp false; a_ddp=$us
opt_us adamw-fused pytorch-ddp true; f_ddp=$us
opt_us adamw ideal true; a_id=$us
opt_us adamw-fused ideal true; f_id=$us
opt_us sgd pytorch-ddp false
opt_us sgd ideal true
awk -v a="$a_ddp" -v f="$f_ddp" -v ai="$a_id" -v fi="$f_id" 'BEGIN { exit !(a > f && ai == fi) }' ||
    fail "compute_us: adamw $a_ddp, adamw-fused $f_ddp under pytorch-ddp (expected more); under ideal $a_id, $f_id (expected equal)"
# the framework's lane (docs/model.md): pytorch-ddp (the default) has host work and a reducer at every N, ideal none
$M $OK --gpus 1,2 >"$OUT" 2>&1 || fail "the default projection failed"
grep -q "as pytorch-ddp: host_ms" "$OUT" || fail "pytorch-ddp: no line on the framework"
# N=1 row: reducer_ms (5th column) and host_ms (9th) above 0, comm, exposed and interf 0
awk '$1 == 1 && $2 == 1 && $3 == "x" && $4 == 1 { f = 1; if (!($7 > 0 && $8 == 0 && $9 == 0 && $10 == 0 && $11 > 0)) bad = 1 }
     END { exit !(f && !bad) }' "$OUT" || fail "pytorch-ddp: N=1 row without a reducer or host work"
$M $OK --gpus 1,2 --framework ideal >"$OUT" 2>&1 || fail "--framework ideal failed"
grep -q "as pytorch-ddp" "$OUT" && fail "ideal printed the framework's line"
awk '$1 == 1 && $2 == 1 && $3 == "x" && $4 == 1 { f = 1; if (!($7 == 0 && $11 == 0)) bad = 1 }
     END { exit !(f && !bad) }' "$OUT" || fail "ideal: N=1 row with a reducer or host work"
expect 0 "fp16, ring all-reduce" $M $OK --precision fp16 --grad fp16 --gpus 1,2
expect 0 "no gradient all-reduce" $M $OK --dp none --gpus 1,8
expect 2 "--algo 'butterfly'" $M $OK --algo butterfly
expect 2 "--algo collnet needs --net with in-network reduction" $M $OK --algo collnet --gpus 16 --net eth-100g
expect 0 "collnet" $M --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --net ib-ndr400 --algo collnet --nodes 4
expect 0 "nvls" $M --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --algo auto --gpus 8
# NVLink SHARP needs the GPU as well as the NVSwitch (compute capability >= 9.0 and NVLink4: model.h,
# nvs_gpu_nvls): asked by name for a GPU that cannot, one message naming it (exit 2, nothing written, no file);
# auto falls back to ring or tree and says why in the terms
H8="--machine hgx-h100-8 --model resnet50"
expect_err 2 "--algo nvls: GPU 'rtx3090' (compute capability 8.6, NVLink gen 3) cannot do NVLink SHARP" \
    $M --gpu rtx3090 $H8 --algo nvls --gpus 8 &&
    { [ "$(grep -c "NVLink SHARP" "$ERR")" -eq 1 ] || fail "--algo nvls on rtx3090: not one message"; }
expect_err 2 "--algo nvlstree: GPU 'a100-sxm' (compute capability 8.0, NVLink gen 3)" \
    $M --gpu a100-sxm $H8 --algo nvlstree --nodes 2 --net ib-ndr400
expect_err 2 "--algo nvls: GPU 'a100-sxm'" $M --gpu h100-sxm,a100-sxm $H8 --algo nvls
tmp_dir nv
expect_err 2 "GPU 'rtx3090'" $M --gpu rtx3090 $H8 --algo nvls -o "$nv/x.txt"
[ -e "$nv/x.txt" ] && fail "--algo nvls on rtx3090 wrote its output file"
for g in rtx3090 a100-sxm; do
    $M --gpu $g $H8 --algo auto --gpus 2,8 >"$nv/auto.txt" 2>&1 || fail "--algo auto on $g failed"
    grep -Eq ' nvls(tree)? ' "$nv/auto.txt" && fail "--algo auto on $g picked NVLS"
    grep -q "NVLink SHARP: the NVSwitch" "$nv/auto.txt" && fail "--algo auto on $g: an NVLS bottleneck"
    grep -Eq "nvls_gbps +0 GB/s +preset +not modelled \(hgx-h100-8 has 275\): GPU '$g'" "$nv/auto.txt" ||
        fail "--algo auto on $g: no term saying why NVLS is not modelled"
done
# the audit's numbers: the 3090's ring over its own NVLink (4 x 14.0625 x 0.73 = 41.1 GB/s) at 8 GPUs
expect 0 " 41.1 ring " $M --gpu rtx3090 $H8 --algo auto --gpus 8
expect 0 " 481 nvls +NVLink SHARP: the NVSwitch reduces, 275 GB/s" $M --gpu h100-sxm $H8 --algo nvls --gpus 8
expect 2 "--p2p 'maybe'" $M $OK --p2p maybe
expect 2 "--shm 'maybe'" $M $OK --shm maybe
# NCCL_SHM_DISABLE=1: the 3090s (no P2P) go over NET, whose rate inside this machine no preset knows: refused,
# no file written
expect 2 "GPU 0 -> GPU 1: NCCL's NET transport inside machine 'pcie4-2s-8gpu-switch', whose net_local_gbps is not known" \
    $M $OK --gpus 1,2 --shm off -o "$nv/shm.txt"
[ -e "$nv/shm.txt" ] && fail "--shm off without net_local_gbps wrote its output file"
# ... the A6000 peers over P2P there: SHM off changes nothing
expect 0 " P2P\)" $M --gpu rtxa6000 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,4 --shm off
# the 2xH200 box's sockets (shared/reference/h200x2/allreduce_net.txt), and a user's own in a preset file
expect 0 "\(NV, NET\): sockets inside the node, 3.4 GB/s per flow \(net_local_gbps\)" \
    $M --gpu h200-sxm --machine nvlink-2gpu --model resnet50 --gpus 1,2 --p2p off --shm off
expect 0 "nvlink-2gpu.net_local_hop_us +118 us" \
    $M --gpu h200-sxm --machine nvlink-2gpu --model resnet50 --gpus 1,2 --p2p off --shm off
expect 0 "sockets inside the node, 2.1 GB/s" \
    $M --preset-file $P/good.txt --gpu rtx3090 --machine lab-4gpu --model resnet50 --gpus 1,2 --shm off
expect 2 "--bucket-cap '0'" $M $OK --bucket-cap 0
expect 2 "--bucket-first 'big'" $M $OK --bucket-first big
# the bucket flags read sizes as run's -b and train's --bucket-cap do (cli_common.h nvs_cli_size): a decimal that
# comes to whole bytes is taken (1.5M is 1572864, as nccl-tests' parsesize reads it), one that does not is refused
# saying so, one past 1 TiB names the range (were "expected a size in 1..1T (e.g. 25M)" for all three)
for f in --bucket-first --bucket-cap; do
    expect 2 "$f '1.3K': sizes are whole bytes with an optional K/M/G/T suffix \(powers of 1024\): 1331.2 bytes is no whole number" \
        $M $OK $f 1.3K
    expect 2 "$f '0.5': sizes are whole bytes .*: 0.5 bytes is no whole number" $M $OK $f 0.5
    expect 2 "$f '2000.5G': expected a size from 1 to 1T such as" $M $OK $f 2000.5G
done
expect 0 '"bucket_first_bytes": 1572864' $M $OK --bucket-first 1.5M --format json
expect 0 '"bucket_cap_bytes": 1000000' $M $OK --bucket-cap 1e6 --format json
# --bucket-cap alone sizes the first bucket too, as DDP(bucket_cap_mb=50) does in PyTorch 2.x; --bucket-first apart
expect 0 '"bucket_first_bytes": 52428800' $M $OK --bucket-cap 50M --format json
expect 0 '"bucket_first_bytes": 2097152' $M $OK --bucket-cap 50M --bucket-first 2M --format json
expect 0 '"bucket_first_bytes": 1048576' $M $OK --format json
# every usage error ends with the help hint, as --step-cv's and --nccl's do (cli_common.h, nvs_cli_usage); these
# left it out (exit 2 with the message alone)
for a in "--batch 0" "--gpus 0" "--gpus 1,,2" "--nodes 1,x --net ib-hdr200" "--bucket-cap 0" "--gpus 12 --net ib-hdr200" \
    "--nodes 10000 --net ib-hdr200" "--nodes 2 --gpus-per-node 9 --net ib-hdr200"; do
    # shellcheck disable=SC2086 # $a is flags and their values, split on purpose
    expect_err 2 "Try 'nvscale model --help'." $M $OK $a
done
expect_err 2 "Try 'nvscale model --help'." $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --gpus 0
# ... and so do the shapes the flags ask for that the model then refuses (2 nodes without --net; a model that
# does not fit even at batch 1): model_eval.c / set_batch said why and stopped there
expect_err 2 "Try 'nvscale model --help'." $M $OK --nodes 2
expect_err 2 "Try 'nvscale model --help'." $M --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model gpt2-xl
# the gap as its two efficiencies read: 98.97 % vs 95.25 % printed "99.0% vs 95.2% (gap +3.7 points)"
expect 0 "efficiency 99.0% vs 95.2% \(gap \+3.8 points\)" \
    $M --gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model maskrcnn-nvidia
expect 2 "--format 'xml'" $M $OK --format xml
expect 2 "at most 16 combinations" $M --gpu a,b,c,d,e --machine a,b,c,d --model resnet50
expect 2 "give one of them" $M --lambda --list-presets
expect 2 "--lambda models Lambda's own runs" $M --lambda --gpu h100-sxm
expect 2 "--lambda models Lambda's own runs" $M --lambda --gpus 4
expect 2 "--lambda models Lambda's own runs" $M --lambda --machine pcie4-2s-8gpu-switch
expect 2 "--lambda models Lambda's own runs" $M --lambda --overlap-penalty 0.5
expect 2 "--tolerance goes with --calibrate" $M $OK --tolerance 5
expect 2 "--host-mem-gbps goes with --calibrate" $M $OK --host-mem-gbps 100
expect 2 "--fit goes with --lambda" $M $OK --fit
expect 2 "--tolerance 'x'" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --tolerance x
# a gate that checked nothing fails: the same run without its training results (a killed or p2p-only run)
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); [d.pop(k, None) for k in ('train', 'trains')]; json.dump(d, open(sys.argv[2], 'w'))" \
    tests/fixtures/model/h200x2_nvlink_resnet50.json "$TMP/model_cli_notrain.$$.json"
expect 3 "no training step measured: --tolerance checked nothing" $M --calibrate "$TMP/model_cli_notrain.$$.json" --tolerance 10
rm -f "$TMP/model_cli_notrain.$$.json"
# a measured N the model cannot evaluate (no machine preset, no sweep, its step's comm time not measured): named
# with the reason in the table, the JSON and the gate, which fails on it (N=4 vanished from the table without a
# word, and --tolerance 5 passed on N=1 and N=2)
python3 - "$TMP/model_cli_skip4.$$.json" <<'PY'
import json, sys, copy
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d.pop("topology"); d.pop("collectives")
r4 = copy.deepcopy(d["train"]["results"][1])
r4.update(n=4, gpus=[0, 1, 2, 3], comm_us=None, step_us=70000.0)
d["train"]["results"].append(r4)
json.dump(d, open(sys.argv[1], "w"))
PY
expect_err 0 "" $M --calibrate "$TMP/model_cli_skip4.$$.json" &&
    grep -q "not modelled: N=4 (measured) is left out of the table: no machine preset (give --machine) and no link measured: no all_reduce sweep at this N, and its step's comm time was not measured" "$OUT" ||
    fail "--calibrate: a measured N the model cannot evaluate is not named: $(grep -i 'N=4' "$OUT")"
$M --calibrate "$TMP/model_cli_skip4.$$.json" --format json >"$TMP/model_cli_skip4.$$.out" 2>&1
[ "$(json_get "$TMP/model_cli_skip4.$$.out" "[x['n'] for x in d['train_not_modelled']]" 2>/dev/null)" = "[4]" ] ||
    fail "--calibrate --format json: train_not_modelled does not list N=4"
expect_err 3 "N=4 was measured but not modelled (no machine preset" $M --calibrate "$TMP/model_cli_skip4.$$.json" --tolerance 5
rm -f "$TMP/model_cli_skip4.$$.json" "$TMP/model_cli_skip4.$$.out"
expect 2 "does not fit on rtx3090 even at batch 1" $M --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model gpt2-xl
# the card's memory named as the card's (it read "... optimizer and reserve of 25.8 GB", the reserve being 2.4 GB of the 27.28)
expect 2 "reserve take 27.28 GB of its 25.8 GB;" \
    $M --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model gpt2-xl
# a batch above the memory estimate is modelled, with a warning
expect 0 "above the largest the memory estimate allows" $M $OK --batch 100000 --gpus 1,2

# preset files: FILE:LINE: what
expect 2 "$P/bad_nosource.txt:5: 'fp32_tflops' needs its source" $M --preset-file $P/bad_nosource.txt --list-presets
expect 2 "$P/bad_sockets.txt:2: machine 'm': gpus 7 is not a multiple of sockets 2" $M --preset-file $P/bad_sockets.txt --list-presets
expect 2 "$P/bad_header.txt:1: expected the header 'nvscale-presets 1'" $M --preset-file $P/bad_header.txt --list-presets
expect 2 "$P/bad_number.txt:4: 'gbps' is not a number: '4OO'" $M --preset-file $P/bad_number.txt --list-presets
# a NIC's rate in Gb/s where the key is GB/s: named with both readings, refused
expect 2 "$P/bad_nic_gbits.txt:5: 'gbps' = 400 GB/s per direction \\(3200 Gb/s\\) is faster than any NIC.*write 50 \\(400 / 8\\)" \
    $M --preset-file $P/bad_nic_gbits.txt --list-presets
expect 2 "no_such.txt" $M --preset-file $P/no_such.txt --list-presets
expect 2 "tests/fixtures: is a directory, not a regular file" $M --preset-file tests/fixtures --list-presets
# a good user file: new GPU, machine and network usable, built-in override visible
expect 0 "rtx6000ada @ lab-4gpu" $M --preset-file $P/good.txt --gpu rtx6000ada --machine lab-4gpu --model resnet50
expect 0 "our measurement at 300 W" $M --preset-file $P/good.txt --gpu rtx3090 --machine lab-4gpu --model resnet50
expect 0 "lab-25g" $M --preset-file $P/good.txt --list-presets

# --pairs: GPU i on machine i, two boxes compared with the gap explained; the counts must match
expect 0 "why rtxa6000 scales better than rtx3090 at 8 GPUs" $M --gpu rtx3090,rtxa6000 \
    --machine g482-z53-epyc7662,as-4124gs-epyc7502 --model bert-large --gpus 1,8 --pairs
expect 2 "--pairs: 2 --gpu value\(s\) and 1 --machine value\(s\)" $M --gpu rtx3090,rtxa6000 --machine g482-z53-epyc7662 \
    --model bert-large --pairs
expect 2 "--pairs goes with --gpu and --machine" $M --lambda --pairs
# the same configuration twice: refused (was modelled twice, exit 0, with 'why rtx3090 scales better than rtx3090')
expect 2 "--gpu 'rtx3090' on --machine 'pcie4-2s-8gpu-switch' given twice" $M --gpu rtx3090,rtx3090 \
    --machine pcie4-2s-8gpu-switch --model resnet50
expect 2 "--gpu 'rtx3090' on --machine 'g482-z53-epyc7662' given twice" $M --gpu rtx3090,rtxa6000 \
    --machine g482-z53-epyc7662,g482-z53-epyc7662 --model resnet50
expect 2 "given twice" $M --gpu rtx3090,rtx3090 --machine g482-z53-epyc7662,g482-z53-epyc7662 --pairs --model resnet50
# the same GPU in two boxes is a comparison, not a duplicate
expect 0 "why" $M --gpu rtx3090,rtx3090 --machine g482-z53-epyc7662,as-4124gs-epyc7502 --pairs --model resnet50 --gpus 1,8

# calibration inputs
expect 2 "cannot open|no such|No such" $M --calibrate tests/fixtures/model/none.json
expect 2 "bad_syntax.json" $M --calibrate tests/fixtures/check/bad_syntax.json
# one message for a file that is not a run.json (the loader's, naming it), not two
expect_err 2 'no "schema" key' $M --calibrate tests/fixtures/runs/bad/no_schema.json &&
    { [ "$(wc -l <"$ERR")" -eq 1 ] || fail "--calibrate of a non-run.json: $(wc -l <"$ERR") lines on stderr"; }
# a run that records no GPU name says so, rather than quoting a made-up name ("(absent)") as the run's
expect_err 2 "records no GPU name (ranks[0].gpu): give --gpu ID" $M --calibrate tests/fixtures/runs/minimal_coll.json &&
    { ! grep -q "absent" "$ERR" || fail "--calibrate without ranks[0].gpu: $(cat "$ERR")"; }
expect 2 "unknown --gpu 'nope'" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --gpu nope
expect 2 "were not measured and no machine preset" $M --calibrate tests/fixtures/runs/box3090_8gpu_shm.json --gpus 1,3
# --batch only stands in for a batch the run does not record: another one was fitted to the measured step (its
# compute_scale absorbed a batch of 7 against 128) and printed as "training step (resnet50, batch 7)"
expect_err 2 "trained at batch 128 per GPU, not 7" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --batch 7
expect 0 "training step \(resnet50, batch 128," $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --batch 128
expect 2 "--calibrate takes one --gpu" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --gpu a,b
expect 2 "--host-mem-gbps 'x'" $M --calibrate tests/fixtures/runs/h200x2_shm.json --machine nvlink-2gpu --host-mem-gbps x
expect 2 "--host-mem-gbps: the run has no SHM all-reduce" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json --host-mem-gbps 100
expect 0 "budget = host memory bandwidth / 2" $M --calibrate tests/fixtures/runs/h200x2_shm.json --machine nvlink-2gpu --host-mem-gbps 180

# calibration inputs that contradict themselves or hold impossible values: refused before anything is written
# (here, before `tmp_dir out` below makes a directory at expect_err's $OUT)
tmp_dir cal
# --calibrate on a run that lists an N twice: refused, one message naming the file, the workload and the N, no file
# written (was exit 0: two conflicting N=1 rows, and the fits at N=2 silently fell back to the defaults)
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["n"] = 1
json.dump(d, open(sys.argv[1] + "/dup-n.json", "w"))
PY
expect_err 2 "$cal/dup-n.json: train.results[1].n: N=1 given twice (first at train.results[0]) for workload resnet50" \
    $M --calibrate "$cal/dup-n.json" -o "$cal/dup-n.txt" &&
    { [ "$(wc -l <"$ERR")" -eq 1 ] || fail "--calibrate, N given twice: $(wc -l <"$ERR") lines on stderr"; }
[ -e "$cal/dup-n.txt" ] && fail "--calibrate, N given twice: wrote its output file"
# a run.json the reader refuses (missing, not JSON, a bad value), with -o: said once, as model's refusal (was said
# twice, first as "nvscale: error: ..." by the look for the run's profile that -o's checks make before calibrating)
printf '{\n' >"$cal/not-json.json"
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["compute_us"] = -1
json.dump(d, open(sys.argv[1] + "/neg.json", "w"))
PY
for bad in "$cal/none.json: No such file" "$cal/not-json.json: not JSON" \
    "$cal/neg.json: train.results[1].compute_us: expected a number from 0"; do
    f=${bad%%: *}
    expect_err 2 "nvscale model: $bad" $M --calibrate "$f" -o "$cal/out.txt" &&
        { [ "$(wc -l <"$ERR")" -eq 1 ] || fail "--calibrate $f -o: $(wc -l <"$ERR") lines on stderr: $(cat "$ERR")"; }
    [ -e "$cal/out.txt" ] && fail "--calibrate $f -o: wrote its output file"
done
# ... in the workload --model picks from a run that trained several, named by its own key
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x1_bf16_three_models.json"))
d["trains"][1]["results"].append(dict(d["trains"][1]["results"][0]))
json.dump(d, open(sys.argv[1] + "/dup-n3.json", "w"))
PY
expect_err 2 "$cal/dup-n3.json: trains[1].results[1].n: N=1 given twice (first at trains[1].results[0]) for workload lm290m" \
    $M --calibrate "$cal/dup-n3.json" --model lm290m
# a run without N=1 (--gpus 2,4) fits the compute from its smallest N, whatever order the file lists them in (was the
# first listed: 4 before 2 gave compute_scale 0.82 against 0.55, and another overlap penalty)
python3 - "$cal" <<'PY'
import json, sys, copy
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
r2 = d["train"]["results"][1]
r4 = copy.deepcopy(r2)
r4.update(n=4, compute_us=r2["compute_us"] * 1.5, step_us=r2["step_us"] * 1.6)
d["train"]["results"] = [r2, r4]
json.dump(d, open(sys.argv[1] + "/n24.json", "w"))
d["train"]["results"] = [r4, r2]
json.dump(d, open(sys.argv[1] + "/n42.json", "w"))
PY
for o in 24 42; do
    $M --calibrate "$cal/n$o.json" --machine pcie4-2s-8gpu-switch --format json >"$cal/n$o.out" 2>&1 ||
        fail "--calibrate n$o.json: exit $?"
done
s24=$(json_get "$cal/n24.out" "[t['value'] for t in d['terms'] if t['name'] == 'compute_scale'][0]" 2>/dev/null)
s42=$(json_get "$cal/n42.out" "[t['value'] for t in d['terms'] if t['name'] == 'compute_scale'][0]" 2>/dev/null)
[ -n "$s24" ] && [ "$s24" = "$s42" ] || fail "--calibrate without N=1: compute_scale $s24 (N=2 first) vs $s42 (N=4 first)"
# ... and an N=1 whose compute was not measured (compute_us null) is not the reference either: the scale comes from
# N=2, as without an N=1 at all (it stayed 1, "no measurement", +83 % at N=1)
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][0]["compute_us"] = None
json.dump(d, open(sys.argv[1] + "/n1null.json", "w"))
d["train"]["results"] = d["train"]["results"][1:]
json.dump(d, open(sys.argv[1] + "/n2only.json", "w"))
PY
for o in n1null n2only; do
    $M --calibrate "$cal/$o.json" --format json >"$cal/$o.out" 2>&1 || fail "--calibrate $o.json: exit $?"
done
s1=$(json_get "$cal/n1null.out" "[(t['value'], t['origin']) for t in d['terms'] if t['name'] == 'compute_scale'][0]" 2>/dev/null)
s2=$(json_get "$cal/n2only.out" "[(t['value'], t['origin']) for t in d['terms'] if t['name'] == 'compute_scale'][0]" 2>/dev/null)
case "$s2" in *measured*) [ "$s1" = "$s2" ] ;; *) false ;; esac ||
    fail "--calibrate, N=1 without compute_us: compute_scale $s1, against $s2 from N=2 alone"
# ... and its source names the N it came from (it read "at 1 GPU")
src=$(json_get "$cal/n2only.out" "[t['source'] for t in d['terms'] if t['name'] == 'compute_scale'][0]" 2>/dev/null)
[ "$src" = "measured compute-only step at 2 GPUs (none measured at 1) / modelled at 1 GPU" ] ||
    fail "--calibrate without compute at N=1: compute_scale's source reads '$src'"
# ... and its tables list the rows by N, as the file lists them or not (the step table read N=4 before N=2)
for o in 24 42; do
    $M --calibrate "$cal/n$o.json" --machine pcie4-2s-8gpu-switch 2>&1 | sed "s/n$o\.json/nXX.json/g" >"$cal/n$o.txt"
done
cmp -s "$cal/n24.txt" "$cal/n42.txt" || fail "--calibrate: the tables differ with the order of train.results[]: $(diff "$cal/n24.txt" "$cal/n42.txt" | head -6)"
# a measured step of 0 µs: refused as the reader refuses a negative one, naming the file, the field, the N and the
# value (was exit 0: 0.00 in the table as measured, and the measured interference share dropped); null (not
# measured) stays allowed, below
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["step_us"] = 0
json.dump(d, open(sys.argv[1] + "/step0.json", "w"))
d["train"]["results"][1]["step_us"] = -1
json.dump(d, open(sys.argv[1] + "/step-neg.json", "w"))
PY
expect_err 2 "$cal/step0.json: train.results[1].step_us: expected a time above 0 at N=2 (null where not measured), got 0" \
    $M --calibrate "$cal/step0.json" -o "$cal/step0.txt"
[ -e "$cal/step0.txt" ] && fail "--calibrate, a step of 0: wrote its output file"
expect_err 2 "$cal/step-neg.json: train.results[1].step_us: expected a number from 0" $M --calibrate "$cal/step-neg.json"
# ... and so are a compute-only step of 0 (the compute scale silently stayed the presets') and a comm-only time of 0
# at N >= 2 (the per-call overhead silently fell back to 0); comm_us 0 at N=1, as runs write it, stays allowed
python3 - "$cal" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][0]["compute_us"] = 0
json.dump(d, open(sys.argv[1] + "/compute0.json", "w"))
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["comm_us"] = 0
json.dump(d, open(sys.argv[1] + "/comm0.json", "w"))
d["train"]["results"][1]["comm_us"], d["train"]["results"][0]["comm_us"] = 520.0, 0
json.dump(d, open(sys.argv[1] + "/comm0-n1.json", "w"))
PY
expect_err 2 "$cal/compute0.json: train.results[0].compute_us: expected a time above 0 at N=1 (null where not measured), got 0" \
    $M --calibrate "$cal/compute0.json"
expect_err 2 "$cal/comm0.json: train.results[1].comm_us: expected a time above 0 at N=2 (null where not measured), got 0" \
    $M --calibrate "$cal/comm0.json"
expect_err 0 "" $M --calibrate "$cal/comm0-n1.json"

# an error that rounds to 0.0 reads +0.0, never -0.0: the N=1 step, where the compute scale makes the model equal
# the measurement ((m - m) / m came out -2e-14 %), and the SHM host check's preset against its measured busbw
expect_err 0 "" $M --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json &&
    awk '$1 == 1 && $2 == "68.50" { f = 1; if ($4 != "+0.0") bad = 1 } END { exit !(f && !bad) }' "$OUT" ||
    fail "--calibrate: the N=1 step error is not +0.0"
for f in tests/fixtures/model/h200x2_nvlink_resnet50.json tests/fixtures/model/h200x2_shm_bert.json; do
    $M --calibrate $f 2>&1 | grep -E -- '(^|[ (])-0\.0([ %)]|$)' && fail "--calibrate $f prints -0.0"
done

# output file: whole or nothing; a directory that does not exist is a bad output path (exit 2, issue 14; was 1),
# no file appears
tmp_dir out
expect 2 "cannot write" $M $OK -o "$out/missing/dir/x.txt"
[ -e "$out/missing" ] && fail "a directory or file appeared"
expect 0 "" $M $OK -o "$out/t.txt"
[ -s "$out/t.txt" ] || fail "-o wrote nothing"
ls "$out" | grep -v '^t.txt$' | grep -q . && fail "a temporary file was left: $(ls "$out")"
$M $OK >"$out/stdout.txt" 2>/dev/null
cmp -s "$out/t.txt" "$out/stdout.txt" || fail "-o and stdout differ"
# -o naming a file the command reads: refused before anything is written (was exit 0, the input replaced by the
# report); a built-in profile's name reads no file
cp tests/fixtures/model/h200x2_nvlink_resnet50.json "$out/run.json"
cp tests/fixtures/profiles/good_minimal.prof "$out/p.txt"
cp $P/good.txt "$out/presets.txt"
expect 2 "-o $out/run.json: that is an input file \(--calibrate $out/run.json\)" \
    $M --calibrate "$out/run.json" --gpu h100-sxm -o "$out/run.json"
expect 2 "--output $out/./p.txt: that is an input file \(--model $out/p.txt\)" \
    $M --gpu h100-sxm --machine hgx-h100-8 --model "$out/p.txt" --output "$out/./p.txt"
expect 2 "-o $out/presets.txt: that is an input file \(--preset-file $out/presets.txt\)" \
    $M --list-presets --preset-file "$out/presets.txt" -o "$out/presets.txt"
cmp -s tests/fixtures/model/h200x2_nvlink_resnet50.json "$out/run.json" || fail "-o replaced the --calibrate run"
cmp -s tests/fixtures/profiles/good_minimal.prof "$out/p.txt" || fail "-o replaced the --model profile"
cmp -s $P/good.txt "$out/presets.txt" || fail "-o replaced the --preset-file"
# ... nor over the profile file the calibrated run read (train.profile_file), which calibration reads again
cp tools/profiles/lm290m.prof "$out/lm.prof"
python3 - "$out" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x1_bf16_three_models.json"))
d["train"]["model"], d["train"]["profile_file"] = "lm290m", sys.argv[1] + "/lm.prof"
json.dump(d, open(sys.argv[1] + "/run-prof.json", "w"))
PY
expect 2 "-o $out/lm.prof: that is an input file \(the run's profile $out/lm.prof\)" \
    $M --calibrate "$out/run-prof.json" -o "$out/lm.prof"
cmp -s tools/profiles/lm290m.prof "$out/lm.prof" || fail "-o replaced the calibrated run's profile"
nvs=$(cd "$(dirname "$NVS")" && pwd)/$(basename "$NVS")
expect 0 "" sh -c "cd '$out' && : >resnet50 && '$nvs' model $OK -o resnet50"
[ -s "$out/resnet50" ] || fail "-o resnet50 beside --model resnet50 (built in) wrote nothing"

# --calibrate on a run whose step time at an N is not given (null, as the reader allows: a point without its step):
# the table says '-' there as the JSON says null (it printed 'nan' in the measured step column)
python3 - "$out" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["step_us"] = None
json.dump(d, open(sys.argv[1] + "/no-step.json", "w"))
PY
expect 0 "" $M --calibrate "$out/no-step.json" -o "$out/no-step.txt"
grep -qi nan "$out/no-step.txt" && fail "--calibrate, a step not measured: the table says nan"
awk '$1 == 2 && $2 == "-" && $4 == "-" { ok = 1 } END { exit !ok }' "$out/no-step.txt" ||
    fail "--calibrate, a step not measured: N=2's measured step and its error are not '-'"

# --calibrate of a run whose path is not UTF-8 (a Latin-1 directory), as JSON: "run" names it with the byte made
# visible; it said "out of memory building the JSON output" and exited 1 (jansson refuses such text)
odd="$out/r-$(printf '\377').json"
cp tests/fixtures/model/h200x2_nvlink_resnet50.json "$odd"
"$NVS" model --calibrate "$odd" --format json >"$out/odd.json" 2>"$out/odd.err" ||
    { fail "--calibrate of a non-UTF-8 path, --format json: exit $?"; cat "$out/odd.err"; }
grep -q '"run": ".*/r-\\\\xff.json"' "$out/odd.json" || fail "--calibrate --format json: 'run' of a non-UTF-8 path"

# --net with every N on one machine: said (the label read "+ ib-hdr200" though no point crossed it); not said when
# a point spans nodes
"$NVS" model $OK --gpus 1,8 --net ib-hdr200 >/dev/null 2>"$out/net.err" || fail "--net within one node: exit $?"
grep -q "warning: --net ib-hdr200: .*nothing crosses the network" "$out/net.err" ||
    fail "--net within one node: not said: $(cat "$out/net.err")"
"$NVS" model $OK --gpus 1,16 --net ib-hdr200 >/dev/null 2>"$out/net2.err" || fail "--net over 2 nodes: exit $?"
grep -q "nothing crosses" "$out/net2.err" && fail "--net over 2 nodes: warned that nothing crosses it"

# --calibrate on a run whose N=2 efficiency is above 100 % beyond noise: said under the table (it printed 114.2 %
# beside the model's 99.4 % without a word); not said for a run within 100 %
python3 - "$out" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
d["train"]["results"][1]["efficiency"] = 1.142
json.dump(d, open(sys.argv[1] + "/above.json", "w"))
PY
expect 0 "note: N=2 measured 114.2 % efficiency, above 100 % by more than timing noise" $M --calibrate "$out/above.json"
"$NVS" model --calibrate tests/fixtures/model/h200x2_nvlink_resnet50.json 2>&1 | grep -q "above 100 %" &&
    fail "--calibrate of a run within 100 %: the note is there"

# --batch max where the memory holds more than the model's limit: the header says the limit decided (it said "the
# largest that fits 85.9 GB" of a batch of 1000000 that was the cap), in the table and in JSON
P1=tests/fixtures/profiles/good_minimal.prof
expect 0 "batch 1000000 per GPU \(capped: the model's limit is 1000000; nothing in the memory estimate grows" \
    $M --gpu h100-sxm --machine hgx-h100-8 --model $P1 --gpus 1,8
printf '%s\n' "$_out" | grep -q "largest that fits" && fail "--batch max at the cap: still 'the largest that fits'"
printf 'nvscale-profile 1\nname one\nsource "t"\nlayer a gemm=64,64,64 act=4096 ew=1\n' >"$out/one.prof"
expect 0 "capped: the model's limit is 1000000; the memory estimate allows 1.23e\+06" \
    $M --gpu h100-sxm --machine hgx-h100-8 --model "$out/one.prof" --gpus 1,8
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model "$out/one.prof" --gpus 1,8 --format json >"$out/cap.json" ||
    fail "--format json at the cap: exit $?"
[ "$(json_get "$out/cap.json" 'd["configurations"][0]["memory"]["max_batch_capped"]')" = True ] ||
    fail "--format json at the cap: memory.max_batch_capped is not true"

# nothing all-reduced: the bottleneck column names no link nor network (a profile without parameters named "GPU 0 ->
# GPU 1 (NV, NVLink): ... shared by 1 flow" on a row with no busbw and no algorithm; --dp none across nodes named
# the network)
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model "$out/one.prof" --nodes 1,2 --net ib-hdr200 --batch 8 \
    >"$out/nograd.txt" 2>&1 || fail "a profile without parameters: exit $?"
[ "$(grep -c '^ *\(8 *1 x 8\|16 *2 x 8\) .*no gradients (no trainable parameters): nothing crosses a link$' \
    "$out/nograd.txt")" = 2 ] || fail "a profile without parameters: $(grep -E '^ +(8|16) ' "$out/nograd.txt")"
grep -Eq "GPU 0 -> GPU 1|network ib-hdr200" "$out/nograd.txt" && fail "a profile without parameters names a link"
expect 0 " 2 x 8 .* no gradient all-reduce \(dp none: independent replicas\)" \
    $M --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --dp none --nodes 2 --net ib-hdr200

# JSON of points where nothing is all-reduced: no algorithm and no all-reduce bus bandwidth, as the table's '-'
# (were "algo": "ring" and 0 at N=1, with --dp none and without parameters); a point that all-reduces keeps both
for a in "--model $out/one.prof" "--model resnet50 --dp none"; do
    # shellcheck disable=SC2086 # $a is two or three flags
    "$NVS" model --gpu h100-sxm --machine hgx-h100-8 $a --gpus 1,8 --batch 8 --format json >"$out/noar.json" ||
        fail "$a --format json: exit $?"
    [ "$(json_get "$out/noar.json" '[(p["algo"], p["allreduce_busbw_gbps"]) for p in d["configurations"][0]["points"]]')" = \
        "[(None, None), (None, None)]" ] || fail "$a: algo/allreduce_busbw_gbps where nothing is all-reduced"
    # nor a transport, link class, ring or network bandwidth or interference share (were "NVLink", "NV", 349 and 0)
    [ "$(json_get "$out/noar.json" '[(p["transport"], p["class"], p["busbw_gbps"], p["interference_share"]) for p in d["configurations"][0]["points"]]')" = \
        "[(None, None, None, None), (None, None, None, None)]" ] || fail "$a: a link or share where nothing is all-reduced"
done
# across nodes: no network bandwidth either where no gradient crosses it
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --dp none --nodes 2 --net ib-hdr200 --batch 8 \
    --format json >"$out/noar2.json" || fail "--dp none --nodes 2 --format json: exit $?"
[ "$(json_get "$out/noar2.json" '[(p["transport"], p["inter_gbps"]) for p in d["configurations"][0]["points"]]')" = \
    "[(None, None)]" ] || fail "--dp none across nodes: a transport or network bandwidth"
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --gpus 8 --format json >"$out/ar.json" ||
    fail "resnet50 --format json: exit $?"
[ "$(json_get "$out/ar.json" '[d["configurations"][0]["points"][0][k] for k in ("algo", "transport", "class")]')" = \
    "['ring', 'NVLink', 'NV']" ] || fail "resnet50 at 8 GPUs: algo, transport, class are not ring, NVLink, NV"

# --step-cv where nothing is all-reduced: no rank waits for another (a profile without parameters paid a sync wait:
# 89.4 % at 8 GPUs with --step-cv 0.1)
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model "$out/one.prof" --gpus 8 --batch 8 --step-cv 0.1 \
    --format json >"$out/cv.json" || fail "--step-cv without parameters: exit $?"
[ "$(json_get "$out/cv.json" '(d["configurations"][0]["points"][0]["sync_us"], d["configurations"][0]["points"][0]["efficiency"])')" = \
    "(0.0, 1.0)" ] || fail "--step-cv without parameters: a sync wait where nothing is all-reduced"

# --calibrate models the optimizer the run's step ran (train.optimizer; "sgd" where a run has none): its update is in
# the measured compute the GPU's speed is fitted to. A run's AdamW as one fused pass (train.optimizer_fused true): 28
# bytes a parameter with fp32 gradients, fewer than the framework's foreach SGD (32), so a higher compute_scale than
# SGD's; as foreach passes (80) a lower one
opt_run() { # OPTIMIZER FUSED(True|False|None): the cuDNN fixture's run with that optimizer, into $out/opt.json
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); t = d['train']; t['framework']['optimizer_foreach'] = True
if sys.argv[2] != 'None': t['optimizer'] = sys.argv[2]
if sys.argv[3] != 'None': t['optimizer_fused'] = sys.argv[3] == 'True'
json.dump(d, open(sys.argv[4], 'w'))" tests/fixtures/model/h200x1_bf16_resnet50_cudnn.json "$1" "$2" "$out/opt.json"
}
cal_scale() { # OPTIMIZER FUSED: its compute_scale
    opt_run "$1" "$2"
    $M --calibrate "$out/opt.json" --format json >"$out/opt.out" || fail "--calibrate, train.optimizer $1: exit $?"
    json_get "$out/opt.out" '[t["value"] for t in d["terms"] if t["name"] == "compute_scale"][0]'
}
none=$(cal_scale None None) sgd=$(cal_scale sgd None) fused=$(cal_scale adamw True) passes=$(cal_scale adamw False)
awk -v n="$none" -v s="$sgd" -v f="$fused" -v p="$passes" 'BEGIN { exit !(n == s && f > s && p < s) }' ||
    fail "--calibrate: compute_scale by train.optimizer: absent $none, sgd $sgd, adamw fused $fused, adamw passes $passes"
opt_run adam None
expect 2 "train.optimizer \"adam\" is not one this nvscale knows \(sgd, adamw or adamw-fused\)" $M --calibrate "$out/opt.json"

finish
