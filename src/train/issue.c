/* See issue.h. */
#include "train/issue.h"

const char *const nvs_issue_kind_names[NVS_ISSUE_KINDS] = {
    "gemm", "conv_library", "norm_library", "norm_kernels", "passes", "copies", "comm", "optimizer", "framework",
    "other"};
