#!/bin/sh
# The training step end to end on the MPI host backend (CPU GEMMs + MPI_Iallreduce per bucket): N = 1 and 2,
# run.json's train section, and the up-front refusals.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd mpirun "the host training step runs under it"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prof=tests/fixtures/train/tiny-mlp.prof
d=$TMP/train_host
rm -rf "$d"
expect 0 "Training step: tiny-mlp, batch [0-9]* per rank, .* GFLOP per step per rank" $MPIRUN -np 2 $NVS train --backend mpi --model $prof --bucket-first 64K --bucket-cap 256K \
    --steps 4 --warmup-steps 1 --out "$d"
# the table's parts add up to the step (train/split.h): step = compute + reducer + slowed + exposed + waited, to
# the rounding of 5 printed parts; a row whose compute-only step took longer than the step says so instead
printf '%s\n' "$_out" | grep -q '^#  *N  *step  *compute  *reducer  *slowed  *exposed  *waited  *comm ' ||
    fail "train's table has no reducer/slowed/waited columns: $(printf '%s\n' "$_out" | grep -A2 'Training step')"
bad=$(printf '%s\n' "$_out" | awk '/^#  *N  *step/ { t = 1; next } t && /^ +[0-9]+ / { if ($3 <= $2 && ($2 - $3 - $4 - $5 - $6 - $7) ^ 2 > 0.03 ^ 2) print } /^#$/ { t = 0 }')
[ -z "$bad" ] || fail "train's table: parts do not add up to the step: $bad"
# one bucket is "1 bucket" (tiny-mlp's 1 MB of gradients fit pytorch-ddp's default 25 MB bucket)
expect 0 "fp32, 1 bucket \(0.3 M parameters" $NVS train --backend mpi --model $prof --steps 2 --warmup-steps 1 --no-save
# --bucket-cap alone is the first bucket's size too (DDP 2.x's bucket_cap_mb): 64K buckets from the first one
expect 0 "" $NVS train --backend mpi --model $prof --bucket-cap 64K --steps 2 --warmup-steps 1 --out "$d.cap"
[ "$(json_get "$d.cap/run.json" "(d['train']['bucket_first_bytes'], d['train']['bucket_cap_bytes'])")" = "(65536, 65536)" ] ||
    fail "--bucket-cap 64K alone: $(json_get "$d.cap/run.json" "(d['train']['bucket_first_bytes'], d['train']['bucket_cap_bytes'])")"
rm -rf "$d.cap"
j=$d/run.json
check() { [ "$(json_get $j "$1")" = "$2" ] || fail "$1 is $(json_get $j "$1"), expected $2"; }
check "d['train']['model']" "tiny-mlp"
# counts are integers, as docs/run-json.md shows them: 5 layers, 65536 + 3*65792 + 2570 parameters
check "(d['train']['layers'], d['train']['params'])" "(5, 265482)"
check "[r['n'] for r in d['train']['results']]" "[1, 2]"
check "d['train']['results'][0]['efficiency']" "1.0"
# every parameter in exactly one bucket: 65536 + 3*65792 + 2570 fp32 gradients
check "sum(b['bytes'] for b in d['train']['buckets'])" "$(( (65536 + 3 * 65792 + 2570) * 4 ))"
check "len(d['train']['buckets']) >= 3" "True"
check "all(r['step_us'] > 0 and r['compute_us'] > 0 and r['exposed_comm_us'] >= 0 for r in d['train']['results'])" "True"
check "d['train']['results'][1]['comm_us'] > 0" "True"
# the timed steps' range of the full and the compute-only step, around their medians (the table's note on a compute
# above the step tells noise from a host that slowed by them)
check "all(0 < r['step_min_us'] <= r['step_us'] <= r['step_max_us'] and 0 < r['compute_min_us'] <= r['compute_us'] <= r['compute_max_us'] for r in d['train']['results'])" "True"
check "0 < d['train']['results'][1]['efficiency'] <= 1.5" "True"
check "d['collectives']" "[]"
# run.json's memory parts add up to what it needed (bucket copies, buffers and fp32 copies were left out)
check "abs(sum(v for k, v in d['train']['memory'].items() if k not in ('needed_bytes', 'free_bytes')) - d['train']['memory']['needed_bytes']) < 1" "True"
# ... each a whole number of bytes (a real kept 10 digits: "free_bytes": 2.454079898e10)
check "all(isinstance(v, int) for v in d['train']['memory'].values())" "True"
check "all(isinstance(e['busbw_bytes'], int) for e in d['explain'] if e.get('busbw_bytes') is not None)" "True"
# its report says what the batch is per: a rank of the host backend, not a GPU (was "batch 8 per GPU")
expect 0 "" $NVS report "$j" -o "$d.report"
grep -q "^Model tiny-mlp (.*, batch [0-9]* per rank," "$d.report/report.md" ||
    fail "report of a host-backend run: $(grep -o '^Model tiny-mlp.*per [a-zA-Z]*' "$d.report/report.md")"
