#!/bin/sh
# A full disk mid-run (issue 14): the run stops at the first write that fails (exit 1, the error named), and the
# run directory keeps the last run.json that was written whole: never "ok", never an empty directory, no
# temporary files left. On a 96 KiB tmpfs where this machine lets us mount one (root), else with the simulated
# write failure of core/out_file.c (NVS_TEST_WRITE_FAIL=K: the K-th file and every later one fail with ENOSPC).
# A file system remounted read-only mid-run is the same: exit 1. A disk that fills after the final run.json (at
# the tables) says that run.json is whole.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3
tmp_dir d
SWEEP="coll --backend mpi -b 1K -e 64M -f 2 -n 20 -w 1 --coll all"

# check_kept DIR ERRFILE HOW
check_kept() {
    f=$1/run.json
    [ -s "$f" ] || f=$1.partial/run.json
    if [ ! -s "$f" ]; then
        fail "$3: no run.json kept"
        return
    fi
    set -- "$1" "$2" "$3" $(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(d['result']['status'], len(d.get('collectives') or []))" "$f")
    [ "$4" != ok ] || fail "$3: run.json says ok after a failed write"
    [ "${5:-0}" -ge 1 ] || fail "$3: the rows measured before the disk filled were not kept"
    grep -q "No space left on device" "$2" || fail "$3: the write error is not named"
    grep -q "holds the last checkpoint written" "$2" || fail "$3: not said which run.json is left"
    [ -z "$(find "$1" "$1.partial" -name '*.tmp.*' 2>/dev/null)" ] || fail "$3: temporary files left"
    echo "$3: run.json '$4' with $5 rows kept"
}

# 1. a real full file system, where mounting one is allowed
mkdir -p "$d/mnt"
if mount -t tmpfs -o size=96k tmpfs "$d/mnt" 2>/dev/null; then
    "$NVS" $SWEEP --out "$d/mnt/r" >"$d/full.out" 2>"$d/full.err"
    rc=$?
    [ $rc -eq 1 ] || fail "tmpfs full: exit $rc, expected 1"
    check_kept "$d/mnt/r" "$d/full.err" "96 KiB tmpfs"
    umount "$d/mnt"
else
    echo "note: cannot mount a tmpfs here: the simulated full disk below stands for it"
fi

# 1b. the file system turns read-only mid-run (remounted by an admin, or by the kernel after an I/O error): a write
#     error as a full disk is, exit 1 (it was exit 2, "stopped by a usage error"), the last checkpoint kept
mkdir -p "$d/ro"
if mount --bind "$d/ro" "$d/ro" 2>/dev/null; then
    as_fg "$NVS" $SWEEP --out "$d/ro/r" >"$d/ro.out" 2>"$d/ro.err" &
    pid=$!
    # until the first checkpoint with a row; no longer than 120 s, nor once the job has ended
    t0=$(date +%s)
    while [ $(($(date +%s) - t0)) -lt 120 ] && kill -0 $pid 2>/dev/null &&
        [ "$(json_get "$d/ro/r.partial/run.json" "len(d.get('collectives') or [])" 2>/dev/null || echo 0)" -lt 1 ]; do
        sleep 0.1
    done
    if ! mount -o remount,ro,bind "$d/ro"; then
        fail "cannot remount $d/ro read-only"
        kill -INT $pid 2>/dev/null # not a sweep to the end for nothing
    fi
    wait $pid
    rc=$?
    [ $rc -eq 1 ] || fail "read-only mid-run: exit $rc, expected 1: $(grep -v '^nvscale: \[' "$d/ro.err" | head -n 3)"
    grep -q "Read-only file system" "$d/ro.err" || fail "read-only mid-run: the write error is not named"
    n=$(json_get "$d/ro/r.partial/run.json" "len(d['collectives'])" 2>/dev/null || echo 0)
    [ "$n" -ge 1 ] || fail "read-only mid-run: the checkpoint's rows were not kept"
    umount "$d/ro"
else
    echo "note: cannot bind-mount here: the read-only case is not run"
fi

# 2. the simulated full disk: the first checkpoints succeed, the 6th write fails
NVS_TEST_WRITE_FAIL=6 "$NVS" $SWEEP --out "$d/sim" >"$d/sim.out" 2>"$d/sim.err"
rc=$?
[ $rc -eq 1 ] || fail "simulated full disk: exit $rc, expected 1"
check_kept "$d/sim" "$d/sim.err" "simulated full disk"
# 3. the disk fills after the final run.json, at collectives.csv: run.json is said to be the final one (it was
#    called "the last checkpoint ... what was measured after it is lost"), exit 1. The K-th write is that file
#    when no checkpoint came mid-sweep (a loaded machine may add one): K is searched
k=3
while [ $k -le 8 ]; do
    rm -rf "$d/csv" "$d/csv.partial"
    NVS_TEST_WRITE_FAIL=$k "$NVS" coll --backend mpi -b 1K -e 4K -n 3 --out "$d/csv" >/dev/null 2>"$d/csv.err"
    rc=$?
    grep -q "cannot write .*collectives.csv" "$d/csv.err" && break
    k=$((k + 1))
done
if [ $k -le 8 ]; then
    [ $rc -eq 1 ] || fail "full disk at collectives.csv: exit $rc, expected 1"
    [ "$(json_get "$d/csv/run.json" "d['result']['status']" 2>/dev/null)" = ok ] ||
        fail "full disk at collectives.csv: run.json is not the final one"
    grep -q "run.json is the final one, with every result measured" "$d/csv.err" ||
        fail "full disk at collectives.csv: not said that run.json is whole: $(grep error "$d/csv.err" | head -n 3)"
    ! grep -q "last checkpoint" "$d/csv.err" || fail "full disk at collectives.csv: run.json called a checkpoint"
else
    fail "full disk at collectives.csv: no K made collectives.csv the failing write"
fi

# the hook's value is validated like every input: one message, exit 2, nothing made
expect 2 "invalid value 'x' for environment variable NVS_TEST_WRITE_FAIL" env NVS_TEST_WRITE_FAIL=x \
    "$NVS" coll --backend mpi -b 1K -e 4K --out "$d/nohook"
[ ! -e "$d/nohook" ] && [ ! -e "$d/nohook.partial" ] || fail "NVS_TEST_WRITE_FAIL=x: a run directory was made"

# and by every subcommand that writes a file, the same way, before anything is written. check, report and model
# did not look at it: x, -1 or 1junk turned the hook off without a word, and ' 1' or +1, which run refuses, were
# read by core/out_file.c's strtol as 1 (report then failed its first write, exit 1); compare refused it as
# "nvscale run: ...". 1073741825: above the largest K the validator takes.
fx=tests/fixtures/runs/h200x2_nvlink.json
for v in x -1 1junk ' 1' +1 '1 ' 0 1073741825; do
    for sub in run coll train topo p2p accept compare check report model; do
        case $sub in
        run | coll | train | accept) set -- $sub --backend mpi --out "$d/w" ;;
        topo | p2p) set -- $sub --out "$d/w" ;;
        compare) set -- compare --transports shm --out "$d/w" ;;
        check) set -- check "$fx" --min-p2p 1 --junit "$d/w" ;;
        report) set -- report -o "$d/w" "$fx" ;;
        model) set -- model --list-presets -o "$d/w" ;;
        esac
        expect_err 2 "nvscale $sub: invalid value '$v' for environment variable NVS_TEST_WRITE_FAIL: expected the" \
            env NVS_TEST_WRITE_FAIL="$v" "$NVS" "$@"
        [ -z "$(ls -A "$d" | grep '^w')" ] || fail "$sub with NVS_TEST_WRITE_FAIL='$v': $(ls -d "$d"/w*) written"
        rm -rf "$d"/w*
    done
done
finish
