#!/bin/sh
# nvscale topo: bad input exits 2 with one message naming the file or flag, and writes nothing:
# missing file, a directory, malformed XML, XML without a GPU, hwloc XML version 3.0, unknown flag, bad format,
# an option of a live discovery with --hwloc-xml.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir
refused() { # refused TEXT nvscale-arguments...: exit 2, TEXT on stderr, one message at most (and its "Try"
    # line), nothing on stdout
    expect_err 2 "$@" && [ "$(grep -c . "$ERR")" -gt 2 ] && { fail "nvscale $*: more than one message:"; cat "$ERR"; }
}
printf '<?xml version="1.0"?>\n<topology version="2.0">\n  <object type="Machine" os_index="0"\n' >"$dir/trunc.xml"
sed 's/<topology version="2.0">/<topology version="3.0">/' tests/fixtures/topo/h200x2.xml >"$dir/v3.xml"
# the same machine with its two GPUs turned into another vendor's devices: valid XML, no NVIDIA GPU
sed 's/\[10de:/[15b3:/g' tests/fixtures/topo/h200x2.xml >"$dir/nogpu.xml"
echo "not xml at all" >"$dir/junk.xml"

refused "cannot read hwloc XML '$dir/missing.xml': No such file" "$NVS" topo --hwloc-xml "$dir/missing.xml" --no-save
refused "cannot read hwloc XML '$dir'" "$NVS" topo --hwloc-xml "$dir" --no-save
refused "$dir/trunc.xml: not a valid hwloc XML topology" "$NVS" topo --hwloc-xml "$dir/trunc.xml" --no-save
refused "'$dir/junk.xml' is not an hwloc XML topology" "$NVS" topo --hwloc-xml "$dir/junk.xml" --no-save
refused "'$dir/v3.xml' is version 3.x " "$NVS" topo --hwloc-xml "$dir/v3.xml" --no-save &&
    { grep -Eq "'$dir/v3.xml' is version 3.x .*cannot read it" "$ERR" || fail "v3.xml: stderr lacks 'cannot read it'"; }
refused "'$dir/nogpu.xml' has no NVIDIA GPU" "$NVS" topo --hwloc-xml "$dir/nogpu.xml" --no-save
# every NUMA node cut out: hwloc refuses it without an errno, which read "hwloc_topology_load failed: Success"
grep -v 'type="NUMANode"' tests/fixtures/topo/pcie8.xml >"$dir/nonuma.xml"
refused "$dir/nonuma.xml: not a valid hwloc XML topology (hwloc_topology_load failed: no error code" \
    "$NVS" topo --hwloc-xml "$dir/nonuma.xml" --no-save && grep -q "Success" "$ERR" && fail "nonuma.xml: 'Success'"
refused "unknown option '--bogus'" "$NVS" topo --bogus
# the options of a live discovery mean nothing when the topology is read from a file: refused naming both, in
# either order, before anything is read or made (--timeout was taken and did nothing)
X=tests/fixtures/topo/h200x2.xml
refused "--hwloc-xml and --timeout exclude each other" "$NVS" topo --hwloc-xml $X --timeout 5 --out "$dir/t1"
refused "--hwloc-xml and --timeout exclude each other" "$NVS" topo --timeout=5 --hwloc-xml=$X --out "$dir/t1"
refused "--hwloc-xml and --emulate-nodes exclude each other" "$NVS" topo --emulate-nodes 2 --hwloc-xml $X \
    --out "$dir/t1"
[ -e "$dir/t1" ] || [ -e "$dir/t1.partial" ] && fail "a refused topo made $dir/t1"
# what goes with --hwloc-xml still does
expect 0 "" "$NVS" topo --hwloc-xml $X -q --format csv --out "$dir/t2"
[ -s "$dir/t2/run.json" ] || fail "topo --hwloc-xml --out wrote no run.json"
refused "invalid value 'yaml' for --format" "$NVS" topo --format yaml --hwloc-xml tests/fixtures/topo/h200x2.xml
refused "option --hwloc-xml needs a value" "$NVS" topo --hwloc-xml
refused "unexpected argument 'extra'" "$NVS" topo --hwloc-xml tests/fixtures/topo/h200x2.xml extra
# an error leaves no result directory behind
"$NVS" topo --hwloc-xml "$dir/nogpu.xml" --out "$dir/res" >/dev/null 2>&1
[ -e "$dir/res" ] && fail "a failed topo created $dir/res"
# --hwloc-xml with --emulate-nodes: said once under mpirun (every rank said it). Rank 0 starts 3 s late here, as on a
# machine busy enough that it takes longer than the other ranks' 2 s wait to start and refuse (then both said it, and
# this test failed now and then); the hook NVS_TEST_SILENT_RANK_DELAY_S makes rank 1 wait for it (src/cli/main.c).
if command -v mpirun >/dev/null 2>&1; then
    late_rank0 late
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NVS_TEST_SILENT_RANK_DELAY_S=60 \
        mpirun -np 2 --oversubscribe -x NVS_TEST_SILENT_RANK_DELAY_S "$late" "$NVS" topo \
        --hwloc-xml tests/fixtures/topo/h200x2.xml --emulate-nodes 2 --no-save >"$OUT" 2>"$ERR"
    [ "$(grep -c "emulate-nodes splits" "$ERR")" -eq 1 ] || fail "mpirun -np 2 topo --hwloc-xml --emulate-nodes 2: not said once: $(cat "$ERR")"
fi
# the hook itself is validated
export NVS_TEST_SILENT_RANK_DELAY_S=2x
refused "invalid value '2x' for environment variable NVS_TEST_SILENT_RANK_DELAY_S" "$NVS" topo --hwloc-xml tests/fixtures/topo/h200x2.xml
unset NVS_TEST_SILENT_RANK_DELAY_S
# --help works
"$NVS" topo --help >"$OUT" 2>&1 || fail "topo --help exit $?"
grep -q -- "--hwloc-xml" "$OUT" || fail "topo --help does not list --hwloc-xml"
finish
