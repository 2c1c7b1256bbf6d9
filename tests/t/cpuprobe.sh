#!/bin/sh
# tools/cpuprobe.c (the optional `make cpuprobe`, issue 9's host-speed probe): builds; prints one "UNIX_TIME RATE"
# line per sample, the times increasing and near now, the rates positive, with nvscale's own work unit, the -w
# memory walk and -i interpreter-like work, and through build/libcpuprobe.so; -s spins until killed; bad flags
# exit 2 with a message naming the value.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
make -s cpuprobe >"$TMP/cpuprobe.build.$$" 2>&1 || { cat "$TMP/cpuprobe.build.$$"; echo "FAIL: make cpuprobe"; exit 1; }
rm -f "$TMP/cpuprobe.build.$$"
samples() { # MODE-ARGS...: 3 samples of 20 ms, checked
    build/cpuprobe -n 3 -m 20 "$@" >"$TMP/cpuprobe.out.$$" 2>&1 || { fail "cpuprobe $*: exit $?"; return; }
    awk -v now="$(date +%s)" '
        NF != 2 || $2 + 0 <= 0 || $1 < now - 600 || $1 > now + 600 || $1 <= last { bad = 1 }
        { last = $1; n++ }
        END { exit (bad || n != 3) }' "$TMP/cpuprobe.out.$$" ||
        { fail "cpuprobe $*: unexpected output"; sed 's/^/    /' "$TMP/cpuprobe.out.$$"; }
    rm -f "$TMP/cpuprobe.out.$$"
}
samples
samples -w 8
samples -i
expect 2 "-i and -w: choose one kind of work" build/cpuprobe -i -w 4
# the library form (tools/device/probe_compare.py): one sample of each small kind through ctypes
make -s build/libcpuprobe.so >"$TMP/cpuprobe.build.$$" 2>&1 || { cat "$TMP/cpuprobe.build.$$"; stop "make build/libcpuprobe.so"; }
rm -f "$TMP/cpuprobe.build.$$"
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cpuprobe_sample.restype, lib.cpuprobe_sample.argtypes = ctypes.c_double, [ctypes.c_int, ctypes.c_double]
rates = [lib.cpuprobe_sample(k, 5.0) for k in (0, 1)]
sys.exit(0 if all(r > 0 for r in rates) else "rates %s" % rates)' "$PWD/build/libcpuprobe.so" || fail "libcpuprobe.so"
fi
expect 124 "" timeout 1 build/cpuprobe -s
expect 2 "-m '0': expected a number in \[1, 60000\]" build/cpuprobe -m 0
expect 2 "-n 'x': expected a number" build/cpuprobe -n x
expect 2 "-w '': expected a number" build/cpuprobe -w
expect 2 "unknown option '-q'" build/cpuprobe -q
# probe_compare.py --report: the state split of a record (made up here), and a file that is not one refused
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json
for i in range(40):
    slow = 10 <= i < 30
    print(json.dumps({"t": i * 0.1, "py_us": 1500.0 if slow else 800.0, "unit_l1": 120.0 if slow else 150.0,
                      "interp": 100.0 if slow else 125.0, "mem512": 5.0 if slow else 6.0}))' >"$TMP/cpuprobe.rec.$$"
    expect 0 "\| python probe \(us\) \| 800 \| 1500 \| 1.88x \|" \
        python3 tools/device/probe_compare.py --report "$TMP/cpuprobe.rec.$$"
    expect 0 "\| unit_l1 \(per us\) \| 150.00 \| 120.00 \| 1.25x \|" \
        python3 tools/device/probe_compare.py --report "$TMP/cpuprobe.rec.$$"
    expect 0 "longest 2.0 s" python3 tools/device/probe_compare.py --report "$TMP/cpuprobe.rec.$$"
    expect 2 "not a probe_compare record" python3 tools/device/probe_compare.py --report tests/t/cpuprobe.sh
    rm -f "$TMP/cpuprobe.rec.$$"
fi
[ "$fails" -eq 0 ]
