#!/bin/sh
# nvscale topo: bad input exits 2 with one message naming the file or flag, and writes nothing:
# missing file, a directory, malformed XML, XML without a GPU, hwloc XML version 3.0, unknown flag, bad format.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
dir=tests/tmp/topo_errors.$$
rm -rf "$dir"
mkdir -p "$dir"
fail=0
expect() { # expect EXIT PATTERN nvscale-arguments...: exit code, and PATTERN (grep -E) in stderr
    want=$1 pat=$2
    shift 2
    "$nvs" "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ "$rc" -eq "$want" ] || { echo "FAIL: nvscale $*: exit $rc, expected $want"; cat "$dir/err"; fail=1; return; }
    grep -Eq "$pat" "$dir/err" || { echo "FAIL: nvscale $*: stderr lacks /$pat/:"; cat "$dir/err"; fail=1; }
    [ "$(grep -c . "$dir/err")" -le 2 ] || { echo "FAIL: nvscale $*: more than one message:"; cat "$dir/err"; fail=1; }
    [ -s "$dir/out" ] && { echo "FAIL: nvscale $*: printed on stdout after an error"; fail=1; }
}
printf '<?xml version="1.0"?>\n<topology version="2.0">\n  <object type="Machine" os_index="0"\n' >"$dir/trunc.xml"
sed 's/<topology version="2.0">/<topology version="3.0">/' tests/fixtures/topo/h200x2.xml >"$dir/v3.xml"
# the same machine with its two GPUs turned into another vendor's devices: valid XML, no NVIDIA GPU
sed 's/\[10de:/[15b3:/g' tests/fixtures/topo/h200x2.xml >"$dir/nogpu.xml"
echo "not xml at all" >"$dir/junk.xml"

expect 2 "cannot read hwloc XML '$dir/missing.xml': No such file" topo --hwloc-xml "$dir/missing.xml" --no-save
expect 2 "cannot read hwloc XML '$dir'" topo --hwloc-xml "$dir" --no-save
expect 2 "$dir/trunc.xml: not a valid hwloc XML topology" topo --hwloc-xml "$dir/trunc.xml" --no-save
expect 2 "'$dir/junk.xml' is not an hwloc XML topology" topo --hwloc-xml "$dir/junk.xml" --no-save
expect 2 "'$dir/v3.xml' is version 3.x .*cannot read it" topo --hwloc-xml "$dir/v3.xml" --no-save
expect 2 "'$dir/nogpu.xml' has no NVIDIA GPU" topo --hwloc-xml "$dir/nogpu.xml" --no-save
expect 2 "unknown option '--bogus'" topo --bogus
expect 2 "invalid value 'yaml' for --format" topo --format yaml --hwloc-xml tests/fixtures/topo/h200x2.xml
expect 2 "option --hwloc-xml needs a value" topo --hwloc-xml
expect 2 "unexpected argument 'extra'" topo --hwloc-xml tests/fixtures/topo/h200x2.xml extra
# an error leaves no result directory behind
"$nvs" topo --hwloc-xml "$dir/nogpu.xml" --out "$dir/res" >/dev/null 2>&1
[ -e "$dir/res" ] && { echo "FAIL: a failed topo created $dir/res"; fail=1; }
# --help works
"$nvs" topo --help >"$dir/out" 2>&1 || { echo "FAIL: topo --help exit $?"; fail=1; }
grep -q -- "--hwloc-xml" "$dir/out" || { echo "FAIL: topo --help does not list --hwloc-xml"; fail=1; }
rm -rf "$dir"
exit $fail
