#!/bin/sh
# nvscale compare with a fake nvscale as its child (NVS_COMPARE_CHILD; this machine has no GPU): one run per
# feasible transport, each with its own environment and directory, skipped ones with their reason, the
# transport found verified, and the side-by-side report equal to tests/golden/check_compare_nv18.md (timings
# and the result directory normalised; UPDATE_GOLDEN=1 rewrites it). Then --report-only on the same directory.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
tmp_dir tmp
dir=$tmp/cmp
export NVS_COMPARE_CHILD=$fx/fake_nvscale

# the user's shell has NCCL_P2P_DISABLE=1: compare must not let it reach the nvlink run
FAKE_TOPO=$fx/topo_nv18.json NCCL_P2P_DISABLE=1 NCCL_DEBUG_SUBSYS=INIT \
    "$NVS" compare --transports nvlink,pcie,shm,net --out "$dir" -b 1M -e 1G -o sum >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || { fail "compare exit $rc, expected 0"; cat "$dir.log"; }
for t in nvlink shm net; do
    [ -s "$dir/$t/run.json" ] || fail "$t did not run"
    grep -qx " -b 1M -e 1G -o sum" "$dir/$t/args.txt" || fail "$t: run options not passed through: $(cat "$dir/$t/args.txt")"
    grep -qx "NCCL_DEBUG_SUBSYS=INIT" "$dir/$t/env.txt" || fail "$t: the rest of the environment was not inherited"
done
[ -e "$dir/pcie" ] && fail "pcie ran on NVLinked GPUs"
grep -q "pcie: skipped: GPUs 0 and 1 are NVLinked (NV18)" "$dir.log" || fail "pcie skipped without its reason on stderr"
grep -q "NCCL_P2P_DISABLE" "$dir/nvlink/env.txt" && fail "nvlink run got NCCL_P2P_DISABLE from the user's shell"
grep -q "NCCL_P2P_DISABLE/NCCL_SHM_DISABLE from your environment are not passed on" "$dir.log" || fail "no warning about the dropped variable"
[ "$(grep -c '^NCCL_P2P_DISABLE=1$' "$dir/shm/env.txt")" -eq 1 ] || fail "shm run lacks NCCL_P2P_DISABLE=1"
grep -q "NCCL_SHM_DISABLE" "$dir/shm/env.txt" && fail "shm run has NCCL_SHM_DISABLE"
grep -q "^NCCL_SHM_DISABLE=1$" "$dir/net/env.txt" || fail "net run lacks NCCL_SHM_DISABLE=1"
grep -q "^NCCL_P2P_DISABLE=1$" "$dir/net/env.txt" || fail "net run lacks NCCL_P2P_DISABLE=1"
[ -s "$dir/topology.json" ] || fail "topology.json not kept"
grep -q "^  shm     ran       SHM over host memory (2 channels) as asked (n=2)" "$dir.out" || fail "stdout summary lacks the shm line"
grep -q "^     1 GiB    329.65     27.37      3.34        0.083        0.010" "$dir.out" || fail "stdout lacks the busbw line"

# golden Markdown: compare's own part (the durations of the fake runs vary); the appendix is `nvscale report`'s
# Markdown of the same runs, tested with report
grep -q "^# Runs in detail: R1 = nvlink, R2 = shm, R3 = net$" "$dir/compare.md" || fail "compare.md lacks the runs in detail"
sed -E -e 's/exit 0, [0-9]+\.[0-9] s/exit 0, T s/' -e '/^# Runs in detail/,$d' "$dir/compare.md" >"$dir.md"
golden "$dir.md" tests/golden/check_compare_nv18.md

