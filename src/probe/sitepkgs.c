/* Where Python packages are installed: the site-packages and dist-packages directories of the
 * system, /usr/local, conda, virtual environments, pyenv and users' ~/.local, found from files
 * alone (nothing is run). */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "sysroot/glob.h"

#include <stdio.h>
#include <string.h>

/* Site directories beyond this many are not inspected (a tree with thousands of envs). */
#define SITE_DIRS_MAX 512

/* Patterns relative to an installation prefix. */
static const char *const in_prefix[] = {
    "lib/python3*/site-packages",
    "lib/python3*/dist-packages",
    "lib64/python3*/site-packages",
};

/* Prefixes and prefix patterns that hold Python installations or environments. */
static const char *const prefixes[] = {
    "/usr",
    "/usr/local",
    "/opt/conda",
    "/opt/conda/envs/*",
    "/opt/miniconda3",
    "/opt/miniconda3/envs/*",
    "/opt/anaconda3",
    "/opt/anaconda3/envs/*",
};

/* Relative to a home directory. */
static const char *const in_home[] = {
    ".local",
    "miniconda3",
    "miniconda3/envs/*",
    "anaconda3",
    "anaconda3/envs/*",
    "miniforge3",
    "miniforge3/envs/*",
    "mambaforge",
    "mambaforge/envs/*",
    ".conda/envs/*",
    ".pyenv/versions/*",
    ".virtualenvs/*",
    ".venv",
};

static enum gd_status add_prefix(struct gd_probe_ctx *ctx, const char *prefix,
                                 struct gd_strlist *out)
{
    enum gd_status st = GD_OK;
    for (size_t i = 0; i < sizeof in_prefix / sizeof *in_prefix && st != GD_ENOMEM; i++) {
        char *pattern = gd_path_join(prefix, in_prefix[i]);
        struct gd_strlist found = { 0 };
        st = pattern ? gd_root_glob(ctx->root, pattern, SITE_DIRS_MAX, &found) : GD_ENOMEM;
        for (size_t k = 0; k < found.count && st != GD_ENOMEM; k++)
            if (out->count < SITE_DIRS_MAX)
                st = gd_strlist_push_unique(out, found.items[k]);
        gd_strlist_free(&found);
        gd_free(pattern);
    }
    return st == GD_ENOMEM ? st : GD_OK;
}

/* Debian's python3-* packages install into /usr/lib/python3/dist-packages (no version). */
static enum gd_status add_debian(struct gd_probe_ctx *ctx, struct gd_strlist *out)
{
    if (gd_root_is_dir(ctx->root, "/usr/lib/python3/dist-packages"))
        return gd_strlist_push_unique(out, "/usr/lib/python3/dist-packages");
    return GD_OK;
}

enum gd_status gd_find_site_packages(struct gd_probe_ctx *ctx, struct gd_strlist *out)
{
    enum gd_status st = add_debian(ctx, out);
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && st == GD_OK; i++) {
        struct gd_strlist expanded = { 0 };
        st = gd_root_glob(ctx->root, prefixes[i], SITE_DIRS_MAX, &expanded);
        if (st == GD_ELIMIT)
            st = GD_OK;
        for (size_t k = 0; k < expanded.count && st == GD_OK; k++)
            st = add_prefix(ctx, expanded.items[k], out);
        gd_strlist_free(&expanded);
    }
    static const char *const env_prefixes[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
    for (size_t i = 0; i < 2 && st == GD_OK; i++) {
        const char *v = gd_env_get(ctx->env, env_prefixes[i]);
        if (v && v[0] == '/')
            st = add_prefix(ctx, v, out);
    }
    /* Homes: $HOME, and for a tree that is not this machine every /root and /home/<user>. */
    struct gd_strlist homes = { 0 };
    const char *home = gd_env_get(ctx->env, "HOME");
    if (st == GD_OK && home && home[0] == '/')
        st = gd_strlist_push_unique(&homes, home);
    if (st == GD_OK && !gd_root_is_live(ctx->root)) {
        st = gd_root_glob(ctx->root, "/home/*", 256, &homes);
        if (st == GD_OK && gd_root_is_dir(ctx->root, "/root"))
            st = gd_strlist_push_unique(&homes, "/root");
        if (st == GD_ELIMIT)
            st = GD_OK;
    }
    for (size_t h = 0; h < homes.count && st == GD_OK; h++) {
        for (size_t i = 0; i < sizeof in_home / sizeof *in_home && st == GD_OK; i++) {
            char *pattern = gd_path_join(homes.items[h], in_home[i]);
            struct gd_strlist expanded = { 0 };
            st = pattern ? gd_root_glob(ctx->root, pattern, SITE_DIRS_MAX, &expanded) : GD_ENOMEM;
            if (st == GD_ELIMIT)
                st = GD_OK;
            for (size_t k = 0; k < expanded.count && st == GD_OK; k++)
                st = add_prefix(ctx, expanded.items[k], out);
            gd_strlist_free(&expanded);
            gd_free(pattern);
        }
    }
    gd_strlist_free(&homes);
    return st;
}
