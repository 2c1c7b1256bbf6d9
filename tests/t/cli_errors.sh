#!/bin/sh
# Every bad flag or value: exit 2, one message naming it, nothing written.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
out=$TMP/cli_errors
rm -rf "$out"
expect 2 "invalid value '12Q' for -b" $NVS coll -b 12Q --out $out
expect 2 "invalid value 'adam' for --optimizer: expected sgd, adamw or adamw-fused" $NVS train --model resnet50 --optimizer adam --out $out
expect 2 "invalid value 'adamw-foreach' for --optimizer: expected sgd, adamw or adamw-fused" $NVS run --optimizer adamw-foreach --out $out
expect 2 "option --optimizer given twice" $NVS run --optimizer adamw --optimizer sgd --out $out
expect 2 "invalid value '0' for -e" $NVS coll -e 0 --out $out
# a zero written as a decimal is refused in the words that 0 is (core/units.c nvs_parse_size_whole)
expect 2 "invalid value '0.0' for -b: expected a size from 1 to 1T such as 8, 64K, 1M" $NVS coll -b 0.0 --out $out
expect 2 "invalid value '0.0K' for --copy-bytes: expected a size from 4 to 1T" $NVS p2p --copy-bytes 0.0K --out $out
# a fractional size nccl-tests takes (its parsesize reads a double: -b 1.5M is 1572864 bytes) is taken where it is a
# whole number of bytes (was refused: "expected a size from 1 to 1T such as 8, 64K, 1M"), and one that is not says so
expect 2 "invalid value '1.3K' for -i: sizes are whole bytes .*: 1331.2 bytes is no whole number" $NVS coll -i 1.3K --out $out
expect 2 "invalid value '0.5' for --copy-bytes: sizes are whole bytes .*: 0.5 bytes is no whole number" $NVS p2p \
    --copy-bytes 0.5 --out $out
# ... every size flag of the command line alike (src/cli/options.c size_arg; model's bucket flags: model_cli.sh)
for f in -b --minbytes -e --maxbytes -i --stepbytes --bucket-first --bucket-cap; do
    expect 2 "invalid value '1.3K' for $f: sizes are whole bytes .*: 1331.2 bytes is no whole number" $NVS run \
        $f 1.3K --out $out
    expect 2 "invalid value '2000.5G' for $f: expected a .*size from 1 to 1T" $NVS run $f 2000.5G --out $out
done
expect 2 "invalid value '1.3K' for --copy-bytes: sizes are whole bytes .*: 1331.2 bytes is no whole number" $NVS p2p \
    --copy-bytes 1.3K --out $out
expect 2 "invalid value '2000.5G' for --copy-bytes: expected a size from 4 to 1T" $NVS p2p --copy-bytes 2000.5G --out $out
rm -rf "$out"
if $NVS coll --backend mpi -b 1.5M -e 1.5M -i 1e6 -n 1 -w 0 --out "$out" >"$TMP/cli_frac.log" 2>&1 &&
    awk '!/^#/ && $1 ~ /^[0-9]+$/ {print $1}' "$out/table.txt" | sort -u | grep -qx 1572864; then
    :
else
    fail "-b 1.5M -e 1.5M -i 1e6: not taken as 1572864 bytes, as nccl-tests takes them ($(tail -3 "$TMP/cli_frac.log"))"
fi
rm -rf "$out"
expect 2 "invalid value '2000.5G' for -e: expected a size from 1 to 1T" $NVS coll -e 2000.5G --out $out
expect 2 "invalid value '2M' for -b: larger than -e 1M" $NVS coll -b 2M -e 1M --out $out
# an inverted range names the flag typed, as typed, and the other end's default (was "invalid value '8' for
# -b/--minbytes" for `-e 4` alone: a flag and a value never typed)
expect 2 "invalid value '4' for -e: smaller than the smallest size, 8 B by default" $NVS coll -e 4 --out $out
expect 2 "invalid value '2G' for --minbytes: larger than the largest size, 1 GiB by default" $NVS coll --minbytes 2G --out $out
expect 2 "invalid value '1' for -f" $NVS coll -f 1 --out $out
expect 2 "-f/--stepfactor and -i/--stepbytes exclude each other: .*-f 1 goes with -i" $NVS coll -f 2 -i 1K --out $out
# nccl-tests' -f 1 is "no factor" (its -i then steps): with -i it is taken, sizes 1K, 2K, 3K; alone it is refused
$NVS coll --backend mpi -f 1 -i 1K -b 1K -e 3K -n 1 -w 0 --coll all_reduce --no-save --format csv 2>&1 |
    awk -F, 'NR > 1 && !$6 { s = s $7 " " } END { print s }' | grep -qx "1024 2048 3072 " ||
    fail "coll -f 1 -i 1K -b 1K -e 3K does not measure 1K, 2K, 3K"
