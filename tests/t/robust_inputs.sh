#!/bin/sh
# Issue 14, bounds on inputs: only regular files are read (a FIFO given to check, report, --rules, --hwloc-xml,
# a profile or a preset file blocked forever), /dev/stdin when asked for by name; hwloc XML with more GPUs than
# any host (4096 took > 300 s and 2048 4.7 GB) or with impossible NVLinkBandwidth values (53687091200000 MB/s
# printed "-2147483648 links up") is refused with one message, exit 2. NVS=/path/to/old/nvscale shows the old
# behaviour (each blocking command is cut after 10 s: exit 124).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
d=$TMP/robust_inputs.$$
rm -rf "$d"
mkdir -p "$d"
run=tests/fixtures/check/run_h200x2.json
rules=tests/fixtures/rules/h200x2.rules
to="timeout 10"

# FIFOs (nobody writes to them: reading one would wait forever)
mkfifo "$d/fifo" || { echo "mkfifo failed"; exit 1; }
expect 2 "fifo: is a FIFO \(named pipe\), not a regular file" $to $NVS check "$d/fifo" --rules "$rules"
expect 2 "fifo: is a FIFO" $to $NVS check "$run" --rules "$d/fifo"
expect 2 "fifo: is a FIFO" $to $NVS report "$d/fifo" -o "$d/r" --no-plots
expect 2 "cannot read hwloc XML .*fifo.: it is a FIFO" $to $NVS topo --hwloc-xml "$d/fifo" --no-save
expect 2 "fifo \(a named pipe\) is not supported for --model" $to $NVS model --gpu a100-sxm --machine hgx-a100-8 --model "$d/fifo"
expect 2 "fifo: is a FIFO" $to $NVS model --list-presets --preset-file "$d/fifo"
expect 2 "fifo \(a named pipe\) is not supported for --model" $to $NVS train --backend mpi --model "$d/fifo" --no-save
# a directory and a character device are not files either
expect 2 "is a directory|not a regular file" $to $NVS check "$run" --rules "$d"
expect 2 "character device" $to $NVS check "$run" --rules /dev/zero
# standard input, asked for by name: a pipe and a redirected file both work
expect 0 "PASS" sh -c "cat $rules | $NVS check $run --rules /dev/stdin"
expect 0 "PASS" sh -c "$NVS check $run --rules /dev/stdin < $rules"
expect 2 "fifo: is a FIFO \(named pipe\), not a regular file \(standard input: /dev/stdin\)" $to $NVS check "$run" --rules "$d/fifo"
# a run.json is read from a regular file only (its size is checked first), or from standard input: no hint to
# name /dev/stdin for a FIFO there; /dev/stdin is standard input, read as '-' is (it was refused as the pipe it is)
expect_err 2 "fifo: is a FIFO (named pipe), not a regular file" $to $NVS check "$d/fifo" --rules "$rules" &&
    grep -q "standard input" "$ERR" && fail "check FIFO: suggests /dev/stdin, which a run.json cannot be"
expect 0 "PASS" sh -c "cat $run | $NVS check /dev/stdin --rules $rules"
expect_err 2 "fifo: is a FIFO (named pipe), not a regular file" $to $NVS report "$d/fifo" -o "$d/r" --no-plots &&
    grep -q "standard input" "$ERR" && fail "report FIFO: suggests /dev/stdin, which a run.json cannot be"
expect 0 "PASS" sh -c "$NVS check /dev/stdin --rules $rules < $run"

# hwloc XML bounds
python3 tests/fixtures/topo/gen_many.py 257 >"$d/257.xml"
expect 2 "257 NVIDIA GPUs: more than the 256" $to $NVS topo --hwloc-xml "$d/257.xml" --no-save
python3 tests/fixtures/topo/gen_many.py 256 >"$d/256.xml"
expect 0 "^GPU255 " $to $NVS topo --hwloc-xml "$d/256.xml" --no-save -q
python3 tests/fixtures/topo/gen_many.py 2 --nvlink 53687091200000 >"$d/nvbig.xml"
expect 2 "nvbig.xml: NVLinkBandwidth: 53687091200000 MB/s from GPU 0000:01:00.0 to 0000:02:00.0 is 2147483648 NVLinks" \
    $to $NVS topo --hwloc-xml "$d/nvbig.xml" --no-save
