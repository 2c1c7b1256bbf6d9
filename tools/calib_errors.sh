#!/bin/bash
# The calibrated what-if model against every training step committed in results/: for each run.json with a
# training section and each workload it trained, `nvscale model --calibrate RUN --model W` and its step-time error
# per N, one line each ("RUN WORKLOAD N ERR_PCT"), then a summary: how many, the mean |error|, how many beyond
# 10 %. tools/model_vs_results.sh prints the full tables (of each run's first workload) and gates them.
# Usage: tools/calib_errors.sh [RESULTS_DIR]     (NVSCALE=path/to/nvscale to compare another build)
# the arguments are taken from where the script is called; it then runs from the repository root
case ${1:-} in '' | /*) ;; *) set -- "$PWD/$1" ;; esac
case ${NVSCALE:-} in '' | /*) ;; *) NVSCALE=$PWD/$NVSCALE ;; esac
cd "$(dirname "$0")/.." || exit 1
dir=${1:-results}
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 1; }
[ -d "$dir" ] || { echo "$dir: no such directory" >&2; exit 2; }
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
find "$dir" -name run.json | sort | while read -r run; do
    grep -q '"train":' "$run" || continue
    for w in $(jq -r '(.trains // [.train]) | map(select(.results != null and (.results | length) > 0)) | .[].model' \
        "$run" 2>/dev/null); do
        # a calibration that fails is listed as such (and counted), not dropped
        "$nvs" model --calibrate "$run" --model "$w" --format json 2>/dev/null |
            jq -r --arg r "$run" --arg w "$w" '.train[] | select(.step_err_pct != null) |
                "\($r) \($w) \(.n) \(.step_err_pct * 10 | round / 10)"' 2>/dev/null ||
            echo "$run $w - failed"
    done
done | tee "$tmp"
awk '$4 == "failed" {f++; next} {e = $4 < 0 ? -$4 : $4; s += e; n++; if (e > 10) o++} END {
    if (n) printf "%d calibrated steps (run, workload, N): mean |error| %.2f %%, %d beyond 10 %%", n, s / n, o
    else printf "no training step calibrated"
    printf "%s\n", f ? sprintf("; %d calibration(s) failed", f) : "" }' "$tmp"