# the host's speed before the steps (the framework's host work, pytorch-ddp by default): p10 <= p90, both > 0
check "all(0 < r['host_rate_p10'] <= r['host_rate_p90'] for r in d['train']['results'])" "True"
# what the framework's host work charged per full step: tiny-mlp's operations (its own kernels: its profile has no
# ops=), and 2 hooks for each of its 5 layers
# with parameters (embed, 3 x fc, head)
check "d['train']['framework']['ops_per_step'] > 0" "True"
check "d['train']['framework']['hook_tensors_per_step']" "10.0"
# the host's time to issue each step: positive, and within the step (the host executor is synchronous: close to it)
check "all(0 < r['issue_us'] <= r['step_us'] * 1.001 and 0 < r['compute_issue_us'] for r in d['train']['results'])" "True"
# ... by what it issued (issue_by_us): every kind, none negative; the GEMMs and the communication calls (MPI) took
# some; the kinds, medians each, within the issue time (10 % for the medians of different steps); the framework's
# host work under its own key; and at the first N the issue time of the step without that work
check "[sorted(r['issue_by_us']) for r in d['train']['results']][0]" "['comm', 'conv_library', 'copies', 'framework', 'gemm', 'norm_kernels', 'norm_library', 'optimizer', 'other', 'passes']"
check "all(min(r['issue_by_us'].values()) >= 0 and r['issue_by_us']['gemm'] > 0 and r['issue_by_us']['comm'] > 0 for r in d['train']['results'])" "True"
check "all(sum(r['issue_by_us'].values()) <= r['issue_us'] * 1.1 for r in d['train']['results'])" "True"
check "[(r['ideal_compute_issue_us'] > 0, 'ideal_compute_issue_us' in d['train']['results'][1]) for r in d['train']['results'][:1]]" "[(True, False)]"
# at the first N the split of the compute between GEMMs and the rest, both without the framework's host work
check "[(r['ideal_compute_us'] > 0, abs(r['gemm_us'] - max(0, r['ideal_compute_us'] - r['no_gemm_us'])) < 1e-6) for r in d['train']['results'][:1]]" "[(True, True)]"
check "'ideal_compute_us' in d['train']['results'][1]" "False"
# no layout copies at fp32 (pytorch-ddp makes them around convolutions at half precision only)
check "(d['train']['framework']['layout_copy_bytes_per_step'], d['train']['framework']['nchw_copies_bwd'] > 0, d['train']['framework']['grad_scaler'])" "(0.0, True, True)"
# and the reducer's work once per bucket it all-reduces
check "d['train']['framework']['reducer_buckets_per_step'] == len(d['train']['buckets'])" "True"
# --optimizer adamw: said in run.json (the default run above says sgd). Under pytorch-ddp (the default) it runs as
# PyTorch's default foreach passes (optimizer_fused false), whose temporary exp_avg_sq_sqrt and second fp32 state (v)
# are counted in the memory: 8 bytes more per parameter than SGD in master_bytes and needed_bytes; --optimizer
# adamw-fused and --framework ideal run it as one fused pass: 4 bytes more (v alone). (The GPU's update ran fused
# under every framework and run.json said optimizer_fused true for it.)
check "(d['train']['optimizer'], d['train']['optimizer_fused'])" "('sgd', False)"
# The optimizer's host operations (run.json ops_per_step) are the optimizer's, as PyTorch dispatches them
# (workload/optimizer.c): AdamW's foreach path 9 (torch/optim/adam.py _multi_tensor_adam), fused=True 2, SGD 1; under
# ideal the update's one kernel whatever the optimizer: 8, 1 and 0 more than SGD's (less the per-bucket copies back,
# one operation each under pytorch-ddp: the SGD run has other buckets)
for v in "adamw pytorch-ddp False 8 8" "adamw-fused pytorch-ddp True 4 1" "adamw ideal True 4 0"; do
    set -- $v
    expect 0 "Training step: tiny-mlp" $MPIRUN -np 2 $NVS train --backend mpi --model $prof --optimizer $1 \
        --framework $2 --steps 2 --warmup-steps 1 --out "$d.adamw"
    ja=$d.adamw/run.json
    got=$(json_get $ja "(d['train']['optimizer'], d['train']['optimizer_fused'])")
    [ "$got" = "('adamw', $3)" ] || fail "--optimizer $1 --framework $2: run.json says $got"
    jb=$j
    if [ $2 = ideal ]; then # SGD under ideal: the same buffers as under pytorch-ddp but the buckets
        jb=$d.sgd/run.json
        expect 0 "Training step: tiny-mlp" $MPIRUN -np 2 $NVS train --backend mpi --model $prof --framework ideal \
            --steps 2 --warmup-steps 1 --out "$d.sgd"
    fi
    grow="$(json_get $ja "d['train']['memory']['master_bytes']") $(json_get $ja "d['train']['memory']['needed_bytes']") $(json_get $jb "d['train']['memory']['master_bytes']") $(json_get $jb "d['train']['memory']['needed_bytes']")"
    [ "$(echo $grow | awk '{ print $1 - $3, $2 - $4 }')" = "$((265482 * $4)) $((265482 * $4))" ] ||
        fail "--optimizer $1 --framework $2: memory (adamw master, needed; sgd master, needed) $grow: expected $4 bytes more a parameter"
    [ "$(json_get $ja "all(r['step_us'] > 0 for r in d['train']['results'])")" = True ] || fail "--optimizer $1: no steps"
    own="d['train']['framework']['ops_per_step'] - (d['train']['framework']['reducer_buckets_per_step'] if d['train']['framework']['bucket_copy'] else 0)"
    ops="$(json_get $ja "$own") $(json_get $jb "$own")"
    [ "$(echo $ops | awk '{ print $1 - $2 }')" = "$5" ] ||
        fail "--optimizer $1 --framework $2: operations per step less the bucket copies (adamw, sgd) $ops: expected $5 more"
    rm -rf "$d.adamw" "$d.sgd"
