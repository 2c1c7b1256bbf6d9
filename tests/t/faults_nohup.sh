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

# expect_sig SIG MODE [trap] RC STATUS WHAT: the signal mid-run as sig_mid_run sends it must end the run with RC and
# run.json STATUS (a sweep that ended first tested nothing, which is said)
expect_sig() {
    local sig=$1 mode=$2 trap=
    shift 2
    [ "$1" = trap ] && { trap=trap; shift; }
    set -- "$1" "$2" "$3" $(sig_mid_run "$sig" "$mode" $trap)
    case "$4" in
    late) echo "the sweep ended before the SIG$sig: nothing tested $3" ;;
    *) [ "$4" = "$1" ] && [ "$5" = "$2" ] ||
        fail "SIG$sig $3: exit $4, run.json '$5' (expected $1, $2): $(tail -n 2 "$d/$mode.err" 2>/dev/null)" ;;
    esac
}

expect_sig HUP nohup trap 0 ok "under nohup (the run goes on)"
expect_sig HUP hup 130 interrupted "without nohup"
expect_sig INT bg trap 0 ok "ignored at start, \`nvscale ... &\` in a script (the run goes on)"
expect_sig INT fg 130 interrupted "at its default (Ctrl-C)"
finish
