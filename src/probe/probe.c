#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "core/winpath.h"
#include "sysroot/nocase.h"

#include <stdio.h>
#include <string.h>

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

const char *gd_probe_getenv(const struct gd_probe_ctx *ctx, const char *name)
{
    const char *v = gd_env_get(ctx->env, name);
    if (v || !ctx->windows)
        return v;
    for (size_t i = 0; i < gd_env_count(ctx->env); i++)
        if (gd_winpath_name_eq(gd_env_name_at(ctx->env, i), name))
            return gd_env_value_at(ctx->env, i);
    return NULL;
}

enum gd_status gd_probe_win_path(struct gd_probe_ctx *ctx, const char *win, char **out, char *why,
                                 size_t why_size)
{
    *out = NULL;
    if (why_size)
        why[0] = '\0';
    char path[GD_ROOT_PATH_MAX + 1];
    enum gd_winpath_result r = gd_winpath_to_root(win, ctx->drive, path, sizeof path);
    if (r != GD_WINPATH_OK) {
        char buf[64];
        snprintf(why, why_size, "%s", gd_winpath_why(r, ctx->drive, buf, sizeof buf));
        return GD_EINVAL;
    }
    enum gd_status st = gd_root_find_nocase(ctx->root, path, out);
    if (st == GD_ENOENT || st == GD_ENOTDIR) {
        *out = gd_strdup(path);
        return *out ? st : GD_ENOMEM;
    }
    return st;
}
