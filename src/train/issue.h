/* What the host's time to issue a training step was spent on (PURE data): the kinds step.c times every executor
 * call by, and their names in run.json (train.results[].issue_by_us). */
#ifndef NVS_TRAIN_ISSUE_H
#define NVS_TRAIN_ISSUE_H

/* Where the host's time to issue a step goes (step.c times every executor call by what it issues): the GEMMs
 * (cuBLAS), the convolutions and batch norms a library runs (cuDNN), the executor's own batch-norm kernels, the
 * memory-bound passes, copies (layout transforms, buckets, buffers copied back), communication calls (NCCL or MPI),
 * the optimizer (with a gradient scaler's unscale), the framework's own host work (workload/framework.h), and the
 * marks on the timeline. A step whose own launches (framework off) already take longer than the framework's
 * host work charges is bound by the executor, not by the framework it stands for: this says by which calls. */
enum {
    NVS_ISSUE_GEMM, NVS_ISSUE_CONV, NVS_ISSUE_NORM_LIB, NVS_ISSUE_NORM_KERN, NVS_ISSUE_PASSES, NVS_ISSUE_COPIES,
    NVS_ISSUE_COMM, NVS_ISSUE_OPTIMIZER, NVS_ISSUE_FRAMEWORK, NVS_ISSUE_OTHER, NVS_ISSUE_KINDS
};
/* run.json's key of each kind (issue_by_us), in the enum's order */
extern const char *const nvs_issue_kind_names[NVS_ISSUE_KINDS];

#endif
