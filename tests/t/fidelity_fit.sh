#!/bin/sh
# tools/fidelity_fit.py (the pytorch-ddp framework's host costs, fitted on lm290m's PyTorch runs) and
# tools/device/kernel_census.py (PyTorch's kernels per step, from a profiler trace) and tools/device/ncu_kernels.py
# (nvscale's, from an Nsight Compute CSV). The fit from the committed
# inputs equals the constants in src/workload/framework.c and the committed results/fidelity/fit.md; from made-up
# records it computes the medians it says; each refuses missing or malformed input with exit 2. CPU only.
cd "$(dirname "$0")/../.." || exit 1
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the tree
. tests/lib.sh
need_cmd python3 "the tools are Python"
tmp_dir d

# the committed fit: framework.c's numbers are what the script computes from the committed inputs
python3 tools/fidelity_fit.py --list results/fidelity/fit-inputs.txt --out "$d/fit" >"$d/fit.txt" 2>&1 ||
    fail "the committed fit does not run: $(cat "$d/fit.txt")"
per_op=$(sed -n 's/^host_us_per_op = \([0-9.]*\) us.*/\1/p' "$d/fit.txt")
per_bucket=$(sed -n 's/.*reducer_us_per_bucket = \([0-9]*\) us.*/\1/p' "$d/fit.txt")
grep -q "^     $per_op, $per_bucket\.0, 1, 1,\$" src/workload/framework.c ||
    fail "src/workload/framework.c does not hold the fit's $per_op us per operation and $per_bucket us per bucket"
sed "s|--out $d/fit|--out results/fidelity/fit|" "$d/fit.md" | diff - results/fidelity/fit.md >/dev/null ||
    fail "results/fidelity/fit.md differs from what tools/fidelity_fit.py makes of its inputs"

# the optimizer's host time per tensor: optimizer.c's table is what tools/optim_host_fit.py makes of the committed
# records, and results/fidelity/optim-host.md is its rendering
python3 tools/optim_host_fit.py --out "$d/oh" >"$d/oh.txt" 2>&1 || fail "the committed optim fit: $(cat "$d/oh.txt")"
for o in sgd adamw adamw-fused; do
    v=$(sed -n "s/^host_us_per_tensor:.* $o \([0-9.]*\)\(,.*\)\{0,1\}\$/\1/p" "$d/oh.txt")
    [ -n "$v" ] || fail "no $o rate in: $(head -1 "$d/oh.txt")"
    case $o in
    sgd) grep -q "\[NVS_OPT_SGD\] = {$v, $v}" src/workload/optimizer.c || fail "optimizer.c: SGD is not $v us" ;;
    adamw) grep -q "\[NVS_OPT_ADAMW\] = {[0-9.]*, $v}" src/workload/optimizer.c || fail "optimizer.c: AdamW not $v" ;;
    adamw-fused) grep -q "\[NVS_OPT_ADAMW\] = {$v, " src/workload/optimizer.c || fail "optimizer.c: fused not $v" ;;
    esac
done
sed "s|--out $d/oh|--out results/fidelity/optim-host|" "$d/oh.md" | diff - results/fidelity/optim-host.md >/dev/null ||
    fail "results/fidelity/optim-host.md differs from what tools/optim_host_fit.py makes of its inputs"

# made-up optimizer records: SGD 300 us over 100 tensors and 900 over 200 (pooled: 1200 / 300 = 4 us), one each of
# the others, a line that is not a record, a record without tensors, one of GradScaler's step (--amp: not counted)
orec() { printf '{"model": "m", "optimizer": "%s", "tensors": %s, "params": 1, "host_us_median": %s}\n' "$@"; }
{ orec sgd 100 300; echo 'torch says hello'; orec sgd 200 900; orec adamw 10 80; orec adamw-fused 10 25
  orec adamw 0 5; orec sgd 100 100000 | sed 's/}$/, "amp": true}/'; } >"$d/o.txt"
printf '# made up\n%s\n' "$d/o.txt" >"$d/olist"
python3 tools/optim_host_fit.py --list "$d/olist" >"$d/oout" 2>&1 || fail "made-up optim fit: $(cat "$d/oout")"
grep -q "^host_us_per_tensor: sgd 4.00, adamw 8.00, adamw-fused 2.50\$" "$d/oout" ||
    fail "made-up optim fit: $(head -1 "$d/oout")"
grep -v adamw-fused "$d/o.txt" >"$d/o2.txt"
printf '%s\n' "$d/o2.txt" >"$d/olist2"
expect 2 "no adamw-fused record" python3 tools/optim_host_fit.py --list "$d/olist2"
expect 2 "No such file" python3 tools/optim_host_fit.py --list "$d/missing"

# made-up records: lm290m's medians 40 ms and +10 ms; the fit takes SGD's 4 us x 221 tensors from the first and
# divides the rest by 1297 operations, the second by 29 buckets
rec() { # model nodp_ms ddp1_ms
    printf '{"tool": "ddp_bench", "config": "%s:bf16:8", "step_nodp_1_us": %s000, "step_ddp1_us": %s000}\n' "$@"
}
{ rec lm290m 30 45; rec lm290m 40 50; rec lm290m 50 58; rec resnet50 55 60; echo 'not json'; } >"$d/a.jsonl"
printf '# a comment\n%s\n' "$d/a.jsonl" >"$d/list"
python3 tools/fidelity_fit.py --list "$d/list" --optim-list "$d/olist" >"$d/out" 2>&1 ||
    fail "fit of made-up records: $(cat "$d/out")"
