#!/bin/sh
# No line of the C and CUDA sources (src/, topo/, collectives/: *.c, *.h, *.cu) is over 120 columns, the project's
# width. One kind of line is let through: a web address alone on a comment line ("* https://..."), which cannot be
# wrapped without breaking it. The checker is run on a planted long line too, to show that it can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# check_width FILE...: "file:line: N columns" for each line over 120 columns; exit status 1 if any. Columns are
# characters: bytes in C locale, less the UTF-8 continuation bytes (a "é" is one column, whatever awk's locale).
check_width() {
    LC_ALL=C awk '
    { cols = $0; gsub(/[\200-\277]/, "", cols); cols = length(cols) }
    cols > 120 && $0 !~ /^[ \t]*\*?[ \t]*https?:\/\/[^ \t]+$/ {
        print FILENAME ":" FNR ": " cols " columns (at most 120)"; bad = 1
    }
    END { exit bad }
    ' "$@"
}

files=$(find src topo collectives -name '*.c' -o -name '*.h' -o -name '*.cu' | sort)
n=$(printf '%s\n' "$files" | wc -l)
# shellcheck disable=SC2086 # the paths have no spaces
out=$(check_width $files) || { fail "lines over 120 columns:"; printf '%s\n' "$out"; }

# the checker can fail: a 121-column line is named by file and line; 120 columns (one of them a two-byte "é") and
# a lone address pass
tmp_dir tmp
{
    printf '/* ok */\n'
    printf '%0120d\n' 0
    printf 'int x; /* %0108d */\n' 0
    printf ' * https://example.com/%0110d\n' 0
    printf '/* \303\251 %0112d */\n' 0
} >"$tmp/long.c"
bad=$(check_width "$tmp/long.c") && fail "the checker passed a 121-column line"
[ "$bad" = "$tmp/long.c:3: 121 columns (at most 120)" ] || fail "the checker reported '$bad', not line 3 alone"
finish "no line over 120 columns in the $n C/CUDA sources of src, topo and collectives"
