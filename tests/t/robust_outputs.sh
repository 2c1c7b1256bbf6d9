#!/bin/sh
# Issue 14, outputs: a file output never replaces what the path names when that is not a regular file (a device
# node, a FIFO, a link to /proc/self/fd/1 that stands for standard output): it is written through, or refused
# with exit 2 (a directory, a link to nothing, a missing directory); a symlink to a regular file stays a link.
# Run directories: --out is checked before anything is measured (exit 2 when it exists),
# default names never collide (six topo runs started together give six directories), DIR.partial is renamed
# to DIR when complete. NVS=/path/to/old/nvscale shows the old behaviour (device node and links replaced by
# regular files, three directories for six runs, exit 1 for a bad path, --out checked after the sweep).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
d=$TMP/robust_outputs.$$
rm -rf "$d"
mkdir -p "$d"
case $NVS in /*) nvs_abs=$NVS ;; *) nvs_abs=$(pwd)/$NVS ;; esac
M="$NVS model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,2"

# a character device node (as /dev/null: major 1, minor 3), where mknod is allowed (root, as in CI)
if mknod "$d/null" c 1 3 2>/dev/null; then
    expect 0 "" $M -o "$d/null"
    [ -c "$d/null" ] || { echo "FAIL: the device node $d/null was replaced"; ls -l "$d/null"; fails=$((fails + 1)); }
else
    echo "(mknod not permitted here: the device-node case is not checked)"
fi
# a link that stands for standard output (as /dev/stdout does): the text reaches the pipe, the link stays
ln -s /proc/self/fd/1 "$d/stdout-link"
$M -o "$d/stdout-link" | cat >"$d/captured"
[ -L "$d/stdout-link" ] || { echo "FAIL: the link to standard output was replaced by a file"; fails=$((fails + 1)); }
grep -q "rtx3090" "$d/captured" || { echo "FAIL: nothing reached standard output through the link"; fails=$((fails + 1)); }
# /dev/stdout itself: the text arrives on standard output. Only with a binary that kept the link above: one
# that replaces links does, as root, replace the machine's /dev/stdout with a regular file (it happened)
if [ -L "$d/stdout-link" ]; then
    out=$($M -o /dev/stdout 2>/dev/null)
    printf '%s\n' "$out" | grep -q rtx3090 || { echo "FAIL: -o /dev/stdout printed nothing"; fails=$((fails + 1)); }
    [ -L /dev/stdout ] || [ -c /dev/stdout ] || { echo "FAIL: /dev/stdout is no longer a link or device"; fails=$((fails + 1)); }
    expect 0 '"schema"' sh -c "$NVS check tests/fixtures/check/run_h200x2.json --save-baseline /dev/stdout 2>/dev/null"
    [ -L /dev/stdout ] || [ -c /dev/stdout ] || { echo "FAIL: /dev/stdout is no longer a link or device"; fails=$((fails + 1)); }
else
    echo "FAIL: not trying -o /dev/stdout with a binary that replaced a link to standard output"
    fails=$((fails + 1))
fi
# a FIFO with a reader: written through, still a FIFO
mkfifo "$d/fifo"
cat "$d/fifo" >"$d/from-fifo" &
reader=$!
expect 0 "" timeout 20 $M -o "$d/fifo"
i=0
while kill -0 $reader 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill $reader 2>/dev/null # a binary that replaced the FIFO never opened it: the reader waits for nothing
wait $reader 2>/dev/null
[ -p "$d/fifo" ] || { echo "FAIL: the FIFO was replaced"; fails=$((fails + 1)); }
grep -q rtx3090 "$d/from-fifo" || { echo "FAIL: nothing came out of the FIFO"; fails=$((fails + 1)); }
# a link to a regular file: the file is replaced whole, the link stays
echo old >"$d/real.txt"
ln -s real.txt "$d/link.txt"
expect 0 "" $M -o "$d/link.txt"
[ -L "$d/link.txt" ] && grep -q rtx3090 "$d/real.txt" || { echo "FAIL: link to a file: link replaced or target not written"; fails=$((fails + 1)); }
# an existing file keeps its permissions
echo old >"$d/mode.txt"
chmod 640 "$d/mode.txt"
expect 0 "" $M -o "$d/mode.txt"
[ "$(stat -c %a "$d/mode.txt")" = 640 ] || { echo "FAIL: mode.txt lost its mode: $(stat -c %a "$d/mode.txt")"; fails=$((fails + 1)); }
# refused, exit 2, one message
expect 2 "model: -o $d: is a directory, not a file" $M -o "$d"
ln -s "$d/nowhere/x" "$d/dangling"
expect 2 "model: -o $d/dangling: a symbolic link to '$d/nowhere/x', which does not exist" $M -o "$d/dangling"
[ -L "$d/dangling" ] || { echo "FAIL: the dangling link was replaced"; fails=$((fails + 1)); }
# every output flag says the same of a link to nothing, or of one as its directory (check's said "cannot write in
# directory 'L': No such file or directory" there), through one check (core/out_file.h nvs_link_to_nothing)
R=tests/fixtures/check/run_h200x2.json
for f in --junit --prometheus --save-baseline; do
    expect 2 "check: $f $d/dangling: a symbolic link to '$d/nowhere/x', which does not exist" \
        $NVS check $R $f "$d/dangling"
    expect 2 "check: $f $d/dangling/x: '$d/dangling' is a symbolic link to '$d/nowhere/x', which does not exist" \
        $NVS check $R $f "$d/dangling/x"
done
expect 2 "model: -o $d/real.txt/x.txt: '$d/real.txt' is not a directory" $M -o "$d/real.txt/x.txt"
n=$(printf '%s\n' "$_out" | grep -c "^nvscale")
[ "$n" -eq 1 ] || { echo "FAIL: $n error lines for one bad path"; fails=$((fails + 1)); }
# a single file into a directory that is not there: refused, one line naming it, nothing made (a directory flag,
# --out or report -o, makes its missing parents instead: below, and report_errors.sh)
expect 2 "model: -o $d/nodir/sub/x.txt: cannot write in directory '$d/nodir/sub'" $M -o "$d/nodir/sub/x.txt"
n=$(printf '%s\n' "$_out" | grep -c "^nvscale")
[ "$n" -eq 1 ] || { echo "FAIL: $n error lines for one missing directory"; fails=$((fails + 1)); }
[ ! -e "$d/nodir" ] || { echo "FAIL: model -o into a missing directory made $d/nodir"; fails=$((fails + 1)); }

# run directories: six topo runs started at once in one directory give six directories, each complete
xml=$(pwd)/tests/fixtures/topo/pcie8.xml
mkdir -p "$d/runs"
(cd "$d/runs" && for i in 1 2 3 4 5 6; do "$nvs_abs" topo --hwloc-xml "$xml" -q >/dev/null 2>&1 & done; wait)
n=$(ls "$d/runs/results" | grep -c -- '-topo')
[ "$n" -eq 6 ] || { echo "FAIL: six runs left $n result directories"; ls "$d/runs/results"; fails=$((fails + 1)); }
ls "$d/runs/results" | grep -q partial && { echo "FAIL: a .partial directory stayed"; fails=$((fails + 1)); }
k=$(ls "$d"/runs/results/*/run.json 2>/dev/null | wc -l)
[ "$k" -eq 6 ] || { echo "FAIL: $k run.json files for six runs"; fails=$((fails + 1)); }
# --out: a file, a non-empty directory, a leftover DIR.partial are refused before anything runs
echo x >"$d/file"
expect 2 "--out $d/file: it exists" $NVS topo --hwloc-xml "$xml" --out "$d/file"
expect 2 "--out $d/runs: it exists" $NVS topo --hwloc-xml "$xml" --out "$d/runs"
mkdir -p "$d/busy.partial"
expect 2 "busy.partial exists" $NVS topo --hwloc-xml "$xml" --out "$d/busy"
expect 2 "--out $d/file/sub/x: .*file is not a directory" $NVS topo --hwloc-xml "$xml" --out "$d/file/sub/x"
# a symbolic link to nothing: not "it exists" (as if a run were there), and under one refused before the run (the
# run's mkdir refused it once launched, "nvscale: error: cannot create directory L: a file of that name exists")
expect 2 "topo: --out $d/dangling: a symbolic link to '$d/nowhere/x', which does not exist" \
    $NVS topo --hwloc-xml "$xml" --out "$d/dangling"
