#!/bin/sh
# The Markdown rows of docs/fidelity.md's "Why NCCL's kernels slow the compute" table from a results folder of
# tools/device/contend.sh: the share (1 - t_alone / t_beside) per GEMM and CTA count, from its contend-*.txt files.
# Usage: tools/contend_table.sh DIR
[ $# -eq 1 ] || { echo "usage: tools/contend_table.sh DIR" >&2; exit 2; }
[ -d "$1" ] || { echo "contend_table: $1: no such directory" >&2; exit 2; }
for f in "8192-fp32:fp32 8192³" "4096-fp32:fp32 4096³" "8192:bf16 8192³" "4096:bf16 4096³"; do
    k=${f%%:*}
    file="$1/contend-$k.txt"
    [ -s "$file" ] || { echo "contend_table: $file: missing or empty" >&2; exit 1; }
    awk -v l="${f#*:}" -v file="$file" '
        function r(x) { x = x + 0; return (x < 0.005 && x > -0.005) ? "0.00" : sprintf("%.2f", x) }
        NR > 2 && NF == 6 { s[$1] = s[$1] " " r($5) " |"; n[$1]++ }
        END {
            if (n["spin"] != 6 || n["d2d"] != 6 || n["d2h"] != 6) { print "contend_table: " file ": not 6 rows of spin, d2d and d2h" > "/dev/stderr"; exit 1 }
            print "| " l ", idle CTAs |" s["spin"]
            print "| " l ", copying in HBM |" s["d2d"]
            print "| " l ", copying to host memory |" s["d2h"]
        }' "$file" || exit 1
done
