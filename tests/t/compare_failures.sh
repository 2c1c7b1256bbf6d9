#!/bin/sh
# nvscale compare when things go wrong: usage errors exit 2 before anything runs; a failing run is reported
# with its exit code and stderr tail while the others still run (exit 1), one interrupted with the rows it
# measured; a run that used another transport than asked is said loudly (exit 3); no feasible transport, or no
# topology, exit 1 with the reason; --report-only of an unreadable run, or of none, exit 2 with nothing written;
# of a run that did not end well (its checkpoint in DIR/<transport>.partial included), exit 1.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
tmp_dir base
export NVS_COMPARE_CHILD=$fx/fake_nvscale
export FAKE_TOPO=$fx/topo_nv18.json

cmp_expect() { # cmp_expect EXIT "TEXT ON STDERR" compare-arguments...: stdout in $OUT, stderr in $ERR
    want_rc=$1 text=$2
    shift 2
    expect_err "$want_rc" "$text" "$NVS" compare "$@"
}

"$NVS" compare --help >"$OUT" 2>&1 || fail "compare --help exits $?"
grep -q -- "--transports LIST" "$OUT" || fail "--help does not describe --transports"
# every exit status compare gives (130, when it is stopped, was missing)
for c in "0 all ran" "1 a run failed" "3 a run used another transport" "2 bad usage" "130 compare was stopped"; do
    grep -q "$c" "$OUT" || fail "--help does not describe exit status: $c"
done

# usage errors: nothing is created
cmp_expect 2 "unknown transport 'ib'" --transports nvlink,ib --out "$base/u1"
cmp_expect 2 "transport 'shm' given twice" --transports shm,shm --out "$base/u1"
cmp_expect 2 "empty item" --transports shm, --out "$base/u1"
cmp_expect 2 "option needs a value: '--out'" --transports shm --out
cmp_expect 2 "option given twice: '--transports'" --transports shm --transports=nvlink --out "$base/u1"
cmp_expect 2 "option given twice: '--out'" --transports shm --out "$base/u1" --out="$base/u2"
cmp_expect 2 "--no-save cannot be passed" --no-save --out "$base/u1"
cmp_expect 2 "--backend mpi runs host MPI collectives" --backend mpi --out "$base/u1"
cmp_expect 2 "nvscale compare: invalid value '0' for -b" -b 0 --out "$base/u1"
# run's options, checked by compare before anything runs, are refused as compare's: each said "nvscale run: ..."
# and "Try 'nvscale run --help'", a command the user never typed
run_opt_refused() { # run_opt_refused "TEXT ON STDERR" compare-arguments...
    said=$1
    shift
    cmp_expect 2 "nvscale compare: $said" "$@" || return
    # "see 'nvscale run --help'" (the help of run's options) names run as the place to look, not as the refuser
    grep -v "see 'nvscale run --help'" "$ERR" | grep -q "nvscale run" && fail "compare $*: a refusal names run: $(cat "$ERR")"
    case $said in # a test hook (not in the help): no hint, as under run
    *"environment variable"*) return ;;
    esac
    grep -qF "Try 'nvscale compare --help'." "$ERR" || fail "compare $*: no hint to compare's help: $(cat "$ERR")"
}
run_opt_refused "invalid value '0x' for -b" -b 0x --out "$base/u1"
run_opt_refused "invalid value 'zz' for --minbytes" --minbytes=zz --out "$base/u1"
run_opt_refused "invalid value '1Q' for -e" -e 1Q --out "$base/u1"
run_opt_refused "invalid value '0' for --iters" --iters 0 --out "$base/u1"
run_opt_refused "invalid value 'nope' for --coll" --coll nope --out "$base/u1"
run_opt_refused "invalid value 'bogus' for -o" -o bogus --out "$base/u1"
run_opt_refused "invalid value '-3' for --gpus" --gpus -3 --out "$base/u1"
run_opt_refused "option -w needs a value" --out "$base/u1" -w
run_opt_refused "unknown option '--min-bytes'" --min-bytes 8 --out "$base/u1"
run_opt_refused "option --hwloc-xml is not one of run's (it belongs to: topo)" --hwloc-xml x.xml --out "$base/u1"
run_opt_refused "unexpected argument 'extra'" -b 8 extra --out "$base/u1"
run_opt_refused "option -n given twice" -n 5 -n 6 --out "$base/u1"
run_opt_refused "invalid value '1G' for -b: larger than -e 8" -b 1G -e 8 --out "$base/u1"
run_opt_refused "-q/--quiet and -v/--verbose exclude each other" -q -v --out "$base/u1"
NVS_TEST_CORRUPT=x run_opt_refused "invalid value 'x' for environment variable NVS_TEST_CORRUPT" --out "$base/u1"
# -qh (help inside a cluster, which compare's own -h does not catch): refused, and run's usage is not printed
# before the refusal (expect_err: nothing on stdout with exit 2)
run_opt_refused "--help of the run options: see 'nvscale run --help'" -qh --out "$base/u1"
cmp_expect 2 "unknown option '--frobnicate'" --frobnicate --out "$base/u1"
# --gpus 1 (on the 2-GPU fixture): nothing to compare; it skipped every transport as "1 GPU on this host", exit 1
cmp_expect 2 "--gpus 1: one GPU has no transport to another" --gpus 1 --out "$base/u1"
cmp_expect 2 "--report-only: no such directory '$base/none'" --report-only --out "$base/none"
# a file there is not a directory (it said "no such directory", as if nothing were there)
: >"$base/afile"
cmp_expect 2 "--report-only: not a directory '$base/afile'" --report-only --out "$base/afile"
cmp_expect 2 "run options make no sense with it" --report-only -b 1M --out "$base"
cmp_expect 2 "--report-only needs --out DIR" --report-only --transports nvlink,shm
[ -e "$base/u1" ] && fail "a usage error created the output directory"
# what compare's runs (one process each, on the fixture's 2 GPUs) would each stop at: said once, before any run,
# exit 2, nothing left (every transport FAILED the same way, exit 1; the fake ran them)
cmp_expect 2 "invalid value '4' in --gpus: this host has 2 GPUs (nvscale topo)" --gpus 2,4 --out "$base/u3/a"
[ -e "$base/u3" ] && fail "--gpus beyond the host's GPUs left the output directory: $(find "$base/u3" | head -3)"
mkdir -p "$base/u4"
cmp_expect 2 "invalid value '8' in --gpus" --gpus 8 --out "$base/u4"
[ -d "$base/u4" ] && [ -z "$(ls -A "$base/u4")" ] || fail "--gpus beyond the host's GPUs: a directory that was there lost or got files"
cmp_expect 2 "--emulate-nodes 2 needs one process per rank" --emulate-nodes 2 --out "$base/u3"
[ -e "$base/u3" ] && fail "--emulate-nodes 2 created the output directory"
# an --out that cannot be a directory is bad usage, as the help's exit 2 says (it exited 1), said as report's -o
# is: compare's refusal naming --out and the value (it was the maker's "nvscale: error: cannot create directory")
: >"$base/afile"
cmp_expect 2 "nvscale compare: --out $base/afile: not a directory" --out "$base/afile"
cmp_expect 2 "nvscale compare: --out $base/afile/x/y: '$base/afile' is not a directory" --out "$base/afile/x/y"
# a symbolic link to nothing: named with its target (it was the maker's "cannot create directory L: a file of that
# name exists"); the link stays, nothing made
ln -s "$base/nowhere" "$base/dangling"
cmp_expect 2 "nvscale compare: --out $base/dangling: a symbolic link to '$base/nowhere', which does not exist" \
    --out "$base/dangling"
