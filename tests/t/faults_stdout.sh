#!/bin/sh
# Standard output gone at the end of a run (issue 14), on the MPI host backend:
# piped into a reader that has exited (`| head -1`): SIGPIPE at the first write may end the process, but the
# run directory has its final name already (not DIR.partial, which says "cut short") with the final run.json.
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

finish
