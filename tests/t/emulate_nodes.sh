#!/bin/sh
# --emulate-nodes on the MPI host backend: 4 ranks of this machine become 2 virtual hosts of 2 ranks, and every
# multi-host path runs for real: host identity per rank (name, node, local rank, the machine kept), run.json's
# world.hosts, the per-host lines of the table, collective blocks and scaling columns that say how many hosts they
# span, the "Why" paragraphs' intra- against inter-host figures, and `check` naming the slowest rank's (virtual)
# host. Then every refusal: a K that does not divide the ranks, more hosts than ranks, K < 1, no launcher (one
# rank), and --hwloc-xml. MPI traffic stays on loopback (btl/oob tcp on lo): the tests never address another host.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: cannot read run.json"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LO="--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"
host=$(hostname | cut -c1-56)
check() { # check WHAT PYTHON-EXPR EXPECTED (on $j)
    got=$(json_get "$j" "$2")
    [ "$got" = "$3" ] || { echo "FAIL: $1: got '$got', expected '$3'"; fails=$((fails + 1)); }
}

# coll at the world size: 4 ranks in 2 virtual hosts
d=$TMP/emulate_coll
rm -rf "$d"
if expect 0 "Host $host/vnode1 +node 1: 2 ranks: 2 3" $MPIRUN $LO -np 4 $NVS coll --backend mpi --emulate-nodes 2 \
    -b 1K -e 64K -f 8 --coll all_reduce,broadcast --out "$d"; then
    j=$d/run.json
    check "world" "(d['world']['size'], d['world']['nodes'], d['world']['emulated_nodes'])" "(4, 2, 2)"
    check "hosts" "[(h['name'], h['node'], h['ranks'], h['machine']) for h in d['world']['hosts']]" \
        "[('$host/vnode0', 0, [0, 1], '$host'), ('$host/vnode1', 1, [2, 3], '$host')]"
    check "ranks" "[(r['host'], r['node'], r['local_rank'], r['machine']) for r in d['ranks']]" \
        "[('$host/vnode0', 0, 0, '$host'), ('$host/vnode0', 0, 1, '$host'), ('$host/vnode1', 1, 0, '$host'), ('$host/vnode1', 1, 1, '$host')]"
    check "validated" "sum(1 for c in d['collectives'] if c['wrong'] != 0)" "0"
    grep -q "^# all_reduce on 4 ranks on 2 hosts$" "$d/table.txt" || { echo "FAIL: block header without hosts"; fails=$((fails + 1)); }
    grep -q "2 virtual hosts of 2 ranks on $host (--emulate-nodes 2)" "$d/table.txt" ||
        { echo "FAIL: table lacks the virtual hosts line"; fails=$((fails + 1)); }
fi

# 2 ranks in 2 virtual hosts: "of 1 rank"
d=$TMP/emulate_one
rm -rf "$d"
if expect 0 "" $MPIRUN $LO -np 2 $NVS coll --backend mpi --emulate-nodes 2 -b 1K -e 1K --coll all_reduce --out "$d"; then
    grep -q "2 virtual hosts of 1 rank on $host (--emulate-nodes 2)" "$d/table.txt" ||
        { echo "FAIL: not '2 virtual hosts of 1 rank': $(grep 'virtual hosts' "$d/table.txt")"; fails=$((fails + 1)); }
fi