expect 2 "invalid value '1' for -f.*-i" $NVS coll -f 1 --out $out
# a factor past the largest taken is refused naming the bound (was "expected a factor above 1": 2000 is)
expect 2 "invalid value '2000' for -f: expected a factor above 1, at most 1024" $NVS coll -f 2000 --out $out
# a flag given twice (the first value was silently lost), --out with --no-save (--out was ignored), and a
# training flag with --no-train (ignored): refused
expect 2 "option -b given twice" $NVS coll -b 8 -b 16 --out $out
expect 2 "option --minbytes given twice" $NVS coll -b 8 --minbytes 16 --out $out
expect 2 "option --out given twice" $NVS coll --out $out --out $out.2
expect 2 "--out and --no-save exclude each other" $NVS coll -b 8 -e 8 --no-save --out $out
expect 2 "--no-train and --batch exclude each other: --batch sets up the training step" $NVS run --no-train --batch 4 --out $out
expect 2 "--no-train and --precision exclude each other" $NVS run --precision bf16 --no-train --out $out
expect 2 "--no-train and --model exclude each other" $NVS run --no-train --model resnet50 --out $out
# -q with -v, --out with --no-save: one table (src/cli/options.c excludes[]) for the measuring commands and accept,
# one message naming both (tests/unit/test_cli_excludes.c walks every row)
expect 2 "nvscale coll: -q/--quiet and -v/--verbose exclude each other: one says errors only" $NVS coll -v -q --out $out
expect 2 "nvscale accept: -q/--quiet and -v/--verbose exclude each other" $NVS accept -q -v --out $out
expect 2 "nvscale accept: --out and --no-save exclude each other: --no-save writes no result directory" $NVS accept --no-save --out $out
expect 2 "invalid value '0' for -n" $NVS coll -n 0 --out $out
expect 2 "invalid value 'x' for -w" $NVS coll -w x --out $out
# nccl-tests' own values that nvscale does not take say what nvscale does instead (was a bare "expected 0 or 1")
expect 2 "invalid value '2' for -c: expected 0 or 1 \(nccl-tests' -c N checks N iterations; nvscale validates" $NVS coll -c 2 --out $out
expect 2 "invalid value '3' for -z: expected 0, 1 or 2 \(wait for each operation, 1 then a host barrier, 2 without, as nccl-tests; its -z 3, timing only the waited operations, is not taken" $NVS coll -z 3 --out $out
expect 2 "invalid value 'float8' for -d" $NVS coll -d float8 --out $out
expect 2 "invalid value 'mean' for -o" $NVS coll -o mean --out $out
# nccl-tests' fp8 types and mulsum say they are nccl-tests' and what nvscale takes (was the bare list alone)
expect 2 "invalid value 'f8e4m3' for -d: nccl-tests' fp8 type, which nvscale does not measure: types are int8" $NVS coll -d float,f8e4m3 --out $out
expect 2 "invalid value 'f8e5m2' for --datatype: nccl-tests' fp8 type, which nvscale does not measure" $NVS coll --datatype f8e5m2 --out $out
expect 2 "invalid value 'mulsum' for -o: nccl-tests' premultiplied sum .*: operations are sum, prod, max, min, avg" $NVS coll -o mulsum --out $out
expect 2 "invalid value '-1' for -r" $NVS coll -r -1 --out $out
expect 2 "invalid value 'scatter' for --coll" $NVS coll --coll all_reduce,scatter --out $out
# a collective, type or operation given twice is refused by name (was measured once, the repeat dropped without a
# word), as --gpus 1,1 and compare --transports shm,shm; 'all' with other items is every one of them plus a repeat
expect 2 "invalid value 'all_reduce,broadcast,all_reduce' for --coll: 'all_reduce' given twice \(each collective once\)" \
    $NVS coll --coll all_reduce,broadcast,all_reduce --out $out
expect 2 "invalid value 'all,all_reduce' for --coll: 'all' stands alone: it is every collective" \
    $NVS run --coll all,all_reduce --out $out
