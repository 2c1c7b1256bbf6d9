#!/bin/sh
# A run started under nohup outlives the terminal (issue 14): SIGHUP ignored at start stays ignored, so the hangup
# at logout does not stop the run (it did: nvscale put its own handler over nohup's SIG_IGN and the run ended
# "interrupted by signal 1", exit 130). Without nohup a hangup still stops the run and keeps what was measured.
# Alike for SIGINT, which a shell without job control ignores in `nvscale ... &`: a `kill -INT` to the process
# group, meant for the foreground job, stopped the background run too ("interrupted by signal 2", exit 130).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3
tmp_dir d
# a sweep of a few seconds on a 2-core machine
SWEEP="coll --backend mpi -b 1K -e 16M -f 2 -n 40 -w 1 --coll all_reduce,all_gather"

# sig_mid_run SIG NAME [trap]: starts the sweep (with SIG ignored, as nohup does SIGHUP and a shell SIGINT for a
# background job, when the third argument is given), sends SIG once its checkpoint exists, and prints "EXIT
# STATUS" (STATUS of the run.json kept); "late" when the run had ended before the signal (nothing was tested)
sig_mid_run() {
    if [ -n "${3:-}" ]; then
        sh -c 'trap "" $0; exec "$@"' "$1" "$NVS" $SWEEP --out "$d/$2" >"$d/$2.out" 2>"$d/$2.err" &
    else # SIG to its default, whatever this script inherited (a suite run under nohup ignores SIGHUP, `&` ignores
        # SIGINT, and a shell cannot undo an ignore it started with)
        python3 -c 'import os, signal, sys; signal.signal(getattr(signal, "SIG" + sys.argv[1]), signal.SIG_DFL); os.execv(sys.argv[2], sys.argv[2:])' \
            "$1" "$NVS" $SWEEP --out "$d/$2" >"$d/$2.out" 2>"$d/$2.err" &
    fi
    set -- "$2" "$1"
    pid=$!
    t0=$(date +%s)
    while [ ! -s "$d/$1.partial/run.json" ] && kill -0 $pid 2>/dev/null && [ $(($(date +%s) - t0)) -lt 60 ]; do
        sleep 0.1
    done
    if ! kill -"$2" $pid 2>/dev/null; then
        wait $pid
        echo late
        return
    fi
    # bounded: a run that neither stops nor ends within 120 s is killed (the test then fails on its status)
    t0=$(date +%s)
    while kill -0 $pid 2>/dev/null && [ $(($(date +%s) - t0)) -lt 120 ]; do sleep 0.1; done
    kill -9 $pid 2>/dev/null
    wait $pid
    rc=$?
    f=$d/$1/run.json
    [ -s "$f" ] || f=$d/$1.partial/run.json
    [ -s "$f" ] || { echo "$rc none"; return; }
    echo "$rc $(json_get "$f" "d['result']['status']")"
}

set -- $(sig_mid_run HUP nohup trap)
case "$1" in
late) echo "the sweep ended before the hangup: nothing tested under nohup" ;;
*) [ "$1" = 0 ] && [ "$2" = ok ] ||
    fail "SIGHUP under nohup: exit $1, run.json '$2' (expected 0, ok: the run goes on): $(tail -n 2 "$d/nohup.err")" ;;
esac

set -- $(sig_mid_run HUP hup)
case "$1" in
late) echo "the sweep ended before the hangup: nothing tested without nohup" ;;
*) [ "$1" = 130 ] && [ "$2" = interrupted ] ||
    fail "SIGHUP without nohup: exit $1, run.json '$2' (expected 130, interrupted)" ;;
esac

set -- $(sig_mid_run INT bg trap)
case "$1" in
late) echo "the sweep ended before the SIGINT: nothing tested in the background" ;;
*) [ "$1" = 0 ] && [ "$2" = ok ] ||
    fail "SIGINT ignored at start (\`nvscale ... &\` in a script): exit $1, run.json '$2' (expected 0, ok: the run goes on): $(tail -n 2 "$d/bg.err")" ;;
esac

set -- $(sig_mid_run INT fg)
case "$1" in
late) echo "the sweep ended before the SIGINT: nothing tested in the foreground" ;;
*) [ "$1" = 130 ] && [ "$2" = interrupted ] ||
    fail "SIGINT at its default (Ctrl-C): exit $1, run.json '$2' (expected 130, interrupted)" ;;
esac
finish
