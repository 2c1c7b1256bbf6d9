#!/bin/sh
# nccl-tests' flags that nvscale does not take (-p, -N, -T, -R, -J, ...) are refused as such, exit 2, saying what
# they are and what nvscale does instead, not as an "unknown option" an nccl-tests user takes for a typo.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
out=$TMP/cli_nccl_tests_flags
rm -rf "$out"
for f in "-p 1" "--parallel_init 1" "-N 2" "--run_cycles=2" "-y 1" "-C 1" "-S 1" "-R 1" "--local_register 1" \
    "-x 1" "-D 1" "-V 4" "-M 1" "-u 1" "-I 1" "-K 2"; do
    # shellcheck disable=SC2086
    expect 2 "is nccl-tests' --[a-z_]+, which nvscale does not take" $NVS coll $f --out $out
done
expect 2 "-T is nccl-tests' --timeout.*nvscale's is --timeout S" $NVS coll -T 60 --out $out
expect 2 "-J is nccl-tests' --output_file.*run.json" $NVS coll -J x.json --out $out
expect 2 "-N is nccl-tests' --run_cycles" $NVS run -N 2 --out $out
# a flag nccl-tests does not have either stays an unknown option; a subcommand without the sweep says so plainly
expect 2 "unknown option '-Z'" $NVS coll -Z 1 --out $out
expect 2 "unknown option '-p'" $NVS topo -p 1 --out $out
[ -e "$out" ] && fail "a rejected command left $out behind"
finish