expect 2 "invalid value 'float,fp32' for -d: 'float' given twice, the second time as 'fp32'" $NVS coll -d float,fp32 --out $out
expect 2 "invalid value 'sum,max,sum' for -o: 'sum' given twice" $NVS coll -o sum,max,sum --out $out
expect 2 "invalid value 'fast' for --backend" $NVS coll --backend fast --out $out
expect 2 "invalid value '0,2' for --gpus" $NVS run --gpus 0,2 --out $out
# a count given twice is refused by name (was measured once, the repeat dropped without a word); the order is free
expect 2 "invalid value '2,1,2' for --gpus: 2 given twice" $NVS run --gpus 2,1,2 --out $out
expect 2 "invalid value '1,x' for --gpus: 'x' is not a GPU count" $NVS train --model resnet50 --gpus 1,x --out $out
expect 2 "invalid value 'middle' for --placement" $NVS run --placement middle --out $out
expect 2 "invalid value '-3' for --timeout" $NVS coll --timeout -3 --out $out
expect 2 "invalid value 'xml' for --format" $NVS coll --format xml --out $out
expect 2 "invalid value 'sideways' for --inplace" $NVS coll --inplace sideways --out $out
expect 2 "invalid value '0' for --batch" $NVS train --model resnet50 --batch 0 --out $out
expect 2 "invalid value 'fp8' for --precision" $NVS train --model resnet50 --precision fp8 --out $out
expect 2 "--model is required" $NVS train --out $out
expect 2 "invalid value 'resnet50,bert-large,resnet50' for --model: 'resnet50' given twice" $NVS train --model resnet50,bert-large,resnet50 --out $out
expect 2 "unknown option '--bogus'" $NVS coll --bogus --out $out
expect 2 "option -b needs a value" $NVS coll -b
# a flag that takes no value, given one (--no-save=1), is refused naming the flag, every subcommand's alike (was
# "unknown option '--no-save=1'", as for a typo); an abbreviation getopt resolves is named in full
for a in "coll --no-save=1" "coll --no-nccl-log=0" "coll --quiet=yes" "coll --verbose=2" "coll --help=1" \
    "run --no-train=1" "p2p --host=1" "accept --no-save=1" "accept --print-rules=1" "accept --quiet=1" \
    "model --fit=1" "model --lambda=1" "model --pairs=1" "model --list-presets=1" "model --help=x" "check --help=1"; do
    flag=${a#* } flag=${flag%%=*}
    # shellcheck disable=SC2086
    expect 2 "option $flag takes no value \(got ${a#* }\)" $NVS $a --out $out
done
expect 2 "nvscale coll: option --no-save takes no value \(got --no-sa=1\)" $NVS coll --no-sa=1 --out $out
expect 2 "unknown option '--bogus=1'" $NVS coll --bogus=1 --out $out
# a short option inside a cluster is named alone, whatever came before it (was '--no-save', the argument before)
expect 2 "unknown option '-Z'" $NVS coll --no-save -Zq
expect 2 "unknown option '-Z'" $NVS coll --out $out -qZ
expect 2 "option -b needs a value" $NVS coll --no-save -qb
expect 2 "unexpected argument 'extra'" $NVS coll extra --out $out
expect 2 "unknown subcommand 'frobnicate'" $NVS frobnicate
expect 2 "expected RANK:SIZE" env NVS_TEST_STALL=banana $NVS coll --out $out
expect 2 "NVS_TEST_SLOW_STOP: expected seconds" env NVS_TEST_SLOW_STOP=0 $NVS coll --out $out
expect 2 "-G/--cudagraph needs the NCCL backend" $NVS coll --backend mpi -G 2 --out $out
expect 2 "--alloc nccl needs the NCCL backend" $NVS coll --backend mpi --alloc nccl --out $out
expect 2 "invalid value 'cudamalloc' for --alloc: expected cuda or nccl" $NVS run --alloc cudamalloc --out $out
expect 2 "option --alloc is not one of train's" $NVS train --alloc nccl --out $out
expect 2 "more than 2\^31-1 elements" $NVS coll --backend mpi -e 16G --out $out
expect 2 "root" $NVS coll --backend mpi --coll broadcast -r 3 --out $out
# a sweep in which no size gives a rank one element measures nothing: refused, not an empty run that exits 0
expect 2 "-b 1 to -e 3 measures nothing" $NVS coll --backend mpi -b 1 -e 3 --out $out
expect 2 "-b 1 to -e 3 measures nothing" $NVS run --backend mpi -b 1 -e 3 --no-train --out $out
# a sweep of more sizes than the sweep runs (4096): refused before the launch, not by each rank once started
expect 2 "the sweep from -b 1 to -e 1048576 has too many sizes" $NVS coll --backend mpi -b 1 -i 1 -e 1M --out $out
# --inplace in of collectives with no in-place form (alltoall, sendrecv) measured nothing: an empty table, exit 0
expect 2 "--inplace in measures nothing" $NVS coll --backend mpi --coll alltoall,sendrecv --inplace in --out $out
expect 2 "--inplace in measures nothing" $NVS run --backend mpi --coll alltoall --inplace in --no-train --out $out
if command -v mpirun >/dev/null 2>&1; then # per-rank blocks of 16 B (nccl-tests): 4 ranks need 64 B
    expect 2 "-b 8 to -e 32 measures nothing" $MPIRUN -np 4 $NVS coll --backend mpi --coll all_gather -b 8 -e 32 --out $out
    # a refusal every rank sees is said once (rank 0's); one that only rank 1 sees (a variable set on its host
    # alone) is said by rank 1, tagged: it exited 2 without a word, rank 0 went on and mpirun named only the exit.
    # Rank 0 starts late here, as on a busy machine (both said it then, and these checks failed now and then): the
    # other ranks wait for it (NVS_TEST_SILENT_RANK_DELAY_S, tests/lib.sh late_rank0)
    late_rank0 late
    export NVS_TEST_SILENT_RANK_DELAY_S=60
    expect 2 "" $MPIRUN -np 4 -x NVS_TEST_SILENT_RANK_DELAY_S $late $NVS coll --bogus --out $out
    n=$(printf '%s\n' "$_out" | grep -c "unknown option '--bogus'")
    [ "$n" = 1 ] || fail "mpirun -np 4 --bogus, rank 0 late: said $n times, not once"
    # the sweep's own refusals before launch (collectives/sweep.c nvs_sweep_validate) too: each rank said them
    for a in "-G 2" "--alloc nccl" "-e 16G" "--coll alltoall --inplace in" "-b 1 -i 1 -e 1M"; do
        expect 2 "" $MPIRUN -np 3 -x NVS_TEST_SILENT_RANK_DELAY_S $late $NVS coll --backend mpi $a --out $out
        n=$(printf '%s\n' "$_out" | grep -c "^nvscale: ")
        [ "$n" = 1 ] || fail "mpirun -np 3 coll --backend mpi $a, rank 0 late: refused $n times, not once"
    done
    # rank 1 alone refuses below: it says it after the default wait, not after a minute
    unset NVS_TEST_SILENT_RANK_DELAY_S
    expect 2 "^\[rank 1\] nvscale coll: invalid value 'x' for environment variable NVS_TEST_SLOW_STOP" \
        $MPIRUN -np 4 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export NVS_TEST_SLOW_STOP=x; exec "$@"' sh $NVS coll \
        --backend mpi -n 2 -e 1K --out $out
    n=$(printf '%s\n' "$_out" | grep -c "NVS_TEST_SLOW_STOP")
    [ "$n" = 1 ] || fail "a refusal of rank 1 alone: said $n times, not once"
fi
# rank 1 of a srun step (SLURM_* as srun sets them), which does not end the job when rank 0 exits 2: a refusal of
# the command line or of srun's environment is rank 0's too, said by it alone; rank 1 said it again, tagged, 2 s
# later (tests/t/launch_refusals.sh: the whole step)
expect 2 "" env SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_NTASKS=2 $NVS coll --bogus --out $out
[ -z "$_out" ] || fail "srun rank 1, --bogus: said again by rank 1: $_out"
expect 2 "" env SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_NTASKS=2 NVS_TEST_SLOW_STOP=x $NVS coll --backend mpi -e 1K \
    --out $out
[ -z "$_out" ] || fail "srun rank 1, NVS_TEST_SLOW_STOP=x: said again by rank 1: $_out"
expect 2 "(unknown|no such|cannot open).*no-such-model" $NVS train --model no-such-model --backend mpi --out $out
# one workload under two spellings (a built-in and a file of the same name) would report twice under one key
sed 's/^name cap$/name resnet50/' tests/fixtures/profiles/good_cap.prof > "$TMP/cli_errors_r50.prof"
expect 2 "'resnet50' and '$TMP/cli_errors_r50.prof' are both the workload 'resnet50'" $NVS run \
    --model "resnet50,$TMP/cli_errors_r50.prof" --backend mpi --out $out
expect 2 "invalid value 'yes' for --cudnn.*expected auto, on or off" $NVS train --model resnet50 --cudnn yes --out $out
expect 2 "--cudnn on: the mpi backend runs the training step on the CPU" $NVS train --model resnet50 --cudnn on \
    --backend mpi --out $out
expect 0 "usage: nvscale coll" $NVS coll --help
expect 0 "nccl-tests style" $NVS help
# help SUBCOMMAND is SUBCOMMAND --help (as git's); an unknown name is a usage error
expect 0 "usage: nvscale model --gpu" $NVS help model
expect 2 "nvscale help: unknown subcommand 'bogus'" $NVS help bogus
# an output path that cannot be written is the subcommand's usage error, as every other one ("nvscale SUB: ..."), said
# before the work; it was the file writer's "nvscale: error: cannot write /proc/x.txt" (model, after the model ran)
# and "nvscale: error: cannot create directory /proc/x" (report)
expect 2 "^nvscale model: -o /proc/nvs-x.txt: cannot write in directory '/proc'" $NVS model --lambda -o /proc/nvs-x.txt
expect 2 "^nvscale report: -o /proc/nvs-x: cannot write in directory '/proc'" $NVS report \
    results/h200x2-final/default-run/run.json -o /proc/nvs-x
expect 2 "^nvscale report: -o /etc/passwd: not a directory" $NVS report results/h200x2-final/default-run/run.json \
    -o /etc/passwd
expect 2 "^nvscale report: unknown option --bogus" $NVS report --bogus
# --gpus above the world size says why in the run's terms: on the host backend a rank is a process, not a GPU (it
# said "only 1 rank (GPU)" right after the notice that no GPU was found)
if ! has_gpu; then
    expect 2 "^nvscale coll: invalid value '3' in --gpus: this run has 1 rank, an MPI process on host memory \(no GPU\); for 3: mpirun -np 3 nvscale coll" \
        $NVS coll --gpus 3 -e 1K --out $out
fi
expect 0 "NCCL" $NVS version
# words after version or help SUBCOMMAND were ignored (exit 0)
expect 2 "nvscale version: unexpected argument 'extra'" $NVS version extra
expect 2 "nvscale version: unexpected argument '--bogus'" $NVS version --bogus
expect 2 "nvscale help: unexpected argument 'extra'" $NVS help run extra
# 'nvscale SUBCOMMAND --help' works for every subcommand, as `nvscale help` says (version and help refused it, and
# so `nvscale help version` failed: exit 2)
expect 0 "usage: nvscale version" $NVS version --help
expect 0 "usage: nvscale version" $NVS version -h
expect 0 "usage: nvscale version" $NVS help version
expect 0 "nccl-tests style" $NVS help --help
expect 0 "nccl-tests style" $NVS help -h
# every built-in profile is named in the --help of the commands that take --model
for name in $(sed -n 's/^extern const char nvs_profile_text_\([a-z0-9_]*\)\[\];/\1/p' src/workload/profiles/builtin.h | tr _ -); do
    for cmd in train model; do
        $NVS $cmd --help 2>&1 | tr -s ' \n' '  ' | grep -q " $name[ ,]" || fail "nvscale $cmd --help does not name the built-in profile $name"
    done
done
# coll measures the world size alone (as nccl-tests): its --help said "default 1,2,4,.. up to all", run's default
$NVS coll --help | grep -A1 -- '--gpus' | tr -s ' \n' '  ' | grep -q "coll: the world size only" ||
    fail "nvscale coll --help does not give coll's --gpus default (the world size only)"
# train has no default workload and refuses to start without --model: its --help says so (it gave only run's default)
$NVS train --help | head -1 | grep -q "^usage: nvscale train --model NAME|FILE" ||
    fail "nvscale train --help: the usage line does not name the required --model"
$NVS train --help | sed -n '/^ *--model/,+4p' | tr -s ' \n' '  ' | grep -q "train: required" ||
    fail "nvscale train --help does not say --model is required"
# the host backend's default run sweeps with factor 4 (run_flow.c apply_backend_defaults): -f's help said 'default 2'
for cmd in run coll; do
    $NVS $cmd --help | grep -A1 -- '--stepfactor' | tr -s ' \n' '  ' | grep -q "default 2; 4 on the host backend's default run" ||
        fail "nvscale $cmd --help does not give -f's default on the host backend's default run (4)"
done
[ -e "$out" ] && fail "a rejected command left $out behind"
finish
