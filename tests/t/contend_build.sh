#!/bin/sh
# tools/contend.c (the optional `make contend`, a GPU benchmark): it builds, refuses bad arguments before touching a
# GPU (exit 2, the value named), and without a GPU says so (exit 1). Its measurements: tests/t/contend_table.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
make -s contend >"$TMP/contend.build.$$" 2>&1 || { cat "$TMP/contend.build.$$"; rm -f "$TMP/contend.build.$$"; fail "make contend"; finish; }
rm -f "$TMP/contend.build.$$"
expect 2 "M '100': expected a multiple of 64" build/contend 100
expect 2 "M 'abc'" build/contend abc
expect 2 "REPS '0': expected 1 to 10000" build/contend 8192 0
expect 2 "precision 'fp8': expected bf16 or fp32" build/contend 8192 30 fp8
if ! nvidia-smi -L >/dev/null 2>&1; then
    expect 1 "^contend: cuda" build/contend 256 1
fi
finish
