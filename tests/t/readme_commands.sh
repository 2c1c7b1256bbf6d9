#!/bin/sh
# Every command of README.md's shell blocks (```sh) runs as written: `make deps && make run`, and each nvscale
# and mpirun line of the Quick start (mpirun gets --allow-run-as-root --oversubscribe, which CI's root user and 2
# cores need). Each must exit 0, except where this machine lacks what it needs, and then with the message
# that says so: without a GPU, those that need one (topo of this machine, p2p, compare) exit 1 and accept fails its
# "gpus on HOST" check (exit 3: a machine without a usable GPU is not accepted); with one GPU,
# p2p and compare (GPU pairs) exit 1; `mpirun -np K` with fewer than K GPUs exits 2 (one rank per GPU). `make deps && make check` is the suite
# this test belongs to: it is not run from inside itself. Run directories the commands make are removed after.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
# make check SAN=...: `make run` would rebuild the unsanitized nvscale in the middle of the sanitized suite; the
# README's commands are the plain make check's to run
[ -n "${ASAN_OPTIONS:-}" ] && skip "make check SAN=...: the README's commands run in the plain make check"
need_nvscale
need_cmd python3 "cannot read README.md's blocks"
need_cmd mpirun "the README's mpirun lines"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
python3 - README.md >"$d/cmds" <<'PY' || stop "cannot extract the README's commands"
import re, sys
text = open(sys.argv[1]).read()
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    for line in block.splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        if line:
            print(line)
PY
[ "$(wc -l <"$d/cmds")" -ge 10 ] || fail "only $(wc -l <"$d/cmds") commands found in README.md"
ls results >"$d/before" 2>/dev/null
# measured results are never rewritten by a command of the README (a report drawn beside a committed run was)
find results -type f 2>/dev/null | sort | xargs md5sum >"$d/results.sum" 2>/dev/null
ngpu=$(gpu_count)
n=0
while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in
    "make deps && make check") echo "skip: '$line' is the suite this test is part of"; continue ;;
    "make deps && make run") cmd="make run" ;;
    nvscale*) cmd="$NVS${line#nvscale}" ;;
    mpirun*) cmd="mpirun --allow-run-as-root --oversubscribe $(echo "${line#mpirun }" | sed "s|\bnvscale\b|$NVS|")" ;;
    *) fail "README line not understood by this test: $line"; continue ;;
    esac
    want=0 pat=""
    if [ "$ngpu" -eq 0 ]; then
        case "$line" in
        "nvscale topo" | "nvscale p2p"* | "nvscale compare"*) want=1 pat="GPU" ;;
        "nvscale accept"*) want=3 pat="gpus on .* FAIL .*no GPU found" ;;
        esac
    else
        case "$line" in
        "nvscale p2p" | "nvscale compare"*) [ "$ngpu" -ge 2 ] || { want=1; pat="1 visible|1 GPU"; } ;;
        mpirun*)
            np=$(echo "$line" | sed -n 's/.*-np \([0-9]*\).*/\1/p')
            [ "$ngpu" -ge "${np:-1}" ] || { want=2; pat="only $ngpu GPU|both drive GPU"; } ;;
        esac
    fi
    t0=$(date +%s)
    sh -c "$cmd" </dev/null >"$d/out.$n" 2>&1
    rc=$?
    echo "README command $n: '$line' -> exit $rc in $(($(date +%s) - t0)) s"
    [ $rc -eq $want ] || { fail "'$line' exited $rc, expected $want"; tail -5 "$d/out.$n"; continue; }
    [ -z "$pat" ] || grep -Eq "$pat" "$d/out.$n" || fail "'$line': the message does not say why ($pat)"
done <"$d/cmds"
# the run directories the commands made (nvscale names them YYYYMMDD-HHMMSS-...): removed; anything else that
# appeared meanwhile is not theirs (results copied in from a GPU machine while the suite ran) and stays
ls results 2>/dev/null | while IFS= read -r r; do
    grep -qxF "$r" "$d/before" && continue
    case $r in [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]-*) rm -rf "results/$r" ;; esac
done
changed=$(md5sum --quiet -c "$d/results.sum" 2>/dev/null | sed 's/:.*//' | tr '\n' ' ')
[ -z "$changed" ] || fail "README commands changed files under results/: $changed"
finish