cmp_expect 2 "nvscale compare: --out $base/dangling/x: '$base/dangling' is a symbolic link to '$base/nowhere'" \
    --out "$base/dangling/x"
[ -L "$base/dangling" ] && [ ! -e "$base/nowhere" ] || fail "compare --out a link to nothing: the link or its target changed"
NVS_COMPARE_CHILD=$base/nothere cmp_expect 2 "invalid value '$base/nothere' for environment variable NVS_COMPARE_CHILD" --out "$base/u2"
NVS_COMPARE_CHILD=$fx cmp_expect 2 "for environment variable NVS_COMPARE_CHILD: expected an executable file" --out "$base/u2"
NVS_COMPARE_CHILD=$fx/topo_nv18.json cmp_expect 2 "expected an executable file" --out "$base/u2"
[ -e "$base/u2" ] && fail "a bad NVS_COMPARE_CHILD created the output directory"

# one run fails: the others still run, its exit code and stderr tail are reported, exit 1
FAKE_FAIL=shm cmp_expect 1 "compare: shm: nvscale run failed (exit 1)" --transports nvlink,shm,net --out "$base/f"
grep -q "NCCL error: unhandled system error (asked for shm)" "$ERR" || fail "the failed run's stderr tail is not shown"
[ -s "$base/f/nvlink/run.json" ] && [ -s "$base/f/net/run.json" ] || fail "a failing shm run stopped the others"
grep -q "^  shm     FAILED " "$OUT" || fail "stdout does not say shm failed"
grep -q "^| shm | .* | FAILED (exit 1, [0-9.]* s) | - | nvscale run failed (exit 1); its stderr: $base/f/shm.stderr.txt |" "$base/f/compare.md" || fail "compare.md does not report the failure"
grep -q "^fake nvscale: see NCCL_DEBUG=INFO for details" "$base/f/compare.md" || fail "compare.md lacks the stderr tail"

