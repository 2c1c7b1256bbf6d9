#!/bin/sh
# The what-if model against every measured run committed in results/: for each run.json under results/ (any depth), calibrate
# the model on it and print the error tables (all_reduce per N and size, training step per N, with the
# preset-only model beside the calibrated one). Exit 0 when every run's step time is reproduced within the
# tolerance (default 10 %, docs/model.md), 3 when one is not, 2/1 on bad input or a runtime error.
# Usage: tools/model_vs_results.sh [TOLERANCE_PCT] [RESULTS_DIR]     (NVSCALE=path/to/nvscale to override)
cd "$(dirname "$0")/.." || exit 1
tol=${1:-10}
dir=${2:-results}
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first" >&2; exit 1; }
worst=0 n=0
for run in $(find "$dir" -name run.json | sort); do
    [ -f "$run" ] || continue
    # the model reproduces all_reduce sweeps and training steps: runs with neither (topo, p2p, other
    # collectives only) are listed as skipped, not counted
    if ! grep -q '"collective": "all_reduce"' "$run" && ! grep -q '"train":' "$run"; then
        echo "-> $run: skipped (no all_reduce sweep and no training step to model)"
        continue
    fi
    n=$((n + 1))
    echo "=================================================================================================="
    "$nvs" model --calibrate "$run" --tolerance "$tol"
    rc=$?
    case $rc in
    0) if grep -q '"train":' "$run"; then
           echo "-> $run: training step time within $tol % at every measured N"
       else
           echo "-> $run: all_reduce curve modelled (per-size errors above, not gated: no training step in this run)"
       fi ;;
    3) echo "-> $run: OUTSIDE the $tol % tolerance (see above)" ;;
    *) echo "-> $run: not modelled (exit $rc)" ;;
    esac
    [ "$rc" -gt "$worst" ] && worst=$rc
    echo
done
if [ "$n" -eq 0 ]; then
    echo "no run.json under $dir yet: nothing to compare"
    exit 0
fi
echo "$n run(s) compared, tolerance $tol %"
exit "$worst"
