# Shared helpers for the end-to-end tests in tests/t/ (sourced by them; kept outside tests/t/ so that run.sh
# does not count it as a test).
NVS=${NVS:-./nvscale}
TMP=${TMP:-tests/tmp}
mkdir -p "$TMP"
fails=0

# expect CODE PATTERN CMD...: CMD exits with CODE and its stderr+stdout contains PATTERN (a grep -E regex).
expect() {
    want=$1 pat=$2
    shift 2
    _out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: '$*' exited $rc, expected $want"
        printf '%s\n' "$_out" | tail -5 | sed 's/^/    /'
        fails=$((fails + 1))
        return 1
    fi
    if [ -n "$pat" ] && ! printf '%s\n' "$_out" | grep -Eq -- "$pat"; then
        echo "FAIL: '$*' output lacks /$pat/"
        printf '%s\n' "$_out" | tail -5 | sed 's/^/    /'
        fails=$((fails + 1))
        return 1
    fi
    return 0
}

# mpirun as CI runs it: as root, more ranks than cores
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none"

has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

# json_get FILE PYTHON-EXPR: evaluate EXPR with `d` = the parsed JSON (python3 is on every CI image we use)
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

finish() {
    if [ "$fails" -ne 0 ]; then
        echo "$fails check(s) failed"
        exit 1
    fi
    exit 0
}
