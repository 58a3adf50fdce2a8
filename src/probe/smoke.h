/*
 * `gpudoctor test`: real work on each GPU CUDA programs see, through each layer a program would
 * load, every part in a child process with a deadline (src/probe/vchild.h), one after another:
 *
 *   per GPU      context (the primary context, as the frameworks use), memory information,
 *                allocation and free, a host-device-host copy checked byte for byte, a PTX
 *                kernel JIT-compiled by the driver and run with its output checked, the largest
 *                block that can be allocated;
 *   per GPU and per copy of cuBLAS / cuDNN that a program (the loader's choice for each SONAME)
 *                or an installed framework (framework_lib entities) would load: loading it,
 *                creating its handle, an SGEMM / a convolution forward checked against the CPU;
 *   all GPUs     an NCCL all-reduce across them when there are two or more.
 *
 * Results are facts of test_device, test_library and test_nccl entities; src/rules/smoke.c
 * judges them.
 */
#ifndef GD_PROBE_SMOKE_H
#define GD_PROBE_SMOKE_H

#include "probe/probe.h"

#include <gpudoctor/gpudoctor.h>

struct gd_smoke_options {
    unsigned timeout_ms; /* each child's deadline; 0: 120 s */
    gd_progress_fn progress;
    void *user;
};

void gd_probe_smoke(struct gd_probe_ctx *ctx, const struct gd_smoke_options *options);

/* The kernel, hand-written PTX (smoke_ptx.c): out[i] = in[i] * 3 + i for i < n, 32-bit. */
extern const char gd_smoke_ptx[];
#define GD_SMOKE_KERNEL "gd_smoke"

/* The copies of a library programs would load: the path the loader resolves each SONAME
 * starting with `soname_prefix` to ("libcublas.so."), and each framework_lib's path for such a
 * SONAME, each path once, with who loads it. At most `max`. Pure over the report. */
struct gd_smoke_copy {
    const char *path; /* borrowed from the report */
    char used_by[512];
};
size_t gd_smoke_copies(const struct gd_report *r, const char *soname_prefix,
                       struct gd_smoke_copy *out, size_t max);

#endif
