#!/bin/sh
# Sizes too small for the ranks are left out (a block per rank of whole 16 bytes, as nccl-tests), and said so: an
# N of all_gather whose sizes all round to nothing had no table and no row, and nothing said why (a silent gap).
# Now the table says "skipped: ..." and run.json sweep.skipped lists each (collective, N, type) with the sizes
# left out and why; a sweep that measures nothing at all is refused up front (exit 2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun "the MPI host backend runs under it"
need_cmd python3 "cannot parse the JSON"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir dir

# 4 ranks, -b 8 -e 32: all_reduce measures every size; all_gather gets 2..8 B per rank, under 16: none at N=4
expect 0 "skipped: all_gather on 4 ranks: no size measured \(8 B to 32 B\): too small" \
    $MPIRUN -np 4 $NVS coll --backend mpi -b 8 -e 32 --coll all_reduce,all_gather -n 2 -w 1 --out "$dir/c4" &&
    grep -q "skipped: all_gather on 4 ranks" "$dir/c4/table.txt" || fail "table.txt lacks the skipped all_gather"
python3 - "$dir/c4/run.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
sk = d["sweep"].get("skipped")
errors = []
if any(c["collective"] == "all_gather" for c in d["collectives"]):
    errors.append("all_gather rows at N=4 with -e 32")
want = {"collective": "all_gather", "n": 4, "type": "float", "sizes": 3, "of": 3, "from_bytes": 8, "to_bytes": 32}
if not sk or len(sk) != 1 or any(sk[0].get(k) != v for k, v in want.items()) or "16-byte" not in sk[0].get("why", ""):
    errors.append("sweep.skipped: %s" % sk)
for e in errors:
    print("FAIL: %s" % e)
sys.exit(1 if errors else 0)
PY

# N = 1, 2, 4 with only all_gather: 8 B at N=1 and 8, 16 B at N=2 are left out, all three sizes at N=4
expect 0 "skipped: all_gather on 4 ranks: no size measured" \
    $MPIRUN -np 4 $NVS coll --backend mpi --gpus 1,2,4 -b 8 -e 32 --coll all_gather -n 2 -w 1 --out "$dir/r" &&
    expect 0 "" python3 -c "
import json, sys
d = json.load(open('$dir/r/run.json'))
got = sorted((k['n'], k['sizes'], k['of']) for k in d['sweep']['skipped'])
sys.exit(0 if got == [(1, 1, 3), (2, 2, 3), (4, 3, 3)] else 'sweep.skipped %s' % got)"

# nothing measured at all: refused before the run, exit 2, no result directory
expect 2 "measures nothing" $MPIRUN -np 4 $NVS coll --backend mpi -b 8 -e 32 --coll all_gather --out "$dir/none"
[ -e "$dir/none" ] && fail "a refused sweep left $dir/none"

# a run with no skipped size writes no sweep.skipped
expect 0 "" $MPIRUN -np 2 $NVS coll --backend mpi -b 64 -e 128 --coll all_gather -n 2 -w 1 --out "$dir/full" &&
    [ "$(json_get "$dir/full/run.json" "'skipped' in d['sweep']")" = "False" ] || fail "sweep.skipped in a full run"
finish "coll_skipped: ok"