# one run is interrupted (Ctrl-C, a timeout, a kill): the rows it measured before are in the comparison, the run
# marked DID NOT END WELL, exit 1 (they were dropped: "FAILED", no column)
FAKE_CUT=shm cmp_expect 1 "compare: shm: $base/c/shm/run.json: the run did not end well (interrupted: interrupted by" \
    --transports nvlink,shm --out "$base/c"
grep -q "^| shm | .* | ran, DID NOT END WELL (exit 130, [0-9.]* s) | SHM over host memory" "$base/c/compare.md" ||
    fail "an interrupted run is not shown with its rows: $(grep '^| shm' "$base/c/compare.md")"
grep -q "^ *1 GiB *329.65 *27.37 " "$OUT" || fail "the interrupted run's rows are not in the busbw table"

# a run that wrote its run.json ("ok") and then crashed (SIGSEGV in NCCL's teardown): its rows are what it measured,
# in the comparison, the run marked DID NOT END WELL with how the process ended, exit 1 (they were dropped: FAILED)
FAKE_CRASH=shm cmp_expect 1 "compare: shm: nvscale run failed (killed by signal 11" --transports nvlink,shm --out "$base/k"
grep -q "^| shm | .* | ran, DID NOT END WELL (killed by signal 11 .* | SHM over host memory .*its run.json says ok, but the process did not end well (killed by signal 11" "$base/k/compare.md" ||
    fail "a run that crashed after its run.json is not shown with its rows: $(grep '^| shm' "$base/k/compare.md")"
grep -q "^ *1 GiB *329.65 *27.37 " "$OUT" || fail "the crashed run's rows are not in the busbw table"

# a run used another transport than asked: loud, exit 3
FAKE_MISMATCH=shm cmp_expect 3 "compare: shm: MISMATCH: asked for shm (SHM), NCCL used P2P over NVLink (2 channels) at n=2" \
    --transports nvlink,shm --out "$base/m"
grep -q "^| shm | .* | ran, WRONG TRANSPORT (exit 0" "$base/m/compare.md" || fail "compare.md does not flag the wrong transport"

# nothing feasible (one GPU): every transport skipped with its reason, exit 1
FAKE_TOPO=$fx/topo_1gpu.json cmp_expect 1 "no transport could run on this machine" --out "$base/one"
[ "$(grep -c 'skipped: 1 GPU on this host: nothing travels between GPUs' "$ERR")" -eq 4 ] || fail "not every transport was skipped with its reason"
ls "$base/one" | grep -q run.json && fail "a run happened with one GPU"

# GeForce-like machine: pcie is refused with the P2P reason, shm still runs
FAKE_TOPO=$fx/topo_nop2p.json cmp_expect 0 "pcie: skipped: cudaDeviceCanAccessPeer(0, 1) is false" --transports pcie,shm --out "$base/g"

# no topology (no GPU, or topo failed): exit 1 with nvscale topo's own message
FAKE_TOPO_FAIL=1 cmp_expect 1 "cannot discover the topology: nvscale topo failed (exit 1)" --out "$base/t"
grep -q "no CUDA-capable device is detected" "$ERR" || fail "topo's stderr is not shown"
FAKE_TOPO=$fx/topo_bad.json cmp_expect 1 "the topology printed by nvscale topo is unusable" --out "$base/t2"

# --report-only reads runs written before: a truncated run.json is bad input, exit 2 naming it, and the
# compare.md already there stays as it was (it was replaced by one that said FAILED, exit 1); a directory with
# none of the runs asked for is bad input too (it wrote a compare.md of nothing, exit 1)
cp "$base/m/compare.md" "$base/m/compare.md.before"
head -c 300 "$base/m/nvlink/run.json" >"$base/m/cut.json" && mv "$base/m/cut.json" "$base/m/nvlink/run.json"
cmp_expect 2 "$base/m/nvlink/run.json: not JSON" --report-only --transports nvlink,shm --out "$base/m"
cmp -s "$base/m/compare.md" "$base/m/compare.md.before" || fail "a refused --report-only replaced compare.md"
mkdir -p "$base/empty"
cmp_expect 2 "no run to compare in '$base/empty': none of nvlink/run.json, shm/run.json is there" \
    --report-only --transports nvlink,shm --out "$base/empty"
[ -e "$base/empty/compare.md" ] && fail "--report-only of nothing wrote compare.md"

# --report-only of a run that did not end well (an mpirun stopped by Ctrl-C, a kill -9's checkpoint, wrong results):
# it is shown, its rows being what it measured before, but as a run that failed (exit 1), not "ran ... as asked"
# with exit 0
mkdir -p "$base/cut/nvlink" "$base/cut/shm"
cp "$fx/run_h200x2.json" "$base/cut/nvlink/run.json"
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
t = d['transports'][-1]
t['summary'] = {'SHM': 2}
t.pop('link')
for c in t['channels']: c.update(transport='SHM', detail='SHM/direct', link='host memory')
d['result'] = {'status': 'interrupted', 'exit_code': 130, 'wrong_total': 0,
               'reason': 'interrupted by signal 2 (SIGINT, Ctrl-C)'}
