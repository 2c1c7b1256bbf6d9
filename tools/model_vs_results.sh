#!/bin/sh
# The what-if model against every measured run committed in results/: for each results/*/run.json, calibrate
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
for run in "$dir"/*/run.json; do
    [ -f "$run" ] || continue
    n=$((n + 1))
    echo "=================================================================================================="
    "$nvs" model --calibrate "$run" --tolerance "$tol"
    rc=$?
    case $rc in
    0) echo "-> $run: step time within $tol % at every measured N" ;;
    3) echo "-> $run: OUTSIDE the $tol % tolerance (see above)" ;;
    *) echo "-> $run: not modelled (exit $rc)" ;;
    esac
    [ "$rc" -gt "$worst" ] && worst=$rc
    echo
done
if [ "$n" -eq 0 ]; then
    echo "no $dir/*/run.json yet: nothing to compare"
    exit 0
fi
echo "$n run(s) compared, tolerance $tol %"
exit "$worst"
