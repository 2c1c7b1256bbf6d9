#include "core/version.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <hwloc.h>
#include <jansson.h>
#ifdef NVS_HAVE_OPENBLAS
#include <cblas.h> /* OpenBLAS's cblas.h declares openblas_get_config() */
#endif
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

static void cuda_ver(char *buf, size_t len, int v)
{
    /* CUDA encodes 1000*major + 10*minor */
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The kernel module's version from /proc/driver/nvidia/version: the first token shaped like 580.159.04 on the
 * "NVRM version:" line (its wording varies: "NVIDIA UNIX x86_64 Kernel Module", "... Open Kernel Module for
 * x86_64"). "none" without a driver. */
static void driver_version(char *buf, size_t len)
{
    snprintf(buf, len, "none");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        for (char *save = NULL, *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
            int dots = 0, ok = tok[0] >= '0' && tok[0] <= '9';
            for (const char *c = tok; ok && *c; c++) {
                if (*c == '.') dots++;
                else if (*c < '0' || *c > '9') ok = 0;
            }
            if (ok && dots >= 1 && strlen(tok) < len) {
                snprintf(buf, len, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}

void nvs_versions_collect(nvs_versions *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->nvscale, sizeof v->nvscale, "%s", NVS_VERSION);
    snprintf(v->git, sizeof v->git, "%s", NVS_GIT_REV);
    int nv = 0;
    if (ncclGetVersion(&nv) == ncclSuccess)
        /* since NCCL 2.9: code = major*10000 + minor*100 + patch */
        snprintf(v->nccl, sizeof v->nccl, "%d.%d.%d", nv / 10000, (nv % 10000) / 100, nv % 100);
    else
        snprintf(v->nccl, sizeof v->nccl, "unknown");
    snprintf(v->nccl_headers, sizeof v->nccl_headers, "%d.%d.%d", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    int cv = 0;
    if (cudaRuntimeGetVersion(&cv) == cudaSuccess)
        cuda_ver(v->cuda_runtime, sizeof v->cuda_runtime, cv);
    else
        snprintf(v->cuda_runtime, sizeof v->cuda_runtime, "unknown");
    cv = 0;
    if (cudaDriverGetVersion(&cv) == cudaSuccess && cv > 0)
        cuda_ver(v->cuda_driver, sizeof v->cuda_driver, cv);
    else
        snprintf(v->cuda_driver, sizeof v->cuda_driver, "none");
    driver_version(v->nvidia_driver, sizeof v->nvidia_driver);
    int ma = 0, mi = 0, pa = 0;
    if (cublasGetProperty(MAJOR_VERSION, &ma) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &mi) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &pa) == CUBLAS_STATUS_SUCCESS)
        snprintf(v->cublas, sizeof v->cublas, "%d.%d.%d", ma, mi, pa);
    else
        snprintf(v->cublas, sizeof v->cublas, "unknown");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        lib[strcspn(lib, "\n,")] = '\0';
        snprintf(v->mpi, sizeof v->mpi, "%s", lib);
    } else
        snprintf(v->mpi, sizeof v->mpi, "unknown");
    /* HWLOC_VERSION: the library release built against (its API version, hwloc_get_api_version, changes less
     * often: 2.9 and 2.10 both report API 2.8.0) */
#ifdef HWLOC_VERSION
    snprintf(v->hwloc, sizeof v->hwloc, "%s", HWLOC_VERSION);
#else
    unsigned hv = hwloc_get_api_version();
    snprintf(v->hwloc, sizeof v->hwloc, "API %u.%u.%u", hv >> 16, (hv >> 8) & 0xff, hv & 0xff);
#endif
    snprintf(v->jansson, sizeof v->jansson, "%s", JANSSON_VERSION);
#ifdef NVS_HAVE_OPENBLAS
    snprintf(v->blas, sizeof v->blas, "%s", openblas_get_config());
#else
    snprintf(v->blas, sizeof v->blas, "none (plain C loop)");
#endif
}

void nvs_print_versions(FILE *to)
{
    nvs_versions v;
    nvs_versions_collect(&v);
    fprintf(to,
            "nvscale        %s (%s)\n"
            "NCCL           %s (built with headers %s)\n"
            "CUDA runtime   %s\n"
            "CUDA driver    %s\n"
            "NVIDIA driver  %s\n"
            "cuBLAS         %s\n"
            "MPI            %s\n"
            "hwloc          %s\n"
            "jansson        %s\n"
            "host BLAS      %s\n",
            v.nvscale, v.git, v.nccl, v.nccl_headers, v.cuda_runtime, v.cuda_driver, v.nvidia_driver, v.cublas,
            v.mpi, v.hwloc, v.jansson, v.blas);
}