# a second compare into the same directory is refused: runs are never mixed
FAKE_TOPO=$fx/topo_nv18.json "$NVS" compare --transports shm --out "$dir" >/dev/null 2>"$dir.log2"
rc=$?
[ "$rc" -eq 2 ] || fail "compare into a used directory: exit $rc, expected 2"
grep -q "$dir/shm already exists" "$dir.log2" || fail "no message about the existing run directory"
# ... and so is one where only a killed run's checkpoint is left (DIR/pcie.partial): compare reads such a
# checkpoint where the new run leaves nothing, so its old rows would have read as the new run's
mkdir -p "$dir/pcie.partial"
FAKE_TOPO=$fx/topo_nv18.json "$NVS" compare --transports pcie --out "$dir" >/dev/null 2>"$dir.log3"
rc=$?
[ "$rc" -eq 2 ] || fail "compare over a left .partial checkpoint: exit $rc, expected 2"
grep -q "$dir/pcie.partial already exists" "$dir.log3" || fail "no message about the left .partial: $(cat "$dir.log3")"
rmdir "$dir/pcie.partial"

# --report-only: the same comparison from what is on disk (the mpirun route); pcie was never run
rm -f "$dir/compare.md"
"$NVS" compare --report-only --transports nvlink,pcie,shm,net --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || { fail "--report-only exit $rc, expected 0"; cat "$dir.log"; }
grep -q "^| pcie | .* | not run | - | no $dir/pcie/run.json |" "$dir/compare.md" || fail "--report-only: pcie not listed as not run"
grep -q "^| net | .* | ran (read from $dir/net/run.json) | NET/Socket/0 over network (2 channels) | as asked (n=2) |" "$dir/compare.md" || fail "--report-only: net not read back"

# runs made by separate mpiruns with different options are not put side by side as if only the transport
# differed: -d double for shm (nvlink -d float), then --inplace in for net (nvlink out-of-place); exit 2,
# compare.md left as it was
cp "$dir/compare.md" "$dir.md0"
cp "$dir/shm/run.json" "$dir.shm.json"
sed 's/"type": "float"/"type": "double"/' "$dir.shm.json" >"$dir/shm/run.json"
"$NVS" compare --report-only --transports nvlink,shm,net --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 2 ] || fail "--report-only of a float and a double run: exit $rc, expected 2"
grep -q "were not made with the same options (all_reduce N=2 1 MiB: nvlink measured float sum out-of-place, shm double sum out-of-place)" "$dir.log" || \
    fail "--report-only of a float and a double run: no message naming the difference: $(cat "$dir.log")"
cmp -s "$dir/compare.md" "$dir.md0" || fail "--report-only of unlike runs rewrote compare.md"
cp "$dir.shm.json" "$dir/shm/run.json"
# ... nor runs timed differently: -n (each row's iters), -a (whose time: sweep.time_basis), -w (sweep.warmup);
# a setting only one run recorded (a run from before the key) is no difference
unlike() { # what, expected message
    "$NVS" compare --report-only --transports nvlink,shm --out "$dir" >"$dir.out" 2>"$dir.log"
    rc=$?
    [ "$rc" -eq 2 ] || fail "--report-only of runs with different $1: exit $rc, expected 2"
    grep -qF "were not made with the same options ($2)" "$dir.log" || \
        fail "--report-only of runs with different $1: no message naming it: $(cat "$dir.log")"
    cmp -s "$dir/compare.md" "$dir.md0" || fail "--report-only of runs with different $1 rewrote compare.md"
}
sed 's/"iters": 20/"iters": 5/' "$dir.shm.json" >"$dir/shm/run.json"
unlike "-n" "-n: all_reduce N=2 1 MiB: nvlink timed 20 iterations, shm 5"
# ... nor runs of other hosts or other GPUs (separate mpiruns: another node of the hostfile, CUDA_VISIBLE_DEVICES):
# they were compared as if only the transport differed; the same GPUs in another rank order are alike
sed 's/"host": "fakehost"/"host": "node7"/' "$dir.shm.json" >"$dir/shm/run.json"
unlike "hosts" "nvlink ran on host fakehost, shm on host node7"
sed 's/"gpus": \[0, 1\]/"gpus": [2, 3]/' "$dir.shm.json" >"$dir/shm/run.json"
unlike "GPUs" "N=2: nvlink ran on GPUs 0,1, shm on GPUs 2,3"
sed 's/"gpus": \[0, 1\]/"gpus": [1, 0]/' "$dir.shm.json" >"$dir/shm/run.json"
"$NVS" compare --report-only --transports nvlink,shm --out "$dir" >"$dir.out" 2>"$dir.log" ||
    fail "--report-only of runs on the same GPUs in another rank order: exit $?: $(cat "$dir.log")"
