/* The device files CUDA opens: /dev/nvidiactl, /dev/nvidia<N> per GPU, /dev/nvidia-uvm (unified
 * memory, needed by cuInit), /dev/nvidia-modeset, and WSL2's /dev/dxg. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"

#include <stdio.h>
#include <string.h>

static const char *type_name(enum gd_file_type t)
{
    switch (t) {
    case GD_FT_CHR:
        return "character device";
    case GD_FT_REG:
        return "regular file";
    case GD_FT_DIR:
        return "directory";
    case GD_FT_LNK:
        return "symlink";
    case GD_FT_BLK:
        return "block device";
    case GD_FT_FIFO:
        return "fifo";
    case GD_FT_SOCK:
        return "socket";
    default:
        return "other";
    }
}

static void probe_node(struct gd_probe_ctx *ctx, struct gd_entity *dev, const char *name)
{
    char path[64], fact[96];
    snprintf(path, sizeof path, "/dev/%s", name);
    struct gd_os_stat st;
    enum gd_status s = gd_root_stat(ctx->root, path, &st);
    snprintf(fact, sizeof fact, "%s.present", name);
    if (s != GD_OK && s != GD_ENOENT) {
        gd_probe_fact_failed(dev, fact, s, gd_src(GD_SOURCE_PATH, path));
        return;
    }
    gd_fact_bool(dev, fact, s == GD_OK, gd_src(GD_SOURCE_PATH, path));
    if (s != GD_OK)
        return;
    snprintf(fact, sizeof fact, "%s.type", name);
    gd_fact_str(dev, fact, type_name(st.type), gd_src(GD_SOURCE_PATH, path));
    if (!gd_root_is_live(ctx->root))
        return;
    /* CUDA opens these read-write; the user's groups (video, render) decide. */
    snprintf(fact, sizeof fact, "%s.accessible", name);
    char call[96];
    snprintf(call, sizeof call, "access(%s, R_OK|W_OK)", path);
    s = gd_root_access(ctx->root, path, true, true);
    if (s == GD_OK || s == GD_EACCES)
        gd_fact_bool(dev, fact, s == GD_OK, gd_src(GD_SOURCE_CALL, call));
    else
        gd_probe_fact_failed(dev, fact, s, gd_src(GD_SOURCE_CALL, call));
}

static bool is_gpu_node(const char *name)
{
    if (!gd_str_starts_with(name, "nvidia") || !name[6])
        return false;
    for (const char *p = name + 6; *p; p++)
        if (!gd_is_digit(*p))
            return false;
    return true;
}

void gd_probe_device_nodes(struct gd_probe_ctx *ctx)
{
    struct gd_entity *dev = gd_report_add_entity(ctx->report, "devices", "devices");
    static const char *const fixed[] = { "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                                         "nvidia-modeset", "dxg" };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        probe_node(ctx, dev, fixed[i]);

    struct gd_names names;
    enum gd_status st = gd_root_list(ctx->root, "/dev", &names);
    if (st != GD_OK) {
        gd_probe_fact_failed(dev, "gpus.count", st, gd_src(GD_SOURCE_PATH, "/dev"));
        return;
    }
    struct gd_buf list;
    gd_buf_init(&list, 64 * 1024);
    long long count = 0;
    for (size_t i = 0; i < names.count; i++) {
        if (!is_gpu_node(names.names[i]))
            continue;
        if (count++)
            gd_buf_putc(&list, ' ');
        gd_buf_puts(&list, names.names[i]);
        probe_node(ctx, dev, names.names[i]);
    }
    if (gd_buf_status(&list) == GD_ENOMEM)
        gd_report_out_of_memory(ctx->report);
    gd_fact_int(dev, "gpus.count", count, gd_src(GD_SOURCE_PATH, "/dev/nvidia[0-9]*"));
    if (count)
        gd_fact_str(dev, "gpus", gd_buf_str(&list), gd_src(GD_SOURCE_PATH, "/dev/nvidia[0-9]*"));
    gd_buf_free(&list);
    gd_names_free(&names);
}
