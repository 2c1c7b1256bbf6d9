#!/bin/sh
# Every end-to-end script stands on tests/lib.sh: it goes to the repository root and sources the library, does
# not define its own version of the library's helpers (fail, skip, stop, expect, expect_err, golden, finish,
# tmp_dir) and sets no EXIT trap of its own (the library's removes the scratch files). The checker is run on two
# broken scripts too, to show that it can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# check_scripts FILE...: one line per violation, exit status 1 if any
check_scripts() {
    awk '
    FNR == 1 { if (NR > 1) done(); file = FILENAME; cd = 0; lib = 0 }
    /^cd "\$\(dirname "\$0"\)\/\.\.\/\.\." \|\| exit 1$/ { cd = 1 }
    /^\. tests\/lib\.sh$/ { if (!cd) { print file ": sources tests/lib.sh before going to the repository root"; bad = 1 } lib = 1 }
    /^[ \t]*(fail|skip|stop|expect|expect_err|golden|finish|tmp_dir|need_nvscale|need_cmd)[ \t]*\(\)/ {
        print file ":" FNR ": redefines the library helper " $1; bad = 1
    }
    /^[ \t]*trap .*EXIT/ { print file ":" FNR ": sets its own EXIT trap (use tmp_dir)"; bad = 1 }
    /^[ \t]*fail=[0-9]/ { print file ":" FNR ": keeps its own failure flag (use fail and finish)"; bad = 1 }
    function done() { if (!lib) { print file ": does not source tests/lib.sh"; bad = 1 } }
    END { done(); exit bad }
    ' "$@"
}

n=$(ls tests/t/*.sh | wc -l)
out=$(check_scripts tests/t/*.sh) || { fail "end-to-end scripts off the library:"; printf '%s\n' "$out"; }

# the checker can fail
tmp_dir tmp
printf '#!/bin/sh\nfail=0\nexit $fail\n' >"$tmp/nolib.sh"
printf '#!/bin/sh\ncd "$(dirname "$0")/../.." || exit 1\n. tests/lib.sh\nexpect() { :; }\ntrap "rm x" EXIT\n' \
    >"$tmp/redefines.sh"
bad=$(check_scripts "$tmp/nolib.sh" "$tmp/redefines.sh") && fail "the checker passed broken scripts"
for want in "nolib.sh: does not source tests/lib.sh" "nolib.sh:2: keeps its own failure flag" \
    "redefines.sh:4: redefines the library helper expect()" "redefines.sh:5: sets its own EXIT trap"; do
    printf '%s\n' "$bad" | grep -qF "$want" || fail "the checker did not report '$want': $bad"
done
printf '%s\n' "$bad" | grep -q "redefines.sh: does not source" && fail "a script that sources the library was reported"
finish "all $n end-to-end scripts source tests/lib.sh"