python3 tests/fixtures/topo/gen_many.py 2 --nvlink 18446744073709551615 >"$d/nvmax.xml"
expect 2 "nvmax.xml: NVLinkBandwidth: .* is 737869762948382 NVLinks" $to $NVS topo --hwloc-xml "$d/nvmax.xml" --no-save
python3 tests/fixtures/topo/gen_many.py 2 --nvlink 450000 >"$d/nv18.xml"
expect 0 "GPU0   X    NV18" $to $NVS topo --hwloc-xml "$d/nv18.xml" --no-save -q
# a GPU's PCIe link speed no link has (was printed as a 39-digit bound and stored in run.json)
sed 's/pci_link_speed="[0-9.]*"/pci_link_speed="3e38"/' tests/fixtures/topo/h200x2.xml >"$d/ls.xml"
expect 2 "pci_link_speed 3e.38 GB/s: expected 0.1 to 1000" $to $NVS topo --hwloc-xml "$d/ls.xml" --no-save
sed 's/pci_link_speed="[0-9.]*"/pci_link_speed="0.0000001"/' tests/fixtures/topo/h200x2.xml >"$d/ls0.xml"
expect 2 "pci_link_speed 1e-07 GB/s" $to $NVS topo --hwloc-xml "$d/ls0.xml" --no-save
# NaN and a negative speed are no link either (were taken as "unknown", exit 0); 0 is hwloc's unknown and stays
for v in nan -5; do
    sed "s/pci_link_speed=\"63.015385\"/pci_link_speed=\"$v\"/" tests/fixtures/topo/h200x2.xml >"$d/ls_$v.xml"
    expect 2 "pci_link_speed $v GB/s: expected 0.1 to 1000" $to $NVS topo --hwloc-xml "$d/ls_$v.xml" --no-save
done
# two GPUs at one PCI bus id: an edited file (was exit 0, both listed)
sed 's/pci_busid="0000:00:07.0" pci_type="0302/pci_busid="0000:00:06.0" pci_type="0302/' \
    tests/fixtures/topo/h200x2.xml >"$d/dupbus.xml"
expect 2 "dupbus.xml: two GPUs with PCI bus id 0000:00:06.0" $to $NVS topo --hwloc-xml "$d/dupbus.xml" --no-save
# a profile with a NUL byte, or one that cannot be opened: one message naming it (was the reader's, then a vague
# "cannot read model profile ... (invalid input)")
printf 'nvscale-profile 1\nname x\0\n' >"$d/nul.prof"
for cmd in "model --gpu a100-sxm --machine hgx-a100-8" "train --backend mpi --no-save"; do
    # shellcheck disable=SC2086 # cmd is words
    expect_err 2 "model profile $d/nul.prof contains a NUL byte" $to $NVS $cmd --model "$d/nul.prof" &&
        [ "$(grep -c . "$ERR")" -ne 1 ] && fail "$cmd: a NUL profile gave $(grep -c . "$ERR") lines: $(cat "$ERR")"
done
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1; then
    mkdir -p "$d/nb" && chmod 755 "$d" "$d/nb" && printf 'nvscale-profile 1\n' >"$d/nb/u.prof" && chmod 000 "$d/nb/u.prof"
    expect_err 2 "cannot open model profile $d/nb/u.prof: Permission denied" \
        runuser -u nobody -- $NVS model --gpu a100-sxm --machine hgx-a100-8 --model "$d/nb/u.prof" &&
        [ "$(grep -c . "$ERR")" -ne 1 ] && fail "an unreadable profile gave $(grep -c . "$ERR") lines: $(cat "$ERR")"
fi
# hwloc 2.9 aborts or crashes on some malformed XML (lstopo too): nvscale's reader process dies, nvscale says so
python3 tests/fixtures/topo/gen_many.py 2 | sed 's/complete_cpuset="0x00000001"/complete_cpuset=",0x00000001"/' >"$d/badset.xml"
expect 2 "badset.xml:[0-9]*: an object's sets are not what hwloc writes" $to $NVS topo --hwloc-xml "$d/badset.xml" --no-save
python3 tests/fixtures/topo/gen_many.py 2 >"$d/ok.xml"
expect 2 "hwloc could not read hwloc XML '$d/ok.xml': it stopped with signal 6" \
    env NVS_TEST_XML_ABORT=1 $to $NVS topo --hwloc-xml "$d/ok.xml" --no-save
head -c $((65 << 20)) /dev/zero | tr '\0' ' ' >"$d/huge.xml"
expect 2 "more than 64 MiB is not the topology of one host" $to $NVS topo --hwloc-xml "$d/huge.xml" --no-save
rm -rf "$d"
finish
