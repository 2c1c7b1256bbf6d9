#!/bin/sh
# Every call into CUDA (runtime and driver), NCCL, MPI, hwloc, cuBLAS, cuDNN and NVML (the last two through the
# function pointers conv_cudnn.c, topo_nvml.c and health_nvml.c load) in src/, topo/, collectives/ and tools/ has
# its result looked at (core/gpu_check.h, core/mpi_check.h): a call standing alone as a statement throws its
# error away. Checked statically, in every .c/.cu file of those folders:
#   - a library call that starts a statement (after ; { } if (...) else do case: ...) is reported, unless it is
#     cast to (void) (a deliberate, visible discard: say why in a comment beside it), returns nothing (the list
#     below), or its file and name are in the allow-list below (each entry with its reason);
#   - a kernel launch (<<<...>>>) is followed by cudaGetLastError() or cudaPeekAtLastError() (its value used)
#     before the next launch and before its function ends;
#   - cudaStreamQuery / cudaEventQuery: cudaErrorNotReady is told apart from real errors within 3 lines (treating
#     every non-success as "not ready" hides a failed kernel);
#   - a check macro wraps a call of its own library: CUDA_TRY(ncclX()) or MPI_TRY(cudaX()) compile without a
#     warning (CUDA_TRY casts to cudaError_t, MPI_TRY takes an int), and the code is then read as the wrong
#     library's (a comparison of two libraries' result types outside these macros is -Wenum-compare, an error).
# An allow-list entry that no longer matches anything is reported too. The checker is run on a planted file as
# well, to show that it can fail.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# file name: a call the file may leave unchecked, and why
allow_list() {
    cat <<'EOF'
src/runtime/runtime_mpi.c MPI_Abort # ends the job and does not return; the code after it covers a return
EOF
}

