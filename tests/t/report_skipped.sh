#!/bin/sh
# The sizes a sweep left out as too small for the ranks (run.json sweep.skipped, tests/t/coll_skipped.sh) were
# said by the run's own table only: report showed the N without a table and without a word (all_gather over 4
# ranks with -b 8 -e 32 measures nothing), and check's busbw rule at such a size said "no 32 B row of all_gather
# at n=4", as if the run had lost it. Report lists them as the table did, check names the skip, and a bad
# sweep.skipped is refused (exit 2) as any other bad key. The Scaling tables said "—" for such a cell, as for a
# value lost, and left an N of no size measured out: they say "skipped", with a note.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun "the MPI host backend runs under it"
need_cmd python3 "cannot edit the JSON"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir dir

expect 0 "skipped: all_gather on 4 ranks" $MPIRUN -np 4 $NVS coll --backend mpi --gpus 1,2,4 -b 8 -e 32 \
    --coll all_gather,all_reduce -n 2 -w 1 --out "$dir/r" || stop "the 4-rank run"
expect_err 0 "" "$NVS" report --no-plots "$dir/r/run.json" || fail "report"
grep -q '^- skipped: all_gather on 4 ranks (float): no size measured (8 B to 32 B): too small' "$dir/r/report.md" ||
    fail "report.md does not say all_gather at N=4 was skipped"
grep -q '^- skipped: all_gather on 2 ranks (float): 2 of 3 sizes (8 B to 16 B) left out' "$dir/r/report.md" ||
    fail "report.md does not say 2 sizes of all_gather at N=2 were skipped"
# the Scaling tables say which cells the sweep skipped, not an unexplained dash (all_gather at N=4 had no column)
grep -q '^| 16 B | — | skipped | skipped |$' "$dir/r/report.md" || fail "the busbw Scaling table does not say skipped"
grep -q '^| 4 | [0-9.]* | [0-9.]* % | skipped | skipped |$' "$dir/r/report.md" ||
    fail "the efficiency table does not say all_gather at N=4 was skipped"
grep -q '^skipped: the sweep left that size out at that GPU count as too small' "$dir/r/report.md" ||
    fail "no note under the Scaling tables says what skipped means"
expect 3 "not measured: skipped by the sweep \(all_gather at n=4, float: no size measured" \
    "$NVS" check --min-busbw all_gather:32:4:0.0001 "$dir/r/run.json" || fail "check at a skipped size"
expect 3 "not measured: no 64 B row of all_gather at n=2" \
    "$NVS" check --min-busbw all_gather:64:2:0.0001 "$dir/r/run.json" || fail "check at a size never planned"

# a bad sweep.skipped: refused with the key named, exit 2
python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['sweep']['skipped'][0]['n'] = '4'
json.dump(d, open(sys.argv[2], 'w'))" "$dir/r/run.json" "$dir/bad.json" || stop "the bad file"
expect_err 2 "sweep.skipped[0].n: expected an integer" "$NVS" report --no-plots -o "$dir/b" "$dir/bad.json" ||
    fail "a bad sweep.skipped was not refused"
finish
