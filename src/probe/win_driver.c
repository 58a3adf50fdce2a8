/* The NVIDIA driver of a Windows machine, from its files: nvcuda.dll (the CUDA driver API) and
 * nvml.dll (NVML) where the windows_cuda table says the driver installs them, the file version
 * of each (its version resource) and the driver version NVIDIA's numbering reads from it. Facts
 * of the `driver` entity, prefixed by the DLL's name: nvcuda.path, nvcuda.file_version,
 * nvcuda.version, nvcuda.description; nvml.path, nvml.copies, ... Nothing is loaded. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "kb/kb.h"
#include "kb/windows.h"
#include "probe/pefile.h"
#include "sysroot/nocase.h"

#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 32

/* "nvcuda" of "nvcuda.dll". */
static void prefix_of(const char *dll, char *buf, size_t size)
{
    size_t n = strcspn(dll, ".");
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (dll[i] >= 'A' && dll[i] <= 'Z') ? (char)(dll[i] - 'A' + 'a') : dll[i];
    buf[n] = '\0';
}

static void fact(struct gd_entity *e, const char *prefix, const char *name, const char *value,
                 struct gd_source src)
{
    char full[96];
    snprintf(full, sizeof full, "%s.%s", prefix, name);
    gd_fact_str(e, full, value, src);
}

/* The file version, the driver version it states and the description of the DLL at `path`. */
static void read_versions(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *prefix,
                          const char *path)
{
    char name[96];
    struct gd_pe *pe = NULL;
    struct gd_pe_version v;
    enum gd_status vst;
    enum gd_status st = gd_probe_read_dll(ctx->root, path, &pe, &v, &vst);
    snprintf(name, sizeof name, "%s.file_version", prefix);
    if (st == GD_ENOMEM) {
        gd_report_out_of_memory(ctx->report);
        return;
    }
    if (st != GD_OK) {
        gd_fact_unknown(e, name,
                        st == GD_EFORMAT ? "not a PE image (a DLL)"
                                         : gd_report_printf(ctx->report, "cannot read it: %s",
                                                            gd_status_str(st)),
                        gd_src(GD_SOURCE_FILE, path));
        return;
    }
    gd_pe_free(pe);
    if (vst != GD_OK || !v.has_fixed) {
        gd_fact_unknown(
            e, name,
            vst == GD_ENOENT || vst == GD_OK
                ? "the DLL has no version resource"
                : gd_report_printf(ctx->report, "its version resource: %s", gd_status_str(vst)),
            gd_src(GD_SOURCE_FILE, path));
        return;
    }
    char text[32];
    gd_pe_version_format(v.file, text, sizeof text);
    gd_fact_str(e, name, text, gd_src(GD_SOURCE_FILE, path));
    if (v.file_description[0])
        fact(e, prefix, "description", v.file_description, gd_src(GD_SOURCE_FILE, path));
    /* NVIDIA's numbering (windows_cuda, driver_version): 31.0.15.3623 is driver 536.23. */
    char driver[32];
    const struct gd_kb_row *row = NULL;
    snprintf(name, sizeof name, "%s.version", prefix);
    st = gd_kb_win_driver_version(ctx->kb, v.file, driver, sizeof driver, &row);
    struct gd_source derived =
        gd_src(GD_SOURCE_DERIVED,
               gd_report_printf(ctx->report, "%s.file_version %s by NVIDIA's driver numbering (%s)",
                                prefix, text,
                                row ? gd_kb_row_source(row) : "windows_cuda: driver_version"));
    if (st == GD_OK)
        gd_fact_str(e, name, driver, derived);
    else
        gd_fact_unknown(e, name,
                        st == GD_EFORMAT ? "the file version is not in NVIDIA's driver numbering"
                                         : "the knowledge base has no driver numbering",
                        derived);
}

/* One driver DLL: where it is (the first of its directories that holds it, and every copy),
 * and its versions. */
static void driver_dll(struct gd_probe_ctx *ctx, struct gd_entity *e, const struct gd_kb_row *row)
{
    const char *dll = gd_kb_str(row, "dll");
    char prefix[PREFIX_MAX], name[96];
    prefix_of(dll, prefix, sizeof prefix);
    struct gd_buf looked, copies;
    gd_buf_init(&looked, 4096);
    gd_buf_init(&copies, 4096);
    char *first = NULL;
    size_t n = 0;
    for (size_t i = 0; i < gd_kb_list_len(row, "dirs"); i++) {
        char path[GD_ROOT_PATH_MAX];
        snprintf(path, sizeof path, "/%s/%s", gd_kb_list_at(row, "dirs", i), dll);
        gd_buf_printf(&looked, "%s/%s", i ? ", " : "", gd_kb_list_at(row, "dirs", i));
        char *found = NULL;
        enum gd_status st = gd_root_find_nocase(ctx->root, path, &found);
        struct gd_os_stat s;
        if (st == GD_OK && gd_root_stat(ctx->root, found, &s) == GD_OK && s.type == GD_FT_REG) {
            gd_buf_printf(&copies, "%s%s", n++ ? "," : "", found);
            if (!first) {
                first = found;
                found = NULL;
            }
        } else if (st == GD_ENOMEM) {
            gd_report_out_of_memory(ctx->report);
        }
        gd_free(found);
    }
    if (gd_buf_status(&looked) == GD_ENOMEM || gd_buf_status(&copies) == GD_ENOMEM)
        gd_report_out_of_memory(ctx->report);
    snprintf(name, sizeof name, "%s.path", prefix);
    struct gd_source where = gd_src(GD_SOURCE_PATH, gd_buf_str(&looked));
    if (!first) {
        gd_fact_absent(
            e, name, gd_report_printf(ctx->report, "no %s in %s", dll, gd_buf_str(&looked)), where);
    } else {
        gd_fact_str(e, name, first, gd_src(GD_SOURCE_PATH, first));
        if (n > 1)
            fact(e, prefix, "copies", gd_buf_str(&copies), where);
        read_versions(ctx, e, prefix, first);
    }
    gd_free(first);
    gd_buf_free(&looked);
    gd_buf_free(&copies);
}

void gd_probe_win_driver(struct gd_probe_ctx *ctx)
{
    struct gd_entity *e = gd_report_add_entity(ctx->report, "driver", "driver");
    const struct gd_kb_table *t = gd_kb_table(ctx->kb, "windows_cuda");
    size_t seen = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind"), *dll = gd_kb_str(row, "dll");
        if (!kind || strcmp(kind, "driver_dll") != 0 || !dll || !gd_kb_list_len(row, "dirs"))
            continue;
        driver_dll(ctx, e, row);
        seen++;
    }
    if (!seen)
        gd_fact_unknown(e, "nvcuda.path", "the knowledge base has no windows_cuda driver rows",
                        gd_src(GD_SOURCE_KB, "windows_cuda"));
}
