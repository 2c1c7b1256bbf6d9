# Shared helpers for the end-to-end tests in tests/t/, sourced by every one of them (tests/t/test_style.sh
# checks) right after going to the repository root:
#     cd "$(dirname "$0")/../.." || exit 1
#     . tests/lib.sh
# Kept outside tests/t/ so that run.sh does not count it as a test. A script exits 0 = pass, 77 = skipped (the
# reason on its last line: `skip`), anything else = fail; `finish` turns the count of failed checks into that.
#
#   NVS, MPIRUN, TMP       the nvscale binary (override: NVS=...), mpirun as CI runs it, where scratch files go
#   fail MSG               report a failed check and count it (the script goes on; `finish` exits 1)
#   stop MSG               a failed check after which the rest cannot run: fail, then finish
#   skip WHY               exit 77: the test cannot run here, and why
#   need_nvscale           exit 1 unless nvscale is built
#   need_cmd CMD WHY       skip unless CMD is on PATH
#   has_gpu, gpu_count     whether nvidia-smi lists a GPU; how many
#   tmp_dir VAR            a fresh empty directory in VAR, removed when the script exits
#   expect CODE ERE CMD    CMD exits CODE and its stdout+stderr matches ERE (grep -E); "" = any output
#   expect_err CODE TEXT CMD   CMD exits CODE, its stderr holds TEXT (fixed string; "" = any), and when CODE is 2
#                          (input refused) it printed nothing on stdout. Its stdout/stderr stay in $OUT / $ERR.
#   golden GOT FILE        GOT equals the golden FILE (diff shown), or with UPDATE_GOLDEN=1 becomes it
#   json_get FILE EXPR     a Python expression over the parsed JSON `d`
#   as_fg CMD... &         CMD in the background with SIGINT at its default action, as a foreground job at a
#                          terminal gets it: `kill -INT $!` is then a Ctrl-C (a plain `&` of this shell starts the
#                          job with SIGINT ignored, which nvscale keeps: core/interrupt.c). Only with `&`: it execs.
#                          Variables for CMD go through env: `as_fg env V=1 "$NVS" ... &`
#   late_rank0 VAR         VAR = a wrapper that starts Open MPI's rank 0 3 s late (`$MPIRUN -np 2 "$VAR" CMD...`), as
#                          on a machine too busy for rank 0 to refuse within the other ranks' 2 s wait; a "said once"
#                          check holds even then with NVS_TEST_SILENT_RANK_DELAY_S=60 passed (src/cli/main.c):
#                          `env NVS_TEST_SILENT_RANK_DELAY_S=60 $MPIRUN -x NVS_TEST_SILENT_RANK_DELAY_S ...`
#   finish [MSG]           exit 1 if a check failed, else print MSG (if any) and exit 0
NVS=${NVS:-./nvscale}
TMP=${TMP:-tests/tmp}
mkdir -p "$TMP"
fails=0
_lib_name=$(basename "$0" .sh)
OUT=$TMP/$_lib_name.$$.out
ERR=$TMP/$_lib_name.$$.err
_lib_cleanup="$OUT $ERR"
# the paths are ours (no blanks): word splitting of the list is intended
trap 'rm -rf $_lib_cleanup' EXIT

# mpirun as CI runs it: as root, more ranks than cores
MPIRUN="mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none"
# under make check SAN=...: ranks get the slow malloc unwinder, so that tests/lsan.supp can name the Open MPI
# plug-ins whose progress thread keeps allocations until exit (only here: it slows every malloc down)
[ -n "${ASAN_OPTIONS:-}" ] && MPIRUN="$MPIRUN -x ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0"

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

stop() {
    fail "$@"
    finish
}

skip() {
    echo "$*"
    exit 77
}

need_nvscale() { [ -x "$NVS" ] || { echo "no $NVS: run make first"; exit 1; }; }

need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed: $2"; }

# cudnn_root: "ROOT LIBDIR" of an installed cuDNN 9 with its headers (ROOT/include/cudnn.h, LIBDIR/libcudnn.so.9):
# $CUDNN_HOME, the system's, or the one a PyTorch environment carries (site-packages/nvidia/cudnn); fails if none.
cudnn_root() {
    for _r in ${CUDNN_HOME:-} /usr /usr/local/cuda \
        $(ls -d /opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn /usr/local/lib/python3*/dist-packages/nvidia/cudnn \
            2>/dev/null); do
        [ -f "$_r/include/cudnn.h" ] || continue
        for _l in "$_r/lib" "$_r/lib64" "$_r/lib/x86_64-linux-gnu"; do
            [ -e "$_l/libcudnn.so.9" ] && { echo "$_r $_l"; return 0; }
        done
    done
    return 1
}
has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
gpu_count() { if has_gpu; then nvidia-smi -L | grep -c '^GPU'; else echo 0; fi; }

tmp_dir() {
    _lib_d=$TMP/$_lib_name.$$.$1
    rm -rf "$_lib_d"
    mkdir -p "$_lib_d" || exit 1
    _lib_cleanup="$_lib_cleanup $_lib_d"
    eval "$1=\$_lib_d"
}

