#!/bin/bash
# Issue 9's table: PyTorch DDP (tools/ddp_bench.py) and `nvscale train` side by side, per transport, in the same
# call (machines differ between calls): resnet50 (batch 128), lm290m (batch 8), bert-large-mlm128 (batch 32) at
# fp32 and bf16, N = 1 and 2. Usage: [ROUNDS=K [REPEAT=bf16]] tools/device/fidelity.sh DIR TRANSPORT... (nvlink, shm, net)
# ROUNDS=K (default 1) repeats each transport's PyTorch and nvscale runs K times, alternating, with the round in
# the file names (-rI); tools/fidelity.py --repeats then takes each side's median: a host-bound bf16 step moves
# with the VM's vCPU speed from second to second (docs/fidelity.md, "Noise"), and one run of each side is a
# coin toss there. REPEAT=bf16 makes rounds 2..K measure the bf16 configurations only (the fp32 steps are bound by
# the GPU and steady to a few tenths of a millisecond; the device time goes where the noise is).
# PAIRED=R (default 1) passes --rounds R to both sides: inside each run, N=1 and N=2 are timed R times in turn,
# and each run's efficiency is the median of its rounds' own (src/train/rounds.h; ddp_bench.py's eff_ddp1_paired).
# PRECS="fp32" or "bf16" (default "fp32 bf16") measures those precisions only, so that one transport can take two
# calls where paired rounds would pass the device's 600 s per call (sockets: lm290m and BERT at fp32 step at
# 0.4-0.5 s at N=2, results/fidelity/run3-net).
. "$(dirname "$0")/lib.sh"
R=$1
shift
case ${REPEAT:-all} in all | bf16) ;; *) echo "REPEAT=$REPEAT: expected all or bf16" >&2; exit 2 ;; esac
case ${ROUNDS:-1} in '' | *[!0-9]* | 0) echo "ROUNDS=$ROUNDS: expected a whole number >= 1" >&2; exit 2 ;; esac
case ${PAIRED:-1} in '' | *[!0-9]* | 0) echo "PAIRED=$PAIRED: expected a whole number >= 1" >&2; exit 2 ;; esac
PRECS=${PRECS:-fp32 bf16}
for P in $PRECS; do
    case $P in fp32 | bf16) ;; *) echo "PRECS=$PRECS: expected fp32 and/or bf16 (issue 9's precisions)" >&2; exit 2 ;; esac
done
[ -n "${PRECS// /}" ] || { echo "PRECS is empty: expected fp32 and/or bf16" >&2; exit 2; }
O=${OUT:-/tmp}
mkdir -p "$R/raw"
trap 'tar czf "$O/fidelity-$(basename "$R").tar.gz" "$R"' EXIT
[ -x ./nvscale ] || make -j32 NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
    $(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson) >"$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
[ -f "$R/MACHINE.md" ] || describe "$R"
commands_header
C=
for P in $PRECS; do C=$C${C:+,}resnet50:$P:128,lm290m:$P:8,bert-large:$P:32; done
MODELS=resnet50,tools/profiles/lm290m.prof,bert-large-mlm128
LO="-x NCCL_SOCKET_IFNAME=lo -x NCCL_IB_DISABLE=1 -x NCCL_MNNVL_ENABLE=0 --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"
for T in "$@"; do
    case $T in
    nvlink) MR="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE"; NV="" ;;
    shm) MR="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE=1"; NV="" ;;
    net) MR="mpirun --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE $LO -np 1 -x NCCL_HOSTID=nvs-vhost-0"
         NV=": -np 1 -x NCCL_HOSTID=nvs-vhost-1" ;;
    *) echo "unknown transport $T"; exit 2 ;;
    esac
    uptime >"$R/raw/load-$T.txt"
    for I in $(seq 1 "${ROUNDS:-1}"); do
        S=$([ "${ROUNDS:-1}" -gt 1 ] && echo "-r$I")
        CI=$C PS=$PRECS
        if [ "$I" -gt 1 ] && [ "${REPEAT:-all}" = bf16 ]; then
            CI=$(echo "$C" | tr , '\n' | grep :bf16: | paste -sd,) PS=bf16
            [ -n "$CI" ] || continue # PRECS=fp32: nothing repeats
        fi
        step "$T$S: PyTorch"
        rec "ddp-$T$S" timeout 280 torchrun --standalone --nproc_per_node 2 tools/ddp_bench.py --configs "$CI" \
            --transport "$T" --steps 12 --warmup 3 --rounds "${PAIRED:-1}" --json "$R/raw/ddp-$T$S.jsonl" --max-seconds 250
        for P in $PS; do
            step "$T$S: nvscale $P"
            A="train --model $MODELS --precision $P --steps 12 --warmup-steps 3 --rounds ${PAIRED:-1} --out $R/raw/nvs-$T-$P$S"
            if [ -n "$NV" ]; then rec "nvs-$T-$P$S" $MR ./nvscale $A $NV ./nvscale $A
            else rec "nvs-$T-$P$S" $MR ./nvscale $A; fi
        done
    done
    if [ "$T" = nvlink ] && echo " $PRECS " | grep -q " bf16 "; then
        step "$T: nvscale bf16, framework ideal (the hardware alone)"
        rec "nvs-$T-bf16-ideal" $MR ./nvscale train --model $MODELS --precision bf16 --framework ideal --steps 12 \
            --warmup-steps 3 --out "$R/raw/nvs-$T-bf16-ideal"
    fi
    uptime >>"$R/raw/load-$T.txt"
done
step done
