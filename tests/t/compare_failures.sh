#!/bin/sh
# nvscale compare when things go wrong: usage errors exit 2 before anything runs; a failing run is reported
# with its exit code and stderr tail while the others still run (exit 1); a run that used another transport
# than asked is said loudly (exit 3); no feasible transport, or no topology, exit 1 with the reason.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
fx=tests/fixtures/check
base=tests/tmp/compare_failures.$$
rm -rf "$base"
mkdir -p "$base"
fail=0
export NVS_COMPARE_CHILD=$fx/fake_nvscale
export FAKE_TOPO=$fx/topo_nv18.json
no() { echo "FAIL: $*"; fail=1; }

# expect EXIT "TEXT ON STDERR" compare-arguments...
expect() {
    want_rc=$1 want=$2
    shift 2
    "$nvs" compare "$@" >"$base/out" 2>"$base/err"
    rc=$?
    [ "$rc" -eq "$want_rc" ] || { no "compare $*: exit $rc, expected $want_rc"; sed 's/^/   /' "$base/err"; return; }
    grep -qF -- "$want" "$base/err" || { no "compare $*: stderr lacks '$want'"; sed 's/^/   /' "$base/err"; }
}

"$nvs" compare --help >"$base/out" 2>&1 || no "compare --help exits $?"
grep -q -- "--transports LIST" "$base/out" || no "--help does not describe --transports"

# usage errors: nothing is created
expect 2 "unknown transport 'ib'" --transports nvlink,ib --out "$base/u1"
expect 2 "transport 'shm' given twice" --transports shm,shm --out "$base/u1"
expect 2 "empty item" --transports shm, --out "$base/u1"
expect 2 "option needs a value: '--out'" --transports shm --out
expect 2 "--no-save cannot be passed" --no-save --out "$base/u1"
expect 2 "--backend mpi runs host MPI collectives" --backend mpi --out "$base/u1"
expect 2 "nvscale run: invalid value '0' for -b" -b 0 --out "$base/u1"
expect 2 "unknown option '--frobnicate'" --frobnicate --out "$base/u1"
expect 2 "--report-only: no such directory '$base/none'" --report-only --out "$base/none"
expect 2 "run options make no sense with it" --report-only -b 1M --out "$base"
[ -e "$base/u1" ] && no "a usage error created the output directory"
NVS_COMPARE_CHILD=$base/nothere expect 2 "invalid value '$base/nothere' for environment variable NVS_COMPARE_CHILD" --out "$base/u2"
NVS_COMPARE_CHILD=$fx expect 2 "for environment variable NVS_COMPARE_CHILD: expected an executable file" --out "$base/u2"
NVS_COMPARE_CHILD=$fx/topo_nv18.json expect 2 "expected an executable file" --out "$base/u2"
[ -e "$base/u2" ] && no "a bad NVS_COMPARE_CHILD created the output directory"

# one run fails: the others still run, its exit code and stderr tail are reported, exit 1
FAKE_FAIL=shm expect 1 "compare: shm: nvscale run failed (exit 1)" --transports nvlink,shm,net --out "$base/f"
grep -q "NCCL error: unhandled system error (asked for shm)" "$base/err" || no "the failed run's stderr tail is not shown"
[ -s "$base/f/nvlink/run.json" ] && [ -s "$base/f/net/run.json" ] || no "a failing shm run stopped the others"
grep -q "^  shm     FAILED " "$base/out" || no "stdout does not say shm failed"
grep -q "^| shm | .* | FAILED (exit 1, [0-9.]* s) | - | nvscale run failed (exit 1); its stderr: $base/f/shm.stderr.txt |" "$base/f/compare.md" || no "compare.md does not report the failure"
grep -q "^fake nvscale: see NCCL_DEBUG=INFO for details" "$base/f/compare.md" || no "compare.md lacks the stderr tail"

# a run used another transport than asked: loud, exit 3
FAKE_MISMATCH=shm expect 3 "compare: shm: MISMATCH: asked for shm (SHM), NCCL used P2P over NVLink (2 channels) at n=2" \
    --transports nvlink,shm --out "$base/m"
grep -q "^| shm | .* | ran, WRONG TRANSPORT (exit 0" "$base/m/compare.md" || no "compare.md does not flag the wrong transport"

# nothing feasible (one GPU): every transport skipped with its reason, exit 1
FAKE_TOPO=$fx/topo_1gpu.json expect 1 "no transport could run on this machine" --out "$base/one"
[ "$(grep -c 'skipped: 1 GPU on this host: nothing travels between GPUs' "$base/err")" -eq 4 ] || no "not every transport was skipped with its reason"
ls "$base/one" | grep -q run.json && no "a run happened with one GPU"

# GeForce-like machine: pcie is refused with the P2P reason, shm still runs
FAKE_TOPO=$fx/topo_nop2p.json expect 0 "pcie: skipped: cudaDeviceCanAccessPeer(0, 1) is false" --transports pcie,shm --out "$base/g"

# no topology (no GPU, or topo failed): exit 1 with nvscale topo's own message
FAKE_TOPO_FAIL=1 expect 1 "cannot discover the topology: nvscale topo failed (exit 1)" --out "$base/t"
grep -q "no CUDA-capable device is detected" "$base/err" || no "topo's stderr is not shown"
FAKE_TOPO=$fx/topo_bad.json expect 1 "the topology printed by nvscale topo is unusable" --out "$base/t2"

rm -rf "$base"
[ "$fail" -eq 0 ] && echo "compare: failures reported as they should"
exit $fail
