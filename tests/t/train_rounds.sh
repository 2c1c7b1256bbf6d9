#!/bin/sh
# --rounds on the MPI host backend: every N measured in turn, round after round; each N's efficiency is the median
# of the rounds' own step(1)/step(N), with its range, and its times are its median round's (train/rounds.h). The
# default (one round) writes no round detail. Bad values are refused before anything runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun "the host training step runs under it"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
prof=tests/fixtures/train/tiny-mlp.prof
expect 0 "over 3 rounds, every N timed in turn" $MPIRUN -np 2 $NVS train --backend mpi --model $prof --steps 2 \
    --warmup-steps 1 --rounds 3 --out "$d/r3"
j=$d/r3/run.json
check() { [ "$(json_get "$j" "$1")" = "$2" ] || fail "$1 is $(json_get "$j" "$1"), expected $2"; }
R="d['train']['results']"
check "[(r['n'], r['rounds_measured'], len(r['rounds'])) for r in ${R}]" "[(1, 3, 3), (2, 3, 3)]"
# each round's efficiency is that round's step(1) over its step(N)
check "all(abs(r['rounds'][k]['efficiency'] - ${R}[0]['rounds'][k]['step_us'] / r['rounds'][k]['step_us']) < 1e-9 for r in ${R} for k in range(3))" "True"
# the point's efficiency is the median of its rounds', within their range; its step is its median round's
check "[abs(r['efficiency'] - sorted(x['efficiency'] for x in r['rounds'])[1]) < 1e-9 for r in ${R}]" "[True, True]"
check "[r['efficiency_min'] <= r['efficiency'] <= r['efficiency_max'] for r in ${R}]" "[True, True]"
check "[r['step_us'] == sorted(x['step_us'] for x in r['rounds'])[1] for r in ${R}]" "[True, True]"
# the median round's compute-only step and all-reduces go with its step
check "[any(x['step_us'] == r['step_us'] and x['compute_us'] == r['compute_us'] and x['comm_us'] == r['comm_us'] for x in r['rounds']) for r in ${R}]" "[True, True]"
check "(${R}[0]['efficiency'], ${R}[0]['efficiency_min'], ${R}[0]['efficiency_max'])" "(1.0, 1.0, 1.0)"
# the hardware's own step and the step without GEMMs are measured once, in the first round
check "'ideal_compute_us' in ${R}[0] and 'ideal_compute_us' not in ${R}[1]" "True"

# nvscale report shows the range beside each N's efficiency, and says what the rows are
expect 0 "" $NVS report "$d/r3/run.json" -o "$d/rep3" --no-plots
lo=$(json_get "$j" "'%.1f' % (100 * ${R}[1]['efficiency_min'])")
grep -q "| over the rounds |" "$d/rep3/report.md" && grep -q "Every N was timed 3 times in turn" "$d/rep3/report.md" &&
    grep -q "| 2 | .* | $lo-.* % (3) |$" "$d/rep3/report.md" || fail "report of a run in rounds: $(grep -A4 'over the' "$d/rep3/report.md")"

# one round (the default): no round detail, efficiency = step(1) / step(N)
expect 0 "Training step: tiny-mlp" $MPIRUN -np 2 $NVS train --backend mpi --model $prof --steps 2 --warmup-steps 1 \
    --out "$d/r1"
j=$d/r1/run.json
check "['rounds' in r or 'rounds_measured' in r for r in ${R}]" "[False, False]"
check "abs(${R}[1]['efficiency'] - ${R}[0]['step_us'] / ${R}[1]['step_us']) < 1e-9" "True"
# shellcheck disable=SC2154 # _out: the output expect kept (tests/lib.sh)
printf '%s\n' "$_out" | grep -q "rounds, every N" && fail "one round printed the rounds line"
expect 0 "" $NVS report "$j" -o "$d/rep1" --no-plots
grep -q "over the rounds" "$d/rep1/report.md" && fail "the report of one round has a rounds column"

for bad in 0 101 -1 2x "" 1e1; do
    expect 2 "invalid value '$bad' for --rounds: expected 1..100" $NVS train --backend mpi --model $prof \
        --rounds "$bad" --out "$d/bad"
done
[ -e "$d/bad" ] && fail "a refused --rounds left $d/bad"
finish
