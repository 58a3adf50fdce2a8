/* Which CUDA toolkit a directory belongs to, and its version, from the files the toolkit ships. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "parse/cuda_version.h"

#include <stdio.h>
#include <string.h>

static char *parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return gd_strdup("/");
    return gd_strndup(path, (size_t)(slash - path));
}

static bool from_file(struct gd_probe_ctx *ctx, const char *root, const char *name, int how,
                      struct gd_version *v, enum gd_source_kind *kind, char **ref)
{
    char *path = gd_path_join(root, name);
    char *data = NULL;
    size_t len = 0;
    bool ok = false;
    if (!path)
        gd_report_out_of_memory(ctx->report);
    /* cuda.h is over 1 MiB (CUDA 13) and defines CUDA_VERSION near its top. */
    if (path && gd_root_read_head(ctx->root, path, 4 * GD_PROBE_TEXT_MAX, &data, &len) == GD_OK) {
        long n;
        if (how == 0)
            ok = gd_parse_cuda_version_json(data, len, v) == GD_OK;
        else if (how == 1)
            ok = gd_parse_cuda_version_txt(data, len, v) == GD_OK;
        else
            ok = gd_parse_header_define(data, len, "CUDA_VERSION", &n) == GD_OK &&
                 gd_version_from_cuda_int(n, v) == GD_OK;
    }
    gd_free(data);
    if (ok) {
        *kind = GD_SOURCE_FILE;
        *ref = path;
    } else {
        gd_free(path);
    }
    return ok;
}

/* "cuda-12.2" or "cuda-11" as a path component (the toolkit's install directory name), or the
 * Windows installer's ".../CUDA/v11.2" (windows_cuda: toolkit_dir). */
static bool from_name(const char *path, struct gd_version *v)
{
    for (const char *c = strchr(path, '/'); c; c = strchr(c + 1, '/')) {
        static const char win[] = "/cuda/v";
        size_t k = 0;
        while (win[k] && gd_to_lower(c[k]) == win[k])
            k++;
        if (win[k])
            continue;
        size_t n = strcspn(c + k, "/");
        if (gd_version_parse_n(c + k, n, v) == GD_OK && v->nparts == 2 && v->pre == GD_PRE_NONE &&
            !v->local[0])
            return true;
    }
    const char *p = path;
    while ((p = strstr(p, "/cuda-")) != NULL) {
        p += 6;
        size_t n = strcspn(p, "/");
        if (gd_version_parse_n(p, n, v) == GD_OK && v->pre == GD_PRE_NONE && !v->local[0])
            return true;
    }
    return false;
}

bool gd_toolkit_version(struct gd_probe_ctx *ctx, const char *dir, struct gd_version *version,
                        enum gd_source_kind *kind, char **ref)
{
    *ref = NULL;
    char *canon = NULL;
    if (gd_root_resolve(ctx->root, dir, true, &canon) != GD_OK)
        return false;
    /* Candidate toolkit roots: the directory itself, its parent for bin/lib/lib64, and three up
     * for targets/<triple>/lib. */
    char *roots[3] = { gd_strdup(canon), NULL, NULL };
    bool oom = !roots[0]; /* a candidate lost to out of memory is not an absent one */
    const char *base = gd_path_base(canon);
    if (strcmp(base, "lib64") == 0 || strcmp(base, "lib") == 0 || strcmp(base, "bin") == 0) {
        roots[1] = parent(canon);
        oom = oom || !roots[1];
        if (roots[1] && strstr(roots[1], "/targets/")) {
            char *a = parent(roots[1]);
            roots[2] = a ? parent(a) : NULL;
            oom = oom || !roots[2];
            gd_free(a);
        }
    }
    if (oom)
        gd_report_out_of_memory(ctx->report);
    bool found = false;
    for (int i = 0; i < 3 && !found; i++) {
        if (!roots[i])
            continue;
        found = from_file(ctx, roots[i], "version.json", 0, version, kind, ref) ||
                from_file(ctx, roots[i], "version.txt", 1, version, kind, ref) ||
                from_file(ctx, roots[i], "include/cuda.h", 2, version, kind, ref);
    }
    if (!found && from_name(canon, version)) {
        *kind = GD_SOURCE_PATH;
        *ref = gd_strdup(canon);
        found = *ref != NULL;
        if (!found)
            gd_report_out_of_memory(ctx->report);
    }
    for (int i = 0; i < 3; i++)
        gd_free(roots[i]);
    gd_free(canon);
    return found;
}
