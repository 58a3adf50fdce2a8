/* The NVIDIA kernel module (loaded? which version and flavour?) and nouveau, which takes the GPU
 * when it is loaded first. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "parse/modules.h"
#include "parse/nvidia_proc.h"

#include <stdio.h>
#include <string.h>

#define PROC_VERSION "/proc/driver/nvidia/version"
#define SYS_VERSION  "/sys/module/nvidia/version"

static void probe_proc_version(struct gd_probe_ctx *ctx, struct gd_entity *drv)
{
    char *data;
    size_t len;
    enum gd_status st = gd_root_read_file(ctx->root, PROC_VERSION, GD_PROBE_TEXT_MAX, &data, &len);
    struct gd_source src = gd_src(GD_SOURCE_FILE, PROC_VERSION);
    if (st != GD_OK) {
        gd_probe_fact_failed(drv, "kernel_module.version", st, src);
        return;
    }
    struct gd_nvidia_proc_version v;
    if (gd_parse_nvidia_proc_version(data, len, &v) == GD_OK) {
        gd_fact_str(drv, "kernel_module.version", v.version, src);
        gd_fact_str(drv, "kernel_module.flavor", v.open_module ? "open" : "proprietary", src);
        if (v.gcc[0])
            gd_fact_str(drv, "kernel_module.gcc", v.gcc, src);
    } else {
        gd_fact_unknown(drv, "kernel_module.version", "no \"NVRM version:\" line", src);
    }
    gd_free(data);
}

static void probe_sys_version(struct gd_probe_ctx *ctx, struct gd_entity *drv)
{
    char *data;
    size_t len;
    struct gd_source src = gd_src(GD_SOURCE_FILE, SYS_VERSION);
    enum gd_status st = gd_root_read_file(ctx->root, SYS_VERSION, GD_PROBE_TEXT_MAX, &data, &len);
    if (st != GD_OK) {
        gd_probe_fact_failed(drv, "kernel_module.sys_version", st, src);
        return;
    }
    char version[32];
    if (gd_find_driver_version(data, len, version, sizeof version))
        gd_fact_str(drv, "kernel_module.sys_version", version, src);
    else
        gd_fact_unknown(drv, "kernel_module.sys_version", "not a version", src);
    gd_free(data);
}

/* Whether each module is loaded: /proc/modules when readable, else /sys/module/<name>. */
static void probe_loaded(struct gd_probe_ctx *ctx, struct gd_entity *drv)
{
    static const char *const modules[] = { "nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm",
                                           "nouveau" };
    char *data = NULL;
    size_t len = 0;
    enum gd_status st =
        gd_root_read_file(ctx->root, "/proc/modules", 4 * GD_PROBE_TEXT_MAX, &data, &len);
    for (size_t i = 0; i < sizeof modules / sizeof *modules; i++) {
        char name[64], sys[96];
        snprintf(name, sizeof name, "module.%s.loaded", modules[i]);
        if (st == GD_OK) {
            gd_fact_bool(drv, name, gd_proc_modules_has(data, len, modules[i]),
                         gd_src(GD_SOURCE_FILE, "/proc/modules"));
            continue;
        }
        snprintf(sys, sizeof sys, "/sys/module/%s", modules[i]);
        struct gd_os_stat s;
        enum gd_status ss = gd_root_stat(ctx->root, sys, &s);
        if (ss == GD_OK || ss == GD_ENOENT)
            gd_fact_bool(drv, name, ss == GD_OK, gd_src(GD_SOURCE_PATH, sys));
        else
            gd_probe_fact_failed(drv, name, ss, gd_src(GD_SOURCE_PATH, sys));
    }
    gd_free(data);
}

/* Directories modprobe reads configuration from, per modprobe.d(5). */
static const char *const modprobe_dirs[] = { "/etc/modprobe.d", "/run/modprobe.d",
                                             "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
                                             "/lib/modprobe.d" };

static bool blacklisted_in_dir(struct gd_probe_ctx *ctx, struct gd_entity *drv, const char *dir)
{
    struct gd_names names;
    if (gd_root_list(ctx->root, dir, &names) != GD_OK)
        return false;
    bool found = false;
    for (size_t i = 0; i < names.count && !found; i++) {
        if (!gd_str_ends_with(names.names[i], ".conf"))
            continue;
        char *path = gd_path_join(dir, names.names[i]);
        char *data = NULL;
        size_t len;
        if (!path)
            gd_report_out_of_memory(ctx->report);
        if (path && gd_root_read_file(ctx->root, path, GD_PROBE_TEXT_MAX, &data, &len) == GD_OK) {
            struct gd_blacklist bl;
            gd_modprobe_blacklists(data, len, "nouveau", &bl);
            if (bl.blacklisted) {
                char ref[512];
                snprintf(ref, sizeof ref, "%s:%zu", path, bl.line);
                gd_fact_bool(drv, "nouveau.blacklisted", true, gd_src(GD_SOURCE_FILE, ref));
                gd_fact_str(drv, "nouveau.blacklisted_by", bl.how, gd_src(GD_SOURCE_FILE, ref));
                found = true;
            }
        }
        gd_free(data);
        gd_free(path);
    }
    gd_names_free(&names);
    return found;
}

static void probe_nouveau_blacklist(struct gd_probe_ctx *ctx, struct gd_entity *drv)
{
    for (size_t i = 0; i < sizeof modprobe_dirs / sizeof *modprobe_dirs; i++)
        if (blacklisted_in_dir(ctx, drv, modprobe_dirs[i]))
            return;
    char *data;
    size_t len;
    if (gd_root_read_file(ctx->root, "/proc/cmdline", GD_PROBE_TEXT_MAX, &data, &len) == GD_OK) {
        struct gd_blacklist bl;
        gd_cmdline_blacklists(data, len, "nouveau", &bl);
        gd_free(data);
        if (bl.blacklisted) {
            gd_fact_bool(drv, "nouveau.blacklisted", true, gd_src(GD_SOURCE_FILE, "/proc/cmdline"));
            gd_fact_str(drv, "nouveau.blacklisted_by", bl.how,
                        gd_src(GD_SOURCE_FILE, "/proc/cmdline"));
            return;
        }
    }
    char where[512] = "";
    for (size_t i = 0; i < sizeof modprobe_dirs / sizeof *modprobe_dirs; i++) {
        strcat(where, modprobe_dirs[i]);
        strcat(where, ", ");
    }
    strcat(where, "/proc/cmdline");
    gd_fact_bool(drv, "nouveau.blacklisted", false, gd_src(GD_SOURCE_PATH, where));
}

void gd_probe_kernel_module(struct gd_probe_ctx *ctx)
{
    struct gd_entity *drv = gd_report_add_entity(ctx->report, "driver", "driver");
    probe_proc_version(ctx, drv);
    probe_sys_version(ctx, drv);
    probe_loaded(ctx, drv);
    probe_nouveau_blacklist(ctx, drv);
}
