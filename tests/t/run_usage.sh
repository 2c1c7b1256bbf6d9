#!/bin/sh
# Usage errors of the measuring subcommands come once, early and name the bad value (issue 14):
#  - a training step that cannot fit is refused before the first collective (not after the sweeps), from
#    rank 0 only, naming the rank and its free memory; nothing is left on disk;
#  - a precision the host backend cannot train is refused before launch;
#  - under mpirun, a bad flag is said once, not once per rank; a short option inside a cluster is named alone;
#  - --out with a trailing slash names the same directory; one ending in /. or /.. is refused, its parents not left.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd mpirun
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp_dir d

# 1. does not fit: refused before the sweep (a sweep of 1 KiB .. 64 MiB would take a while here)
t0=$(date +%s)
$MPIRUN -np 2 "$NVS" run --backend mpi --model resnet50 --batch 100000 -b 1K -e 64M --out "$d/big" >"$d/big.out" 2>&1
rc=$?
t=$(($(date +%s) - t0))
[ $rc -eq 2 ] || fail "too large a batch: exit $rc, expected 2"
n=$(grep -c "needs .* GiB per host .* but rank [01] (.*) has .* GiB free: lower --batch" "$d/big.out")
[ "$n" -eq 1 ] || { fail "too large a batch: said $n times, expected once"; tail -5 "$d/big.out" | sed 's/^/    /'; }
! grep -q "sweep N=\|all_reduce" "$d/big.out" || fail "too large a batch: collectives ran before the refusal"
[ ! -e "$d/big" ] && [ ! -e "$d/big.partial" ] || fail "too large a batch: a run directory was left"
# refused once launched (a root beyond the ranks): no run directory, and none of the parents made for it
$MPIRUN -np 2 "$NVS" coll --backend mpi -r 5 -b 8 -e 8 --out "$d/made/a/b" >"$d/root.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "-r 5 at 2 ranks: exit $rc, expected 2"
[ ! -e "$d/made" ] || fail "-r 5 at 2 ranks: the parents of --out were left: $(find "$d/made" | head -3)"
expect 2 "" "$NVS" coll --backend mpi -r 5 -b 8 -e 8 --out "$d/made2/a/b"
[ ! -e "$d/made2" ] || fail "-r 5 without a launcher: the parents of --out were left"
mkdir -p "$d/keep/old"
expect 2 "" "$NVS" coll --backend mpi -r 5 -b 8 -e 8 --out "$d/keep/x"
[ -d "$d/keep/old" ] || fail "a directory that existed before the run was removed"
# the parents are what mkdir made, not what the name's text says: y/../empty was there (empty), only y was made
mkdir -p "$d/keep/empty"
expect 2 "" "$NVS" coll --backend mpi -r 5 -b 8 -e 8 --out "$d/keep/y/../empty/new"
[ -d "$d/keep/empty" ] && [ ! -e "$d/keep/y" ] ||
    fail "--out keep/y/../empty/new refused: keep/empty removed or keep/y left: $(find "$d/keep" | tr '\n' ' ')"
[ $t -le 30 ] || fail "too large a batch: refused after $t s"

# 2. bf16 on the host backend: before launch, once
$MPIRUN -np 2 "$NVS" train --backend mpi --model resnet50 --precision bf16 --out "$d/bf" >"$d/bf.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "bf16 on the host: exit $rc, expected 2"
n=$(grep -c "bf16 precision needs the NCCL backend" "$d/bf.out")
[ "$n" -eq 1 ] || fail "bf16 on the host: said $n times, expected once"
[ ! -e "$d/bf" ] && [ ! -e "$d/bf.partial" ] || fail "bf16 on the host: a run directory was left"
expect 2 "bf16 gradients need the NCCL backend|bf16 gradients needs the NCCL backend" "$NVS" train --backend mpi \
    --model resnet50 --grad-type bf16 --no-save

# 3. a bad flag under mpirun: once
$MPIRUN -np 2 "$NVS" coll --bogus >"$d/bogus.out" 2>&1
n=$(grep -c "unknown option '--bogus'" "$d/bogus.out")
[ "$n" -eq 1 ] || fail "a bad flag under mpirun -np 2: said $n times, expected once"
$MPIRUN -np 2 "$NVS" coll --out "$d/bogus-out/x" --minbytes 0x10 >"$d/hex.out" 2>&1
n=$(grep -c "invalid value '0x10'" "$d/hex.out")
[ "$n" -eq 1 ] || fail "a bad value under mpirun -np 2: said $n times, expected once"

# 4. the unknown letter of a cluster, alone
expect 2 "unknown option '-Z'" "$NVS" coll -qZ --no-save
expect 2 "option -b needs a value" "$NVS" coll -qb

# 5. a trailing slash
expect 0 "" "$NVS" coll --backend mpi -b 1K -e 1K -n 2 -w 1 --out "$d/slash/"
[ -s "$d/slash/run.json" ] || fail "--out DIR/: no DIR/run.json"
[ ! -e "$d/slash/.partial" ] && [ ! -e "$d/slash.partial" ] || fail "--out DIR/: a .partial was left"
# NEW/. and NEW/.. name a directory that exists once NEW is made: refused, naming it, and NEW not left behind
# (was "it exists" after NEW was made)
for last in . ..; do
    expect 2 "--out $d/dot/new/$last: ends in '$last'" "$NVS" coll --backend mpi -b 1K -e 1K -n 2 -w 1 --out "$d/dot/new/$last"
    expect 2 "--out $d/dot/new/$last: ends in '$last'" "$NVS" topo --hwloc-xml tests/fixtures/topo/h200x2.xml \
        --out "$d/dot/new/$last"
done
[ ! -e "$d/dot" ] || fail "--out NEW/. or NEW/..: left $(find "$d/dot" | head -3)"
# 6. a name longer than NAME_MAX, last or on the way: the subcommand's refusal before anything is made (was
# "nvscale: error: cannot create directory ...: File name too long" from the run's mkdir, once launched)
long=$(printf '%300s' '' | tr ' ' x)
for out in "$d/long/$long" "$d/long/$long/x"; do
    expect 2 "^nvscale coll: --out $d/long/x+(/x)?: path too long" "$NVS" coll --backend mpi -b 1K -e 1K -n 2 -w 1 --out "$out"
    expect 2 "^nvscale topo: --out $d/long/x+(/x)?: path too long" "$NVS" topo --hwloc-xml tests/fixtures/topo/h200x2.xml \
        --out "$out"
done
[ ! -e "$d/long" ] || fail "--out with a name longer than NAME_MAX: left $(find "$d/long" | head -3)"
finish