done
# DDP's buffer broadcast (pytorch-ddp), at N = 1 and 2: two batch norms of 256 and 32 channels hold 6 buffers
# (running_mean, running_var, num_batches_tracked), each copied back, and per dtype a flatten and a broadcast: 10
# operations; under --framework ideal none
d=$TMP/train_host_bn
rm -rf "$d"
expect 0 "Training step: tiny-bn" $MPIRUN -np 2 $NVS train --backend mpi --model tests/fixtures/train/tiny-bn.prof \
    --steps 3 --warmup-steps 1 --out "$d"
j=$d/run.json
check "[r['n'] for r in d['train']['results']]" "[1, 2]"
check "(d['train']['framework']['broadcast_buffers'], d['train']['framework']['buffer_ops_per_step'])" "(True, 10.0)"
check "d['train']['framework']['host_us_per_buffer_op'] > 0" "True"
# autocast's weight casts and fp32 tensors (at bf16/fp16, which the host backend refuses) and PyTorch's foreach SGD:
# said in run.json
check "(d['train']['framework']['weight_casts'], d['train']['framework']['optimizer_foreach'])" "(True, True)"
check "d['train']['framework']['autocast_fp32']" "True"
# the bias gradients in PyTorch's own reduction kernel (on the GPU; the host backend sums columns either way)
check "d['train']['framework']['bias_reduce']" "True"
rm -rf "$d"
expect 0 "Training step: tiny-bn" $MPIRUN -np 2 $NVS train --backend mpi --model tests/fixtures/train/tiny-bn.prof \
    --framework ideal --steps 2 --warmup-steps 1 --out "$d"