expect 2 "coll: --out $d/dangling/run: '$d/dangling' is a symbolic link to '$d/nowhere/x', which does not exist" \
    $NVS coll --backend mpi -b 8 -e 64 -n 1 -w 0 --out "$d/dangling/run"
[ -L "$d/dangling" ] && [ ! -e "$d/nowhere" ] || { echo "FAIL: --out changed the link to nothing"; fails=$((fails + 1)); }
# an existing directory, even empty, is refused (no run is mixed with another's files); a new one appears only
# complete
mkdir -p "$d/empty"
expect 2 "--out $d/empty: it exists" $NVS topo --hwloc-xml "$xml" --out "$d/empty"
expect 0 "wrote $d/new/deeper/run.json" $NVS topo --hwloc-xml "$xml" --out "$d/new/deeper"
[ -d "$d/new/deeper.partial" ] && { echo "FAIL: deeper.partial stayed"; fails=$((fails + 1)); }
# a failed topo leaves no directory
expect 2 "" $NVS topo --hwloc-xml "$d/file" --out "$d/failed"
[ -e "$d/failed" ] || [ -e "$d/failed.partial" ] && { echo "FAIL: a failed run left a directory"; fails=$((fails + 1)); }
# the measuring subcommands check --out before the first collective (it was checked after the whole sweep)
t0=$(date +%s)
expect 2 "--out $d/file: it exists" $NVS coll --backend mpi -b 8 -e 4M -n 200 --out "$d/file"
[ $(($(date +%s) - t0)) -lt 20 ] || { echo "FAIL: coll measured before refusing --out"; fails=$((fails + 1)); }
expect 2 "--out $d/runs: it exists" $NVS coll --backend mpi -b 8 -e 64 -n 1 -w 0 --out "$d/runs"
expect 0 "" $NVS coll --backend mpi -b 8 -e 64 -n 1 -w 0 --out "$d/coll"
[ -s "$d/coll/run.json" ] && [ -s "$d/coll/collectives.csv" ] || { echo "FAIL: coll --out wrote no results"; fails=$((fails + 1)); }
expect 2 "--out $d/coll: it exists" $NVS coll --backend mpi -b 8 -e 64 -n 1 -w 0 --out "$d/coll"
# standard output on a full disk: what stdio still buffers is written at exit, where its failure went unsaid (exit 0,
# `accept --print-rules > my.rules` left my.rules empty): exit 1 with the error named
if [ -c /dev/full ]; then
    for c in "version" "help" "coll --help" "accept --print-rules"; do
        expect_err 1 "cannot write to the standard output: No space left on device" sh -c "$NVS $c >/dev/full"
    done
fi
rm -rf "$d"
finish
