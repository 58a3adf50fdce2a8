/* Are we inside a container, which runtime, and what did the NVIDIA container toolkit get told
 * (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES, NVIDIA_REQUIRE_CUDA)? */
#include "probe/probe.h"

#include "core/alloc.h"
#include "parse/container.h"

#include <string.h>

static bool marker(struct gd_probe_ctx *ctx, struct gd_entity *c, const char *path,
                   const char *runtime)
{
    if (!gd_root_exists(ctx->root, path))
        return false;
    gd_fact_str(c, "runtime", runtime, gd_src(GD_SOURCE_PATH, path));
    return true;
}

static bool from_env(struct gd_probe_ctx *ctx, struct gd_entity *c, const char *var,
                     const char *runtime)
{
    const char *v = gd_env_get(ctx->env, var);
    if (!v || !*v)
        return false;
    gd_fact_str(c, "runtime", runtime ? runtime : v, gd_src(GD_SOURCE_ENV, var));
    return true;
}

static bool from_cgroup(struct gd_probe_ctx *ctx, struct gd_entity *c)
{
    char *data;
    size_t len;
    if (gd_root_read_file(ctx->root, "/proc/1/cgroup", GD_PROBE_TEXT_MAX, &data, &len) != GD_OK)
        return false;
    const char *runtime = gd_cgroup_runtime(data, len);
    gd_free(data);
    if (!runtime)
        return false;
    gd_fact_str(c, "runtime", runtime, gd_src(GD_SOURCE_FILE, "/proc/1/cgroup"));
    return true;
}

static void nvidia_var(struct gd_probe_ctx *ctx, struct gd_entity *c, const char *var,
                       const char *fact)
{
    const char *v = gd_env_get(ctx->env, var);
    if (v)
        gd_fact_str(c, fact, v, gd_src(GD_SOURCE_ENV, var));
    else
        gd_fact_absent(c, fact, "not set", gd_src(GD_SOURCE_ENV, var));
}

/* docker's /.dockerenv survives in images turned into VM disks; a "/" that is a whole disk
 * filesystem overrules it. */
static bool dockerenv(struct gd_probe_ctx *ctx, struct gd_entity *c)
{
    if (!gd_root_exists(ctx->root, "/.dockerenv"))
        return false;
    char *data;
    size_t len;
    struct gd_root_mount m;
    if (gd_root_read_file(ctx->root, "/proc/self/mountinfo", 16 * GD_PROBE_TEXT_MAX, &data, &len) ==
        GD_OK) {
        bool whole = gd_mountinfo_root(data, len, &m) && gd_root_mount_is_whole_disk(&m);
        gd_free(data);
        if (whole) {
            gd_fact_strf(c, "stale_marker", gd_src(GD_SOURCE_FILE, "/proc/self/mountinfo"),
                         "/.dockerenv is present, but / is a whole %s filesystem on %s: a VM or "
                         "host made from a container image",
                         m.fstype, m.source);
            return false;
        }
    }
    return marker(ctx, c, "/.dockerenv", "docker");
}

void gd_probe_container(struct gd_probe_ctx *ctx)
{
    struct gd_entity *c = gd_report_add_entity(ctx->report, "container", "container");
    /* Most specific first: a Kubernetes pod may also carry docker's marker file. */
    bool found = from_env(ctx, c, "KUBERNETES_SERVICE_HOST", "kubernetes") ||
                 marker(ctx, c, "/run/.containerenv", "podman") || dockerenv(ctx, c) ||
                 from_env(ctx, c, "container", NULL) || from_cgroup(ctx, c);
    if (!found)
        gd_fact_absent(c, "runtime", "no container marker",
                       gd_src(GD_SOURCE_PATH, "/.dockerenv, /run/.containerenv, /proc/1/cgroup, "
                                              "$container, $KUBERNETES_SERVICE_HOST"));
    gd_fact_bool(c, "detected", found, gd_src(GD_SOURCE_DERIVED, "runtime"));
    nvidia_var(ctx, c, "NVIDIA_VISIBLE_DEVICES", "nvidia.visible_devices");
    nvidia_var(ctx, c, "NVIDIA_DRIVER_CAPABILITIES", "nvidia.driver_capabilities");
    nvidia_var(ctx, c, "NVIDIA_REQUIRE_CUDA", "nvidia.require_cuda");
}