check "(d['train']['framework']['broadcast_buffers'], d['train']['framework']['buffer_ops_per_step'])" "(False, 0.0)"
check "(d['train']['framework']['weight_casts'], d['train']['framework']['optimizer_foreach'])" "(False, False)"
check "d['train']['framework']['autocast_fp32']" "False"
check "d['train']['framework']['bias_reduce']" "False"
j=$TMP/train_host/run.json
# refused up front, with the bytes needed and available
expect 2 "needs .* GiB per host .* free: lower --batch" $NVS train --backend mpi --model resnet50 --batch 1000000 --no-save
# ... and its parts add up to it (to the rounding of each to 0.01 GiB): every part the plan counts is listed
sum=$(printf '%s\n' "$_out" | sed -n 's/.* needs \([0-9.]*\) GiB per host (\([^)]*\) GiB).*/\1 \2/p' |
    awk '{ s = 0; n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+,?$/) { s += $i; n++ } d = $1 - s; print (d * d <= (0.005 * (n + 1)) ^ 2 && n >= 5) ? "ok" : "parts sum to " s " of " $1 }')
[ "$sum" = ok ] || fail "the memory refusal's parts do not add up: ${sum:-no parts in '$(printf '%s\n' "$_out" | tail -1)'}"
# two ranks on one machine share its memory, each with a whole plan: a batch at which one rank's plan takes 60 % of
# the free memory fits one rank, not two. (ulimit -v: 40 % each, so a rank that went ahead anyway could not take
# the machine's memory; the refusal comes before any allocation.)
per=$($NVS train --backend mpi --model resnet50 --batch 1000 --no-save 2>&1 | sed -n 's/.* needs \([0-9.]*\) GiB per host .* has \([0-9.]*\) GiB free.*/\1 \2/p')
if [ -n "$per" ]; then
    b=$(echo "$per" | awk '{ printf "%d", 0.6 * $2 / ($1 / 1000) }')
    lim="ulimit -v $(awk '/^MemAvailable:/ { printf "%d", 0.4 * $2 }' /proc/meminfo) && "
    # (not under a sanitizer: ASan reserves terabytes of address space for its shadow and aborts under ulimit -v;
    # the refusal still comes before any allocation there)
    [ -n "${ASAN_OPTIONS:-}" ] && lim=""
    expect 2 "needs .* GiB per host rank .*, .* GiB for the 2 ranks on its machine, but rank [01] .* free: lower --batch" \
        sh -c "$lim$MPIRUN -np 2 $NVS train --backend mpi --model resnet50 --batch $b --no-save"
else
    fail "no 'needs X GiB per host' from resnet50 at batch 1000"
fi
# at batch 1 a lower batch is no advice
mkdir -p "$d"
printf 'nvscale-profile 1\nname huge\nsource "a test"\nsample "x"\nbatch 1\ndp ddp\nlayer a params=1000 gemm=2147483647,2147483647,2147483647 act=10\n' >"$d/huge.prof"
expect 2 "free: it does not fit even at batch 1" $NVS train --backend mpi --model "$d/huge.prof" --batch 1 --no-save
expect 2 "bf16 precision needs the NCCL backend" $NVS train --backend mpi --model $prof --precision bf16 --no-save
# tf32 too: OpenBLAS has none, and a run.json saying tf32 would describe an fp32 run
expect 2 "tf32 precision needs the NCCL backend" $NVS train --backend mpi --model $prof --precision tf32 --no-save
expect 2 "tests/fixtures/profiles/does-not-exist.prof" $NVS train --backend mpi --model tests/fixtures/profiles/does-not-exist.prof --no-save
# --format csv: the training step's rows (train sweeps no collective), one per workload and N, numbers as run.json's
$MPIRUN -np 2 $NVS train --backend mpi --model $prof --steps 2 --warmup-steps 1 --format csv -q --no-save >"$OUT" 2>"$ERR" ||
    fail "train --format csv exited $?: $(tail -2 "$ERR")"
head -1 "$OUT" | grep -q "^model,batch,precision,grad_type,framework,n,step_us,compute_us," ||
    fail "train --format csv: header is '$(head -1 "$OUT")'"
