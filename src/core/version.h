/* Versions of nvscale and of every library it uses, for `nvscale version` and run.json. Each is read at run time
 * from the library itself where the library can say (the one loaded may differ from the headers built with). */
#ifndef NVS_VERSION_H
#define NVS_VERSION_H

#include <stdio.h>

#ifndef NVS_VERSION
#define NVS_VERSION "0.0.0"
#endif
#ifndef NVS_GIT_REV
#define NVS_GIT_REV "unknown"
#endif

typedef struct {
    char nvscale[32], git[48];
    char nccl[32];          /* ncclGetVersion(): the library loaded */
    char nccl_headers[32];  /* NCCL_VERSION_CODE built against */
    char cuda_runtime[16];  /* cudaRuntimeGetVersion */
    char cuda_driver[16];   /* cudaDriverGetVersion ("none" without a driver) */
    char nvidia_driver[32]; /* /proc/driver/nvidia/version ("none" without) */
    char cublas[24];
    char mpi[160];          /* MPI_Get_library_version, first line */
    char hwloc[24];         /* HWLOC_VERSION built against */
    char jansson[16];
    char blas[96];          /* the host step's CBLAS (openblas_get_config), or "none (plain C loop)" */
} nvs_versions;

void nvs_versions_collect(nvs_versions *v);
void nvs_print_versions(FILE *to);

#endif
