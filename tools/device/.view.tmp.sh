#!/bin/bash
. tools/device/lib.sh
R=results/h200x1-viewcopy
mkdir -p $R
step build
gpu_build $R
make -j32 viewbench NVCC_GENCODE="$SM90_GENCODE" JANSSON_HOME=.deps/jansson >>$R/build.log 2>&1 || tail -20 $R/build.log
describe $R
commands_header
gpu_suite
S="8x512x3072 8x512x1024 512x8x3072 512x8x1024"
for e in bf16 fp32; do
  rec nvs-$e build/viewbench --elem $e $S
  rec torch-$e python3 tools/device/viewcopy_torch.py --elem $e $S
done
tar czf $OUT/viewcopy.tar.gz $R
CUDNN=1 CONFIGS=lm290m:bf16:8,bert-large:bf16:32 tools/device/tfm_census.sh results/h200x1-tfm-census10
ls -la $OUT
