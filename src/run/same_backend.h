/* Every rank of one run must run the same backend. Without --backend each rank chooses its own before MPI starts
 * (run_flow.c): NCCL where it finds a usable GPU, else the MPI host backend. A host whose driver or GPU is broken
 * chose the host backend while the others chose NCCL, and the two backends' set-ups met in each other's host
 * collectives (seen with a stand-in GPU failing cudaGetDeviceCount on rank 1 of 2: rank 0 stopped in
 * "ncclCommInitRank failed: unhandled system error", blaming itself, the broken host unnamed). Checked once,
 * after the command lines are compared and before anything is made or measured. */
#ifndef NVS_RUN_SAME_BACKEND_H
#define NVS_RUN_SAME_BACKEND_H

#include "core/config.h"
#include "core/err.h"
#include "runtime/runtime.h"

/* NVS_OK when every rank chose rank 0's backend; else NVS_ERR_UNSUPPORTED on every rank, rank 0 naming the first
 * rank whose choice differs, its host, and why it found no GPU (`no_gpu`: "" where it found one). Or the
 * runtime's error when the ranks cannot be asked. */
nvs_result_t nvs_same_backend(nvs_rt *rt, nvs_backend_kind backend, const char *no_gpu);

#endif
