/* Every function gpudoctor runs in a child process (src/os: struct gd_child_def), with how its
 * argument travels as text where the child is gpudoctor started again (Windows): the live
 * probe's, `gpudoctor test`'s and the library version calls'. main() hands the list to
 * gd_os_child_serve. */
#ifndef GD_PROBE_CHILDFNS_H
#define GD_PROBE_CHILDFNS_H

#include "os/os.h"

#include <stddef.h>

extern const struct gd_child_def gd_live_cuda_def;   /* struct gd_live_env */
extern const struct gd_child_def gd_live_nvml_def;   /* struct gd_live_env (only its lib) */
extern const struct gd_child_def gd_live_cudart_def; /* struct gd_cudart_arg */
extern const struct gd_child_def gd_smoke_device_def, gd_smoke_library_def,
    gd_smoke_nccl_def;                                /* struct gd_smoke_arg */
extern const struct gd_child_def gd_version_call_def; /* struct gd_version_call (libcalls.c) */

extern const struct gd_child_def *const gd_probe_child_defs[];
extern const size_t gd_probe_child_def_count;

#endif
