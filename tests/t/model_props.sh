#!/bin/sh
# nvscale model's output as a capacity planner reads it (tests/unit/test_model_props.c checks the model itself):
# the table and the JSON give the same numbers, whose parts add up to the step (the wait for the slowest rank,
# --step-cv, included); a flag the mode would not use is refused by name, nothing written; a calibration on a
# run.json made of the model's own prediction gives that prediction back (round trip).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd jq "the JSON checks read the output with jq"
tmp_dir tmp
M="$NVS model"

# table vs JSON, and step = compute + reducer + exposed + interference + sync, over a small grid
for args in "--gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model maskrcnn-nvidia --step-cv 0.1" \
    "--gpu rtxa6000 --machine g482-z53-epyc7662 --model bert-large --batch 4 --step-cv 0.2 --framework ideal" \
    "--gpu h100-sxm --machine hgx-h100-8 --model gpt2-xl --precision bf16 --net ib-ndr400 --nodes 1,2,8" \
    "--gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --dp none --step-cv 0.1" \
    "--gpu a100-sxm --machine hgx-a100-8 --model resnet50 --precision fp16 --dp delay"; do
    # shellcheck disable=SC2086 # the flags split on purpose
    $M $args >"$tmp/t.txt" 2>/dev/null && $M $args --format json >"$tmp/j.json" 2>/dev/null ||
        { fail "model $args"; continue; }
    jq -e '[.configurations[].points[] | (.compute_us + .reducer_us + .exposed_comm_us + .interference_us +
            .sync_us - .step_us) | fabs] | max < 0.01' "$tmp/j.json" >/dev/null ||
        fail "$args: JSON parts do not add up to step_us"
    # the table's rows (N, shape, step, compute, reducer, comm, exposed, interf[, sync], host, eff %) in order
    sync=0
    grep -q ' sync_ms ' "$tmp/t.txt" && sync=1
    awk -v s="$sync" '$3 == "x" && $1 ~ /^[0-9]+$/ && NF > 12 {
        printf "%s %s %s %s %s %s %s %s %s %s\n", $1, $5, $6, $7, $8, $9, $10, (s ? $11 : "0.00"),
            (s ? $12 : $11), (s ? $13 : $12) }' "$tmp/t.txt" >"$tmp/rows.txt"
    jq -r '.configurations[].points[] | "\(.n) \(.step_us) \(.compute_us) \(.reducer_us) \(.comm_us) \(.exposed_comm_us)
           \(.interference_us) \(.sync_us) \(.host_us) \(.efficiency)"' "$tmp/j.json" | paste -d' ' - - >"$tmp/json.txt"
    [ "$(wc -l <"$tmp/rows.txt")" -eq "$(wc -l <"$tmp/json.txt")" ] && [ -s "$tmp/rows.txt" ] ||
        { fail "$args: $(wc -l <"$tmp/rows.txt") table rows, $(wc -l <"$tmp/json.txt") JSON points"; continue; }
    paste -d' ' "$tmp/rows.txt" "$tmp/json.txt" | awk -v a="$args" '{
        if ($1 != $11) { print "N " $1 " vs " $11; bad = 1 }
        for (i = 2; i <= 9; i++) if ((d = $i - $(i + 10) / 1e3) > 0.006 || d < -0.006) { print a ": column " i ": " $i " vs " $(i + 10) / 1e3; bad = 1 }
        if ((d = $10 - 100 * $20) > 0.06 || d < -0.06) { print a ": eff " $10 " vs " $20; bad = 1 }
        s = $3 + $4 + $6 + $7 + $8
        if ((d = s - $2) > 0.03 || d < -0.03) { print a ": table parts " s " vs step " $2; bad = 1 }
    } END { exit bad }' || fail "$args: the table and the JSON disagree"
done
# a table with waiting says so (the sync_ms column was missing: the parts fell short of step_ms by it)
$M --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model maskrcnn-nvidia --step-cv 0.1 >"$tmp/t.txt" &&
    grep -q ' sync_ms ' "$tmp/t.txt" || fail "--step-cv: no sync_ms column"

# a flag the mode does not use: refused by name, nothing written (--nccl, --dp and --step-cv with --calibrate were
# dropped without a word; --list-presets took any projection flag)
F=tests/fixtures/model/h200x2_nvlink_resnet50.json
for flag in "--step-cv 0.5" "--dp none" "--nccl 2.7.8" "--precision bf16" "--framework ideal"; do
    name=${flag%% *}
    rm -f "$tmp/o.txt"
    # shellcheck disable=SC2086
    expect_err 2 "$name with --calibrate sets a projection" $M --calibrate $F $flag -o "$tmp/o.txt"
    [ -e "$tmp/o.txt" ] && fail "--calibrate $flag: wrote $tmp/o.txt"
done
for flag in "--gpu rtx3090" "--step-cv 0.1" "--net ib-hdr200" "--batch 8"; do
    rm -f "$tmp/o.txt"
    # shellcheck disable=SC2086
    expect_err 2 "${flag%% *} with --list-presets" $M --list-presets $flag -o "$tmp/o.txt"
    # shellcheck disable=SC2086
    expect_err 2 "${flag%% *}: --lambda models Lambda's own runs" $M --lambda $flag -o "$tmp/o.txt"
    [ -e "$tmp/o.txt" ] && fail "$flag: wrote $tmp/o.txt"
done
# bad values exit 2 naming the value, nothing written
OK="--gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50"
for fv in "--step-cv nan" "--step-cv -0.1" "--overlap-penalty inf" "--batch 1.5" "--gpus 0" "--nccl 2.x" \
    "--bucket-cap 0" "--gpus-per-node 9" "--dp sync" "--grad fp64"; do
    rm -f "$tmp/o.txt"
    # shellcheck disable=SC2086
    expect_err 2 "${fv#* }" $M $OK $fv -o "$tmp/o.txt"
    [ -e "$tmp/o.txt" ] && fail "$fv: wrote $tmp/o.txt"
done

# round trip: the calibrated model's own step, compute and communication written as the run's measurement give
# the same prediction back
for run in tests/fixtures/model/h200x2_shm_bert.json "tests/fixtures/runs/box3090_8gpu_shm.json --machine pcie4-1s-8gpu-cascade"; do
    # shellcheck disable=SC2086
    $M --calibrate $run --format json >"$tmp/c1.json" || { fail "--calibrate $run"; continue; }
    file=${run%% *} rest=${run#"$file"}
    jq --slurpfile c "$tmp/c1.json" '.train.results |= map(. as $r | ($c[0].train[] | select(.n == $r.n)) as $m |
        .step_us = $m.model_step_us | .compute_us = $m.model_compute_us |
        if $r.n > 1 then .comm_us = $m.model_comm_us | .exposed_comm_us = $m.model_exposed_comm_us else . end)' \
        "$file" >"$tmp/rt.json" || { fail "round trip: $file"; continue; }
    # shellcheck disable=SC2086
    $M --calibrate "$tmp/rt.json" $rest --format json >"$tmp/c2.json" || { fail "--calibrate round trip $run"; continue; }
    jq -e --slurpfile c "$tmp/c1.json" '[.train[] | . as $t | ($c[0].train[] | select(.n == $t.n)) as $m |
        (.model_step_us / $m.model_step_us - 1 | fabs), (.model_efficiency - $m.model_efficiency | fabs)] | max < 0.005' \
        "$tmp/c2.json" >/dev/null || fail "round trip $run: the prediction moved by more than 0.5 %"
done
finish