# run: N = 1, 2 (inside virtual host 0) and 4 (across both); the one-screen answer says where each N ran
d=$TMP/emulate_run
rm -rf "$d"
if expect 0 "At 4 ranks on 2 hosts \(2 each\)" $MPIRUN $LO -np 4 $NVS run --backend mpi --emulate-nodes 2 \
    -b 64K -e 256K -f 4 --coll all_reduce --no-train --out "$d"; then
    j=$d/run.json
    check "scaling" "[(s['n'], s['ranks']) for s in d['scaling']]" "[(1, [0]), (2, [0, 1]), (4, [0, 1, 2, 3])]"
    check "explain hosts" "[e.get('hosts') for e in d['explain']]" "[1, 1, 2]"
    # fell, rose or held (within 10 %, as on a 16-core machine): either way it names where N=2 ran
    check "explain text" "'at 2 ranks on one host' in d['explain'][2]['text']" "True"
    # the one-screen answer (hosts column, header) and the full tables of -v (hosts row under the scaling table)
    $MPIRUN $LO -np 4 $NVS run --backend mpi --emulate-nodes 2 -b 64K -e 64K --coll all_reduce --no-train \
        --no-save -v >"$d/out.txt" 2>&1
    grep -q "4 ranks on 2 virtual hosts of $host (mpi, --emulate-nodes)" "$d/out.txt" ||
        { echo "FAIL: the header does not say virtual hosts"; fails=$((fails + 1)); }
    # host backend: no bound; through host memory on one (virtual) host, MPI between two (they said "unknown")
    for row in "1 +1  -" "2 +1  host memory, no bound" "4 +2  MPI between hosts, no bound"; do
        grep -Eq "^ +$row" "$d/out.txt" || { echo "FAIL: no summary row '$row'"; grep -A4 "^Collectives" "$d/out.txt"; fails=$((fails + 1)); }
    done
    grep -Eq "^#  hosts +1 +1 +2$" "$d/out.txt" || { echo "FAIL: scaling table lacks the hosts line"; grep -A3 Scaling "$d/out.txt"; fails=$((fails + 1)); }
    # check blames the slowest rank's virtual host (whichever it was: the one in run.json)
    slow_host=$(json_get "$j" "[r['host'] for r in d['ranks'] if r['rank'] == max(d['collectives'], key=lambda c: c['n'])['slowest_rank']][0]")
    expect 3 "slowest rank at n=4: rank [0-3] \(host $host/vnode[01]" $NVS check "$j" --min-busbw 'all_reduce:256K:4:100000'
    case "$slow_host" in "$host"/vnode[01]) ;; *) echo "FAIL: slowest rank's host '$slow_host'"; fails=$((fails + 1)) ;; esac
    # its JUnit header claims no one host (was hostname="$host/vnode0", rank 0's): each host is a property
    expect 3 "" $NVS check "$j" --min-busbw 'all_reduce:256K:4:100000' --junit "$d.xml"
    grep -q 'hostname=' "$d.xml" && { echo "FAIL: junit of a 2-host run names one host: $(grep -o 'hostname="[^"]*"' "$d.xml")"; fails=$((fails + 1)); }
    [ "$(grep -c "<property name=\"host\" value=\"$host/vnode[01]\"/>" "$d.xml")" = 2 ] ||
        { echo "FAIL: junit of a 2-host run lacks its hosts: $(grep 'property' "$d.xml")"; fails=$((fails + 1)); }
    rm -f "$d.xml"
    # a fleet of it and the coll run (the same two virtual hosts): each host once (the fleet's JUnit named none)
    c=$TMP/emulate_coll/run.json
    if [ -f "$c" ]; then
        $NVS check "$j" "$c" --junit "$d.xml" >/dev/null 2>&1
        [ -f "$d.xml" ] && [ "$(grep -c "<property name=\"host\" value=\"$host/vnode[01]\"/>" "$d.xml")" = 2 ] &&
            [ "$(grep -c '<property name="host"' "$d.xml")" = 2 ] ||
            { echo "FAIL: junit of a fleet of 2-host runs: hosts $(grep 'name="host"' "$d.xml" 2>/dev/null)"; fails=$((fails + 1)); }
        grep -q 'hostname=' "$d.xml" && { echo "FAIL: junit of a fleet names one host"; fails=$((fails + 1)); }
        # the fleet row of all_reduce at N=4 (both virtual hosts) blames both, not rank 0's host
        grep -A5 '<testcase classname="nvscale.fleet" name="fleet busbw all_reduce [^"]* n=4 @' "$d.xml" |
            grep -qF "<property name=\"blame\" value=\"host $host/vnode0+$host/vnode1\"/>" ||
            { echo "FAIL: junit fleet row at n=4 blames: $(grep -A5 'n=4 @' "$d.xml" | grep blame)"; fails=$((fails + 1)); }
        rm -f "$d.xml"
    fi
fi

# refusals: one message, exit 2, nothing written
expect 2 "--emulate-nodes 3 does not divide the 4 ranks of this run" $MPIRUN $LO -np 4 $NVS coll --backend mpi \
    --emulate-nodes 3 -b 1K -e 1K --no-save
expect 2 "--emulate-nodes 8: only 4 ranks in this run" $MPIRUN $LO -np 4 $NVS coll --backend mpi --emulate-nodes 8 \
    -b 1K -e 1K --no-save
expect 2 "invalid value '0' for --emulate-nodes" $NVS coll --backend mpi --emulate-nodes 0 --no-save
expect 2 "invalid value 'two' for --emulate-nodes" $NVS run --emulate-nodes two --no-save
expect 2 "--emulate-nodes 2: only 1 rank in this run" $NVS coll --backend mpi --emulate-nodes 2 -b 1K -e 1K --no-save
expect 2 "with --hwloc-xml nothing runs" $NVS topo --hwloc-xml tests/fixtures/topo/hgx8nic.xml --emulate-nodes 2 --no-save
finish
