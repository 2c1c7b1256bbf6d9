#!/bin/sh
# A file named on a subcommand's command line that is missing or not what it should be: refused as that
# subcommand's input error, "nvscale SUB: <file>: <why>", exit 2, one line naming the file (and the usage hint
# where the subcommand gives one), as its bad flags are. The readers below the command line (run.json, rules,
# presets, hwloc XML, model projections) said it as a runtime error, "nvscale: error: ...".
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir d
B=tests/fixtures/runs/bad
printf 'garbage\n' >"$d/bad.xml"
printf '{"schema": "nvscale.model/1", "kind": "projection"}\n' >"$d/proj.json"
# SUB NAMED ARGS...: exit 2, nothing on stdout, the refusal one line "nvscale SUB: ..." naming NAMED, the only other
# line the hint "Try 'nvscale SUB --help'.", no "nvscale: error:" line
refused() {
    sub=$1 named=$2
    shift 2
    expect_err 2 "$named" "$NVS" "$sub" "$@" || return 1
    n=$(grep -vc "^Try 'nvscale $sub --help'\.\$" "$ERR")
    [ "$n" = 1 ] && grep -q "^nvscale $sub: .*$named" "$ERR" ||
        fail "$sub $*: not one line 'nvscale $sub: ...' naming $named: $(cat "$ERR")"
}
refused report "$d/none.json: No such file" --no-plots -o "$d/out" "$d/none.json"
refused report "$B/not_json.json: not JSON" --no-plots -o "$d/out" "$B/not_json.json"
refused report "$B/wrong_schema.json: schema is" --no-plots -o "$d/out" "$B/wrong_schema.json"
refused report "$d/proj.json: configurations: expected a non-empty array" --no-plots -o "$d/out" "$d/proj.json"
[ -e "$d/out" ] && fail "report: an output directory was made for a refused input"
refused check "$d/none.json: No such file" "$d/none.json" --min-p2p 1
refused check "$B/empty.json: empty file" "$B/empty.json" --min-p2p 1
refused check "$d/none.json: No such file" tests/fixtures/runs/minimal_coll.json --baseline "$d/none.json" \
    --max-below-baseline 1
refused check "cannot open $d/none.rules" tests/fixtures/runs/minimal_coll.json --rules "$d/none.rules"
# an output of check that cannot be written: refused as --junit's is, naming the flag and the value, before any
# run is read (the missing run below is not the refusal), nothing made (it was the writer's "nvscale: error:
# cannot write ...", after the work)
refused check "--save-baseline $d/nope/dir/b.json: cannot write in directory '$d/nope/dir'" \
    tests/fixtures/check/run_h200x2.json --save-baseline "$d/nope/dir/b.json"
refused check "--save-baseline $d/bad.xml/b.json: '$d/bad.xml' is not a directory" "$d/none.json" \
    --save-baseline "$d/bad.xml/b.json"
refused check "--save-baseline $d: is a directory" tests/fixtures/check/run_h200x2.json --save-baseline "$d"
[ -e "$d/nope" ] && fail "check: something was made for an unwritable --save-baseline"
refused accept "cannot open $d/none.rules" --rules "$d/none.rules" --no-save
refused model "$d/none.json: No such file" --calibrate "$d/none.json"
refused model "$B/wrong_schema.json: schema is" --calibrate "$B/wrong_schema.json"
refused model "cannot open $d/none.presets" --preset-file "$d/none.presets" --list-presets
# one preset file given twice, under any spelling (the same name, ./, a symbolic or a hard link): refused as check's
# and report's runs given twice are, naming both spellings (it was read twice, silently)
cp tests/fixtures/presets/good.txt "$d/p.txt"
ln -s p.txt "$d/sym.txt"
ln "$d/p.txt" "$d/hard.txt"
for two in "$d/p.txt" "$d/./p.txt" "$d/sym.txt" "$d/hard.txt"; do
    refused model "$d/p.txt and $two are the same file: give each --preset-file once" \
        --preset-file "$d/p.txt" --list-presets --preset-file "$two"
done
# a copy is another file (the second overrides the first with the same values): taken
cp "$d/p.txt" "$d/copy.txt"
expect 0 "lab-25g" "$NVS" model --list-presets --preset-file "$d/p.txt" --preset-file "$d/copy.txt"
refused topo "cannot read hwloc XML '$d/none.xml'" --hwloc-xml "$d/none.xml" --no-save
refused topo "'$d/bad.xml' is not an hwloc XML topology" --hwloc-xml "$d/bad.xml" --no-save
mkdir -p "$d/cmp/nvlink" && cp "$B/not_json.json" "$d/cmp/nvlink/run.json"
refused compare "$d/cmp/nvlink/run.json: not JSON" --report-only --transports nvlink --out "$d/cmp"
# compare's --out that cannot be made or written: its refusal, before anything runs (was "nvscale: error: cannot
# create directory ...")
refused compare "--out $d/bad.xml/cmp: '$d/bad.xml' is not a directory" --transports nvlink --out "$d/bad.xml/cmp"
refused compare "--out /proc/nvs-none/cmp: cannot write in directory '/proc'" --transports nvlink \
    --out /proc/nvs-none/cmp
# a test hook's variable with a bad value: the subcommand's refusal too, naming the variable and the value (was
# "nvscale: invalid value ...", a runtime error's form)
hook_refused() { # hook_refused VAR SUB ARGS...: VAR=x refused by SUB
    var=$1 sub=$2
    shift 2
    export "$var=x"
    refused "$sub" "invalid value 'x' for environment variable $var" "$@"
    unset "$var"
}
hook_refused NVS_TEST_STALL coll --backend mpi -e 1K --no-save
hook_refused NVS_TEST_FAIL run --backend mpi --no-train -e 1K --no-save
hook_refused NVS_TEST_TRAIN_FAIL train --backend mpi --no-save
hook_refused NVS_TEST_SLOW_STOP p2p --no-save
hook_refused NVS_TEST_CORRUPT accept --backend mpi --level 1 --no-save
hook_refused NVS_TEST_SILENT_RANK_DELAY_S topo --hwloc-xml tests/fixtures/topo/h200x2.xml --no-save
# --out DIR that exists, or cannot be made: the measuring subcommands' refusal too (was "nvscale: --out ...")
mkdir "$d/exists"
refused coll "--out $d/exists: it exists" --backend mpi --out "$d/exists"
refused run "--out $d/new/.: ends in '.'" --backend mpi --out "$d/new/."
refused topo "--out $d/bad.xml/x: $d/bad.xml is not a directory" --hwloc-xml tests/fixtures/topo/h200x2.xml \
    --out "$d/bad.xml/x"
refused accept "--out $d/exists: it exists" --backend mpi -q --out "$d/exists"
finish
