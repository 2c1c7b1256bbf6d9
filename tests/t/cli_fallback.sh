#!/bin/sh
# Plain `nvscale` with no launcher: GPUs if present, else one line saying so, then the MPI host backend.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
has_gpu && skip "a GPU is present: the CPU fallback is not what runs here"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
expect 0 "no GPU found .*MPI backend" $NVS -b 1K -e 8K -f 8 --no-save
n=$($NVS -b 1K -e 8K -f 8 --no-save 2>&1 | grep -c "no GPU found")
[ "$n" = "1" ] || fail "the fallback notice appeared $n times"
expect 1 "--backend nccl needs a GPU" $NVS coll --backend nccl --no-save
expect 0 "" $NVS coll -b 1K -e 1K --format json --no-save -q
$NVS coll -b 1K -e 1K --format json --no-save -q 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["schema"]=="nvscale.run/1"' ||
    fail "--format json is not JSON"
$NVS coll -b 1K -e 4K -f 2 --format csv --no-save -q 2>/dev/null | python3 -c '
import csv,sys
rows=list(csv.DictReader(sys.stdin))
assert len(rows)==12, len(rows)   # 2 collectives x 3 sizes x out/in-place
assert all(r["wrong"]=="0" for r in rows)' || fail "--format csv"
finish