# fake_gpu DIR: build tests/fixtures/fake_gpu.c (a CPU stand-in for the CUDA runtime and NCCL calls nvscale makes,
# LD_PRELOADed) into DIR/fake_gpu.so, or skip where it cannot stand in: no C compiler, a sanitizer build (its
# runtime must be preloaded first), or an nvscale not linked to the shared CUDA runtime
fake_gpu() {
    _cc=${CC:-cc}
    need_cmd "$_cc" "no C compiler to build the stand-in GPU"
    [ -n "${ASAN_OPTIONS:-}" ] && skip "a sanitizer build must be preloaded first"
    ldd "$NVS" 2>/dev/null | grep -q 'libasan\|libtsan' && skip "a sanitizer build must be preloaded first"
    ldd "$NVS" 2>/dev/null | grep -q 'libcudart\.so' || skip "nvscale is not linked to the shared CUDA runtime"
    _cuda=${CUDA_HOME:-/usr/local/cuda}
    "$_cc" -shared -fPIC -I"$_cuda/include" -I"${NCCL_HOME:-$_cuda}/include" -o "$1/fake_gpu.so" \
        tests/fixtures/fake_gpu.c 2>"$1/cc.err" || skip "the stand-in GPU does not build here: $(head -n 1 "$1/cc.err")"
}

# expect CODE PATTERN CMD...: CMD exits with CODE and its stderr+stdout contains PATTERN (a grep -E regex).
expect() {
    want=$1 pat=$2
    shift 2
    _out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "'$*' exited $rc, expected $want"
        printf '%s\n' "$_out" | tail -5 | sed 's/^/    /'
        return 1
    fi
    if [ -n "$pat" ] && ! printf '%s\n' "$_out" | grep -Eq -- "$pat"; then
        fail "'$*' output lacks /$pat/"
        printf '%s\n' "$_out" | tail -5 | sed 's/^/    /'
        return 1
    fi
    return 0
}

# expect_err CODE TEXT CMD...: see the top. Returns 1 after a failed check, so that callers can stop there.
expect_err() {
    want=$1 text=$2
    shift 2
    "$@" >"$OUT" 2>"$ERR"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$*: exit $rc, expected $want"
        sed 's/^/    /' "$ERR" | tail -8
        return 1
    fi
    if [ -n "$text" ] && ! grep -qF -- "$text" "$ERR"; then
        fail "$*: stderr lacks '$text'"
        sed 's/^/    /' "$ERR" | tail -8
        return 1
    fi
    if [ "$want" -eq 2 ] && [ -s "$OUT" ]; then
        fail "$*: printed on stdout although the input was refused"
        return 1
    fi
    return 0
}

# late_rank0 VAR: see the top. 3 s: longer than the 2 s that the other ranks wait for rank 0 by default (the check
# failed without the hook), and what it costs each run, since mpirun ends the waiting ranks when rank 0 exits.
late_rank0() {
    _lib_late=$TMP/$_lib_name.$$.late-rank0.sh
    printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 0 ] && sleep 3\nexec "$@"\n' >"$_lib_late" && chmod +x "$_lib_late" ||
        exit 1
    _lib_cleanup="$_lib_cleanup $_lib_late"
    eval "$1=\$_lib_late"
}

# golden GOT FILE: compare; UPDATE_GOLDEN=1 rewrites FILE instead (review the diff before committing it).
golden() {
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
        cp "$1" "$2" && echo "updated $2"
        return 0
    fi
    diff -u "$2" "$1" || { fail "output differs from $2 (diff above)"; return 1; }
}

# json_get FILE PYTHON-EXPR: evaluate EXPR with `d` = the parsed JSON (python3 is on every CI image we use)
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# a shell cannot undo an ignore it started its child with (POSIX trap), so Python resets it before the exec. The
# background subshell that runs the function execs too, so $! of `as_fg ... &` is CMD's pid, not a subshell's
# (which ignores SIGINT: a kill -INT to it did nothing)
as_fg() {
    exec python3 tools/as-fg "$@"
}

# stand_in_gnuplot DIR: DIR/gnuplot "draws" every image its script names (each "set output 'FILE'" gets a non-empty
# FILE), so that a test of report's plots runs without gnuplot; put DIR (absolute) first in PATH
stand_in_gnuplot() {
    mkdir -p "$1" || return 1
    printf '#!/bin/sh\nsed -n "s/^set output '"'"'\\(.*\\)'"'"'$/\\1/p" "$1" | while read -r f; do echo drawn >"$f"; done\n' \
        >"$1/gnuplot" && chmod +x "$1/gnuplot"
}

finish() {
    if [ "$fails" -ne 0 ]; then
        echo "$fails check(s) failed"
        exit 1
    fi
    [ -n "${1:-}" ] && echo "$1"
    exit 0
}

# rank_pid PATTERN RANK: the pid of the Open MPI rank RANK's process whose command line matches PATTERN (pgrep -f)
rank_pid() {
    for p in $(pgrep -f "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
    done | head -n 1
}
