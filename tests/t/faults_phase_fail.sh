#!/bin/sh
# One rank's own failure in a phase other than the training step (NVS_TEST_FAIL=PHASE:RANK: that rank fails with
# "out of memory" as the phase starts; the sweep: as it starts its last GPU count), on the MPI host backend with
# --timeout 60: the failing rank tells the others (run/phase_fail.h, runtime.h nvs_rt_tell_failed), so the job ends
# well within --timeout, exit 1, with rank, phase and reason named on rank 0's terminal and in run.json "failed",
# and what was measured before kept (the sweep's N=1 rows). The reason is the failing rank's own error line (core/log.h
# nvs_log_last_error: the hook logs "out of memory in PHASE (injected by NVS_TEST_FAIL=...)"), not the error code's
# text alone. Rank 1 failing in the sweep and in topology gathering, rank 0 failing in the sweep (the others stop,
# rank 0 writes its own reason). split:1: rank 1 fails before the last GPU count's communicator split, which rank 0
# is about to enter: MPI_Comm_split polls nothing, so rank 0 used to sit in it until rank 1's MPI_Abort ended the job
# "interrupted", the cause lost; now the ranks agree before it (collectives/backend.h nvs_comm_create_agree).
# comm:1: rank 1 enters that agreement with its own failure (as a rank with no memory for the communicator): rank 0
# learns of it from the agreement, and used to say only the code's text ("rank 1 failed in setting up
# MPI_Comm_split: out of memory"); now it says the failing rank's own line, as a phase's notice does
# (runtime.h nvs_rt_agree_ok_told).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
need_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d
h=$(hostname)
RUN="run --no-train --backend mpi -b 1K -e 4K -n 5 --timeout 60"

# the hook's value is checked like any input: one message naming it, exit 2, no run directory left
for bad in bogus:1 sweep:x sweep sweep:-1 sweep:1x split: splits:1; do
    NVS_TEST_FAIL=$bad "$NVS" $RUN --out "$d/bad" >"$d/bad.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "NVS_TEST_FAIL=$bad: exit $rc, expected 2"
    grep -q "invalid value '$bad' for environment variable NVS_TEST_FAIL: expected PHASE:RANK" "$d/bad.out" ||
        fail "NVS_TEST_FAIL=$bad: the bad value is not named: $(head -n 1 "$d/bad.out")"
    [ ! -e "$d/bad" ] || fail "NVS_TEST_FAIL=$bad: a run directory was left"
done

# a bad phase's message lists every phase the hook takes: the names read from phase_fail.c's table, the one
# source of the names (a phase added there but left out of the message is caught here)
names=$(sed -n 's/^ *\[NVS_PF_[A-Z_]*\] = {"\([a-z0-9]*\)".*/\1/p' src/run/phase_fail.c)
[ "$(echo "$names" | wc -w)" -gt 1 ] || fail "read only $(echo "$names" | wc -w) phase names from src/run/phase_fail.c"
NVS_TEST_FAIL=bogus:1 "$NVS" $RUN --out "$d/bad" >"$d/bad.out" 2>&1
for n in $names; do
    grep -q "PHASE one of.* $n\( \|\$\)" "$d/bad.out" || fail "NVS_TEST_FAIL=bogus:1: the message does not list phase '$n'"
done
# and nothing else: a phase with no hook (NVS_PF_BACKEND, NULL in the table) was listed as "(null)"
listed=$(sed -n 's/.*PHASE one of //p' "$d/bad.out")
[ "$(echo $listed)" = "$(echo $names)" ] ||
    fail "NVS_TEST_FAIL=bogus:1: the message lists '$(echo $listed)', the table's hooks are '$(echo $names)'"

# case HOOK SENTENCE ROWS_AT_N1: the job's exit, time, rank 0's words, run.json's status, reason and rows
case_fail() {
    hook=$1 said=$2 want_n1=$3 s= n1=
    t0=$(date +%s)
    env NVS_TEST_FAIL=$hook $MPIRUN -np 2 -x NVS_TEST_FAIL "$NVS" $RUN --out "$d/$hook" >"$d/$hook.out" 2>&1
    rc=$?
    t=$(($(date +%s) - t0))
    [ $rc -eq 1 ] || fail "$hook: exit $rc, expected 1"
    # MPI's start-up and the N=1 sweep take a few seconds on a loaded 2-core machine; --timeout is 60
    [ $t -le 30 ] || fail "$hook: the job took $t s to end with --timeout 60"
    # rank 0's last words (write_outputs); a peer's failure also as it hears of it (runtime.c nvs_rt_peer_failed)
    grep -q "^nvscale: stopped: $said; the results measured before are kept" "$d/$hook.out" ||
        { fail "$hook: rank 0 does not end saying '$said'"; grep -v '\[ *[0-9]* s\]' "$d/$hook.out" | tail -n 8 | sed 's/^/    /'; }
    case $hook in *:0) ;; *) grep -q "rank 0\]: error: $said; every rank stops" "$d/$hook.out" ||
        fail "$hook: rank 0 does not say so as it hears of it" ;; esac
    f=$d/$hook/run.json
    if [ -s "$f" ]; then
        s=$(json_get "$f" "d['result']['status']")
        [ "$s" = failed ] || fail "$hook: run.json status '$s', expected 'failed'"
        json_get "$f" "d['result']['reason']" | grep -q "$said" ||
            fail "$hook: run.json's reason does not name the rank, phase and why: $(json_get "$f" "d['result']['reason']")"
        n1=$(json_get "$f" "sum(1 for r in d.get('collectives', []) if r['n'] == 1)")
        n2=$(json_get "$f" "sum(1 for r in d.get('collectives', []) if r['n'] == 2)")
        if [ "$want_n1" = yes ]; then [ "$n1" -gt 0 ] || fail "$hook: the N=1 rows measured before are lost"; fi
        [ "$n2" -eq 0 ] || fail "$hook: $n2 rows at N=2, where the sweep failed"
    else
        fail "$hook: no final run.json (rank 0 did not get to write it)"
    fi
    echo "$hook: out in $t s (exit $rc), run.json '${s:-none}' with ${n1:-0} N=1 row(s)"
}
case_fail sweep:1 "rank 1 (host $h) failed in the collective sweep at N=2: out of memory in the collective sweep (injected by NVS_TEST_FAIL=sweep:1)" yes
case_fail sweep:0 "rank 0 (host $h) failed in the collective sweep at N=2: out of memory in the collective sweep (injected by NVS_TEST_FAIL=sweep:0)" yes
case_fail split:1 "rank 1 (host $h) failed in the collective sweep at N=2: out of memory in the collective sweep's communicator split (injected by NVS_TEST_FAIL=split:1)" yes
case_fail comm:1 "rank 1 (host $h) failed in setting up MPI_Comm_split: out of memory in setting up the collective sweep's communicator (injected by NVS_TEST_FAIL=comm:1)" yes
! grep -q "rank 0\]: error: rank 1 failed in setting up MPI_Comm_split: out of memory; every rank stops" "$d/comm:1.out" ||
    fail "comm:1: rank 0 still says the error code's text alone"
case_fail topology:1 "rank 1 (host $h) failed in topology gathering: out of memory in topology gathering (injected by NVS_TEST_FAIL=topology:1)" no
finish
