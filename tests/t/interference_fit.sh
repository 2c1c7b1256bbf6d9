#!/bin/sh
# The what-if model's interference shares (src/model/interference.c) are the fit their source names, recomputed
# here from the committed runs: Σ interference / Σ hidden communication (comm alone minus what stayed exposed) of
# `nvscale train --precision fp32` at N=2, lm290m and bert-large-mlm128, over NVLink, SHM and NCCL's sockets
# (results/fidelity/run3-*). Each run's own NCCL log must say it ran the transport it stands for. Then the model
# prints the shares it uses and pays them; --overlap-penalty replaces them. CPU only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd jq "the runs are read with jq"
tmp_dir d

# fit TRANSPORT: the share from the committed run, 3 decimals
fit() {
    jq -r '[.trains[] | select(.model == "lm290m" or .model == "bert-large-mlm128") | .results[] | select(.n == 2)]
        | (map(.interference_us) | add) / (map(.comm_us - .exposed_comm_us) | add) | . * 1000 | round / 1000' \
        "results/fidelity/run3-$1/raw/nvs-$1-fp32-r1/run.json"
}
# used SUMMARY_KEY TRANSPORT: the run's rings at N=2 went over that transport only
used() {
    jq -e --arg k "$1" '.transports[] | select(.n == 2) | .summary | keys == [$k]' \
        "results/fidelity/run3-$2/raw/nvs-$2-fp32-r1/run.json" >/dev/null ||
        fail "run3-$2: NCCL's transports at N=2 are not $1 alone"
}
# term NAME ARGS...: the value of the model's term NAME for `nvscale model ARGS --format json`
term() {
    name=$1
    shift
    "$NVS" model "$@" --format json | jq -r --arg n "$name" '.configurations[0].terms[] | select(.name == $n) | .value'
}
# same A B WHAT: equal to the printed precision (3 decimals)
same() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d < 0.0005 && d > -0.0005) }' ||
        fail "$3: the model uses '$2', the committed runs give '$1'"
}

H200="--gpu h200-sxm --machine nvlink-2gpu --model tools/profiles/lm290m.prof --precision fp32 --batch 8 --gpus 1,2"
used P2P nvlink
used SHM shm
used NET net
nv=$(fit nvlink)
shm=$(fit shm)
net=$(fit net)
# shellcheck disable=SC2086 # H200 is a list of arguments
same "$nv" "$(term interference@NVLink $H200)" NVLink
# shellcheck disable=SC2086
same "$shm" "$(term interference@SHM $H200 --p2p off)" SHM
# NET's share is paid with one GPU per node (across nodes with more, the node's link's: docs/model.md "Limits")
same "$net" "$(term interference@NET --gpu h100-sxm --machine hgx-h100-8 --model gpt2-xl --net eth-10g --nodes 1,2 \
    --gpus-per-node 1)" NET
# what the fit says of this box: NVLink's kernels take most from the compute, the sockets' least
awk -v a="$nv" -v b="$shm" -v c="$net" 'BEGIN { exit !(a > b && b > c && c > 0 && a < 1) }' ||
    fail "shares out of order: NVLink $nv, SHM $shm, NET $net"

# the model pays the share of the time the GPU computed beside the all-reduces: the JSON's interference_us is
# share x ... > 0 at N=2 and 0 at N=1; --overlap-penalty 0 removes it, and the step with it
# shellcheck disable=SC2086
"$NVS" model $H200 --format json >"$d/def.json" || fail "the model did not run"
# shellcheck disable=SC2086
"$NVS" model $H200 --overlap-penalty 0 --format json >"$d/zero.json" || fail "the model did not run"
jq -e '.configurations[0].points | .[0].interference_us == 0 and .[1].interference_us > 1000 and
    .[1].interference_share == 0.675' "$d/def.json" >/dev/null || fail "no interference at N=2: $(cat "$d/def.json")"
jq -e '.configurations[0].points[1].interference_us == 0' "$d/zero.json" >/dev/null ||
    fail "--overlap-penalty 0 left interference"
jq -n -e --slurpfile a "$d/def.json" --slurpfile b "$d/zero.json" \
    '($a[0].configurations[0].points[1]) as $p | ($b[0].configurations[0].points[1]) as $q |
     ($p.step_us - $q.step_us - $p.interference_us | fabs) < 0.01 and $p.exposed_comm_us == $q.exposed_comm_us' \
    >/dev/null || fail "the interference is not what the step gains over --overlap-penalty 0"
# shellcheck disable=SC2086
"$NVS" model $H200 | grep -q "interf_ms" || fail "the table has no interf_ms column"
finish
