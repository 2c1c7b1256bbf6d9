#!/bin/sh
# Includes only go down: every #include "x/y.h" of src/<layer>/, topo/ and collectives/ names a layer that
# src/LAYERS allows for the including file's layer (itself, or one listed before it); no "../" anywhere in the
# sources, the unit tests or the fuzz harnesses (fuzz/ sits above every layer, as the tests: it may include any
# of them); every layer folder is in the table and has a README.md; the table itself lists
# each layer's dependencies before the layer (so it has no cycle). The checker is run on a broken copy too,
# to show that it can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# check_tree ROOT: prints one line per violation, exit status 1 if any
check_tree() {
    awk -v root="$1" '
    function layer_of(path,   p) {
        if (path ~ /^topo\//) return "topo"
        if (path ~ /^collectives\//) return "collectives"
        if (path ~ /^src\/[a-z_]+\//) { p = path; sub(/^src\//, "", p); sub(/\/.*/, "", p); return p }
        return ""
    }
    FNR == 1 && FILENAME ~ /LAYERS$/ { intable = 1 }
    FNR == 1 && FILENAME !~ /LAYERS$/ { intable = 0 }
    intable {
        if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
        name = $1; sub(/:$/, "", name)
        if (name in order) { print "LAYERS: " name " listed twice"; bad = 1 }
        order[name] = ++n
        allow[name "," name] = 1
        for (i = 2; i <= NF; i++) {
            if (!($i in order)) { print "LAYERS: " name " depends on " $i ", which is not listed before it"; bad = 1 }
            allow[name "," $i] = 1
        }
        next
    }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
        f = FILENAME; sub("^" root "/", "", f)
        inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
        if (inc ~ /\.\.\//) { print f ":" FNR ": \"" inc "\" climbs with ../"; bad = 1; next }
        me = layer_of(f)
        if (me == "") next                              # tests and fuzz/ (above every layer): only the ../ rule
        if (inc !~ /\//) { print f ":" FNR ": \"" inc "\" has no layer prefix"; bad = 1; next }
        them = inc; sub(/\/.*/, "", them)
        if (!(me in order)) { print f ": layer " me " is not in src/LAYERS"; bad = 1; next }
        if (!(them in order)) { print f ":" FNR ": \"" inc "\": no layer " them; bad = 1; next }
        if (!((me "," them) in allow)) { print f ":" FNR ": " me " includes " inc " (" them " is not below " me ")"; bad = 1 }
    }
    END { exit bad }
    ' "$1/src/LAYERS" $(cd "$1" && find src topo collectives tests/unit $(ls -d fuzz 2>/dev/null) -name '*.[ch]' -o -name '*.cu' | sort | sed "s|^|$1/|")
}

out=$(check_tree .) || { fail "layering violations:"; printf '%s\n' "$out"; }

# a private header (src/<layer>/*_priv.h, topo/*_priv.h, collectives/*_priv.h) is included from its own folder alone
for p in $(ls src/*/*_priv.h topo/*_priv.h collectives/*_priv.h 2>/dev/null); do
    h=${p#src/}
    dir=${p%/*}/
    out=$(grep -rln "#[[:space:]]*include[[:space:]]*\"$h\"" src topo collectives tests/unit $(ls -d fuzz 2>/dev/null) |
        grep -v "^$dir")
    [ -z "$out" ] || fail "private header $h included outside $dir: $out"
done

# every layer folder is in the table and documented
for d in src/*/ topo/ collectives/; do
    l=$(basename "$d")
    grep -q "^$l:" src/LAYERS || fail "layer folder $d is not in src/LAYERS"
    [ -f "$d/README.md" ] || fail "layer folder $d has no README.md"
done

# the checker can fail: a copy with an upward include and a ../ include
tmp_dir tmp
mkdir -p "$tmp/src/core" "$tmp/src/cli" "$tmp/topo" "$tmp/collectives" "$tmp/tests/unit"
cp src/LAYERS "$tmp/src/"
printf '#include "cli/commands.h"\n' >"$tmp/src/core/a.c"
printf '#include "../core/a.h"\n' >"$tmp/src/cli/b.c"
printf '#include "core/err.h"\n' >"$tmp/topo/c.c"
bad=$(check_tree "$tmp") && fail "the checker passed a tree with violations"
printf '%s\n' "$bad" | grep -q 'src/core/a.c:1: core includes cli/commands.h' ||
    fail "upward include not reported: $bad"
printf '%s\n' "$bad" | grep -q 'src/cli/b.c:1: "../core/a.h" climbs' ||
    fail "../ include not reported: $bad"
printf '%s\n' "$bad" | grep -q 'topo/c.c' && fail "a legal include was reported: $bad"
finish