cp "$dir.md0" "$dir/compare.md"
sweep() { sed "s/\"collectives\": \[/\"sweep\": {$1}, \"collectives\": [/" "$2"; }
sweep '"time_basis": "rank0"' "$dir.shm.json" >"$dir/shm/run.json"
unlike "-a" "-a: nvlink timed the slowest rank, shm rank 0"
cp "$dir/nvlink/run.json" "$dir.nvlink.json"
sweep '"warmup": 5' "$dir.nvlink.json" >"$dir/nvlink/run.json"
sweep '"warmup": 1' "$dir.shm.json" >"$dir/shm/run.json"
unlike "-w" "-w, warm-up iterations: nvlink 5, shm 1"
sweep '"warmup": 5, "alloc": "cudaMalloc"' "$dir.nvlink.json" >"$dir/nvlink/run.json"
sweep '"warmup": 5, "alloc": "ncclMemAlloc"' "$dir.shm.json" >"$dir/shm/run.json"
unlike "--alloc" "--alloc: nvlink used cudaMalloc buffers, shm ncclMemAlloc"
sweep '"warmup": 5' "$dir.nvlink.json" >"$dir/nvlink/run.json"
sweep '"warmup": 5, "alloc": "ncclMemAlloc"' "$dir.shm.json" >"$dir/shm/run.json"
"$NVS" compare --report-only --transports nvlink,shm --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || fail "--report-only of runs alike where both recorded a setting: exit $rc, expected 0: $(cat "$dir.log")"
cp "$dir.md0" "$dir/compare.md"
cp "$dir.nvlink.json" "$dir/nvlink/run.json"
cp "$dir.shm.json" "$dir/shm/run.json"
cp "$dir/net/run.json" "$dir.net.json"
sed 's/"inplace": false/"inplace": true/' "$dir.net.json" >"$dir/net/run.json"
"$NVS" compare --report-only --transports nvlink,shm,net --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 2 ] || fail "--report-only of an out-of-place and an in-place run: exit $rc, expected 2"
grep -q "nvlink measured float sum out-of-place, net float sum in-place" "$dir.log" || \
    fail "--report-only of out-of-place and in-place runs: no message naming the difference: $(cat "$dir.log")"
# all of them in-place (--inplace in): alike, and the tables say they are of the in-place rows
for t in nvlink shm; do
    sed -i 's/"inplace": false/"inplace": true/' "$dir/$t/run.json"
done
"$NVS" compare --report-only --transports nvlink,shm,net --out "$dir" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || fail "--report-only of in-place runs: exit $rc, expected 0: $(cat "$dir.log")"
grep -q "^### all_reduce in-place, N=2: busbw (GB/s)" "$dir/compare.md" || fail "the table of in-place rows does not say so"
grep -q "^all_reduce in-place, N=2: busbw (GB/s)" "$dir.out" || fail "stdout: the table of in-place rows does not say so"
cp "$dir.shm.json" "$dir/shm/run.json"

# a PCIe machine: nvlink skipped, pcie runs and is verified
FAKE_TOPO=$fx/topo_pcie.json FAKE_LINK=PCIe "$NVS" compare --transports nvlink,pcie --out "$dir.pcie" >"$dir.out" 2>"$dir.log"
rc=$?
[ "$rc" -eq 0 ] || { fail "pcie machine: exit $rc, expected 0"; cat "$dir.log"; }
grep -q "^  pcie    ran       P2P over PCIe (2 channels) *as asked (n=2)" "$dir.out" || fail "pcie not verified: $(cat "$dir.out")"
grep -q "^  nvlink  skipped .*GPUs 0 and 1 have no NVLink between them (PIX)" "$dir.out" || fail "nvlink not skipped with its reason"

finish "compare: runs, skips, environment, verification and report as expected"
