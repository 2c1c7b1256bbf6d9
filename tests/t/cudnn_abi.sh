#!/bin/sh
# src/train/cudnn_min.h (nvscale's own declarations of the cuDNN calls it loads at run time) against cuDNN's
# headers: tests/abi/cudnn_abi.c compiles only if every value, record layout and entry point's type agrees. Skipped where no cuDNN
# with its headers is installed (tests/lib.sh cudnn_root: $CUDNN_HOME, the system's, a PyTorch environment's).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
root=$(cudnn_root) || skip "no cuDNN headers here (set CUDNN_HOME to a folder with include/cudnn.h)"
inc=${root%% *}/include
libdir=${root#* }
tmp_dir dir
${CC:-cc} -std=c11 -Wall -Werror -Isrc -I"$inc" -I"${CUDA_HOME:-/usr/local/cuda}/include" tests/abi/cudnn_abi.c \
    -L"$libdir" -l:libcudnn.so.9 -o "$dir/abi" >"$dir/log" 2>&1 ||
    { cat "$dir/log"; fail "cudnn_min.h disagrees with $inc (above)"; finish; }
expect 0 "agrees with cuDNN [0-9]" env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$dir/abi"
# every entry point conv_cudnn.c looks up is exported by the library it loads
lib=$libdir/libcudnn.so.9
need_cmd nm "cannot list $lib's symbols"
nm -D --defined-only "$lib" | awk '{sub(/@.*/, "", $NF); print $NF}' >"$dir/syms" || stop "nm -D $lib failed"
names=$(grep -o '{"cudnn[A-Za-z0-9_]*"' src/train/conv_cudnn.c | tr -d '{"')
[ "$(printf '%s\n' $names | wc -l)" -ge 20 ] || fail "found only $(printf '%s\n' $names | wc -l) names in conv_cudnn.c"
for n in $names; do grep -qx "$n" "$dir/syms" || fail "$lib does not export $n"; done
finish
