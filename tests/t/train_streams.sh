#!/bin/sh
# The GPU training step's work goes on its own streams (src/train: the compute and communication streams are
# created non-blocking, so they do not wait for CUDA's legacy default stream, nor it for them): no call there
# runs on the default stream, where it would race with the step's kernels instead of preceding them. Checked
# statically in src/train/*.c and *.cu: no cudaMemset/cudaMemcpy (and their 2D/3D/ToSymbol forms) without Async,
# and no kernel launch without a stream (<<<grid, block, shared, stream>>>). The checker is run on a planted file
# as well, to show that it can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# check_streams FILE...: one line per call on the default stream, exit status 1 if any
check_streams() {
    awk '
    { line = $0; sub(/\/\/.*/, "", line) }
    line ~ /(^|[^A-Za-z0-9_])cudaMem(set|cpy)(2D|3D|ToSymbol|FromSymbol|Peer)?\(/ {
        print FILENAME ":" FNR ": a synchronous cudaMemset/cudaMemcpy runs on the legacy default stream"; bad = 1
    }
    {
        s = line
        while ((i = index(s, "<<<")) > 0) {
            s = substr(s, i + 3)
            j = index(s, ">>>")
            if (j == 0) break
            cfg = substr(s, 1, j - 1)
            if (gsub(/,/, ",", cfg) < 3) { print FILENAME ":" FNR ": a kernel launch without a stream"; bad = 1 }
            s = substr(s, j + 3)
        }
    }
    END { exit bad }
    ' "$@"
}

n=$(ls src/train/*.c src/train/*.cu | wc -l)
out=$(check_streams src/train/*.c src/train/*.cu) || { fail "calls on the default stream:"; printf '%s\n' "$out"; }

# the checker can fail
tmp_dir tmp
cat >"$tmp/plant.cu" <<'PLANT'
void f(float *p, cudaStream_t s)
{
    CUDA_TRY(cudaMemset(p, 0, 4));
    k<<<1, 32>>>(p);
    k<<<1, 32, 0, s>>>(p);
    CUDA_TRY(cudaMemsetAsync(p, 0, 4, s));
    CUDA_TRY(cudaMemcpy2D(p, 4, p, 4, 4, 1, cudaMemcpyDeviceToDevice));
}
PLANT
bad=$(check_streams "$tmp/plant.cu") && fail "the checker passed a planted file"
for want in "plant.cu:3: a synchronous" "plant.cu:4: a kernel launch without a stream" "plant.cu:7: a synchronous"; do
    printf '%s\n' "$bad" | grep -qF "$want" || fail "the checker did not report '$want': $bad"
done
nbad=$(printf '%s\n' "$bad" | grep -c ':[0-9]*: ')
[ "$nbad" -eq 3 ] || fail "the checker reported $nbad calls in the planted file, not 3: $bad"
finish "no call of the training step's $n source files runs on the default stream"
