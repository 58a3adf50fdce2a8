/*
 * Whether GPU code compiled for some architectures runs on a GPU of a compute capability:
 * NVIDIA's rules (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility";
 * the arch- and family-specific targets in the CUDA 12.9 notes). Machine code (SASS) for X.Y
 * runs on X.Z with Z >= Y; PTX for X.Y is compiled by the driver for X.Y and every later
 * capability; an "a" target (sm_90a) serves its own capability only, an "f" target (sm_100f)
 * the later minors of its major. One place for the frameworks rule (a library's fat binary,
 * TensorFlow's build_info list) and `gpudoctor explain` ("no kernel image is available").
 */
#ifndef GD_CORE_GPU_ARCH_H
#define GD_CORE_GPU_ARCH_H

#include <stdbool.h>

/* Ordered from best to worst, so that the worst of several libraries is the largest. */
enum gd_arch_serve {
    GD_ARCH_SERVED,     /* machine code runs as it is */
    GD_ARCH_PTX_ONLY,   /* only PTX: the driver compiles it at first use */
    GD_ARCH_NOT_SERVED, /* "no kernel image is available for execution on the device" */
};

/* `sass`: a list of sm_XY[a|f] items, `ptx`: of compute_XY[a|f] items, separated by commas or
 * blanks (either may be NULL). With `tf_list`, `sass` is one TensorFlow-style list where
 * compute_XY stands for PTX *and* SASS of X.Y (cuda_compute_capabilities of build_info.py);
 * pass the same list as `ptx`. Items that are not architectures are ignored. */
enum gd_arch_serve gd_arch_serves(const char *sass, const char *ptx, bool tf_list, unsigned major,
                                  unsigned minor);

#endif
