/* Where Python packages are installed: the site directories of every Python environment, from
 * the one finder (pyenvs.c), for the probes that look inside them (the CUDA inventory). */
#include "probe/probe.h"

enum gd_status gd_find_site_packages(struct gd_probe_ctx *ctx, struct gd_strlist *out)
{
    struct gd_pyenvs own = { 0 };
    const struct gd_pyenvs *envs = &ctx->pyenvs;
    if (!ctx->pyenvs_found) {
        enum gd_status st = gd_find_python_envs(ctx, &own);
        if (st != GD_OK)
            return st;
        envs = &own;
    }
    enum gd_status st = GD_OK;
    for (size_t i = 0; i < envs->count && st == GD_OK; i++)
        for (size_t k = 0; k < envs->items[i].site_dirs.count && st == GD_OK; k++)
            if (out->count < GD_SITE_DIRS_MAX)
                st = gd_strlist_push_unique(out, envs->items[i].site_dirs.items[k]);
    gd_pyenvs_free(&own);
    return st;
}
