#!/bin/sh
# tools/topo_scale.c (the optional `make topo-scale`): the topology of many hosts merges, writes and reads back with
# every class unchanged, and its run.json grows with the hosts, not with their square (classes are stored and
# written host by host: topo/topo_store.c). Sizes, not times: 4x the hosts must give well under 16x the bytes.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
make -s topo-scale >"$TMP/topo_scale.build.$$" 2>&1 || { cat "$TMP/topo_scale.build.$$"; rm -f "$TMP/topo_scale.build.$$"; stop "make topo-scale"; }
rm -f "$TMP/topo_scale.build.$$"
expect 2 "HOSTS 'x': expected a whole number from 1 to 4096" build/topo_scale x
expect 2 "HOSTS '0'" build/topo_scale 0
expect 2 "more than 4096 GPUs" build/topo_scale 513
expect 2 "cannot read tests/fixtures/topo/none.xml" build/topo_scale 2 tests/fixtures/topo/none.xml
expect 2 "unknown option '--bogus'" build/topo_scale --bogus
expect 0 "pick_half_s=[0-9.]+ pick_rc=0" build/topo_scale 4 --pick
small=$(build/topo_scale 16) || fail "topo_scale 16: $small"
big=$(build/topo_scale 64) || fail "topo_scale 64: $big"
for line in "$small" "$big"; do
    case "$line" in *"classes=same"*) ;; *) fail "classes changed on the way: $line" ;; esac
done
mb() { printf '%s\n' "$1" | sed -n 's/.*json_mb=\([0-9.]*\).*/\1/p'; }
s=$(mb "$small") b=$(mb "$big")
[ -n "$s" ] && [ -n "$b" ] || stop "no json_mb in: $small / $big"
# linear: 4x (the hosts' entries); with every pair and full NIC rows it was 7.8x (0.63 vs 4.89 MB at 0db1720)
awk -v s="$s" -v b="$b" 'BEGIN { exit !(b / s < 6) }' || fail "64 hosts wrote $b MB, 16 hosts $s MB: more than linear"
finish "16 hosts: $s MB, 64 hosts: $b MB"
