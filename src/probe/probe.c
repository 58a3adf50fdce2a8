#include "probe/probe.h"

const struct gd_fact *gd_probe_fact_failed(struct gd_entity *e, const char *name, enum gd_status st,
                                           struct gd_source src)
{
    if (st == GD_ENOENT || st == GD_ENOTDIR)
        return gd_fact_absent(e, name, NULL, src);
    return gd_fact_unknown(e, name, gd_status_str(st), src);
}

const char *const gd_driver_lib_dirs[] = {
    "/usr/lib/x86_64-linux-gnu",  /* Debian, Ubuntu (multiarch) */
    "/usr/lib/aarch64-linux-gnu", /* Debian, Ubuntu on Arm servers (Grace, Jetson) */
    "/usr/lib64",                 /* RHEL, Fedora, SUSE, NVIDIA's .run installer */
    "/usr/lib",                   /* Arch, and the .run installer on some systems */
    "/usr/local/nvidia/lib64",    /* NVIDIA's CUDA container images (LD_LIBRARY_PATH) */
    "/usr/local/nvidia/lib",
    NULL,
};