json.dump(d, open(sys.argv[2], 'w'))" "$fx/run_h200x2.json" "$base/cut/shm/run.json" || stop "cannot make the cut run"
cmp_expect 1 "compare: shm: $base/cut/shm/run.json: the run did not end well (interrupted: interrupted by signal 2" \
    --report-only --transports nvlink,shm --out "$base/cut"
grep -q "^| shm | .* | ran, DID NOT END WELL (read from $base/cut/shm/run.json) | " "$base/cut/compare.md" ||
    fail "--report-only: the interrupted run is not marked: $(grep '^| shm' "$base/cut/compare.md")"
grep -q "^| nvlink | .* | ran (read from $base/cut/nvlink/run.json) | " "$base/cut/compare.md" ||
    fail "--report-only: the good run is marked too"

# a run whose rank 0 was killed (kill -9, the OOM killer) left only its checkpoint in DIR/<transport>.partial: its
# rows are read from there (they were dropped: "not run: no DIR/shm/run.json")
mkdir -p "$base/killed/nvlink" "$base/killed/shm.partial"
cp "$fx/run_h200x2.json" "$base/killed/nvlink/run.json"
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['result'] = {'status': 'running', 'exit_code': 0, 'wrong_total': 0,
               'reason': 'a checkpoint: the run had not ended when this was written'}
json.dump(d, open(sys.argv[2], 'w'))" "$base/cut/shm/run.json" "$base/killed/shm.partial/run.json" ||
    stop "cannot make the killed run"
cmp_expect 1 "compare: shm: $base/killed/shm.partial/run.json: the run did not end well (running: a checkpoint" \
    --report-only --transports nvlink,shm --out "$base/killed"
grep -q "^| shm | .* | ran, DID NOT END WELL (read from $base/killed/shm.partial/run.json) | " \
    "$base/killed/compare.md" || fail "--report-only: the checkpoint in shm.partial is not read: $(grep '^| shm' \
    "$base/killed/compare.md")"

# compare stopped by SIGTERM (a batch system's time limit) while its shm run goes on: the run is asked to stop too
# and stops as an interrupted run does, net is not begun, and compare.md shows what there is; exit 130 (compare
# had no handler: it died at once, no compare.md, and its child ran on)
FAKE_SLOW=shm "$NVS" compare --transports nvlink,shm,net --out "$base/term" >"$base/term.out" 2>"$base/term.err" &
pid=$!
i=0
while [ $i -lt 300 ] && [ ! -e "$base/term/shm.slow-started" ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "compare stopped by SIGTERM: exit $rc, expected 130"
[ -s "$base/term/compare.md" ] || fail "compare stopped by SIGTERM: no compare.md"
grep -q "^  nvlink  ran " "$base/term.out" || fail "compare stopped by SIGTERM: nvlink's row is not 'ran'"
grep -q "^  shm     ran, DID NOT END WELL .*interrupted by signal 15" "$base/term.out" ||
    fail "compare stopped by SIGTERM: the shm run was not stopped as interrupted: $(grep shm "$base/term.out")"
grep -q "^  net     not run .*compare was interrupted (signal 15) before it began" "$base/term.out" ||
    fail "compare stopped by SIGTERM: net not said to be not begun: $(grep net "$base/term.out")"
[ ! -e "$base/term/net" ] || fail "compare stopped by SIGTERM: the net run was begun"

# compare stopped by Ctrl-C (SIGINT) while it discovers the topology: a stop as any other, exit 130, every
# transport "not run" in compare.md (it was exit 1, "cannot discover the topology: nvscale topo failed")
as_fg env FAKE_TOPO_SLOW="$base/topo-started" "$NVS" compare --transports nvlink,shm --out "$base/int" >"$base/int.out" \
    2>"$base/int.err" &
pid=$!
i=0
while [ $i -lt 300 ] && [ ! -e "$base/topo-started" ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "compare stopped by SIGINT during topology discovery: exit $rc, expected 130: $(cat "$base/int.err")"
grep -q "nvscale topo failed" "$base/int.err" && fail "compare stopped by SIGINT: topo called failed: $(cat "$base/int.err")"
grep -q "stopped (signal 2) while discovering the topology" "$base/int.err" || fail "compare stopped by SIGINT: not said"
grep -q "^| shm | .* | not run | - | compare was interrupted (signal 2) before it began |" "$base/int/compare.md" ||
    fail "compare stopped by SIGINT during topology discovery: shm not listed as not run"

finish "compare: failures reported as they should"
