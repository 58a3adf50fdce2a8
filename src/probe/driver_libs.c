/* The user-space half of the driver: libcuda.so.<version> and libnvidia-ml.so.<version>. Their
 * file names carry the driver version, which must equal the kernel module's. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "parse/nvidia_proc.h"

#include <stdio.h>
#include <string.h>

struct family {
    const char *soname_base; /* "libcuda.so" */
    const char *fact;        /* "libcuda" */
};

/* "libcuda.so.550.54.14" -> "550.54.14"; false for "libcuda.so.1" or other names. */
static bool version_of(const char *base, const char *name, char *buf, size_t size)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || name[n] != '.')
        return false;
    const char *v = name + n + 1;
    char tmp[40];
    if (!gd_find_driver_version(v, strlen(v), tmp, sizeof tmp) || strcmp(tmp, v) != 0)
        return false;
    snprintf(buf, size, "%s", tmp);
    return true;
}

static void list_dirs(struct gd_buf *b)
{
    for (size_t i = 0; gd_driver_lib_dirs[i]; i++) {
        if (i)
            gd_buf_puts(b, ", ");
        gd_buf_puts(b, gd_driver_lib_dirs[i]);
    }
}

/* Has an earlier directory in the list the same canonical path (merged /usr, lib64 -> lib)? */
static bool seen_before(struct gd_probe_ctx *ctx, size_t index, const char *canon)
{
    for (size_t j = 0; j < index; j++) {
        char *other = NULL;
        bool same = gd_root_resolve(ctx->root, gd_driver_lib_dirs[j], true, &other) == GD_OK &&
                    strcmp(other, canon) == 0;
        gd_free(other);
        if (same)
            return true;
    }
    return false;
}

/* A driver library directory and its entries, listed once for every family. */
struct listing {
    const char *dir;
    struct gd_names names;
};

static void probe_family(struct gd_probe_ctx *ctx, struct gd_entity *drv, const struct family *f,
                         const struct listing *dirs, size_t ndirs)
{
    char fact[64], so1[64];
    snprintf(so1, sizeof so1, "%s.1", f->soname_base);
    struct gd_buf copies;
    gd_buf_init(&copies, 64 * 1024);
    long long ncopies = 0;
    bool have_path = false;
    for (size_t i = 0; i < ndirs; i++) {
        const char *dir = dirs[i].dir;
        const struct gd_names *names = &dirs[i].names;
        for (size_t k = 0; k < names->count; k++) {
            char version[40];
            if (!version_of(f->soname_base, names->names[k], version, sizeof version))
                continue;
            gd_buf_printf(&copies, "%s%s/%s", ncopies++ ? ", " : "", dir, names->names[k]);
        }
        if (have_path)
            continue;
        char *link = gd_path_join(dir, so1);
        struct gd_os_stat st;
        if (!link)
            gd_report_out_of_memory(ctx->report);
        if (link && gd_root_lstat(ctx->root, link, &st) == GD_OK) {
            have_path = true;
            char *target = NULL;
            enum gd_status rs = gd_root_resolve(ctx->root, link, true, &target);
            struct gd_os_stat tst;
            snprintf(fact, sizeof fact, "%s.path", f->fact);
            if (rs == GD_OK && gd_root_stat(ctx->root, target, &tst) == GD_OK) {
                gd_fact_str(drv, fact, target, gd_src(GD_SOURCE_PATH, link));
                char version[40];
                snprintf(fact, sizeof fact, "%s.version", f->fact);
                if (version_of(f->soname_base, gd_path_base(target), version, sizeof version))
                    gd_fact_str(drv, fact, version, gd_src(GD_SOURCE_PATH, target));
                else
                    gd_fact_unknown(drv, fact, "the file name carries no driver version",
                                    gd_src(GD_SOURCE_PATH, target));
            } else {
                char *raw = NULL;
                gd_root_readlink(ctx->root, link, &raw);
                char reason[512];
                snprintf(reason, sizeof reason, "dangling symlink to %s", raw ? raw : "?");
                gd_fact_unknown(drv, fact, reason, gd_src(GD_SOURCE_PATH, link));
                gd_free(raw);
            }
            gd_free(target);
        }
        gd_free(link);
    }
    struct gd_buf where;
    gd_buf_init(&where, 4096);
    list_dirs(&where);
    if (gd_buf_status(&where) == GD_ENOMEM || gd_buf_status(&copies) == GD_ENOMEM)
        gd_report_out_of_memory(ctx->report);
    if (!have_path) {
        snprintf(fact, sizeof fact, "%s.path", f->fact);
        char reason[160];
        snprintf(reason, sizeof reason, "no %s in the driver library directories", so1);
        gd_fact_absent(drv, fact, reason, gd_src(GD_SOURCE_PATH, gd_buf_str(&where)));
    }
    snprintf(fact, sizeof fact, "%s.copies", f->fact);
    if (ncopies)
        gd_fact_str(drv, fact, gd_buf_str(&copies), gd_src(GD_SOURCE_PATH, gd_buf_str(&where)));
    else
        gd_fact_absent(drv, fact, NULL, gd_src(GD_SOURCE_PATH, gd_buf_str(&where)));
    snprintf(fact, sizeof fact, "%s.copies.count", f->fact);
    gd_fact_int(drv, fact, ncopies, gd_src(GD_SOURCE_PATH, gd_buf_str(&where)));
    gd_buf_free(&where);
    gd_buf_free(&copies);
}

void gd_probe_driver_libs(struct gd_probe_ctx *ctx)
{
    static const struct family families[] = {
        { "libcuda.so", "libcuda" },
        { "libnvidia-ml.so", "nvml" },
    };
    struct gd_entity *drv = gd_report_add_entity(ctx->report, "driver", "driver");
    /* Each distinct directory once (merged /usr, lib64 -> lib): /usr/lib/<triplet> holds
     * thousands of entries, so listing it once per family would double the probe's cost. */
    struct listing dirs[16];
    size_t ndirs = 0;
    for (size_t i = 0; gd_driver_lib_dirs[i] && ndirs < 16; i++) {
        char *canon = NULL;
        enum gd_status st = gd_root_resolve(ctx->root, gd_driver_lib_dirs[i], true, &canon);
        bool skip = st != GD_OK || seen_before(ctx, i, canon);
        gd_free(canon);
        if (skip)
            continue;
        dirs[ndirs].dir = gd_driver_lib_dirs[i];
        if (gd_root_list(ctx->root, dirs[ndirs].dir, &dirs[ndirs].names) == GD_OK)
            ndirs++;
    }
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        probe_family(ctx, drv, &families[i], dirs, ndirs);
    for (size_t i = 0; i < ndirs; i++)
        gd_names_free(&dirs[i].names);
}
