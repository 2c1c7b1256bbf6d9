#!/bin/sh
# Standard output gone at the end of a run (issue 14), on the MPI host backend:
#  1. piped into a reader that has exited (`| head -1`): SIGPIPE at the first write may end the process, but the
#     run directory has its final name already (not DIR.partial, which says "cut short") with the final run.json;
#  2. standard output closed: exit 1, the failed write named, and no claim that run.json is an older checkpoint
#     (it is the final one, "ok");
#  3. Ctrl-C with --no-save: exit 130, the rows measured printed, no run.json named on stderr;
#  4. standard output closed at launch: descriptor 1 is not handed to the next file opened (held on /dev/null
#     from the start: Open MPI's start-up pipe took it, and what nvscale printed would have gone there);
#  5. `nvscale topo` piped into a reader that has exited: its run directory is saved and renamed before it prints
#     (it printed first: SIGPIPE left an empty DIR.partial, which a rerun with the same --out refused).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3
tmp_dir d
# a short sweep whose JSON on stdout is well past a pipe's buffer
SWEEP="coll --backend mpi -b 8 -e 64K -f 2 -n 2 -w 0 --coll all"

# 1. the reader is gone before anything is printed (`true` exits at once; the sweep takes a second or more)
"$NVS" $SWEEP --format json --out "$d/pipe" 2>"$d/pipe.err" | true
[ -d "$d/pipe" ] || fail "stdout to a closed pipe: the run directory did not take its final name: $(ls "$d")"
[ ! -e "$d/pipe.partial" ] || fail "stdout to a closed pipe: $d/pipe.partial left behind (a run cut short)"
[ "$(json_get "$d/pipe/run.json" "d['result']['status']" 2>/dev/null)" = ok ] ||
    fail "stdout to a closed pipe: no final run.json ('ok') in $d/pipe"

# 2. stdout closed
"$NVS" $SWEEP --out "$d/closed" >&- 2>"$d/closed.err"
rc=$?
[ $rc -eq 1 ] || fail "stdout closed: exit $rc, expected 1"
grep -q "writing to standard output failed" "$d/closed.err" || fail "stdout closed: the failed write is not named"
# one process: nothing to abort, so none of Open MPI's MPI_ABORT banner after nvscale's own message
! grep -q "MPI_ABORT" "$d/closed.err" || fail "stdout closed, one process: Open MPI's MPI_ABORT banner on stderr"
! grep -q "last checkpoint" "$d/closed.err" ||
    fail "stdout closed: says run.json is the last checkpoint, but the final one was written: $(grep checkpoint "$d/closed.err")"
[ "$(json_get "$d/closed/run.json" "d['result']['status']" 2>/dev/null)" = ok ] ||
    fail "stdout closed: no final run.json ('ok') in $d/closed"

# 3. Ctrl-C with --no-save: the rows measured are printed, and stderr does not point at a run.json that is not there
as_fg "$NVS" coll --backend mpi -b 1K -e 256M -n 1000 -w 1 --no-save >"$d/nosave.out" 2>"$d/nosave.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "sweep N=1 " "$d/nosave.err"; do
    sleep 0.1
    i=$((i + 1))
done
sleep 1 # the small sizes take milliseconds each; 256 MiB at 1000 iterations takes minutes: the signal lands mid-run
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "Ctrl-C with --no-save: exit $rc, expected 130"
grep -q "^ *1024 " "$d/nosave.out" || fail "Ctrl-C with --no-save: the rows measured are not printed"
! grep -q "run.json: status" "$d/nosave.err" ||
    fail "Ctrl-C with --no-save: stderr names a run.json: $(grep 'run.json' "$d/nosave.err")"

# 4. a sweep started with stdout closed: its descriptor 1, looked at once the sweep has begun (before the fix:
#    closed, or whatever the process opened next: Open MPI's start-up pipe was seen there)
if [ -d /proc/self/fd ]; then
    as_fg "$NVS" coll --backend mpi -b 8 -e 64M -f 2 -n 20 -w 0 --no-save >&- 2>"$d/fd1.err" &
    pid=$!
    i=0
    while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null && ! grep -q "sweep N=1 " "$d/fd1.err"; do
        sleep 0.1
        i=$((i + 1))
    done
    fd1=$(readlink "/proc/$pid/fd/1" 2>/dev/null)
    kill -INT $pid 2>/dev/null
    wait $pid
    [ "$fd1" = /dev/null ] || fail "stdout closed at launch: descriptor 1 is '${fd1:-closed}', not held on /dev/null"
else
    skip "no /proc: descriptor 1 not looked at"
fi

# 5. topo (an offline XML: no GPU, no MPI) to a closed pipe
"$NVS" topo --hwloc-xml tests/fixtures/topo/pcie8.xml --out "$d/topo" 2>"$d/topo.err" | true
[ ! -e "$d/topo.partial" ] || fail "topo to a closed pipe: $d/topo.partial left behind"
[ -n "$(json_get "$d/topo/run.json" "d['topology']['hosts'][0]['name']" 2>/dev/null)" ] ||
    fail "topo to a closed pipe: no run.json with the topology in $d/topo: $(ls "$d"; cat "$d/topo.err")"
finish
