#!/bin/sh
# The training table's text names what "the rest of step - compute" is. Runs with a framework that has host work
# (pytorch-ddp) put its reducer there; runs without one (made before --framework, or --framework ideal) have no
# reducer: results/diag-issue9/nvs-lm-bf16's N=2 step - compute, 3.04 ms, is 0.49 ms exposed and 2.55 ms of
# compute slowed beside the all-reduces, yet was said to be "the framework's reducer and compute slowed".
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

rest_of() { # RUN.json: the report's sentence on the rest of step - compute
    rm -rf "$dir/r"
    "$NVS" report --no-plots -o "$dir/r" "$1" >/dev/null 2>&1 || { fail "report $1 failed"; return; }
    grep -o "the rest of step - compute is [^;]*" "$dir/r/report.md" | sort -u
}
no_fw=results/diag-issue9/nvs-lm-bf16/run.json
ideal=results/fidelity/run3-nvlink/raw/nvs-nvlink-bf16-ideal/run.json
ddp=results/fidelity/run3-nvlink/raw/nvs-nvlink-bf16-r1/run.json
for f in $no_fw $ideal; do
    [ "$(rest_of $f)" = "the rest of step - compute is compute slowed beside the all-reduces" ] ||
        fail "$f (no reducer): '$(rest_of $f)'"
done
[ "$(rest_of $ddp)" = "the rest of step - compute is the framework's reducer and compute slowed beside the all-reduces" ] ||
    fail "$ddp (pytorch-ddp): '$(rest_of $ddp)'"
finish
