#!/bin/sh
# tools/contend_table.sh: docs/fidelity.md's table of a GEMM beside resident CTAs is what the script makes from the
# committed runs (results/h200x1-contend4); a folder missing a file, or a file cut short, is refused. CPU only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp_dir d
tools/contend_table.sh results/h200x1-contend4 >"$d/rows" 2>&1 || fail "the table did not build: $(cat "$d/rows")"
[ "$(wc -l <"$d/rows")" -eq 12 ] || fail "expected 12 rows: $(cat "$d/rows")"
grep '^| .*³, ' docs/fidelity.md | diff "$d/rows" - >"$d/diff" ||
    fail "docs/fidelity.md's table is not what tools/contend_table.sh makes: $(cat "$d/diff")"
expect 2 "no such directory" tools/contend_table.sh "$d/none"
expect 2 "usage" tools/contend_table.sh
mkdir "$d/cut"
cp results/h200x1-contend4/contend-*.txt "$d/cut/"
expect 1 "contend-4096.txt: missing" sh -c "rm '$d/cut/contend-4096.txt' && tools/contend_table.sh '$d/cut'"
cp results/h200x1-contend4/contend-4096.txt "$d/cut/"
head -10 results/h200x1-contend4/contend-8192.txt >"$d/cut/contend-8192.txt"
expect 1 "not 6 rows" tools/contend_table.sh "$d/cut"
finish
