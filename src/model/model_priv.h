/* PRIVATE to src/model/: the units the files of the model's core (model.c, model_allreduce.c) share; no other
 * folder includes this header (model.h is the interface). */
#ifndef NVS_MODEL_PRIV_H
#define NVS_MODEL_PRIV_H

/* GB/s -> bytes per microsecond */
#define GBPS_TO_BPUS 1e3
/* TFLOP/s -> FLOP per microsecond */
#define TFLOPS_TO_FPUS 1e6

#endif
