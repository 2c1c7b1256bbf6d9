#!/bin/sh
# tools/hostbw.c (the optional `make hostbw`): builds, measures a small copy, prints the line that
# `nvscale model --calibrate --host-mem-gbps` takes, and refuses bad flags with exit 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
make -s hostbw >"$TMP/hostbw.build.$$" 2>&1 || { cat "$TMP/hostbw.build.$$"; echo "FAIL: make hostbw"; exit 1; }
rm -f "$TMP/hostbw.build.$$"
expect 0 "^host_mem_gbps [0-9]+\.[0-9]$" build/hostbw -t 2 -s 4 -r 2
expect 0 "copy, 1 threads x 4 MiB, best of 1" build/hostbw -t 1 -s 4 -r 1
expect 2 "-t '0': expected a whole number" build/hostbw -t 0
expect 2 "-s 'big': expected a whole number" build/hostbw -s big
expect 2 "unexpected argument 'x'" build/hostbw x
[ "$fails" -eq 0 ]
