#!/bin/sh
# The optional benchmark tools linked against libnvscale (make devcopy biasgrad viewbench lnbench topo-scale) are
# not part of `make`: an interface change in the library could break them unseen until a GPU session needed them
# (biasgrad did, at the reduction's nvs_sm_shape). They build here; the GPU ones refuse a missing shape before
# touching a GPU (exit 2, usage named). contend and cpuprobe have their own tests (contend_build.sh, cpuprobe.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
log=$TMP/tools_build.$$
if ! make -s devcopy biasgrad viewbench lnbench topo-scale >"$log" 2>&1; then
    cat "$log"
    rm -f "$log"
    fail "make devcopy biasgrad viewbench lnbench topo-scale"
    finish
fi
rm -f "$log"
for t in devcopy topo_scale; do
    [ -x "build/$t" ] || fail "build/$t was not built"
done
expect 2 "biasgrad: no shape: usage: biasgrad" build/biasgrad
expect 2 "viewbench: no shape: usage: viewbench" build/viewbench
expect 2 "lnbench: no shape: usage: lnbench" build/lnbench
finish
