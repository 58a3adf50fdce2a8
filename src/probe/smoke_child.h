/* The children of `gpudoctor test` (smoke_child.c) and what each is given. */
#ifndef GD_PROBE_SMOKE_CHILD_H
#define GD_PROBE_SMOKE_CHILD_H

#include "probe/live.h"
#include "probe/smoke.h"

enum gd_smoke_family { GD_SMOKE_CUBLAS, GD_SMOKE_CUDNN, GD_SMOKE_NCCL };

/* GPUs an all-reduce spans at most (the largest NVSwitch nodes have 16). */
#define GD_SMOKE_NCCL_MAX 16

struct gd_smoke_arg {
    struct gd_live_env env;
    int device; /* CUDA device number; -1: load the library only. NCCL: the number of GPUs */
    enum gd_smoke_family family;
    const char *path; /* the library copy (not for the device child) */
};

/* Steps: context, memory, alloc, copy, kernel, largest_block. */
void gd_smoke_device_child(void *arg, struct gd_child_out *out);
/* Steps: load, context, create, sgemm (cuBLAS) or conv (cuDNN). */
void gd_smoke_library_child(void *arg, struct gd_child_out *out);
/* Steps: load, context, init, all_reduce. */
void gd_smoke_nccl_child(void *arg, struct gd_child_out *out);

#endif