# check_calls ALLOW FILE...: one line per violation, exit status 1 if any
check_calls() {
    allow=$1
    shift
    awk -v allowfile="$allow" '
    BEGIN {
        pass = 1
        # library functions that return nothing: nothing to check
        split("hwloc_topology_destroy hwloc_distances_release hwloc_bitmap_free hwloc_bitmap_zero " \
              "hwloc_bitmap_fill", v, " ")
        for (i in v) void_fn[v[i]] = 1
        while ((getline line < allowfile) > 0) {
            sub(/[ \t]*#.*/, "", line)
            if (split(line, a, /[ \t]+/) >= 2) allow_used[a[1] SUBSEP a[2]] = 0
        }
        api = "^(cuda[A-Z][A-Za-z0-9_]*|cu[A-Z][A-Za-z0-9_]*|nccl[A-Z][A-Za-z0-9_]*|MPI_[A-Z][A-Za-z0-9_]*|" \
              "hwloc_[a-z][a-z0-9_]*|cublas[A-Z][A-Za-z0-9_]*|cudnn[A-Z][A-Za-z0-9_]*|nvml[A-Z][A-Za-z0-9_]*)"
    }
    function report(l, what) { print rel ":" l ": " what; bad = 1 }
    # the library a function name belongs to ("" for the functions of nvscale and anything else)
    function lib_of(name) {
        if (name ~ /^cublas[A-Z]/) return "cuBLAS"
        if (name ~ /^cudnn[A-Z]/) return "cuDNN"
        if (name ~ /^nccl[A-Z]/) return "NCCL"
        if (name ~ /^(cuda[A-Z]|cu[A-Z])/) return "CUDA"
        if (name ~ /^MPI_[A-Z]/) return "MPI"
        if (name ~ /^hwloc_/) return "hwloc"
        if (name ~ /^nvml[A-Z]/) return "NVML"
        return ""
    }
    # pass 1: functions the project defines itself (a definition starts in column 0) are not library calls
    pass == 1 {
        if ($0 ~ /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*\(/) { # and macros (CUDA_TRY, MPI_TRY)
            s = $0; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", s); sub(/\(.*/, "", s); own[s] = 1
        }
        if ($0 ~ /^[A-Za-z_][A-Za-z0-9_ \t\*]*[ \t\*][A-Za-z_][A-Za-z0-9_]*\(/ && $0 !~ /;[ \t]*$/) {
            s = $0; sub(/\(.*/, "", s); sub(/.*[ \t\*]/, "", s); own[s] = 1
        }
        # the files that call NVML or cuDNN through the function pointers they load: a call through a member
        if ($0 ~ /(dlsym|nvs_nvml_symbol)\(/) loads[FILENAME] = 1
        next
    }
    FNR == 1 {
        if (pending) report(pending, "kernel launch: cudaGetLastError() is not consulted before the file ends")
        incomment = 0; at_start = 1; depth = 0; ctrl = 0; indefine = 0; pending = 0; else_seen = 0; voided = 0
        ptr_api = FILENAME in loads; nq = 0
        rel = FILENAME; sub(/^\.\//, "", rel)
    }
    {
        line = $0
        if (indefine) { indefine = line ~ /\\$/; next }
        if (!incomment && line ~ /^[ \t]*#/) { indefine = line ~ /\\$/; next }
        if (nq > 0) {
            nq--
            if (line ~ /cudaErrorNotReady/) nq = 0
            else if (nq == 0) report(qline, qname "(): cudaErrorNotReady is not told apart from a real error")
        }
        if (pending && line ~ /^}/) {
            report(pending, "kernel launch: cudaGetLastError() is not consulted before the function ends")
            pending = 0
        }
        n = length(line)
        for (i = 1; i <= n; i++) {
            c = substr(line, i, 1)
            if (incomment) { if (c == "*" && substr(line, i + 1, 1) == "/") { incomment = 0; i++ } continue }
            if (c == "/" && substr(line, i + 1, 1) == "*") { incomment = 1; i++; continue }
            if (c == "/" && substr(line, i + 1, 1) == "/") break
            if (c == " " || c == "\t") continue
            if (c == "\"" || c == "\x27") {
                for (i++; i <= n && substr(line, i, 1) != c; i++) if (substr(line, i, 1) == "\\") i++
                at_start = 0
                continue
            }
            rest = substr(line, i)
            # a check macro of core/gpu_check.h or core/mpi_check.h around a call of another library: its cast
            # (cudaError_t) or int hides the mismatch from the compiler, and the result is read with the meaning of
            # the wrong library (an NCCL code in CUDA_TRY is named as a CUDA error)
            if (substr(line, i - 1, 1) !~ /[A-Za-z0-9_]/ &&
                match(rest, /^(CUDA_TRY_AT|CUDA_TRY|CUDA_CLEANUP|NCCL_TRY|NCCL_CLEANUP|BLAS_TRY|BLAS_CLEANUP|MPI_TRY|MPI_CLEANUP)[ \t]*\(/)) {
                mac = substr(rest, 1, RLENGTH); sub(/[ \t]*\($/, "", mac)
                arg = substr(rest, RLENGTH + 1); sub(/^[ \t]*(\([A-Za-z_][A-Za-z0-9_ \t]*\)[ \t]*)?/, "", arg)
                callee = arg; sub(/[^A-Za-z0-9_].*$/, "", callee)
                want = mac ~ /^CUDA/ ? "CUDA" : mac ~ /^NCCL/ ? "NCCL" : mac ~ /^BLAS/ ? "cuBLAS" : "MPI"
                if (lib_of(callee) != "" && lib_of(callee) != want)
                    report(FNR, mac "(" callee "()): a " lib_of(callee) " call checked as a " want " result")
            }
            if (rest ~ /^<<</) {
                # a launch in the else branch of one in the if branch is not the next launch after it
                if (pending && !else_seen) report(pending, "kernel launch: cudaGetLastError() is not consulted before the next launch")
                pending = FNR; else_seen = 0
            }
            if (rest ~ /^(cudaGetLastError|cudaPeekAtLastError)[ \t]*\(/ && !at_start) pending = 0
            if (rest ~ /^(cudaStreamQuery|cudaEventQuery)[ \t]*\(/ && line !~ /cudaErrorNotReady/) {
                nq = 3; qline = FNR; qname = rest; sub(/[ \t]*\(.*/, "", qname)
            }
            if (at_start) {
                # what does not end the statement start: else, do, case X:, default:, a label, (void)
                if (match(rest, /^(else|do)/) && substr(rest, RLENGTH + 1, 1) !~ /[A-Za-z0-9_]/) {
                    if (pending && rest ~ /^else/) else_seen = 1
                    i += RLENGTH - 1
                    continue
                }
                if (match(rest, /^(case[^:]*|default|[A-Za-z_][A-Za-z0-9_]*)[ \t]*:/) && substr(rest, RLENGTH + 1, 1) != ":") {
                    i += RLENGTH - 1
                    continue
                }
                if (match(rest, /^\(void\)[ \t]*/)) { voided = 1; i += RLENGTH - 1; continue }
                if (match(rest, /^(if|for|while|switch)[ \t]*\(/)) {
                    ctrl = 1; ctrl_depth = depth; at_start = 0; voided = 0
                    i += RLENGTH - 2 # the ( is counted below
                    continue
                }
                call = ""
                if (match(rest, api "[ \t]*\\(")) { call = substr(rest, 1, RLENGTH); sub(/[ \t]*\($/, "", call) }
                else if (ptr_api && match(rest, /^[A-Za-z_][A-Za-z0-9_]*((->|\.)[A-Za-z_][A-Za-z0-9_]*)+[ \t]*\(/)) {
                    call = substr(rest, 1, RLENGTH); sub(/[ \t]*\($/, "", call); sub(/.*(->|\.)/, "", call)
                    call = "(loaded) " call
                }
                if (call != "" && !voided && !(call in own) && !(call in void_fn)) {
                    k = call; sub(/^\(loaded\) /, "", k); k = rel SUBSEP k
                    if (k in allow_used) allow_used[k]++
                    else report(FNR, call "(): its result is ignored (check it: core/gpu_check.h, core/mpi_check.h; or (void) it and say why)")
                }
                at_start = 0; voided = 0
            }
            if (c == "(") depth++
            else if (c == ")") { depth--; if (ctrl && depth == ctrl_depth) { ctrl = 0; at_start = 1 } }
            else if ((c == ";" && depth == 0) || c == "{" || c == "}") at_start = 1
        }
    }
    END {
        if (pending) report(pending, "kernel launch: cudaGetLastError() is not consulted before the file ends")
        for (k in allow_used) if (!allow_used[k]) { split(k, p, SUBSEP); print "allow-list: " p[1] " " p[2] " matches nothing: remove it"; bad = 1 }
        exit bad
    }
    ' "$@" pass=2 "$@"
}

tmp_dir tmp
allow_list >"$tmp/allow"
files=$(find src topo collectives \( -name '*.[ch]' -o -name '*.cu' \) | sort; ls tools/*.[ch] tools/*.cu)
n=$(printf '%s\n' "$files" | wc -l)
# shellcheck disable=SC2086
out=$(check_calls "$tmp/allow" $files) || { fail "library calls whose result is not checked:"; printf '%s\n' "$out"; }

# the checker can fail: a planted file with each kind of gap, and beside them the forms that are fine
mkdir -p "$tmp/plant"
cat >"$tmp/plant/plant.cu" <<'EOF'
#define LOADS(lib, name) dlsym(lib, name)
#define TRY(call) do { cudaError_t e_ = (call); if (e_) return e_; } while (0)
static int cudaOwnHelper(void) { return 0; }
int plant(void *p, cudaStream_t s, struct api *c)
{
    cudaFree(p);
    if (p) cudaStreamDestroy(s);
    else
        ncclCommDestroy(comm);
    for (int i = 0; i < 2; i++) MPI_Comm_free(&comm);
    hwloc_topology_set_io_types_filter(t, 0);
    c->api.DestroyTensorDescriptor(d);
    kern<<<1, 1, 0, s>>>(p);
    kern<<<1, 1, 0, s>>>(p);
    if (cudaStreamQuery(s) != cudaSuccess) return 1;
    (void)cudaFree(p); /* teardown: nothing to report */
    TRY(cudaMemsetAsync(p, 0, 4, s));
    int e = cudaDeviceSynchronize(), x = f(1, cudaGetDeviceCount(&e));
    hwloc_topology_destroy(t);
    cudaOwnHelper();
    CUDA_TRY(ncclGroupEnd());
    MPI_CLEANUP((int)cudaFree(p));
    NCCL_TRY(ncclGroupEnd(), comm);
    CUDA_TRY_AT((cudaError_t)nvs_kern_fill(p), "fill");
    return cudaGetLastError() ? 1 : x;
}
void launch_unchecked(void)
{
    kern<<<1, 1>>>();
}
#define MPI_CLEANUP(call) do { int rc_ = (call); if (rc_) warn(rc_); } while (0)
EOF
printf 'src/none.c cudaNothing # stale\n' >"$tmp/allow2"
bad=$(cd "$tmp" && check_calls allow2 plant/plant.cu) && fail "the checker passed a planted file"
for want in ":6: cudaFree()" ":7: cudaStreamDestroy()" ":9: ncclCommDestroy()" ":10: MPI_Comm_free()" \
    ":11: hwloc_topology_set_io_types_filter()" ":12: (loaded) DestroyTensorDescriptor()" \
    ":13: kernel launch: cudaGetLastError() is not consulted before the next launch" \
    ":15: cudaStreamQuery(): cudaErrorNotReady" \
    ":21: CUDA_TRY(ncclGroupEnd()): a NCCL call checked as a CUDA result" \
    ":22: MPI_CLEANUP(cudaFree()): a CUDA call checked as a MPI result" \
    ":29: kernel launch: cudaGetLastError() is not consulted before the function ends" \
    "src/none.c cudaNothing matches nothing"; do
    printf '%s\n' "$bad" | grep -qF "$want" || fail "the checker did not report '$want': $bad"
done
nbad=$(printf '%s\n' "$bad" | grep -c ':[0-9]*: ')
[ "$nbad" -eq 11 ] || fail "the checker reported $nbad gaps in the planted file, not 11 (a correct form reported?): $bad"
finish "every library call in $n source files has its result checked"
