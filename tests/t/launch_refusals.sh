#!/bin/sh
# A refusal of user input under a launcher of several ranks: said once when every rank saw it, said by the rank
# that saw it when rank 0 did not, and every rank exits 2.
#  1. srun, which does not end the step when rank 0 exits 2 (unless --kill-on-bad-exit): every task has the caller's
#     environment and command line, so a bad variable or a missing file is rank 0's refusal too. Each other rank
#     said it again, tagged, 2 s later: N copies. Emulated with the variables srun sets, one process per task.
#  2. ranks of one launch with different command lines (a per-rank wrapper under one mpirun app, MPICH's
#     `mpiexec A : B`, which sets no OMPI_APP_CTX_NUM_PROCS): a refusal of rank 1's own command line was kept back
#     as if rank 0 had said it; mpirun ended the job naming only "exit code 2".
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir d

# srun_step N CMD...: CMD as the N tasks of one srun step (task 0 first), all at once; their stderr in $d/step.err,
# each task's exit status in $d/rc.RANK
srun_step() {
    n=$1
    shift
    : >"$d/step.err"
    r=0
    while [ $r -lt "$n" ]; do
        (env SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_PROCID=$r SLURM_LOCALID=$r SLURM_NODEID=0 SLURM_NTASKS="$n" \
            SLURM_STEP_NUM_TASKS="$n" "$@" >/dev/null 2>>"$d/step.err"
        echo $? >"$d/rc.$r") &
        r=$((r + 1))
    done
    wait
}

# said_once WHAT TEXT: TEXT in one line of the step's stderr, and every task exited 2
said_once() {
    c=$(grep -cF -- "$2" "$d/step.err")
    [ "$c" = 1 ] || fail "srun, $1: said $c times, not once: $(head -n 4 "$d/step.err")"
    for f in "$d"/rc.*; do [ "$(cat "$f")" = 2 ] || fail "srun, $1: task ${f##*.} exited $(cat "$f"), not 2"; done
    rm -f "$d"/rc.*
}

srun_step 3 env NVS_TEST_SLOW_STOP=x "$NVS" coll --backend mpi -e 1K --no-save
said_once "a bad NVS_TEST_SLOW_STOP" "invalid value 'x' for environment variable NVS_TEST_SLOW_STOP"
srun_step 3 "$NVS" accept --rules "$d/missing.rules" --no-save
said_once "a missing --rules file" "Try 'nvscale accept --help'."
mkdir "$d/exists"
srun_step 3 "$NVS" coll --backend mpi -e 1K --out "$d/exists"
said_once "an --out that exists" "it exists"
srun_step 3 "$NVS" coll --bogus --no-save
said_once "--bogus" "unknown option '--bogus'"
# an --out where no directory can be made although root may write (/proc): refused before the launch, once (was
# found by each task's own MPI world of one, when making it: "cannot create directory /proc/x" from every task)
srun_step 3 "$NVS" coll --backend mpi -e 1K --out /proc/nvscale-x/y
said_once "--out /proc/nvscale-x/y" "/proc/nvscale-x"
# a heterogeneous step (srun A : B) runs several command lines: rank 0 may have had another, so rank 1 says its own
expect 2 "^\[rank 1\] nvscale coll: unknown option '--bogus'" env SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURM_PROCID=1 \
    SLURM_NTASKS=2 SLURM_HET_SIZE=2 "$NVS" coll --bogus --no-save

# MPICH's hydra (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID), which ends the job when a rank exits non-zero: rank 1 still
# there 2 s after its refusal is one rank 0 did not make (it would have ended the job): said, tagged
expect 2 "^\[rank 1\] nvscale coll: unknown option '--bogus'" env PMI_RANK=1 PMI_SIZE=2 MPI_LOCALRANKID=1 \
    "$NVS" coll --bogus --no-save

# a --model profile missing on rank 1's host alone (its file system, not the command line): rank 1 says it, tagged
# (was said on launcher rank 0 only: rank 1 exited 2 without a word)
expect 2 "^\[rank 1\] nvscale train: --model $d/nonexist.prof: cannot open model profile" env OMPI_COMM_WORLD_RANK=1 \
    OMPI_COMM_WORLD_SIZE=2 "$NVS" train --model "$d/nonexist.prof" --backend mpi --no-save

# a --rules file missing on rank 1's host alone (a per-host path): rank 1 says why, tagged (was "[rank 1] Try
# 'nvscale accept --help'." alone: the reader's own message was dropped on every rank but 0)
expect 2 "^\[rank 1\] nvscale accept: cannot open $d/host1.rules: No such file" env OMPI_COMM_WORLD_RANK=1 \
    OMPI_COMM_WORLD_SIZE=2 "$NVS" accept --rules "$d/host1.rules" --no-save

if command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # the same under mpirun, rank 1 given a path that is not there: said by rank 1, and the job ends (exit 2)
    # without rank 0 waiting out --timeout 60 in MPI's start-up
    t0=$(date +%s)
    expect 2 "^\[rank 1\] nvscale accept: cannot open $d/host1.rules: No such file" $MPIRUN -np 1 "$NVS" accept \
        --backend mpi --timeout 60 --no-save -q : -np 1 "$NVS" accept --rules "$d/host1.rules" --backend mpi \
        --timeout 60 --no-save -q
    [ $(($(date +%s) - t0)) -lt 40 ] || fail "mpirun, --rules missing on rank 1: took $(($(date +%s) - t0)) s"
    # one mpirun app, a wrapper giving rank 1 another command line: rank 1's refusal is said, the job exits 2
    expect 2 "\[rank 1\] nvscale coll: unknown option '--bogus'" $MPIRUN -np 2 sh -c \
        'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then set -- "$@" --bogus; fi; exec "$@"' sh "$NVS" coll --backend mpi \
        -e 1K -n 1 -w 0 --no-save -q
    # the same refusal on every rank: once
    expect 2 "" $MPIRUN -np 3 "$NVS" coll --bogus --no-save
    n=$(printf '%s\n' "$_out" | grep -c "unknown option '--bogus'")
    [ "$n" = 1 ] || fail "mpirun -np 3 --bogus: said $n times, not once"
fi
finish