[ "$(grep -c '^tiny-mlp,1,fp32,fp32,pytorch-ddp,[12],[0-9.]*,[0-9.]*,' "$OUT")" = 2 ] ||
    fail "train --format csv: not one row per N: $(cat "$OUT")"
d=$TMP/train_run
rm -rf "$d"
expect 0 "Training step" $MPIRUN -np 2 $NVS run --backend mpi --model $prof -b 64K -e 1M -f 4 --coll all_reduce \
    --steps 3 --warmup-steps 1 --out "$d"
[ "$(json_get $d/run.json "d['train']['results'][1]['predicted_comm_us'] is not None")" = "True" ] ||
    fail "no predicted_comm_us from the all_reduce sweep"
# no 1-rank step (--gpus 2,3): every efficiency is step(2) / step(N), and the tables, the summary and the report
# say so (they said step(1) / step(N), or nothing, beside N=2's 100 %)
d=$TMP/train_ref2
rm -rf "$d"
expect 0 "#  efficiency = step\(2\) / step\(N\): no 1-rank step in this run" $MPIRUN -np 3 $NVS train --backend mpi \
    --model $prof --gpus 2,3 --steps 2 --warmup-steps 1 --out "$d"
[ "$(json_get $d/run.json "[(r['n'], r['efficiency_reference_n'], r['efficiency']) for r in d['train']['results']][0]")" = "(2, 2, 1.0)" ] ||
    fail "--gpus 2,3: the reference is not N=2 in run.json"
expect 0 "" $NVS report "$d/run.json" -o "$d.report"
grep -q "step(2) / step(N) with a fixed per-GPU batch (no 1-GPU step in this run: relative to 2 GPUs)" "$d.report/report.md" ||
    fail "report of --gpus 2,3: $(grep 'efficiency vs GPU count' "$d.report/report.md")"
grep -q "Efficiency = step(2) / step(N), relative to 2 ranks: the run has no 1-rank step" "$d.report/report.md" ||
    fail "report of --gpus 2,3: the training table does not say its reference"
grep -q "step(1)" "$d.report/report.md" && fail "report of --gpus 2,3 claims step(1): $(grep 'step(1)' "$d.report/report.md")"
# the efficiency text names only what the run has: a train run writes "collectives": [] and measured none (its
# report read "for a collective, busbw(N) / busbw(...)"), a coll run trains nothing (its read "for training, ...")
grep -q "^Training efficiency vs GPU count: step(2) / step(N)" "$d.report/report.md" ||
    fail "report of a train run: $(grep 'fficiency vs GPU count' "$d.report/report.md")"
grep -q "for a collective" "$d.report/report.md" &&
    fail "report of a train run describes collectives: $(grep 'for a collective' "$d.report/report.md")"
rm -rf "$d.report"
d=$TMP/coll_eff
rm -rf "$d"
expect 0 "" $MPIRUN -np 3 $NVS coll --backend mpi --gpus 2,3 -b 1K -e 4K --coll all_reduce --out "$d"
expect 0 "" $NVS report "$d/run.json" -o "$d.report"
grep -q "^Efficiency vs GPU count: for a collective, busbw(N) / busbw(smallest N >= 2)" "$d.report/report.md" ||
    fail "report of a coll run: $(grep 'fficiency vs GPU count' "$d.report/report.md")"
grep -q "for training" "$d.report/report.md" &&
    fail "report of a coll run describes training: $(grep 'for training' "$d.report/report.md")"
rm -rf "$d" "$d.report"
expect 0 "no 1-rank step in this run: every efficiency is relative to 2 ranks" \
    $MPIRUN -np 3 $NVS run --backend mpi --model $prof --gpus 2,3 -b 1K -e 1K --coll all_reduce --steps 2 \
    --warmup-steps 1 --no-save
printf '%s\n' "$_out" | grep -q "efficiency = step(2) /$" || fail "run --gpus 2,3: no step(2) in the header"
printf '%s\n' "$_out" | grep -q "step(1)" && fail "run --gpus 2,3 claims step(1): $(printf '%s\n' "$_out" | grep 'step(1)')"
finish
