#!/bin/sh
# Faults lose nothing already measured (issue 14), on the MPI host backend:
#  1. Ctrl-C (SIGINT) to a one-process run mid-sweep: exit 130, the run directory under its final name, run.json
#     "interrupted" with the rows measured before the signal and the reason;
#  2. SIGINT to mpirun mid-sweep, and 3. kill -9 of one rank mid-sweep: a readable run.json with rows (the final
#     one, "interrupted", or the last checkpoint in DIR.partial, "running", if the launcher killed rank 0 first);
#  4. a rank stopped at start-up: every rank out within --timeout plus a few seconds, the start-up named; and
#     Ctrl-C to rank 0 then: out at once, saying it was interrupted;
#  5. an existing file, an existing directory and a stale DIR.partial as --out: exit 2 before anything runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
# a sweep that lasts: 1 KiB .. 64 MiB, every collective, 200 iterations each
SWEEP="coll --backend mpi -b 1K -e 64M -f 2 -n 200 -w 1 --coll all"

# wait_rows DIR PID: until DIR.partial/run.json (a checkpoint) holds at least one collective row; 0 when it does,
# 1 after 120 s or as soon as the job PID has ended (a job that died at start-up was polled for minutes: each
# python3 takes a second or two on a loaded 2-core box)
wait_rows() {
    t0=$(date +%s)
    while [ $(($(date +%s) - t0)) -lt 120 ] && kill -0 "$2" 2>/dev/null; do
        if [ -s "$1.partial/run.json" ] &&
            python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get('collectives') else 1)" \
                "$1.partial/run.json" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# kept DIR: prints "STATUS ROWS" of the run.json kept for DIR (final name first, else the .partial checkpoint)
kept() {
    f=$1/run.json
    [ -s "$f" ] || f=$1.partial/run.json
    [ -s "$f" ] || { echo "none 0"; return; }
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['result']['status'], len(d['collectives']))" "$f"
}

# 1. SIGINT to one process
as_fg "$NVS" $SWEEP --out "$d/int1" >"$d/int1.out" 2>"$d/int1.err" &
pid=$!
if wait_rows "$d/int1" $pid; then
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
    [ -d "$d/int1" ] && [ ! -e "$d/int1.partial" ] || fail "SIGINT: the run directory did not take its final name"
    set -- $(kept "$d/int1")
    [ "$1" = interrupted ] && [ "$2" -ge 1 ] || fail "SIGINT: run.json status '$1' with $2 rows"
    json_get "$d/int1/run.json" "d['result']['reason']" | grep -q "SIGINT" || fail "SIGINT: no reason in run.json"
    grep -q "^nvscale: interrupted by signal 2 (SIGINT.*status \"interrupted\"" "$d/int1.err" ||
        fail "SIGINT: stderr does not say the run was interrupted: $(tail -n 3 "$d/int1.err")"
    ! grep -q "MPI_ABORT" "$d/int1.err" || fail "SIGINT, one process: Open MPI's MPI_ABORT banner on stderr"
else
    kill -9 $pid 2>/dev/null
    fail "no checkpoint with rows appeared within 120 s, or the job ended first"
fi

# 2. SIGINT to mpirun
$MPIRUN -np 2 "$NVS" $SWEEP --out "$d/int2" >"$d/int2.out" 2>&1 &
pid=$!
if wait_rows "$d/int2" $pid; then
    kill -INT $pid
    wait $pid
    rc=$?
    [ $rc -ne 0 ] || fail "SIGINT to mpirun: exit 0"
    set -- $(kept "$d/int2")
    case "$1" in interrupted | running) ;; *) fail "SIGINT to mpirun: run.json status '$1'" ;; esac
    [ "$2" -ge 1 ] || fail "SIGINT to mpirun: no rows kept"
    echo "SIGINT to mpirun: exit $rc, run.json '$1' with $2 rows"
else
    kill -9 $pid 2>/dev/null
    fail "mpirun: no checkpoint with rows appeared within 120 s, or the job ended first"
fi

# 3. kill -9 of rank 1
$MPIRUN -np 2 "$NVS" $SWEEP --out "$d/kill" >"$d/kill.out" 2>&1 &
pid=$!
if wait_rows "$d/kill" $pid; then
    victim=""
    for p in $(pgrep -f "nvscale $SWEEP --out $d/kill"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1" && victim=$p
    done
    if [ -n "$victim" ]; then
        kill -9 "$victim"
        wait $pid
        rc=$?
        [ $rc -ne 0 ] || fail "kill -9: mpirun exit 0"
        set -- $(kept "$d/kill")
        [ "$2" -ge 1 ] || fail "kill -9 of rank 1: no rows kept (status '$1')"
        echo "kill -9 of rank 1: exit $rc, run.json '$1' with $2 rows"
    else
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
        fail "kill -9: rank 1's process not found"
    fi
else
    kill -9 $pid 2>/dev/null
    fail "kill -9: no checkpoint with rows appeared within 120 s, or the job ended first"
fi

# 4. a rank stopped at start-up: the others are out within --timeout (+ slack), naming MPI's start-up
t0=$(date +%s)
$MPIRUN -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then kill -STOP $$; fi; exec "$0" "$@"' "$NVS" coll \
    --backend mpi -b 1K -e 4K --timeout 5 --no-save >"$d/stop.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -ne 0 ] || fail "stopped rank: exit 0"
[ $t -le 40 ] || fail "stopped rank: the job took $t s with --timeout 5"
grep -q "did not complete within 5 s" "$d/stop.out" || { fail "stopped rank: the stall is not named"; cat "$d/stop.out"; }

# 4b. Ctrl-C to rank 0 while it waits inside MPI_Init for a stopped rank: out at once with 130, "interrupted",
#     not --timeout (60 s here) later with "did not complete" (MPI_Init retries the wait a signal cuts short)
t0=$(date +%s)
as_fg $MPIRUN -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then kill -STOP $$; fi; exec "$0" "$@"' "$NVS" \
    coll --backend mpi -b 1K -e 4K --timeout 61 --no-save >"$d/stopint.out" 2>&1 &
pid=$!
p0=
while [ -z "$p0" ] && [ $(($(date +%s) - t0)) -lt 30 ]; do
    sleep 0.5
    p0=$(rank_pid "coll --backend mpi -b 1K -e 4K --timeout 61" 0)
done
sleep 2 # rank 0 inside MPI's start-up
if [ -n "$p0" ]; then
    kill -INT "$p0"
    wait $pid
    rc=$?
    t=$(($(date +%s) - t0))
    [ $t -le 45 ] || fail "Ctrl-C at start-up: the job took $t s (--timeout 61)"
    [ $rc -ne 0 ] || fail "Ctrl-C at start-up: exit 0"
    grep -q "^nvscale\[rank 0\]: interrupted by signal 2 during MPI start-up" "$d/stopint.out" ||
        { fail "Ctrl-C at start-up: not said"; cat "$d/stopint.out"; }
else
    kill $pid 2>/dev/null
    fail "Ctrl-C at start-up: rank 0 never appeared"
fi

# 5. outputs refused before anything runs
: >"$d/afile"
expect 2 "afile: it exists" "$NVS" coll --backend mpi -b 1K -e 1K --out "$d/afile"
mkdir -p "$d/adir" "$d/stale.partial"
expect 2 "adir: it exists" "$NVS" coll --backend mpi -b 1K -e 1K --out "$d/adir"
expect 2 "stale.partial exists: an earlier run into it was cut short" "$NVS" coll --backend mpi -b 1K -e 1K --out "$d/stale"
[ -z "$(ls -A "$d/adir")" ] || fail "a refused --out got files"
finish