grep -q "^host_us_per_op = 30.2 us ((median no-DDP step - SGD's 4.00 us x 221 tensors) / 1297 operations), \
reducer_us_per_bucket = 345 us" "$d/out" || fail "made-up fit: $(head -1 "$d/out")"
grep -q "^| lm290m | 3 | 1297 / 29 | 40.0 | 40.0 | 50.0 |" "$d/out" || fail "lm290m row: $(grep lm290m "$d/out")"
grep -q "^| bert-large-mlm128 | 0 |" "$d/out" || fail "bert row without runs: $(grep bert "$d/out")"
expect 2 "no lm290m bf16 record" python3 tools/fidelity_fit.py --list /dev/null
expect 2 "No such file" python3 tools/fidelity_fit.py --list "$d/missing"
expect 2 "no adamw-fused record" python3 tools/fidelity_fit.py --list "$d/list" --optim-list "$d/olist2"
printf '%s\n' "$d/missing.jsonl" >"$d/list2"
expect 2 "No such file" python3 tools/fidelity_fit.py --list "$d/list2"

# kernel_census: two steps marked (the first dropped), kernels matched to their launches' threads
python3 - "$d/trace.json" <<'PY'
import json, sys
ev = []
for i in range(3):
    ev.append(dict(ph="X", cat="user_annotation", name="nvs_step_%d" % i, ts=i * 100, dur=90, tid=1))
    for j, (tid, name) in enumerate([(1, "sm90_xmma_gemm"), (2, "elementwise_kernel"), (2, "elementwise_kernel"),
                                     (1, "multi_tensor_apply_kernel")]):
        c = i * 10 + j
        ev.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=i * 100 + j * 5, dur=1, tid=tid,
                       args=dict(correlation=c)))
        ev.append(dict(ph="X", cat="kernel", name=name, ts=i * 100 + j * 5 + 2, dur=1 + 2 * (j == 0), tid=7,
                       args=dict(correlation=c)))
json.dump(dict(traceEvents=ev), open(sys.argv[1], "w"))
PY
python3 tools/device/kernel_census.py "$d/trace.json" >"$d/census" 2>&1 || fail "census: $(cat "$d/census")"
check() { # EXPR WANT
    got=$(python3 -c "import json; d = json.load(open('$d/census')); print($1)")
    [ "$got" = "$2" ] || fail "census: $1 is $got, expected $2"
}
check "d['steps']" 2
check "d['kernels_per_step']" 4.0
check "d['by_pass']" "{'autograd': 2.0, 'main': 1.0, 'optimizer': 1.0}"
check "(d['top'][0]['name'], d['top'][0]['per_step'])" "('elementwise_kernel', 2.0)"
check "d['by_kind_us']" "{'gemm_conv': 3.0, 'optimizer': 1.0, 'other': 2.0}"
check "[(t['name'], t['us_per_step'], t['calls_per_step']) for t in d['top_time'][:2]]" \
    "[('sm90_xmma_gemm', 3.0, 1.0), ('elementwise_kernel', 2.0, 2.0)]"
echo '{"traceEvents": []}' >"$d/empty.json"
expect 2 "fewer than 2 nvs_step_ marks" python3 tools/device/kernel_census.py "$d/empty.json"
echo '[1, 2]' >"$d/list.json"
expect 2 "no traceEvents list" python3 tools/device/kernel_census.py "$d/list.json"
expect 2 "must be >= 0" python3 tools/device/kernel_census.py --top -1 "$d/trace.json"

# ncu_kernels: an Nsight Compute CSV after ncu's notes, durations in ns and us summed by kernel, per --div
{
    echo '==PROF== Connected to process 1'
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    echo '"0","1","nvscale","h","sm90_xmma_gemm","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","3,000"'
    echo '"1","1","nvscale","h","axpb_kernel","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","1.5"'
    echo '"2","1","nvscale","h","axpb_kernel","1","7","(128, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","0.5"'
} >"$d/ncu.csv"
python3 tools/device/ncu_kernels.py --div 2 "$d/ncu.csv" >"$d/ncu.json" 2>&1 || fail "ncu_kernels: $(cat "$d/ncu.json")"
got=$(python3 -c "import json; d = json.load(open('$d/ncu.json')); print(d['total_us'], d['by_kind_us'], [(t['name'], t['us'], t['calls']) for t in d['top_time']])")
[ "$got" = "2.5 {'gemm_conv': 1.5, 'other': 1.0} [('sm90_xmma_gemm', 1.5, 0.5), ('axpb_kernel', 1.0, 1.0)]" ] ||
    fail "ncu_kernels: $got"
printf 'not a csv\n' >"$d/garbage.csv"
expect 2 "no ncu CSV header" python3 tools/device/ncu_kernels.py "$d/garbage.csv"
head -2 "$d/ncu.csv" >"$d/header-only.csv"
expect 2 "no kernel with gpu__time_duration.sum" python3 tools/device/ncu_kernels.py "$d/header-only.csv"
sed 's/"nsecond"/"furlong"/' "$d/ncu.csv" >"$d/unit.csv"
expect 2 "unknown unit 'furlong'" python3 tools/device/ncu_kernels.py "$d/unit.csv"
expect 2 "must be > 0" python3 tools/device/ncu_kernels.py --div 0 "$d/ncu.csv"
expect 2 "No such file" python3 tools/device/ncu_kernels.py "$d/missing.csv"
finish
